import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { cardBrand, maskCardNumber, validateCard } from '../../helpers/card';
import { showFor } from '../common';
import type { Item } from '../../item';
import type { OperationMeta } from '../common';
import { intentReferenceField, sendCardStep } from './fields';
import { cardTokenPath } from '../../transport/gateway';

/** What the registry knows of this operation (actions/registry.ts). */
export const meta: OperationMeta = {
	subtitle: 'Card 1/5 · Send Card',
	rowKey: { parameter: 'reference', field: 'reference' },
};

export const description: INodeProperties[] = showFor('card', 'getDeviceDataCollectionToken', [
	intentReferenceField,
	{
		displayName: 'Card Number',
		name: 'cardNumber',
		type: 'string',
		typeOptions: { password: true },
		required: true,
		default: '',
		description:
			"The payer's card number (cc_number); never returned by the node, only its last four digits",
	},
	{
		displayName: 'CVV',
		name: 'cvv',
		type: 'string',
		typeOptions: { password: true },
		required: true,
		default: '',
		description: 'Security code (cc_cvv); never returned by the node',
	},
	{
		displayName: 'Expiry (MM/YY)',
		name: 'expiry',
		type: 'string',
		required: true,
		default: '',
		placeholder: '01/27',
		hint: 'Month and year as printed on the card: MM/YY',
		description: 'Expiry month and year as printed on the card (cc_exp)',
	},
	{
		displayName: 'Cardholder Name',
		name: 'cardholderName',
		type: 'string',
		required: true,
		default: '',
		description: 'Name as printed on the card (cc_name)',
	},
]);

/**
 * Sends the card to Little Pay and returns the device data collection token. The output holds
 * the masked card only: the number, CVV and expiry never leave this function.
 */
export async function execute(this: IExecuteFunctions, item: Item): Promise<IDataObject> {
	const itemIndex = item.index;
	const node = this.getNode();
	const reference = item.text('reference', 'Intent Reference');
	const card = validateCard(node, itemIndex, {
		number: this.getNodeParameter('cardNumber', itemIndex),
		cvv: this.getNodeParameter('cvv', itemIndex),
		expiry: this.getNodeParameter('expiry', itemIndex),
		name: this.getNodeParameter('cardholderName', itemIndex),
	});
	// The payer retries a lost answer: the card is not resent blindly.
	const data = await sendCardStep(
		item,
		cardTokenPath(reference),
		{ type: 'CARDS', payment: { ...card } },
		'card token request',
		'No payment was made. Ask the payer to submit the card again.',
	);
	const paToken = (data.paToken ?? {}) as IDataObject;
	return {
		reference: data.reference ?? reference,
		message: data.message ?? null,
		accessToken: paToken.accessToken ?? null,
		deviceDataCollectionUrl: paToken.deviceDataCollectionUrl ?? null,
		referenceId: paToken.referenceId ?? null,
		token: paToken.token ?? null,
		card: {
			brand: cardBrand(card.cc_number),
			last4: card.cc_number.slice(-4),
			masked: maskCardNumber(card.cc_number),
			name: card.cc_name,
		},
	};
}

import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { createIntent } from '../../flows/createIntent';
import { showFor } from '../common';
import type { Item } from '../../item';
import type { OperationMeta } from '../common';
import {
	intentBusinessFields,
	intentCallbackAndKeyFields,
	intentOptionsCollection,
} from './fields';

/** What the registry knows of this operation (actions/registry.ts). */
export const meta: OperationMeta = {
	subtitle: 'Create · Payment Intent',
	rowKey: { parameter: 'key', field: 'key' },
	moves: 'payment',
	toolSummary:
		'Creates a Little Pay payment intent and returns its reference and checkout link (checkoutUrl) to send to the payer.',
	createsIntent: true,
};

export const description: INodeProperties[] = showFor('paymentIntent', 'create', [
	...intentBusinessFields,
	{
		displayName: 'Payer Email',
		name: 'email',
		type: 'string',
		placeholder: 'name@email.com',
		default: '',
		hint: "Little Pay needs the payer's email or phone number: fill at least one of the two",
		description: 'Billing email of the payer, sent as payload.billingAddress.email',
	},
	{
		displayName: 'Payer Phone Number',
		name: 'phoneNumber',
		type: 'string',
		placeholder: '+254712345678',
		default: '',
		hint: 'Needed when Payer Email is empty; international format with the country code',
		description: 'Billing phone number of the payer, sent as payload.billingAddress.phoneNumber',
	},
	...intentCallbackAndKeyFields,
	{
		displayName:
			'Create returns at once with the checkout link (checkoutUrl). To wait for the payer, send the link (SMS, e-mail, chat), then add Little Pay: Payment: Wait for Completion. With Callback URL {{ $execution.resumeUrl }} it can pause until Little Pay calls back, as example 6 does.',
		name: 'waitNotice',
		type: 'notice',
		default: '',
	},
	intentOptionsCollection(),
]);

/**
 * Creates a payment intent and returns at once with its checkout link. It does not wait: a wait here
 * would hold the link inside this node, where no later node can send it to the payer.
 */
export async function execute(this: IExecuteFunctions, item: Item): Promise<IDataObject> {
	return await createIntent(item, 'create');
}

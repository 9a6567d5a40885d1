import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { normalizeMobileNumber, requireText } from '../helpers/validation';
import type { MobileNetwork } from '../helpers/validation';
import { NodeOperationError } from 'n8n-workflow';

import { expectSuccess, isLost, readLittlePay, sendOnce } from '../transport';
import { COUNTRY_OPTIONS, NETWORK_OPTIONS, showFor } from './common';
import { waitTimeoutField, waitForFinalStatus } from './payment';
import { createIntent, intentFields } from './paymentIntent';

export const mobileMoneyOperations: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { resource: ['mobileMoney'] } },
	options: [
		{ name: 'Collect', value: 'collect', action: 'Collect a mobile money payment', description: 'Create an intent, send the PIN prompt and optionally wait for the result' },
		{ name: 'Request Payment', value: 'requestPayment', action: 'Request a mobile money payment', description: 'Send the PIN prompt for an existing intent' },
	],
	default: 'collect',
};

const payerFields: INodeProperties[] = [
	{ displayName: 'Network', name: 'network', type: 'options', options: NETWORK_OPTIONS, default: 'MPESA', description: 'Mobile money network of the payer' },
	{ displayName: 'Mobile Number', name: 'mobile', type: 'string', required: true, default: '', placeholder: '+254712345678', description: 'Payer number; +254 712 345 678, 254712345678 or 0712345678 (with Country) are accepted' },
	{ displayName: 'Country', name: 'country', type: 'options', options: COUNTRY_OPTIONS, default: 'KE', description: 'Used only for numbers typed in national form, starting with 0' },
];

export const mobileMoneyFields: INodeProperties[] = [
	...showFor('mobileMoney', ['requestPayment'], [
		{ displayName: 'Intent Reference', name: 'reference', type: 'string', required: true, default: '', description: 'Reference returned when the intent was created' },
	]),
	...showFor('mobileMoney', ['collect'], intentFields),
	...showFor('mobileMoney', ['requestPayment', 'collect'], payerFields),
	...showFor('mobileMoney', ['collect'], [
		{ displayName: 'Wait for Completion', name: 'wait', type: 'boolean', default: true, description: 'Whether to wait for the payer to answer the PIN prompt and return the final status' },
		{ ...waitTimeoutField, displayOptions: { show: { wait: [true] } } },
	]),
];

/** Sends the PIN prompt once; if the answer is lost, the status record's attempts tell whether it went through. */
async function pushPrompt(context: IExecuteFunctions, itemIndex: number, reference: string, network: MobileNetwork, mobile: string): Promise<IDataObject> {
	const request = {
		credential: 'littlePayApiKeyApi' as const,
		method: 'POST' as const,
		path: `/pay/${encodeURIComponent(reference)}/process`,
		body: { type: network, payment: { mobile } },
		itemIndex,
	};
	const first = await sendOnce(context, request);
	if (!isLost(first)) return expectSuccess(context, first, itemIndex);
	// The answer was lost: the status record's attempts show whether the prompt went out.
	const status = await readLittlePay(context, { credential: 'littlePayApiKeyApi', method: 'GET', path: `/api/payments-v2/${encodeURIComponent(reference)}`, itemIndex });
	const record = expectSuccess(context, status, itemIndex);
	const attempts = Array.isArray(record.attempts) ? record.attempts : [];
	if (attempts.length > 0) return { status: record.status, message: 'Recovered: the prompt was already sent (the first answer was lost)', recovered: true };
	const second = await sendOnce(context, request);
	if (isLost(second)) {
		throw new NodeOperationError(context.getNode(), `Item ${itemIndex}: the PIN prompt's outcome is unknown (${second.reason})`, {
			itemIndex,
			description: 'Check the payment status before sending the prompt again',
		});
	}
	return expectSuccess(context, second, itemIndex);
}

/** Runs a Mobile Money operation for one item. */
export async function executeMobileMoney(context: IExecuteFunctions, itemIndex: number, operation: string): Promise<IDataObject> {
	const node = context.getNode();
	const network = context.getNodeParameter('network', itemIndex) as MobileNetwork;
	const mobile = normalizeMobileNumber(node, itemIndex, context.getNodeParameter('mobile', itemIndex) as string, network, context.getNodeParameter('country', itemIndex, 'KE') as string);
	if (operation === 'requestPayment') {
		const reference = requireText(node, itemIndex, context.getNodeParameter('reference', itemIndex), 'Intent Reference');
		return { reference, ...(await pushPrompt(context, itemIndex, reference, network, mobile)) };
	}
	const intent = await createIntent(context, itemIndex, operation);
	const reference = String(intent.reference);
	const prompt = await pushPrompt(context, itemIndex, reference, network, mobile);
	const result: IDataObject = { reference, key: intent.key, checkoutUrl: intent.checkoutUrl, mobile, network, status: prompt.status, message: prompt.message };
	if (!(context.getNodeParameter('wait', itemIndex, true) as boolean)) return result;
	const final = await waitForFinalStatus(context, itemIndex, reference, context.getNodeParameter('waitTimeoutSeconds', itemIndex, 300) as number);
	return { ...result, status: final.status, amount: final.amount, timedOut: final.timedOut };
}

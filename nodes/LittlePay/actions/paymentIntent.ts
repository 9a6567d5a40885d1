import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { invalidInput, requireText, validateAmount, validateUrl } from '../helpers/validation';
import { expectSuccess } from '../transport';
import { createOnce, keyForItem, showFor } from './common';

export const paymentIntentOperations: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { resource: ['paymentIntent'] } },
	options: [{ name: 'Create', value: 'create', action: 'Create a payment intent', description: 'Create a payment request and get its reference and checkout URL' }],
	default: 'create',
};

/** Intent fields, shared by Payment Intent: Create and Mobile Money: Collect. */
export const intentFields: INodeProperties[] = [
	{ displayName: 'Amount', name: 'amount', type: 'number', required: true, default: 0, description: 'Amount to collect, in the currency unit' },
	{ displayName: 'Currency', name: 'currency', type: 'string', default: 'KES', description: 'Currency code; Little Pay defaults to KES' },
	{ displayName: 'Description', name: 'description', type: 'string', required: true, default: '', description: 'Description of the payment shown to the payer' },
	{ displayName: 'Callback URL', name: 'callbackUrl', type: 'string', required: true, default: '', description: 'URL Little Pay calls when the payment completes, e.g. the Production URL of a Little Pay Trigger' },
	{ displayName: 'Key', name: 'key', type: 'string', default: '', description: 'Your unique alphanumeric ID for this payment (8-12 characters recommended). Empty generates one that stays the same when n8n retries this item.' },
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			{ displayName: 'Authentication Redirect URL', name: 'authenticationRedirectUrl', type: 'string', default: '', description: 'Where the payer goes after 3-D Secure step-up' },
			{
				displayName: 'Billing Address',
				name: 'billingAddress',
				type: 'fixedCollection',
				default: {},
				description: 'Payer details; complete data helps card payments pass address checks. Email or phone number is required.',
				options: [
					{
						displayName: 'Address',
						name: 'address',
						values: [
							{ displayName: 'Address Line', name: 'address1', type: 'string', default: '' },
							{ displayName: 'Administrative Area', name: 'administrativeArea', type: 'string', default: '', description: 'State, county or province' },
							{ displayName: 'Country', name: 'country', type: 'string', default: '', description: 'ISO two-letter country code' },
							{ displayName: 'Email', name: 'email', type: 'string', placeholder: 'name@email.com', default: '' },
							{ displayName: 'First Name', name: 'firstName', type: 'string', default: '' },
							{ displayName: 'Last Name', name: 'lastName', type: 'string', default: '' },
							{ displayName: 'Locality', name: 'locality', type: 'string', default: '', description: 'City or town' },
							{ displayName: 'Phone Number', name: 'phoneNumber', type: 'string', default: '', description: 'International format with country code' },
							{ displayName: 'Postal Code', name: 'postalCode', type: 'string', default: '' },
						],
					},
				],
			},
			{ displayName: 'Custom Data (JSON)', name: 'customData', type: 'json', default: '{}', description: 'Any JSON you attach to the payment' },
			{ displayName: 'Expires In (Minutes)', name: 'expiresAt', type: 'number', typeOptions: { minValue: 1 }, default: 30, description: 'Minutes until the intent expires' },
			{ displayName: 'Return URL', name: 'returnUrl', type: 'string', default: '', description: 'Where the payer goes after paying on the hosted checkout page' },
		],
	},
];

export const paymentIntentFields: INodeProperties[] = showFor('paymentIntent', ['create'], intentFields);

/** Validates the intent fields of one item and creates the intent once; returns reference, checkout URL, key. */
export async function createIntent(context: IExecuteFunctions, itemIndex: number, operation: string): Promise<IDataObject> {
	const node = context.getNode();
	const amount = validateAmount(node, itemIndex, context.getNodeParameter('amount', itemIndex));
	const currency = requireText(node, itemIndex, context.getNodeParameter('currency', itemIndex, 'KES'), 'Currency');
	const description = requireText(node, itemIndex, context.getNodeParameter('description', itemIndex), 'Description');
	const callbackUrl = validateUrl(node, itemIndex, context.getNodeParameter('callbackUrl', itemIndex) as string, 'Callback URL');
	const key = keyForItem(context, itemIndex, context.getNodeParameter('key', itemIndex, '') as string, operation);
	const extra = context.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;

	const body: IDataObject = { amount, currency, description, callbackUrl, key };
	if (extra.returnUrl) body.returnUrl = validateUrl(node, itemIndex, extra.returnUrl as string, 'Return URL');
	if (extra.expiresAt !== undefined) body.expiresAt = validateAmount(node, itemIndex, extra.expiresAt, 'Expires In (Minutes)');
	const payload: IDataObject = {};
	const address = ((extra.billingAddress as IDataObject | undefined)?.address ?? undefined) as IDataObject | undefined;
	if (address) payload.billingAddress = address;
	if (extra.customData !== undefined && extra.customData !== '') {
		let customData: unknown = extra.customData;
		if (typeof customData === 'string') {
			try {
				customData = JSON.parse(customData);
			} catch {
				invalidInput(node, itemIndex, 'Custom Data (JSON)', 'is not valid JSON', 'Enter a JSON object such as {"orderId": 42}');
			}
		}
		payload.customData = customData as IDataObject;
	}
	if (Object.keys(payload).length > 0) body.payload = payload;
	if (extra.authenticationRedirectUrl) {
		body.metadata = { authenticationRedirectUrl: validateUrl(node, itemIndex, extra.authenticationRedirectUrl as string, 'Authentication Redirect URL') };
	}

	const credentials = await context.getCredentials('littlePayBasicApi', itemIndex);
	let hasApiKey = true;
	try {
		await context.getCredentials('littlePayApiKeyApi', itemIndex);
	} catch {
		// Without the API key the node cannot look the intent up, so an unknown outcome is reported instead.
		hasApiKey = false;
	}
	const { response, recovered } = await createOnce(
		context,
		{ credential: 'littlePayBasicApi', method: 'POST', path: `/api/payments/${encodeURIComponent(String(credentials.tokenId))}/pay`, body, itemIndex },
		hasApiKey ? { credential: 'littlePayApiKeyApi', method: 'GET', path: `/api/payments-v2/${key}`, itemIndex } : undefined,
		'payment intent',
	);
	const data = expectSuccess(context, response, itemIndex);
	if (recovered) {
		return { reference: data.reference, checkoutUrl: data.checkoutUrl ?? null, key, message: 'Recovered: the intent existed already (the first answer was lost)', recovered: true };
	}
	return { reference: data.reference, checkoutUrl: data.checkoutUrl, key, message: data.message };
}

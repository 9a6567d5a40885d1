import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import {
	BILLING_ADDRESS_FIELDS,
	invalidInput,
	MAX_EXPIRES_IN_MINUTES,
	requireText,
	validateAmount,
	validateExpiresIn,
	validateUrl,
} from '../../helpers/validation';
import { enforceLimits } from '../../money/guard';
import { createOnce, credentialData, expectSuccess } from '../../transport';
import { AMOUNT_HINT, currencyField, generatedKeyMayExist, keyForItem, showFor } from '../common';
import { resumeUrlOf } from '../payment/pause';

/** The amount of an intent, with its unit visible under the field. */
export const amountField: INodeProperties = {
	displayName: 'Amount',
	name: 'amount',
	type: 'number',
	required: true,
	default: 0,
	hint: AMOUNT_HINT,
	description:
		'Amount to collect. Little Pay accepts decimals; M-Pesa rounds them to whole shillings.',
};

/** Amount, currency and the order description: what the payer sees and pays. */
export const intentBusinessFields: INodeProperties[] = [
	amountField,
	currencyField,
	{
		displayName: 'Description',
		name: 'description',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'Order 1001',
		description: 'What the payment is for, shown to the payer and returned in the status record',
	},
];

/** Where Little Pay reports the result, and the merchant's key of the intent. */
export const intentCallbackAndKeyFields: INodeProperties[] = [
	{
		displayName: 'Callback URL',
		name: 'callbackUrl',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'https://your-n8n/webhook/.../littlepay',
		hint: 'Usually the Production URL of a Little Pay Trigger workflow',
		description:
			'URL Little Pay calls with the result of the payment. To pause in Payment: Wait for Completion instead, use {{ $execution.resumeUrl }}.',
		// When pausing, the callback goes to the execution's own resume URL.
		displayOptions: { hide: { waitForPayment: ['pause'] } },
	},
	{
		displayName: 'Key',
		name: 'key',
		type: 'string',
		default: '',
		placeholder: 'order1001',
		hint: 'Map your order number (letters and digits) so no new run can charge twice. Empty generates one.',
		description:
			'Your unique alphanumeric ID for this payment (8-12 characters recommended). An empty Key is generated so that Retry On Fail and Retry from the Executions list reuse it, but a new execution makes new ones.',
	},
	{
		displayName:
			'Key is empty: every execution generates a new key, so running this workflow again (or Execute step, or a re-sent trigger) creates a new intent and can charge the payer again. Map your order number, e.g. {{ $json.orderId }}.',
		name: 'emptyKeyNotice',
		type: 'notice',
		default: '',
		// Shown while Key is empty; a mapped expression or a typed key hides it.
		displayOptions: { hide: { key: [{ _cnd: { exists: true } }] } },
	},
];

/** Billing details Little Pay passes to card checks; optional, so they sit in Options. */
const billingOptions: INodeProperties[] = [
	{
		displayName: 'Billing Address Line',
		name: 'address1',
		type: 'string',
		default: '',
		description: 'Street address of the payer; complete billing data helps card payments pass',
	},
	{
		displayName: 'Billing City',
		name: 'locality',
		type: 'string',
		default: '',
		description: 'City or town of the payer',
	},
	{
		displayName: 'Billing Country',
		name: 'country',
		type: 'string',
		default: '',
		placeholder: 'KE',
		description: 'ISO two-letter country code of the payer',
	},
	{
		displayName: 'Billing First Name',
		name: 'firstName',
		type: 'string',
		default: '',
	},
	{
		displayName: 'Billing Last Name',
		name: 'lastName',
		type: 'string',
		default: '',
	},
	{
		displayName: 'Billing Postal Code',
		name: 'postalCode',
		type: 'string',
		default: '',
	},
	{
		displayName: 'Billing State or County',
		name: 'administrativeArea',
		type: 'string',
		default: '',
		description: 'State, county or province of the payer',
	},
];

/** The billing address fields the Options collection may carry (the phone number is a field of its own). */
const BILLING_OPTION_NAMES = BILLING_ADDRESS_FIELDS.filter((name) => name !== 'phoneNumber');

const intentOptions: INodeProperties[] = [
	{
		displayName: 'Authentication Redirect URL',
		name: 'authenticationRedirectUrl',
		type: 'string',
		default: '',
		description: "Where the payer goes after the bank's 3-D Secure check (card payments)",
	},
	...billingOptions,
	{
		displayName: 'Custom Data (JSON)',
		name: 'customData',
		type: 'json',
		default: '{}',
		description: 'Any JSON you attach to the payment',
	},
	{
		displayName: 'Expires In (Minutes)',
		name: 'expiresAt',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: MAX_EXPIRES_IN_MINUTES, numberPrecision: 0 },
		default: 30,
		description: 'Whole minutes until the intent expires, from 1 to 43200 (30 days)',
	},
	{
		displayName: 'Return URL',
		name: 'returnUrl',
		type: 'string',
		default: '',
		description: 'Where the payer goes after paying on the hosted checkout page',
	},
];

/** Sorts collection options by display name, as n8n lists them. */
export function byDisplayName(options: INodeProperties[]): INodeProperties[] {
	return [...options].sort((a, b) => a.displayName.localeCompare(b.displayName));
}

/** The one Options collection of an intent-creating operation, with extra options of that operation. */
export function intentOptionsCollection(extra: INodeProperties[] = []): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: byDisplayName([...intentOptions, ...extra]),
	};
}

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

/** Parses the Custom Data (JSON) field into an object. */
function parseCustomData(
	context: IExecuteFunctions,
	itemIndex: number,
	value: unknown,
): IDataObject {
	if (typeof value !== 'string') return value as IDataObject;
	try {
		const parsed: unknown = JSON.parse(value);
		if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
			return parsed as IDataObject;
	} catch {
		// Reported below with the field named.
	}
	invalidInput(
		context.getNode(),
		itemIndex,
		'Custom Data (JSON)',
		'is not a JSON object',
		'Enter a JSON object such as {"orderId": 42}',
	);
}

/**
 * Validates the intent fields of one item and creates the intent once; returns reference,
 * checkout URL and key. `payerPhone` fills the billing phone number when the user gave neither
 * email nor phone (Mobile Money: Collect knows the payer's number).
 */
export async function createIntent(
	context: IExecuteFunctions,
	itemIndex: number,
	operation: string,
	payerPhone?: string,
	pause?: { timeoutMinutes: number },
	network?: string,
): Promise<IDataObject> {
	const node = context.getNode();
	const amount = validateAmount(node, itemIndex, context.getNodeParameter('amount', itemIndex));
	const currency = requireText(
		node,
		itemIndex,
		context.getNodeParameter('currency', itemIndex, 'KES'),
		'Currency',
	);
	const description = requireText(
		node,
		itemIndex,
		context.getNodeParameter('description', itemIndex),
		'Description',
	);
	const callbackUrl = pause
		? resumeUrlOf(context, itemIndex)
		: validateUrl(
				node,
				itemIndex,
				context.getNodeParameter('callbackUrl', itemIndex) as string,
				'Callback URL',
			);
	const { key } = keyForItem(
		context,
		itemIndex,
		context.getNodeParameter('key', itemIndex, ''),
		operation,
	);
	const extra = context.getNodeParameter('options', itemIndex, {}) as IDataObject;

	const body: IDataObject = { amount, currency, description, callbackUrl, key };
	if (extra.returnUrl)
		body.returnUrl = validateUrl(node, itemIndex, extra.returnUrl as string, 'Return URL');
	if (extra.expiresAt !== undefined)
		body.expiresAt = validateExpiresIn(node, itemIndex, extra.expiresAt);
	// A paused checkout link stops being payable when the execution stops waiting for it.
	else if (pause) body.expiresAt = Math.ceil(pause.timeoutMinutes);
	const address: IDataObject = {};
	for (const name of BILLING_OPTION_NAMES) {
		if (extra[name] !== undefined && extra[name] !== '') address[name] = extra[name];
	}
	// Payment Intent: Create shows the payer's email and phone as fields of their own.
	for (const name of ['email', 'phoneNumber']) {
		const value = String(context.getNodeParameter(name, itemIndex, '') ?? '').trim();
		if (value !== '') address[name] = value;
	}
	if (!address.email && !address.phoneNumber && payerPhone) address.phoneNumber = `+${payerPhone}`;
	// Little Pay requires at least one way to reach the payer.
	if (!address.email && !address.phoneNumber) {
		invalidInput(
			node,
			itemIndex,
			'Payer Email',
			'or Payer Phone Number is needed',
			'Little Pay needs a way to reach the payer: fill Payer Email (amina@example.com) or Payer Phone Number (+254712345678)',
		);
	}
	const payload: IDataObject = { billingAddress: address };
	if (extra.customData !== undefined && extra.customData !== '')
		payload.customData = parseCustomData(context, itemIndex, extra.customData);
	body.payload = payload;
	if (extra.authenticationRedirectUrl) {
		body.metadata = {
			authenticationRedirectUrl: validateUrl(
				node,
				itemIndex,
				extra.authenticationRedirectUrl as string,
				'Authentication Redirect URL',
			),
		};
	}

	await enforceLimits(context, itemIndex, { kind: 'payment', amount, currency, network });
	const credentials = await credentialData(context, 'littlePayBasicApi', itemIndex);
	const { response, outcome } = await createOnce(
		context,
		{
			credential: 'littlePayBasicApi',
			method: 'POST',
			path: `/api/payments/${encodeURIComponent(String(credentials.tokenId))}/pay`,
			body,
			itemIndex,
		},
		{
			request: {
				credential: 'littlePayApiKeyApi',
				method: 'GET',
				path: `/api/payments-v2/${key}`,
				itemIndex,
			},
			key,
			checkFirst: generatedKeyMayExist(context, itemIndex),
			expected: { amount, currency, description },
		},
		'payment intent',
	);
	const data = expectSuccess(context, response, itemIndex);
	// The same names as Get Status and the trigger use, so later nodes read one vocabulary.
	const found = {
		reference: data.reference,
		key,
		// Found by key, the status record carries no checkout address.
		checkoutUrl: data.checkoutUrl ?? null,
		amount,
		currency,
		description,
	};
	if (outcome === 'created') return { ...found, message: data.message };
	if (outcome === 'recovered') {
		return {
			...found,
			message:
				'Recovered: this intent already existed (an earlier attempt of this item created it)',
			recovered: true,
		};
	}
	return {
		...found,
		message: 'This key already had the same payment intent; nothing new was created',
		alreadyExisted: true,
	};
}

/**
 * Creates a payment intent and returns at once with its checkout link. It does not wait: a wait here
 * would hold the link inside this node, where no later node can send it to the payer.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	return await createIntent(this, itemIndex, 'create');
}

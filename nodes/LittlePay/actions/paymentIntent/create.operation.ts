import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import {
	invalidInput,
	MAX_EXPIRES_IN_MINUTES,
	requireText,
	validateAmount,
	validateExpiresIn,
	validateUrl,
} from '../../helpers/validation';
import { enforceLimits } from '../../money/guard';
import { createOnce, credentialData, expectSuccess } from '../../transport';
import { isExecutionRetry, keyForItem, showFor } from '../common';
import {
	longPollTimeoutField,
	pauseFields,
	pauseForIntent,
	readPause,
	resumeUrlOf,
	waitForPaymentField,
} from '../payment/pause';
import { waitForFinalStatus } from '../payment/waitForCompletion.operation';

/** Intent fields, shared by Payment Intent: Create and Mobile Money: Collect. */
export const intentFields: INodeProperties[] = [
	{
		displayName: 'Amount',
		name: 'amount',
		type: 'number',
		required: true,
		default: 0,
		description:
			"Amount to collect in the currency's main unit, not cents: 1500 is KES 1,500. Little Pay accepts decimals; M-Pesa rounds them to whole shillings.",
	},
	{
		displayName: 'Currency',
		name: 'currency',
		type: 'string',
		default: 'KES',
		description: 'Currency code; Little Pay defaults to KES',
	},
	{
		displayName: 'Description',
		name: 'description',
		type: 'string',
		required: true,
		default: '',
		description: 'Description of the payment shown to the payer',
	},
	{
		displayName: 'Callback URL',
		name: 'callbackUrl',
		type: 'string',
		required: true,
		default: '',
		description:
			'URL Little Pay calls when the payment completes, e.g. the Production URL of a Little Pay Trigger',
		// When pausing, the callback goes to the execution's own resume URL.
		displayOptions: { hide: { waitForPayment: ['pause'] } },
	},
	{
		displayName: 'Key',
		name: 'key',
		type: 'string',
		default: '',
		description:
			'Your unique alphanumeric ID for this payment, such as the order number (8-12 characters recommended). Empty generates one that Retry On Fail and Retry from the Executions list reuse, but a new execution makes new ones.',
	},
	{
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options: [
			{
				displayName: 'Authentication Redirect URL',
				name: 'authenticationRedirectUrl',
				type: 'string',
				default: '',
				description: 'Where the payer goes after 3-D Secure step-up',
			},
			{
				displayName: 'Billing Address',
				name: 'billingAddress',
				type: 'fixedCollection',
				default: {},
				description:
					'Payer details; complete data helps card payments pass address checks. Email or phone number is required.',
				options: [
					{
						displayName: 'Address',
						name: 'address',
						values: [
							{
								displayName: 'Address Line',
								name: 'address1',
								type: 'string',
								default: '',
							},
							{
								displayName: 'Administrative Area',
								name: 'administrativeArea',
								type: 'string',
								default: '',
								description: 'State, county or province',
							},
							{
								displayName: 'Country',
								name: 'country',
								type: 'string',
								default: '',
								description: 'ISO two-letter country code',
							},
							{
								displayName: 'Email',
								name: 'email',
								type: 'string',
								placeholder: 'name@email.com',
								default: '',
							},
							{
								displayName: 'First Name',
								name: 'firstName',
								type: 'string',
								default: '',
							},
							{
								displayName: 'Last Name',
								name: 'lastName',
								type: 'string',
								default: '',
							},
							{
								displayName: 'Locality',
								name: 'locality',
								type: 'string',
								default: '',
								description: 'City or town',
							},
							{
								displayName: 'Phone Number',
								name: 'phoneNumber',
								type: 'string',
								default: '',
								description: 'International format with country code',
							},
							{
								displayName: 'Postal Code',
								name: 'postalCode',
								type: 'string',
								default: '',
							},
						],
					},
				],
			},
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
		],
	},
];

export const description: INodeProperties[] = showFor('paymentIntent', 'create', [
	...intentFields,
	waitForPaymentField('no'),
	longPollTimeoutField,
	...pauseFields,
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
	const extra = context.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;

	const body: IDataObject = { amount, currency, description, callbackUrl, key };
	if (extra.returnUrl)
		body.returnUrl = validateUrl(node, itemIndex, extra.returnUrl as string, 'Return URL');
	if (extra.expiresAt !== undefined)
		body.expiresAt = validateExpiresIn(node, itemIndex, extra.expiresAt);
	// A paused checkout link stops being payable when the execution stops waiting for it.
	else if (pause) body.expiresAt = Math.ceil(pause.timeoutMinutes);
	const address: IDataObject = {
		...(((extra.billingAddress as IDataObject | undefined)?.address ?? {}) as IDataObject),
	};
	if (!address.email && !address.phoneNumber && payerPhone) address.phoneNumber = `+${payerPhone}`;
	// Little Pay requires at least one way to reach the payer.
	if (!address.email && !address.phoneNumber) {
		invalidInput(
			node,
			itemIndex,
			'Billing Address',
			'needs an Email or a Phone Number',
			'Add Additional Fields > Billing Address and fill Email or Phone Number (+254712345678)',
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
			checkFirst: isExecutionRetry(context),
			expected: { amount, currency, description },
		},
		'payment intent',
	);
	const data = expectSuccess(context, response, itemIndex);
	if (outcome === 'created') {
		return { reference: data.reference, checkoutUrl: data.checkoutUrl, key, message: data.message };
	}
	// Found by key: the status record carries no checkout address.
	const found = { reference: data.reference, checkoutUrl: data.checkoutUrl ?? null, key };
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

/** Creates a payment intent, and waits for its payment as the user chose. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const mode = this.getNodeParameter('waitForPayment', itemIndex, 'no') as string;
	if (mode === 'pause') {
		const pause = readPause(this, itemIndex);
		const intent = await createIntent(this, itemIndex, 'create', undefined, pause);
		return await pauseForIntent(this, itemIndex, intent, pause.timeoutMinutes);
	}
	const intent = await createIntent(this, itemIndex, 'create');
	if (mode !== 'longPoll') return intent;
	const final = await waitForFinalStatus(
		this,
		itemIndex,
		String(intent.reference),
		this.getNodeParameter('waitTimeoutSeconds', itemIndex, 300) as number,
	);
	return {
		...intent,
		status: final.status,
		amount: final.amount,
		message: final.message ?? intent.message,
		timedOut: final.timedOut,
	};
}

import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { requireText, validateAmount, validateExpiresIn, validateUrl } from '../helpers/validation';
import { enforceLimits } from '../money/guard';
import { credentialData, expectSuccess, paymentStatusPath } from '../transport';
import { BILLING_OPTION_NAMES } from '../actions/paymentIntent/fields';
import { resumeUrlOf } from './pause';
import { createOnce } from '../money/once';
import { generatedKeyMayExist, keyForItem } from '../money/keys';
import { invalidInput } from '../errors';

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
				path: paymentStatusPath(key),
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

import type { IDataObject } from 'n8n-workflow';

import { invalid } from '../errors';
import type { InvalidValue } from '../errors';
import {
	BILLING_OPTION_NAMES,
	validateAmount,
	validateCurrencyFor,
	validateExpiresIn,
	validateUrl,
} from '../helpers/validation';
import type { Item } from '../item';
import { enforceLimits } from '../money/reserve';
import { credentialData, expectSuccess, paymentStatusPath } from '../transport';
import { resumeUrlOf } from './pause';
import { warnIfUnreachable } from './output';
import { createOnce } from '../money/once';
import { generatedKeyMayExist, keyForItem } from '../money/keys';
import { createIntentPath } from '../transport/gateway';

/** Parses the Custom Data (JSON) field into an object. */
function parseCustomData(value: unknown): IDataObject | InvalidValue {
	if (typeof value !== 'string') return value as IDataObject;
	try {
		const parsed: unknown = JSON.parse(value);
		if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
			return parsed as IDataObject;
	} catch {
		// Reported below with the field named.
	}
	return invalid(
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
	item: Item,
	operation: string,
	payerPhone?: string,
	pause?: { timeoutMinutes: number },
	network?: string,
): Promise<IDataObject> {
	const { context, index: itemIndex } = item;
	// The amount with at most its currency's decimals; a payer's wallet holds its country's currency.
	const currency = item.currency();
	const amount = item.check(() => validateAmount(item.param('amount'), 'Amount', currency));
	if (payerPhone && network)
		item.check(() =>
			validateCurrencyFor(currency, payerPhone, network, 'Currency', 'Mobile Number'),
		);
	const description = item.text('description', 'Description');
	const callbackUrl = pause ? resumeUrlOf(item) : item.url('callbackUrl', 'Callback URL');
	await warnIfUnreachable(item, callbackUrl);
	const { key } = keyForItem(item, item.param('key', ''), operation);
	const extra = item.param<IDataObject>('options', {});

	const body: IDataObject = { amount, currency, description, callbackUrl, key };
	if (extra.returnUrl)
		body.returnUrl = item.check(() => validateUrl(extra.returnUrl as string, 'Return URL'));
	if (extra.expiresAt !== undefined)
		body.expiresAt = item.check(() => validateExpiresIn(extra.expiresAt));
	// A paused checkout link stops being payable when the execution stops waiting for it.
	else if (pause) body.expiresAt = Math.ceil(pause.timeoutMinutes);
	const address: IDataObject = {};
	for (const name of BILLING_OPTION_NAMES) {
		if (extra[name] !== undefined && extra[name] !== '') address[name] = extra[name];
	}
	// Payment Intent: Create shows the payer's email and phone as fields of their own.
	for (const name of ['email', 'phoneNumber']) {
		const value = String(item.param(name, '') ?? '').trim();
		if (value !== '') address[name] = value;
	}
	if (!address.email && !address.phoneNumber && payerPhone) address.phoneNumber = `+${payerPhone}`;
	// Little Pay requires at least one way to reach the payer.
	if (!address.email && !address.phoneNumber) {
		item.fail(
			'Payer Email',
			'or Payer Phone Number is needed',
			'Little Pay needs a way to reach the payer: fill Payer Email (amina@example.com) or Payer Phone Number (+254712345678)',
		);
	}
	const payload: IDataObject = { billingAddress: address };
	if (extra.customData !== undefined && extra.customData !== '')
		payload.customData = item.check(() => parseCustomData(extra.customData));
	body.payload = payload;
	if (extra.authenticationRedirectUrl) {
		body.metadata = {
			authenticationRedirectUrl: item.check(() =>
				validateUrl(extra.authenticationRedirectUrl as string, 'Authentication Redirect URL'),
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
			path: createIntentPath(String(credentials.tokenId)),
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
			checkFirst: generatedKeyMayExist(item),
			expected: { amount, currency, description },
			record: 'payment',
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

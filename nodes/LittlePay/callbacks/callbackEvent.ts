import { createHash, timingSafeEqual } from 'node:crypto';
import type { IDataObject } from 'n8n-workflow';

import { failureFields, failureOfText } from '../helpers/failures';
import type { GatewayName } from '../helpers/gateway';
import type { VerifiedKey } from './callbackRequest';
import { BILLING_ADDRESS_FIELDS } from '../helpers/validation';

export type CallbackKind = 'payment' | 'refund';
export type CallbackEventName =
	| 'payment.completed'
	| 'payment.failed'
	| 'refund.completed'
	| 'refund.failed';
export type Verification = 'signature' | 'token' | 'status-check' | 'none';

export interface ParsedCallback {
	kind: CallbackKind;
	/** Undefined for statuses that are not final (a refund callback still saying PENDING). */
	event: CallbackEventName | undefined;
	body: IDataObject;
}

/** Parses a callback body, or returns a reason why it is not a Little Pay callback. */
export function parseCallback(rawBody: Buffer | string): ParsedCallback | { error: string } {
	let parsed: unknown;
	try {
		parsed = JSON.parse(typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8'));
	} catch {
		return { error: 'The body is not JSON' };
	}
	if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
		return { error: 'The body is not a JSON object' };
	}
	const body = parsed as IDataObject;
	if (typeof body.reference !== 'string' || typeof body.status !== 'string') {
		return { error: 'The body has no reference or status' };
	}
	// Payment callbacks carry the provider and billing payload; refund callbacks carry reason/message.
	const kind: CallbackKind =
		'provider' in body || 'payload' in body || 'currency' in body ? 'payment' : 'refund';
	const status = body.status.toUpperCase();
	let event: CallbackEventName | undefined;
	if (status === 'COMPLETED') event = `${kind}.completed`;
	else if (status === 'FAILED') event = `${kind}.failed`;
	return { kind, event, body };
}

/**
 * Stable id of an event: a gateway retry of the same event, to any n8n process, gets the same id.
 * From `pinned`, the values Little Pay's status record pins, when the record is what vouches for an
 * unsigned callback (Confirm With Status API): a re-dated copy, or one naming the payment by its key, is
 * then the same event. Otherwise from the signed callback's content (never from headers, which change
 * on every delivery).
 */
export function callbackEventId(callback: ParsedCallback, pinned?: string[]): string {
	const b = callback.body;
	const parts = pinned ?? [
		...[callback.kind, b.reference, b.key, b.status, b.amount, b.date].map((p) =>
			p === undefined || p === null ? '' : String(p),
		),
	];
	// Pinned ids are marked so that they never equal a body's id for another event.
	const text = pinned ? `record|${parts.join('|')}` : parts.join('|');
	return createHash('sha256').update(text).digest('hex').slice(0, 32);
}

/** Where a callback came from and how it was checked, for the item a workflow receives. */
export interface CallbackOrigin {
	verified: Verification;
	/** Which key verified the signature (a rotation's previous key, say); null when no signature decided. */
	verifiedKey: VerifiedKey | null;
	/** Which gateway called: the API key credential's (Little Pay's without one). */
	gateway: GatewayName;
	/** Whether the item carries `raw`, a copy of the body as received (off unless asked for: it repeats the payer's details). */
	includeRaw?: boolean;
}

/**
 * Builds the one clean item a workflow receives for a callback. `record` is the payment's status record
 * when the trigger read it (Confirm With Status API): a payment callback carries no failure reason, the
 * record's message does; `confirmed` holds the fields as the record gives them (reference, key, status,
 * amount, currency, provider), which the item carries instead of the body's.
 */
export function callbackToItem(
	callback: ParsedCallback,
	origin: CallbackOrigin,
	eventId: string,
	record?: IDataObject,
	confirmed: IDataObject = {},
): IDataObject {
	const b = callback.body;
	const payload = (
		typeof b.payload === 'object' && b.payload !== null ? b.payload : {}
	) as IDataObject;
	const address = (
		typeof payload.billingAddress === 'object' && payload.billingAddress !== null
			? payload.billingAddress
			: {}
	) as IDataObject;
	const billingAddress: IDataObject = {};
	for (const field of BILLING_ADDRESS_FIELDS) billingAddress[field] = address[field] ?? null;
	const item: IDataObject = {
		eventId,
		event: callback.event ?? null,
		kind: callback.kind,
		reference: b.reference,
		key: b.key ?? null,
		status: b.status,
		amount: b.amount ?? null,
		currency: b.currency ?? null,
		provider: b.provider ?? null,
		date: b.date ?? null,
		billingAddress,
		verified: origin.verified,
		verifiedKey: origin.verifiedKey,
		gateway: origin.gateway,
	};
	for (const field of ['reference', 'key', 'status', 'amount', 'currency', 'provider'])
		if (field in confirmed && confirmed[field] !== undefined) item[field] = confirmed[field];
	if (origin.includeRaw === true) item.raw = b;
	if (callback.kind === 'refund') {
		item.reason = b.reason ?? null;
		item.message = b.message ?? null;
		// A pending refund that failed later: the same code as a refund answered FAILED at once.
		if (callback.event === 'refund.failed')
			Object.assign(item, failureFields(failureOfText(b.message)));
	}
	// A failed payment attempt: the code comes from the words Little Pay gave, `unknown` without any
	// (look the payment up: the payer may still pay on the same intent).
	if (callback.event === 'payment.failed')
		Object.assign(item, failureFields(failureOfText(record?.message ?? b.message)));
	return item;
}

/** Compares two secrets in constant time (a token in a URL is still a secret). */
export function secretsEqual(given: string, expected: string): boolean {
	const a = createHash('sha256').update(given).digest();
	const b = createHash('sha256').update(expected).digest();
	return timingSafeEqual(a, b) && given.length === expected.length;
}

import type { IDataObject } from 'n8n-workflow';

/**
 * When a payment ends, for every way of waiting. An intent can carry several attempts: Little Pay's
 * hosted checkout lets a payer whose first try failed try again on the same page, and a new PIN
 * prompt can be sent for the same intent. So FAILED in a status record or a callback is the end of
 * one attempt; the payment ends when it is COMPLETED, or FAILED once the intent cannot be paid any
 * more (it has expired). A wait that ended on one failed attempt would miss the payment that follows.
 */

/** The three answers a waiting node acts on. */
export type PaymentState = 'completed' | 'failed' | 'payable';

/** The moment an intent stops being payable, from its status record or from what the node set. */
export function intentExpiryMs(record: IDataObject, knownExpiresAt?: unknown): number | undefined {
	for (const value of [record.expiresAt, knownExpiresAt]) {
		if (typeof value !== 'string' || value === '') continue;
		const ms = Date.parse(value);
		if (Number.isFinite(ms)) return ms;
	}
	return undefined;
}

/**
 * Where a payment stands for a wait: `completed`, `failed` (FAILED and its intent has expired, so no
 * one can pay it any more), or `payable` (PENDING, or FAILED while the payer may still try again).
 * When neither the record nor the node knows the expiry, a FAILED payment stays `payable`: the wait
 * then ends at its own timeout, with the last status, rather than on a try the payer may repeat.
 */
export function paymentState(
	record: IDataObject,
	now = Date.now(),
	knownExpiresAt?: unknown,
): PaymentState {
	const status = String(record.status ?? '').toUpperCase();
	if (status === 'COMPLETED') return 'completed';
	if (status !== 'FAILED') return 'payable';
	const expiry = intentExpiryMs(record, knownExpiresAt);
	return expiry !== undefined && now >= expiry ? 'failed' : 'payable';
}

/** The expiry an intent gets from `expiresAt` minutes sent now, as the ISO time outputs carry. */
export function expiryAfterMinutes(minutes: number, now = Date.now()): string {
	return new Date(now + minutes * 60_000).toISOString();
}

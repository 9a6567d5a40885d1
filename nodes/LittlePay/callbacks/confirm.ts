import type { IDataObject } from 'n8n-workflow';

import type { ParsedCallback } from './callbackEvent';
import { amountOf } from '../transport/records';
import type { PaymentRecord } from '../transport/records';

/**
 * What the merchant's own status record says of a callback (Confirm With Status API). The record is the
 * payment's: it pins the payment's reference, key, status and amount (and currency where it shows one).
 * Little Pay's documented record lists no refunds, so against it a refund callback is consistent at
 * best, never confirmed; a record that lists them (the sandbox's) confirms the refund itself.
 */
export type RecordVerdict =
	| {
			agrees: true;
			/** Whether the record shows the event itself, not only a payment that could have it. */
			confirmed: boolean;
			/** The record's values the event is identified by: a re-dated or re-worded copy has the same. */
			pinned: string[];
			/** The item's fields as the record gives them (the body's only where a signature vouches). */
			fields: IDataObject;
	  }
	| {
			agrees: false;
			/** Which field differs, in words that never repeat the caller's values (they are a stranger's). */
			differs: string;
	  };

const same = (a: unknown, b: unknown): boolean =>
	String(a).trim().toUpperCase() === String(b).trim().toUpperCase();

/**
 * Compares one field the callback carries with the record's. A field the record does not show (Little
 * Pay documents no currency in it) is taken from the body only when the signature vouches for the
 * body; unsigned, the item says null rather than repeat a stranger's value, and nothing is refused.
 * Only fields that decide nothing use this; status, amount, reference and key must be proven.
 */
function compareField(
	name: string,
	said: unknown,
	recorded: unknown,
	signed: boolean,
	equal: (a: unknown, b: unknown) => boolean = same,
): { value: unknown } | { differs: string } {
	if (said === undefined || said === null) return { value: recorded ?? null };
	if (recorded === undefined || recorded === null) return { value: signed ? said : null };
	return equal(said, recorded)
		? { value: recorded }
		: { differs: `the ${name} differs from Little Pay's record` };
}

/**
 * Compares a whole callback with the merchant's own record of its payment (read with the merchant's
 * API key, so a stranger's payment has none): the reference it names (a key in its place is another
 * name for the payment, not the payment's callback), the key, and for a payment its status, amount,
 * currency and provider; a refund is confirmed only by the refund itself in the record's list.
 * `record` was read fail-closed (transport/records.ts): its status, amount and reference are proven.
 * `signed` is whether a signature verified the body. `history` is the same payment's record read by its
 * key, which lists every attempt: a failed attempt's callback that arrives after the payer paid (the
 * record by reference then says COMPLETED) is confirmed by the failed attempt it lists.
 */
export function compareWithRecord(
	callback: ParsedCallback,
	record: PaymentRecord | undefined,
	signed: boolean,
	history?: PaymentRecord,
): RecordVerdict {
	if (!record)
		return {
			agrees: false,
			differs: "the merchant's account has no payment with this reference",
		};
	const b = callback.body;
	if (record.reference !== String(b.reference))
		return { agrees: false, differs: "the reference is not the payment's own reference" };
	const reference = record.reference;
	// The key is what a workflow ships by: a record that does not show it cannot vouch for it.
	if (b.key !== undefined && b.key !== null && String(b.key) !== record.key)
		return { agrees: false, differs: "the key is not the payment's key in Little Pay's record" };
	const fields: IDataObject = { reference, key: record.key ?? null };
	const currency = compareField('currency', b.currency, record.currency, signed);
	if ('differs' in currency) return { agrees: false, differs: currency.differs };
	fields.currency = currency.value as IDataObject[string];
	if (callback.kind !== 'payment') return refundVerdict(callback, record, fields);
	const superseded =
		!same(b.status, record.status) && failedAttemptListed(callback, record, history);
	if (!same(b.status, record.status) && !superseded)
		return { agrees: false, differs: "the status differs from Little Pay's record" };
	if (b.amount !== undefined && b.amount !== null && amountOf(b.amount) !== record.amount)
		return { agrees: false, differs: "the amount differs from Little Pay's record" };
	const provider = compareField('provider', b.provider, record.provider, signed);
	if ('differs' in provider) return { agrees: false, differs: provider.differs };
	Object.assign(fields, {
		status: superseded ? 'FAILED' : record.status,
		amount: record.amount,
		provider: provider.value as IDataObject[string],
	});
	if (superseded)
		return {
			agrees: true,
			confirmed: true,
			pinned: ['payment', reference, 'FAILED', 'before', record.status],
			fields,
		};
	// A payment completes once; a failed attempt may be followed by another, which the count tells apart.
	const pinned = ['payment', reference, record.status];
	if (record.status !== 'COMPLETED') pinned.push(String(record.attempts));
	return { agrees: true, confirmed: true, pinned, fields };
}

/**
 * Whether a FAILED callback is a failed attempt of this payment that the record has moved past: the
 * payment's record read by key (every attempt) is this payment's and lists a failed attempt.
 */
function failedAttemptListed(
	callback: ParsedCallback,
	record: PaymentRecord,
	history: PaymentRecord | undefined,
): boolean {
	return (
		same(callback.body.status, 'FAILED') &&
		history !== undefined &&
		history.reference === record.reference &&
		history.key === record.key &&
		history.attemptStatuses.includes('FAILED')
	);
}

/**
 * The refund half of compareWithRecord: a completed payment the refund fits, and the refund itself in
 * the record's list of refunds (its amount and outcome, and its date when the callback gives one). A
 * total refunded that covers the amount is not this refund: without the list (Little Pay's documented
 * record has none) a refund is consistent with the record, never confirmed by it.
 */
function refundVerdict(
	callback: ParsedCallback,
	record: PaymentRecord,
	fields: IDataObject,
): RecordVerdict {
	const b = callback.body;
	if (record.status !== 'COMPLETED')
		return { agrees: false, differs: "Little Pay's record shows no completed payment to refund" };
	const amount = amountOf(b.amount);
	if (amount === undefined || amount <= 0 || amount > record.amount)
		return { agrees: false, differs: "the refund's amount does not fit the payment's" };
	const status = String(b.status).toUpperCase();
	Object.assign(fields, { amount, status });
	const pinned = ['refund', record.reference, status, String(amount)];
	if (
		status === 'COMPLETED' &&
		record.refundedAmount !== undefined &&
		record.refundedAmount < amount
	)
		return { agrees: false, differs: "Little Pay's record shows less refunded than this refund" };
	const candidates = (record.refunds ?? []).filter(
		(refund) => refund.amount === amount && refund.status === status,
	);
	const date = typeof b.date === 'string' ? b.date : undefined;
	const own =
		candidates.find((refund) => date !== undefined && refund.date === date) ?? candidates[0];
	if (!own) {
		// A record that lists refunds and has not this one contradicts it; one without a list cannot tell.
		if (record.refunds !== undefined && record.refunds.length > 0 && status === 'COMPLETED')
			return { agrees: false, differs: "Little Pay's record lists no such refund" };
		return { agrees: true, confirmed: false, pinned, fields };
	}
	// Its place in the list tells two genuine refunds of one amount apart; copies of one refund share it.
	const place = String(record.refunds?.indexOf(own) ?? 0);
	return { agrees: true, confirmed: true, pinned: [...pinned, own.date ?? place], fields };
}

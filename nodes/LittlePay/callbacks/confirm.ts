import type { IDataObject } from 'n8n-workflow';

import type { ParsedCallback } from './callbackEvent';

/**
 * What Little Pay's status record says of a callback (Confirm With Status API). The record is the
 * payment's: it pins the payment's reference, key, status, amount and currency, and (the sandbox's,
 * and Little Pay's if it has one) `refundedAmount`, the total refunded so far. It has no refund ids and
 * no failed refunds, so a refund callback is confirmed only as far as the total refunded shows it.
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

const text = (value: unknown): string | undefined =>
	value === undefined || value === null || value === '' ? undefined : String(value);
const same = (a: unknown, b: unknown): boolean =>
	String(a).trim().toUpperCase() === String(b).trim().toUpperCase();
const amountOf = (value: unknown): number | undefined => {
	if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
	if (typeof value !== 'string' || !/^\d+(\.\d+)?$/.test(value.trim())) return undefined;
	return Number(value);
};

/**
 * Compares one field the callback carries with the record's. A field the record does not show (Little
 * Pay documents no currency in it) is taken from the body only when the signature vouches for the
 * body; unsigned, the item says null rather than repeat a stranger's value, and nothing is refused.
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
 * Compares a whole callback with Little Pay's record of its payment: the reference it names (a key in
 * its place is another name for the payment, not the payment's callback), the key, and for a payment
 * its status, amount, currency and provider; for a refund, a completed payment whose refunds add up to
 * at least the refund's amount. `signed` is whether a signature verified the body.
 */
export function compareWithRecord(
	callback: ParsedCallback,
	record: IDataObject | undefined,
	signed: boolean,
): RecordVerdict {
	if (!record) return { agrees: false, differs: 'Little Pay has no payment with this reference' };
	const b = callback.body;
	const reference = text(record.reference) ?? String(b.reference);
	if (
		reference !== String(b.reference) ||
		(text(record.reference) === undefined && b.reference === record.key)
	)
		return { agrees: false, differs: "the reference is not the payment's own reference" };
	const fields: IDataObject = { reference };
	const checks: Array<[string, unknown, unknown, ((a: unknown, b: unknown) => boolean)?]> = [
		['key', b.key, record.key, (x, y) => String(x) === String(y)],
		['currency', b.currency, record.currency],
	];
	const payment = record.payment as IDataObject | undefined;
	if (callback.kind === 'payment')
		checks.push(
			['status', b.status, record.status],
			['amount', b.amount, record.amount, (x, y) => amountOf(x) === amountOf(y)],
			['provider', b.provider, payment?.provider],
		);
	for (const [name, said, recorded, equal] of checks) {
		const field = compareField(name, said, recorded, signed, equal);
		if ('differs' in field) return { agrees: false, differs: field.differs };
		fields[name] = field.value as IDataObject[string];
	}
	if (callback.kind === 'payment') {
		const attempts = Array.isArray(record.attempts) ? String(record.attempts.length) : '';
		// A payment completes once; a failed attempt may be followed by another, which the count tells apart.
		const pinned = ['payment', reference, String(fields.status).toUpperCase()];
		if (pinned[2] !== 'COMPLETED') pinned.push(attempts);
		return { agrees: true, confirmed: true, pinned, fields };
	}
	return refundVerdict(callback, record, reference, fields);
}

/** The refund half of compareWithRecord: the payment's status and the total refunded on it. */
function refundVerdict(
	callback: ParsedCallback,
	record: IDataObject,
	reference: string,
	fields: IDataObject,
): RecordVerdict {
	const b = callback.body;
	if (!same(record.status, 'COMPLETED'))
		return { agrees: false, differs: "Little Pay's record shows no completed payment to refund" };
	const amount = amountOf(b.amount);
	const paid = amountOf(record.amount);
	if (amount === undefined || amount <= 0 || (paid !== undefined && amount > paid))
		return { agrees: false, differs: "the refund's amount does not fit the payment's" };
	fields.amount = amount;
	fields.status = String(b.status).toUpperCase();
	const pinned = ['refund', reference, String(fields.status), String(amount)];
	if (callback.event !== 'refund.completed') {
		// The record keeps no failed refunds: a refund.failed is consistent with it, never confirmed by it.
		return { agrees: true, confirmed: false, pinned, fields };
	}
	const refunded = amountOf(record.refundedAmount);
	if (refunded === undefined) return { agrees: true, confirmed: false, pinned, fields };
	if (refunded < amount)
		return { agrees: false, differs: "Little Pay's record shows less refunded than this refund" };
	// The total refunded tells two genuine refunds of one amount apart; copies of one refund share it.
	return { agrees: true, confirmed: true, pinned: [...pinned, String(refunded)], fields };
}

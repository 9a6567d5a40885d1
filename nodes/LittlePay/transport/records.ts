import type { IDataObject } from 'n8n-workflow';

// Little Pay's answers read fail-closed, where they arrive: a record that lacks a fact it must prove
// (its status, its amount, that it is the payment or payout asked for) is not a record, and never
// agrees with anything. The readers return what they proved, typed, or why the answer proves nothing.

/** The states a payment is in (the interface's closed set). */
export const PAYMENT_STATUSES = ['PENDING', 'COMPLETED', 'FAILED'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** One refund on a payment, as a status record that lists them shows it (the sandbox's does). */
export interface RefundEntry {
	amount: number;
	status: string;
	date: string | undefined;
}

/** A payment status record that proved what it must: this payment, its status and its amount. */
export interface PaymentRecord {
	reference: string;
	key: string | undefined;
	status: PaymentStatus;
	amount: number;
	currency: string | undefined;
	provider: string | undefined;
	/** How many attempts the record lists (by reference Little Pay lists only the latest). */
	attempts: number;
	/** The listed attempts' statuses, in order (by key Little Pay lists every attempt). */
	attemptStatuses: string[];
	/** The refunds the record lists, when it lists them; Little Pay's documented record does not. */
	refunds: RefundEntry[] | undefined;
	/** The total refunded, when the record says it. */
	refundedAmount: number | undefined;
	/** The answer's data as received, for operations whose outputs still copy it. */
	data: IDataObject;
}

/** A payout status record that proved what it must: this payout (its id or key) and its status. */
export interface PayoutRecord {
	id: string | undefined;
	key: string | undefined;
	status: string;
	amount: number;
	data: IDataObject;
}

/** Why an answer is not a record: what it failed to prove, in words that never repeat its values. */
export interface NotARecord {
	notARecord: string;
}

/** Whether a reader's result is a refusal rather than a record. */
export function isNotARecord(value: object): value is NotARecord {
	return 'notARecord' in value;
}

const isObject = (value: unknown): value is IDataObject =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

const textOf = (value: unknown): string | undefined =>
	typeof value === 'string' && value.trim() !== '' ? value : undefined;

/** An amount as Little Pay writes it: a finite number (or plain decimal digits), never a guess. */
export function amountOf(value: unknown): number | undefined {
	if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
	if (typeof value !== 'string' || !/^\d+(\.\d+)?$/.test(value.trim())) return undefined;
	return Number(value);
}

function refundsOf(value: unknown): RefundEntry[] | undefined {
	if (!Array.isArray(value)) return undefined;
	const refunds: RefundEntry[] = [];
	for (const entry of value) {
		if (!isObject(entry)) return undefined;
		const amount = amountOf(entry.amount);
		const status = textOf(entry.status);
		// A list with an entry that proves nothing proves nothing as a whole.
		if (amount === undefined || status === undefined) return undefined;
		refunds.push({ amount, status: status.toUpperCase(), date: textOf(entry.date) });
	}
	return refunds;
}

/**
 * Reads a payment status record (or a long poll's completion, which has its facts under `meta`) for
 * the payment asked for by reference or key. Not a record: no reference, a status outside PENDING,
 * COMPLETED and FAILED, no amount, or a record whose reference and key are both another payment's.
 */
export function readPaymentRecord(data: unknown, asked: string): PaymentRecord | NotARecord {
	if (!isObject(data)) return { notARecord: 'the answer holds no record' };
	const meta = isObject(data.meta) ? data.meta : {};
	const reference = textOf(data.reference) ?? textOf(meta.reference);
	if (reference === undefined) return { notARecord: 'the record has no reference' };
	const key = textOf(data.key);
	if (reference !== asked && key !== asked)
		return { notARecord: 'the record is for another payment than the one asked for' };
	const status = String(data.status ?? '').toUpperCase();
	if (!(PAYMENT_STATUSES as readonly string[]).includes(status))
		return { notARecord: 'the record has no status Little Pay uses (PENDING, COMPLETED, FAILED)' };
	const amount = amountOf(data.amount) ?? amountOf(meta.amount);
	if (amount === undefined) return { notARecord: 'the record has no amount' };
	const payment = isObject(data.payment) ? data.payment : {};
	return {
		reference,
		key,
		status: status as PaymentStatus,
		amount,
		currency: textOf(data.currency) ?? textOf(meta.currency),
		provider: textOf(payment.provider) ?? textOf(meta.provider),
		attempts: Array.isArray(data.attempts) ? data.attempts.length : 0,
		attemptStatuses: Array.isArray(data.attempts)
			? data.attempts.map((a) => String(isObject(a) ? (a.status ?? '') : '').toUpperCase())
			: [],
		refunds: refundsOf(data.refunds),
		refundedAmount: amountOf(data.refundedAmount),
		data,
	};
}

/**
 * Reads a payout (disbursement) status record for the payout asked for by id or key. Not a record:
 * no status, no amount, or neither its id nor its key is the one asked for. Little Pay shows one
 * status value (`success`), so the status is any non-empty text.
 */
export function readPayoutRecord(data: unknown, asked: string): PayoutRecord | NotARecord {
	if (!isObject(data)) return { notARecord: 'the answer holds no record' };
	const id = data.id === undefined || data.id === null ? undefined : String(data.id);
	const key = textOf(data.key);
	if (id !== asked && key !== asked)
		return { notARecord: 'the record is for another payout than the one asked for' };
	const status = textOf(data.status);
	if (status === undefined) return { notARecord: 'the record has no status' };
	const amount = amountOf(data.amount);
	if (amount === undefined) return { notARecord: 'the record has no amount' };
	return { id, key, status, amount, data };
}

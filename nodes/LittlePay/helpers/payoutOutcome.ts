import type { IDataObject } from 'n8n-workflow';

import { failureOfText, settledPayoutFailureFields } from './failures';
import type { FailureCode } from './failures';

/**
 * What is known about a payout, the one value a workflow branches on: `accepted` (Little Pay took
 * it; the result comes later), `pending` (looked up, not settled yet), `completed` or `failed`.
 */
export type PayoutOutcome = 'accepted' | 'completed' | 'failed' | 'pending';

// Little Pay documents only "success" (on creation) for disbursements; the status record's other
// values are not public. These are the words gateways use; anything else counts as not settled,
// so an unknown status is never reported as paid.
const COMPLETED_STATUSES = new Set([
	'success',
	'successful',
	'succeeded',
	'completed',
	'complete',
	'paid',
	'settled',
]);
const FAILED_STATUSES = new Set([
	'failed',
	'failure',
	'fail',
	'rejected',
	'declined',
	'cancelled',
	'canceled',
	'reversed',
	'error',
	'expired',
]);

function statusWord(status: unknown): string {
	return String(status ?? '')
		.trim()
		.toLowerCase();
}

/** The outcome a status record (Disbursement: Get, a lookup while waiting) shows. */
export function outcomeOfRecord(status: unknown): 'completed' | 'failed' | 'pending' {
	const word = statusWord(status);
	if (COMPLETED_STATUSES.has(word)) return 'completed';
	if (FAILED_STATUSES.has(word)) return 'failed';
	return 'pending';
}

/**
 * The outcome of a creation answer: its "success" means accepted, not paid (the interface shows
 * the status record separately, and the payout can still fail). Only an explicit failure is final.
 */
export function outcomeOfCreation(status: unknown): 'accepted' | 'failed' {
	return FAILED_STATUSES.has(statusWord(status)) ? 'failed' : 'accepted';
}

/** Whether the result of a payout is still to come. */
export function isUnsettled(outcome: unknown): boolean {
	return outcome === 'accepted' || outcome === 'pending';
}

function numberOrNull(value: unknown): number | null {
	if (typeof value === 'number' && Number.isFinite(value)) return value;
	if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)))
		return Number(value);
	return null;
}

function textOrNull(value: unknown): string | null {
	return typeof value === 'string' && value.trim() !== '' ? value : null;
}

/** Why a payout failed, in Little Pay's words: the record's message, else its latest attempt's. */
export function failureReason(record: IDataObject): string {
	const attempts = (Array.isArray(record.attempts) ? record.attempts : []) as IDataObject[];
	const latest = attempts[attempts.length - 1] ?? {};
	return (
		textOrNull(record.reason) ??
		textOrNull(record.message) ??
		textOrNull(latest.reason) ??
		textOrNull(latest.message) ??
		'Little Pay reported the payout as failed without a reason'
	);
}

/** How a failed payout is paid again: the rows as they are, under keys the node derives from them. */
export const PAY_AGAIN_STEP =
	'run the same rows again with Options > Pay Again If Failed (it derives <key>r2, then r3, and pays each failed row once more)';

/**
 * A settled failed payout's next step. Nobody was paid, and paying again goes through Pay Again If
 * Failed: a key made up by hand would be one that Reconcile, by the row's own key, never finds.
 */
export function failedPayoutStep(code: FailureCode): string {
	if (code === 'recipient-not-registered')
		return `Nothing was paid: the number is not registered for the network. Correct the row's number or network, then ${PAY_AGAIN_STEP}`;
	if (code === 'recipient-limit')
		return `Nothing was paid: the recipient's wallet refused the amount. Pay less or later: ${PAY_AGAIN_STEP}`;
	if (code === 'insufficient-funds')
		return `Nothing was paid: the payout balance was short. Top it up, then ${PAY_AGAIN_STEP}`;
	return `Nothing was paid: read the reason, correct the row if it needs it, then ${PAY_AGAIN_STEP}`;
}

/** What the node knows about a payout besides the gateway's answer (what it sent, the quoted fee). */
export interface KnownPayout {
	key?: string | null;
	amount?: number | null;
	currency?: string | null;
	method?: string | null;
	to?: string | null;
	fee?: number | null;
}

/**
 * One payout item, in the vocabulary every disbursement operation outputs: id, key, outcome,
 * reason (when failed), amount, currency, fee, method, to, settledAt (when final), the gateway's
 * own status and message. What the node sent wins over what the record repeats.
 */
export function payoutItem(
	record: IDataObject,
	outcome: PayoutOutcome,
	known: KnownPayout = {},
): IDataObject {
	const details = (
		typeof record.details === 'object' && record.details !== null ? record.details : {}
	) as IDataObject;
	const final = outcome === 'completed' || outcome === 'failed';
	return {
		id: textOrNull(record.id),
		key: known.key ?? textOrNull(record.key),
		outcome,
		reason: outcome === 'failed' ? failureReason(record) : null,
		amount: known.amount ?? numberOrNull(record.amount),
		currency: known.currency ?? textOrNull(record.currency),
		fee: known.fee ?? numberOrNull(record.charges ?? record.fee),
		method: known.method ?? textOrNull(record.method),
		to: known.to ?? textOrNull(record.to ?? details.to),
		settledAt: final ? (textOrNull(record.settledAt ?? record.completedAt) ?? null) : null,
		gatewayStatus: record.status ?? null,
		message: textOrNull(record.message),
		...(outcome === 'failed' ? failedPayoutFields(record) : {}),
	};
}

function failedPayoutFields(record: IDataObject): IDataObject {
	const code = failureOfText(failureReason(record));
	return { ...settledPayoutFailureFields(code), nextStep: failedPayoutStep(code) };
}

/** Updates a payout item in place from a newer status record, keeping what the node knew. */
export function updatePayoutItem(item: IDataObject, record: IDataObject): void {
	const next = payoutItem(record, outcomeOfRecord(record.status), {
		key: item.key as string | null,
		amount: item.amount as number | null,
		currency: item.currency as string | null,
		method: item.method as string | null,
		to: item.to as string | null,
		fee: item.fee as number | null,
	});
	Object.assign(item, next, { id: next.id ?? item.id ?? null });
}

import type { IDataObject } from 'n8n-workflow';

import { outcomeOfRecord } from '../../helpers/payoutOutcome';
import type { Item } from '../../item';
import { findPayoutRecord } from '../../transport/gateway';
import { differingFields } from '../../money/once';
import type { PayoutRequest } from './fields';

/**
 * Paying again only what failed (Options > Pay Again If Failed). A row's first payout goes under its own
 * key; when that payout settled FAILED (nobody was paid), the next attempt goes under `<key>r2`, then
 * `<key>r3`: keys derived from the row, so every re-run, and two re-runs at once, find the same attempt
 * and look it up before sending. A row whose latest attempt is paid or pending is left alone.
 */

/** At most this many attempts per row: a number that keeps failing needs a person, not a loop. */
export const MAX_ATTEMPTS = 9;

/** The key of a row's nth payout attempt: the row's own key first, then `<key>r<n>` (letters and digits). */
export function attemptKey(key: string, attempt: number): string {
	return attempt === 1 ? key : `${key}r${attempt}`;
}

/** The attempt a row pays (or finds) now, and the failed attempts before it. */
export interface Attempt {
	key: string;
	attempt: number;
	/** The failed attempts' keys, oldest first. */
	failedBefore: string[];
	/** The attempt's record when Little Pay holds it (paid or pending: found, not sent again). */
	record?: IDataObject;
}

/** How far a walk over a row's attempts got: the attempt it stopped at, and the latest failed one. */
interface Walk extends Attempt {
	/** The latest attempt Little Pay holds as failed, with its record. */
	latestFailed?: { key: string; attempt: number; record: IDataObject };
}

/**
 * Walks a row's attempts: reads the row's key and each later attempt key until one is not at Little Pay
 * or is not failed. A record under a derived key counts as this row's attempt only when its amount and
 * currency are the row's (the number may have been corrected): else it is another row's payout under
 * an ID that happens to end in r and a number. Pay Out fails the row there (`strict`); Reconcile stops
 * and reports the row's own attempts up to it. `first` is the row's own key's record, when read already.
 */
async function walkAttempts(
	item: Item,
	key: string,
	request: IDataObject,
	strict: boolean,
	first?: IDataObject,
): Promise<Walk> {
	const failedBefore: string[] = [];
	let latestFailed: Walk['latestFailed'];
	for (let attempt = 1; ; attempt++) {
		const attemptsKey = attemptKey(key, attempt);
		const stop = { key: attemptsKey, attempt, failedBefore, latestFailed };
		if (attemptsKey.length > 64) {
			if (!strict) return stop;
			item.fail(
				'Key',
				`is too long to pay again under a derived key (${attemptsKey} is over 64 characters)`,
				'Use payout IDs of at most 60 letters and digits when you pay failed rows again',
			);
		}
		let record: IDataObject;
		if (attempt === 1 && first !== undefined) record = first;
		else {
			const found = await findPayoutRecord(item.context, item.index, attemptsKey);
			if (found === undefined) return stop;
			record = found;
		}
		const differences = attempt === 1 ? [] : differingFields(request, record);
		if (differences.length > 0) {
			if (!strict) return stop;
			item.fail(
				'Key',
				`"${attemptsKey}", where this row would be paid again (attempt ${attempt}), holds a payout that is not this row's (${differences.join('; ')}): another row's payout ID?`,
				"Pay this row under a new payout ID, and give no row an ID that is another row's ID followed by r and a number",
			);
		}
		if (outcomeOfRecord(record.status) !== 'failed') return { ...stop, record };
		failedBefore.push(attemptsKey);
		latestFailed = { key: attemptsKey, attempt, record };
		if (attempt >= MAX_ATTEMPTS) {
			if (!strict) return { ...stop, latestFailed };
			item.fail(
				'Key',
				`"${key}" has failed ${MAX_ATTEMPTS} times (last under ${attemptsKey}); it is not paid again`,
				"Check the row's number and network with the recipient, then pay it under a new payout ID",
			);
		}
	}
}

/**
 * Finds the attempt a row is at for Pay Out: the first attempt key not at Little Pay (to be sent), or
 * the first not failed (paid or pending: found, not sent again). A derived key holding another row's
 * payout, a key too long to derive from, or nine failures fail the row.
 * Reads only; the send then looks that attempt's key up again, under the key's hold (money/once.ts).
 */
export async function currentAttempt(
	item: Item,
	key: string,
	request: Pick<PayoutRequest, 'amount' | 'currency'>,
): Promise<Attempt> {
	const walk = await walkAttempts(
		item,
		key,
		{ amount: request.amount, currency: request.currency },
		true,
	);
	return {
		key: walk.key,
		attempt: walk.attempt,
		failedBefore: walk.failedBefore,
		...(walk.record !== undefined ? { record: walk.record } : {}),
	};
}

/**
 * The latest attempt Little Pay holds for a row (Reconcile): `record` is the row's own key's record;
 * when it failed, `<key>r2` ... are read as Pay Again If Failed pays them, and the latest found is the
 * row's payout, with the failed attempts before it. `expected` (the row's Expected Amount and Currency)
 * tells another row's payout under a derived key from this row's attempt.
 */
export async function latestAttempt(
	item: Item,
	key: string,
	record: IDataObject,
	expected: IDataObject,
): Promise<Attempt & { record: IDataObject }> {
	if (outcomeOfRecord(record.status) !== 'failed')
		return { key, attempt: 1, failedBefore: [], record };
	const walk = await walkAttempts(item, key, expected, false, record);
	if (walk.record) return { ...walk, record: walk.record };
	// The row's own record failed, so a failed attempt is always found.
	const last = walk.latestFailed ?? { key, attempt: 1, record };
	return {
		key: last.key,
		attempt: last.attempt,
		failedBefore: walk.failedBefore.slice(0, -1),
		record: last.record,
	};
}

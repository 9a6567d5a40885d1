import type { IDataObject } from 'n8n-workflow';

import { outcomeOfRecord } from '../../helpers/payoutOutcome';
import type { Item } from '../../item';
import { expectSuccess, readLittlePay } from '../../transport';
import { payoutRecordRequest } from '../../transport/gateway';
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

/**
 * Finds the attempt a row is at: reads the row's key and each later attempt key until one is not at
 * Little Pay (that attempt is to be sent) or is not failed (paid or pending: found, not sent again).
 * A record under a derived key counts as this row's attempt only when its amount and currency are the
 * row's (the number may have been corrected): else it is another row's payout under an ID that
 * happens to end in r and a number, and the row fails instead of being reported by it.
 * Reads only; the send then looks that attempt's key up again, under the key's hold (money/once.ts).
 */
export async function currentAttempt(
	item: Item,
	key: string,
	request: Pick<PayoutRequest, 'amount' | 'currency'>,
): Promise<Attempt> {
	const failedBefore: string[] = [];
	for (let attempt = 1; ; attempt++) {
		const attemptsKey = attemptKey(key, attempt);
		if (attemptsKey.length > 64) {
			item.fail(
				'Key',
				`is too long to pay again under a derived key (${attemptsKey} is over 64 characters)`,
				'Use payout IDs of at most 60 letters and digits when you pay failed rows again',
			);
		}
		const found = await readLittlePay(item.context, payoutRecordRequest(item.index, attemptsKey));
		if (found.statusCode === 404) return { key: attemptsKey, attempt, failedBefore };
		const record: IDataObject = expectSuccess(item.context, found, item.index);
		const differences =
			attempt === 1
				? []
				: differingFields({ amount: request.amount, currency: request.currency }, record);
		if (differences.length > 0) {
			item.fail(
				'Key',
				`"${attemptsKey}", where this row would be paid again (attempt ${attempt}), holds a payout that is not this row's (${differences.join('; ')}): another row's payout ID?`,
				"Pay this row under a new payout ID, and give no row an ID that is another row's ID followed by r and a number",
			);
		}
		if (outcomeOfRecord(record.status) !== 'failed') {
			return { key: attemptsKey, attempt, failedBefore, record };
		}
		failedBefore.push(attemptsKey);
		if (attempt >= MAX_ATTEMPTS) {
			item.fail(
				'Key',
				`"${key}" has failed ${MAX_ATTEMPTS} times (last under ${attemptsKey}); it is not paid again`,
				"Check the row's number and network with the recipient, then pay it under a new payout ID",
			);
		}
	}
}

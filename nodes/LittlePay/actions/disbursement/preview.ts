import type { IDataObject } from 'n8n-workflow';

import { findPayoutRecord } from '../../transport/gateway';
import { outcomeOfRecord } from '../../helpers/payoutOutcome';
import { differingFields } from '../../money/once';
import { keyIsGenerated } from '../../money/keys';
import type { Item } from '../../item';
import { ItemInputError, refusalOf } from '../../errors';
import { checkedPayout, runCheckOf } from './run';
import { currentAttempt } from './attempts';
import type { Attempt } from './attempts';
import type { CheckedPayout } from './run';

/**
 * One row of a dry run, sending nothing: the run's check before sending (run.ts) says whether the row
 * would be refused and why; for a key from the data, the run's own lookup (or, with Pay Again If Failed,
 * the same read of the row's attempts as the real run) says whether Little Pay already has the payout. A row that would be refused comes out with `valid: false`, the reason, its 1-based `row` and
 * its key as given, instead of failing.
 */
export async function checkPayoutRow(item: Item, payAgain = false): Promise<IDataObject> {
	const { context, index: itemIndex } = item;
	// Until a field is valid, the row shows it as given, so a refused row can be found.
	const given = (name: string, fallback: string | null = null) =>
		item.param<IDataObject[string]>(name, fallback);
	// reason and field are text on every row, empty on a valid one: n8n's table shows a missing field
	// as "undefined" and a null as a red "null", which read as faults on rows that have none.
	const row: IDataObject = {
		checkOnly: true,
		valid: false,
		reason: '',
		field: '',
		row: itemIndex + 1,
		key: null,
		amount: given('amount'),
		currency: given('currency', 'KES'),
		fee: null,
		method: given('method'),
		to: given('to'),
	};
	const refused = runCheckOf(context)?.refused.get(itemIndex);
	if (refused)
		return { ...row, key: refused.key, reason: refused.reason, field: refused.field ?? '' };
	let checked: CheckedPayout | undefined;
	const refusal = await refusalOf(async () => {
		checked = await checkedPayout(item, true);
	}, ItemInputError);
	// An AI tool's dry run is checked here, row by row: a bad value is what it reports.
	if (refusal || !checked)
		return { ...row, reason: refusal?.reason ?? '', field: refusal?.field ?? '' };
	const { request, fee, found, foundFailed } = checked;
	let { key } = checked;
	Object.assign(row, request, { fee, key: keyIsGenerated(item) ? null : key });
	if (typeof row.key !== 'string') {
		row.valid = true;
		return row;
	}
	// Pay Again If Failed: the attempt the real run would pay (or find), read the same way.
	let record: IDataObject | undefined;
	if (payAgain) {
		let attempt: Attempt | undefined;
		const failed = await refusalOf(async () => {
			attempt = await currentAttempt(item, key, request);
		}, ItemInputError);
		if (failed || !attempt)
			return { ...row, reason: failed?.reason ?? '', field: failed?.field ?? 'Key' };
		key = attempt.key;
		row.key = key;
		record = attempt.record;
		if (attempt.attempt > 1) {
			row.attempt = attempt.attempt;
			row.failedBefore = attempt.failedBefore;
		}
	} else if (found !== true) {
		record = await findPayoutRecord(context, itemIndex, key);
	}
	if (record !== undefined || found === true) {
		if (record !== undefined) {
			const { amount, method, currency, to } = request;
			const differences = differingFields({ amount, method, currency, to }, record);
			if (differences.length > 0) {
				return {
					...row,
					reason: `Key "${key}" already belongs to a different payout (${differences.join('; ')})`,
					field: 'Key',
				};
			}
		}
		// Paying this row would find that payout, not pay again: failed, it paid nobody (the real run
		// counts it failed, and Pay Again If Failed pays it under its next attempt key).
		row.alreadyExisted = true;
		if (record !== undefined ? outcomeOfRecord(record.status) === 'failed' : foundFailed) {
			row.outcome = 'failed';
			row.reason = 'Little Pay shows this payout failed: nobody was paid';
		}
	}
	row.valid = true;
	return row;
}

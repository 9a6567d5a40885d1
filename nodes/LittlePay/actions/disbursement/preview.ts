import type { IDataObject } from 'n8n-workflow';

import { expectSuccess, readLittlePay } from '../../transport';
import { payoutRecordRequest } from '../../transport/gateway';
import { differingFields } from '../../money/once';
import { keyIsGenerated } from '../../money/keys';
import type { Item } from '../../item';
import { ItemInputError, refusalOf } from '../../errors';
import { checkedPayout, runCheckOf } from './run';
import type { CheckedPayout } from './run';

/**
 * One row of a dry run, sending nothing: the run's check before sending (run.ts) says whether the row
 * would be refused and why; for a key from the data, a read says whether Little Pay already has a payout
 * under it. A row that would be refused comes out with `valid: false`, the reason, its 1-based `row` and
 * its key as given, instead of failing.
 */
export async function checkPayoutRow(item: Item): Promise<IDataObject> {
	const { context, index: itemIndex } = item;
	// Until a field is valid, the row shows it as given, so a refused row can be found.
	const given = (name: string, fallback: string | null = null) =>
		item.param<IDataObject[string]>(name, fallback);
	const row: IDataObject = {
		checkOnly: true,
		valid: false,
		reason: null,
		row: itemIndex + 1,
		key: null,
		amount: given('amount'),
		currency: given('currency', 'KES'),
		fee: null,
		method: given('method'),
		to: given('to'),
	};
	const refused = runCheckOf(context)?.refused.get(itemIndex);
	if (refused) return { ...row, key: refused.key, reason: refused.reason, field: refused.field };
	let checked: CheckedPayout | undefined;
	const refusal = await refusalOf(async () => {
		checked = await checkedPayout(item, true);
	}, ItemInputError);
	// An AI tool's dry run is checked here, row by row: a bad value is what it reports.
	if (refusal || !checked)
		return { ...row, reason: refusal?.reason, field: refusal?.field ?? null };
	const { request, key, fee } = checked;
	Object.assign(row, request, { fee, key: keyIsGenerated(item) ? null : key });
	if (typeof row.key === 'string') {
		const found = await readLittlePay(context, payoutRecordRequest(itemIndex, row.key));
		if (found.statusCode !== 404) {
			const record = expectSuccess(context, found, itemIndex);
			const { amount, method, currency, to } = request;
			const differences = differingFields({ amount, method, currency, to }, record);
			if (differences.length > 0) {
				return {
					...row,
					reason: `Key "${row.key}" already belongs to a different payout (${differences.join('; ')})`,
					field: 'Key',
				};
			}
			// Paying this row would find that payout, not pay again.
			row.alreadyExisted = true;
		}
	}
	row.valid = true;
	return row;
}

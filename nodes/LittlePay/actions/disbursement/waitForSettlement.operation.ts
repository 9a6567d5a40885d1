import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { outcomeOfRecord, payoutItem } from '../../helpers/payoutOutcome';
import { getPayoutRecord } from '../../transport/gateway';
import { concurrencyOption, optionsCollection, showFor } from '../common';
import { concurrencyOf } from '../../item';
import type { Item } from '../../item';
import type { OperationMeta, RunEnd } from '../common';
import { payoutIdField, readPayoutId } from './fields';
import { readSettleTimeout, settleTimeoutField, waitForSettlement } from './settlement';

/** What the registry knows of this operation (actions/registry.ts). */
// Lookups are reads, so they overlap: 10 at once unless Options > Concurrency says fewer.
const CONCURRENCY = concurrencyOption(
	10,
	'How many payouts to look up at once (1-10); lookups are reads. Output order always matches input order.',
);

export const meta: OperationMeta = {
	concurrency: CONCURRENCY,
	subtitle: 'Wait for Settlement · Payout',
	rowKey: { parameter: 'disbursementId', field: 'id' },
};

export const description: INodeProperties[] = showFor('disbursement', 'waitForSettlement', [
	payoutIdField,
	settleTimeoutField,
	optionsCollection([CONCURRENCY]),
]);

/** Looks each payout up once; the run's unsettled ones are then waited for together. */
export async function execute(this: IExecuteFunctions, item: Item): Promise<IDataObject> {
	// Checked before the first lookup: the wait runs after every item has been looked up.
	readSettleTimeout(this, 0);
	const record = await getPayoutRecord(this, item.index, readPayoutId(item));
	return payoutItem(record, outcomeOfRecord(record.status));
}

/** Waits for every payout of the run that is still pending, in one shared loop. */
export async function afterItems(
	this: IExecuteFunctions,
	results: Array<IDataObject | undefined>,
): Promise<RunEnd> {
	const payouts = results.flatMap((result, itemIndex) => (result ? [{ itemIndex, result }] : []));
	await waitForSettlement(this, payouts, readSettleTimeout(this, 0), concurrencyOf(this, meta));
	return {};
}

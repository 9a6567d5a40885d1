import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { outcomeOfRecord, payoutItem } from '../../helpers/payoutOutcome';
import { getPayoutRecord } from '../../transport/gateway';
import { optionsCollection, showFor } from '../common';
import type { OperationMeta, RowKey } from '../common';
import { sweepOptions, sweepRow } from '../sweep';
import { payoutIdField, readPayoutId } from './fields';
import type { Item } from '../../item';

const rowKey: RowKey = { parameter: 'disbursementId', field: 'key' };

/** What the registry knows of this operation (actions/registry.ts). */
export const meta: OperationMeta = { subtitle: 'Reconcile · Disbursement', rowKey };

export const description: INodeProperties[] = showFor('disbursement', 'reconcile', [
	{
		...payoutIdField,
		hint: 'One item per payout your records still show open, e.g. {{ $json.key }} of a Data Table row. Act on outcome: completed (paid, fee known), failed (nobody was paid), pending (leave open), not-found (check the key)',
	},
	optionsCollection(sweepOptions('payouts')),
]);

/** Lookups are reads: 10 at once unless Options > Concurrency says fewer. */
export function concurrency(this: IExecuteFunctions): number {
	return this.getNodeParameter('options.concurrency', 0, 10) as number;
}

const NEXT_STEP = {
	completed: 'Paid: record the payout COMPLETED with its fee and settledAt',
	failed:
		'Nobody was paid: record it FAILED; pay a corrected row with a new key if it still stands',
	pending: 'Not settled yet: leave your record open; the next sweep will say',
};

/**
 * Looks one payout up by its key or id and says where it stands, for payout runs whose result came
 * after the run ended: a sweep reads, it never pays out. One row out per row in.
 */
export async function execute(this: IExecuteFunctions, item: Item): Promise<IDataObject> {
	return await sweepRow(this, item.index, rowKey, async () => {
		const record = await getPayoutRecord(this, item.index, readPayoutId(item));
		const outcome = outcomeOfRecord(record.status);
		return {
			outcome,
			nextStep: NEXT_STEP[outcome],
			fields: {
				kind: 'payout',
				...payoutItem(record, outcome),
				checkedAt: new Date().toISOString(),
			},
		};
	});
}

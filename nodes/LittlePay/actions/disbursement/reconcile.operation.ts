import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { outcomeOfRecord, payoutItem } from '../../helpers/payoutOutcome';
import { getPayoutRecord } from '../../transport/gateway';
import {
	expectedFields,
	NETWORK_OPTIONS,
	optionsCollection,
	readExpected,
	showFor,
} from '../common';
import type { OperationMeta, RowKey } from '../common';
import { sweepConcurrency, sweepOptions, sweepRow } from '../sweep';
import { payoutIdField, readPayoutId } from './fields';
import type { Item } from '../../item';
import { differingFields } from '../../money/once';
import { sameNumber } from '../../helpers/validation';

const rowKey: RowKey = { parameter: 'disbursementId', field: 'key' };

const CONCURRENCY = sweepConcurrency('payouts');

/** What the registry knows of this operation (actions/registry.ts). */
export const meta: OperationMeta = {
	concurrency: CONCURRENCY,
	subtitle: 'Reconcile · Payout',
	rowKey,
};

export const description: INodeProperties[] = showFor('disbursement', 'reconcile', [
	{
		...payoutIdField,
		hint: 'One item per payout your records still show open, e.g. {{ $json.key }} of a Data Table row. Act on outcome: completed (paid, fee known), failed (nobody was paid), pending (leave open), mismatch (not this row’s payout), not-found (check the key)',
	},
	...expectedFields('payout'),
	{
		displayName: 'Expected Network',
		name: 'expectedMethod',
		type: 'options',
		options: [{ name: "Don't Check", value: '' }, ...NETWORK_OPTIONS],
		default: '',
		description:
			'The network your record says the payout went to; another network comes out as mismatch',
	},
	{
		displayName: 'Expected Destination Number',
		name: 'expectedTo',
		type: 'string',
		default: '',
		placeholder: 'e.g. {{ $json.phone }}',
		description:
			'The number your record says was paid, with its country code; another number comes out as mismatch. A number Little Pay shows masked is compared on its visible digits.',
	},
	optionsCollection(sweepOptions('payouts', CONCURRENCY)),
]);

/** Where Little Pay's record of a payout differs from what the merchant's row expects. */
function differencesFrom(item: Item, record: IDataObject): string[] {
	const expected = readExpected(item);
	const method = item.param<string>('expectedMethod', '');
	if (method !== '') expected.method = method;
	const to = String(item.param('expectedTo', '') ?? '').trim();
	const differences = differingFields(expected, record);
	const theirs = textOf(record.to ?? (record.details as IDataObject | undefined)?.to);
	if (to !== '' && theirs !== '' && !sameNumber(theirs, to))
		differences.push(`number ${theirs} there, ${to} here`);
	return differences;
}

function textOf(value: unknown): string {
	return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
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
			differences: differencesFrom(item, record),
			mismatchStep:
				"Not this row's payout, whatever its status: do not mark the row paid; check its key (an ID copied from another row?) and pay it under its own key",
			nextStep: NEXT_STEP[outcome],
			fields: {
				kind: 'payout',
				...payoutItem(record, outcome),
				checkedAt: new Date().toISOString(),
			},
		};
	});
}

import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { outcomeOfRecord, payoutItem } from '../../helpers/payoutOutcome';
import { optionsCollection, showFor } from '../common';
import type { Item } from '../../item';
import type { OperationMeta } from '../common';
import { payoutIdField, readPayoutId } from './fields';
import { getPayoutRecord } from '../../transport/gateway';

/** What the registry knows of this operation (actions/registry.ts). */
export const meta: OperationMeta = {
	subtitle: 'Get · Payout',
	rowKey: { parameter: 'disbursementId', field: 'id' },
};

export const description: INodeProperties[] = showFor('disbursement', 'get', [
	payoutIdField,
	optionsCollection([
		{
			displayName: 'Include Gateway Record',
			name: 'includeRecord',
			type: 'boolean',
			default: false,
			description:
				"Whether to add Little Pay's status record as it answered it (attempts, timestamps) under raw",
		},
	]),
]);

/** Reads a payout by the ID returned at creation or by its key, as a payout item (outcome, reason, ...). */
export async function execute(this: IExecuteFunctions, item: Item): Promise<IDataObject> {
	const record = await getPayoutRecord(this, item.index, readPayoutId(item));
	const result = payoutItem(record, outcomeOfRecord(record.status));
	if (item.param<boolean>('options.includeRecord', false)) result.raw = record;
	return result;
}

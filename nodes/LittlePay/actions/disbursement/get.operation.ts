import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { outcomeOfRecord, payoutItem } from '../../helpers/payoutOutcome';
import { showFor } from '../common';
import { payoutIdField, readPayoutId } from './fields';
import { lookupPayout } from './settlement';

/** The canvas subtitle, in words. */
export const subtitle = 'Get · Disbursement';

/** Continue On Fail names a failed row by this parameter, as `id`. */
export const rowKey = { parameter: 'disbursementId', field: 'id' } as const;

export const description: INodeProperties[] = showFor('disbursement', 'get', [
	payoutIdField,
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Include Gateway Record',
				name: 'includeRecord',
				type: 'boolean',
				default: false,
				description:
					"Whether to add Little Pay's status record as it answered it (attempts, timestamps) under raw",
			},
		],
	},
]);

/** Reads a payout by the ID returned at creation or by its key, as a payout item (outcome, reason, ...). */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const record = await lookupPayout(this, itemIndex, readPayoutId(this, itemIndex));
	const result = payoutItem(record, outcomeOfRecord(record.status));
	if (this.getNodeParameter('options.includeRecord', itemIndex, false) as boolean)
		result.raw = record;
	return result;
}

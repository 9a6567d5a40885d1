import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { outcomeOfRecord, payoutItem } from '../../helpers/payoutOutcome';
import { requireText } from '../../helpers/validation';
import { showFor } from '../common';
import { lookupPayout } from './settlement';

/** The payout to look up, shared by Get and Wait for Settlement. */
export const payoutIdField: INodeProperties = {
	displayName: 'ID or Key',
	name: 'disbursementId',
	type: 'string',
	required: true,
	default: '',
	placeholder: 'e.g. {{ $json.key }}',
	hint: 'The id Little Pay returned, or your key, e.g. {{ $json.key }} from an earlier payout run',
	description: 'Which payout to look up',
};

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

/** Reads the payout id or key of one item. */
export function readPayoutId(context: IExecuteFunctions, itemIndex: number): string {
	return requireText(
		context.getNode(),
		itemIndex,
		context.getNodeParameter('disbursementId', itemIndex),
		'ID or Key',
	);
}

/** Reads a payout by the ID returned at creation or by its key, as a payout item (outcome, reason, ...). */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const record = await lookupPayout(this, itemIndex, readPayoutId(this, itemIndex));
	const result = payoutItem(record, outcomeOfRecord(record.status));
	if (this.getNodeParameter('options.includeRecord', itemIndex, false) as boolean)
		result.raw = record;
	return result;
}

import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { showFor } from '../common';
import type { Item } from '../../item';
import type { OperationMeta } from '../common';
import { quoteFor } from './charges';
import { networkField, payoutAmountField } from './fields';

/** What the registry knows of this operation (actions/registry.ts). */
export const meta: OperationMeta = {
	subtitle: 'Quote Fee · Payout',
};

export const description: INodeProperties[] = showFor('disbursement', 'quoteFee', [
	networkField,
	payoutAmountField,
]);

/** Quotes the fee and limits of a payout, without paying. */
export async function execute(this: IExecuteFunctions, item: Item): Promise<IDataObject> {
	const method = item.network('method');
	const amount = item.amount('amount');
	const quote = await quoteFor(item, method, amount);
	return {
		method,
		amount,
		...quote,
		withinLimits: amount >= quote.minimumAmount && amount <= quote.maximumAmount,
	};
}

import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { validateAmount, validateNetwork } from '../../helpers/validation';
import { showFor } from '../common';
import type { OperationMeta } from '../common';
import { quoteFor } from './charges';
import { networkField, payoutAmountField } from './fields';

/** What the registry knows of this operation (actions/registry.ts). */
export const meta: OperationMeta = {
	subtitle: 'Quote Fee · Disbursement',
};

export const description: INodeProperties[] = showFor('disbursement', 'quoteFee', [
	networkField,
	payoutAmountField,
]);

/** Quotes the fee and limits of a payout, without paying. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const method = validateNetwork(
		this.getNode(),
		itemIndex,
		this.getNodeParameter('method', itemIndex),
	);
	const amount = validateAmount(
		this.getNode(),
		itemIndex,
		this.getNodeParameter('amount', itemIndex),
	);
	const quote = await quoteFor(this, itemIndex, method, amount);
	return {
		method,
		amount,
		...quote,
		withinLimits: amount >= quote.minimumAmount && amount <= quote.maximumAmount,
	};
}

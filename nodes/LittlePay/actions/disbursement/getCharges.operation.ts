import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { getPayoutCharges } from '../../transport/gateway';
import type { OperationMeta } from '../common';
import type { Item } from '../../item';

/** What the registry knows of this operation (actions/registry.ts). */
export const meta: OperationMeta = {
	subtitle: 'Get Charges · Payout',
};

export const description: INodeProperties[] = [];

/** Lists networks, their payout limits and fee tiers. */
export async function execute(this: IExecuteFunctions, item: Item): Promise<IDataObject> {
	return getPayoutCharges(this, item.index);
}

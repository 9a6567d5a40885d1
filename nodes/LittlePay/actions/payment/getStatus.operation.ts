import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { getPaymentRecord } from '../../transport/gateway';
import {
	concurrencyOption,
	optionsCollection,
	showFor,
	simplifyField,
	simplifyPayment,
} from '../common';
import type { Item } from '../../item';
import type { OperationMeta } from '../common';
import { paymentIdField, readPaymentId } from './fields';

const CONCURRENCY = concurrencyOption(
	1,
	'How many lookups to run at once (1-10) for many payments; output order always matches input order',
);

/** What the registry knows of this operation (actions/registry.ts). */
export const meta: OperationMeta = {
	concurrency: CONCURRENCY,
	subtitle: 'Get Status · Payment',
	rowKey: { parameter: 'paymentId', field: 'reference' },
};

export const description: INodeProperties[] = showFor('payment', 'getStatus', [
	paymentIdField,
	simplifyField,
	optionsCollection([
		CONCURRENCY,
		{
			displayName: 'Long Poll',
			name: 'longPoll',
			type: 'boolean',
			default: false,
			description:
				'Whether to hold the request open until the status changes (once, up to 60 seconds)',
		},
	]),
]);

/** Gets the status of a payment by reference or key. */
export async function execute(this: IExecuteFunctions, item: Item): Promise<IDataObject> {
	const itemIndex = item.index;
	const paymentId = readPaymentId(item);
	const record = await getPaymentRecord(
		this,
		itemIndex,
		paymentId,
		item.param<boolean>('options.longPoll', false) === true,
	);
	return item.param<boolean>('simplify', true) ? simplifyPayment(record) : record;
}

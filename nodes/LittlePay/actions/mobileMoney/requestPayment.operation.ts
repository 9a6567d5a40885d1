import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { requireText } from '../../helpers/validation';
import { processOnce } from '../../transport';
import { showFor } from '../common';
import { payerFields, readPayer } from './fields';

export const description: INodeProperties[] = showFor('mobileMoney', 'requestPayment', [
	{
		displayName: 'Intent Reference',
		name: 'reference',
		type: 'string',
		required: true,
		default: '',
		description: 'Reference returned when the intent was created',
	},
	...payerFields,
]);

/** Sends the PIN prompt for an existing intent. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const { network, mobile } = readPayer(this, itemIndex);
	const reference = requireText(
		this.getNode(),
		itemIndex,
		this.getNodeParameter('reference', itemIndex),
		'Intent Reference',
	);
	const { data, recovered } = await processOnce(this, itemIndex, reference, {
		type: network,
		payment: { mobile },
	});
	return { reference, network, mobile, ...data, ...(recovered ? { recovered } : {}) };
}

import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { requireText } from '../../helpers/validation';
import { expectSuccess, readLittlePay } from '../../transport';
import { showFor, simplifyField } from '../common';

export const description: INodeProperties[] = showFor('disbursement', 'get', [
	{
		displayName: 'ID or Key',
		name: 'disbursementId',
		type: 'string',
		required: true,
		default: '',
		description: 'The ID returned at creation, or your key',
	},
	{
		...simplifyField,
		default: false,
		description:
			'Whether to return only ID, key, status, amount, method and recipient instead of the full record',
	},
]);

/** Picks the fields people use most from a disbursement record. */
function simplifyDisbursement(record: IDataObject): IDataObject {
	const details = (record.details ?? {}) as IDataObject;
	return {
		id: record.id,
		key: record.key,
		status: record.status,
		amount: record.amount,
		method: record.method,
		to: details.to ?? record.to ?? null,
	};
}

/** Reads a disbursement by the ID returned at creation or by its key. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = requireText(
		this.getNode(),
		itemIndex,
		this.getNodeParameter('disbursementId', itemIndex),
		'ID or Key',
	);
	const response = await readLittlePay(this, {
		credential: 'littlePayApiKeyApi',
		method: 'GET',
		path: `/api/disbursements/${encodeURIComponent(id)}`,
		disbursement: true,
		itemIndex,
	});
	const record = expectSuccess(this, response, itemIndex);
	return (this.getNodeParameter('simplify', itemIndex, false) as boolean)
		? simplifyDisbursement(record)
		: record;
}

import type { INodeProperties } from 'n8n-workflow';

import type { Item } from '../../item';
import { validateRecordId } from '../../helpers/validation';

export const paymentIdField: INodeProperties = {
	displayName: 'Reference or Key',
	name: 'paymentId',
	type: 'string',
	required: true,
	default: '',
	hint: 'The reference a Little Pay node returned, or the Key you gave the payment',
	description: 'The intent reference, or the key you set when creating it',
};

/** Reads the payment reference or key of one item; an empty one fails the item before anything is sent. */
export function readPaymentId(item: Item): string {
	const id = item.text('paymentId', 'Reference or Key');
	return item.check(() => validateRecordId(id, 'Reference or Key'));
}

import type { INodeProperties } from 'n8n-workflow';

export const paymentIdField: INodeProperties = {
	displayName: 'Reference or Key',
	name: 'paymentId',
	type: 'string',
	required: true,
	default: '',
	hint: 'The reference a Little Pay node returned, or the Key you gave the payment',
	description: 'The intent reference, or the key you set when creating it',
};

import type { INodeProperties } from 'n8n-workflow';

export const paymentIdField: INodeProperties = {
	displayName: 'Reference or Key',
	name: 'paymentId',
	type: 'string',
	required: true,
	default: '',
	description: 'The intent reference, or the key you set when creating it',
};

export const waitTimeoutField: INodeProperties = {
	displayName: 'Timeout (Seconds)',
	name: 'waitTimeoutSeconds',
	type: 'number',
	typeOptions: { minValue: 1 },
	default: 300,
	description: 'How long to wait for a final status before returning with timedOut set',
};

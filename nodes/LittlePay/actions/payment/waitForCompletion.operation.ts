import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { paymentState } from '../../helpers/paymentState';
import { getPaymentRecord } from '../../transport/gateway';
import { optionsCollection, showFor, simplifyField, simplifyPayment } from '../common';
import type { Item } from '../../item';
import type { OperationMeta } from '../common';
import { paymentIdField, readPaymentId } from './fields';
import { payableField, waitForFinalStatus } from '../../flows/waitForPayment';
import {
	longPollTimeoutSeconds,
	pauseForCallback,
	pauseKeyNotice,
	pauseNotice,
	pauseTimeoutFields,
	readPause,
	waitForPaymentField,
	waitOptions,
} from '../../flows/pause';

/** What the registry knows of this operation (actions/registry.ts). */
export const meta: OperationMeta = {
	subtitle: 'Wait for Completion · Payment',
	rowKey: { parameter: 'paymentId', field: 'reference' },
};

export const description: INodeProperties[] = showFor('payment', 'waitForCompletion', [
	paymentIdField,
	waitForPaymentField('longPoll', 'How to Wait', false),
	pauseNotice(
		'Create the intent with Callback URL {{ $execution.resumeUrl }} (Payment Intent: Create in this workflow) and send its checkout link before this node: the execution then pauses here, holding nothing, until the payment ends: COMPLETED, or FAILED once the intent can no longer be paid (a payer whose try failed may try again on the same page). At the timeout it goes on with timedOut: true and status PENDING: look the payment up there with Payment: Get Status.',
	),
	...pauseTimeoutFields,
	pauseKeyNotice,
	simplifyField,
	optionsCollection(waitOptions),
]);

/**
 * Waits until a payment is COMPLETED or FAILED, or the timeout passes: holding a long poll, or
 * paused until Little Pay calls the execution's resume URL (which the intent must have been created
 * with as its Callback URL, e.g. {{ $execution.resumeUrl }}); one lookup first decides a settled one.
 */
export async function execute(this: IExecuteFunctions, item: Item): Promise<IDataObject> {
	const itemIndex = item.index;
	const paymentId = readPaymentId(item);
	const simplify = item.param<boolean>('simplify', true);
	if (item.param('waitForPayment', 'longPoll') === 'pause') {
		const pause = readPause(item, 'How to Wait');
		const record = await getPaymentRecord(this, itemIndex, paymentId, false);
		if (paymentState(record) !== 'payable') {
			return {
				...(simplify ? simplifyPayment(record) : record),
				...payableField(record),
				timedOut: false,
				requests: 1,
			};
		}
		return await pauseForCallback(
			item,
			{
				reference: record.reference,
				key: record.key,
				amount: record.amount,
				currency: record.currency ?? null,
				description: record.description ?? null,
				...(typeof record.expiresAt === 'string' ? { expiresAt: record.expiresAt } : {}),
			},
			pause.timeoutMinutes,
		);
	}
	const timeout = longPollTimeoutSeconds(item);
	const result = await waitForFinalStatus(item, paymentId, timeout);
	return simplify
		? {
				...simplifyPayment(result),
				...payableField(result),
				timedOut: result.timedOut,
				requests: result.requests,
			}
		: { ...result, ...payableField(result) };
}

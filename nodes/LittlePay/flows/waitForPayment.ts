import type { IDataObject } from 'n8n-workflow';
import type { Item } from '../item';

import { failureFields, failureOfText } from '../helpers/failures';
import { paymentState } from '../helpers/paymentState';
import {
	expectSuccess,
	isLost,
	isRetryable,
	pauseUnlessCancelled,
	paymentStatusPath,
	sendOnce,
} from '../transport';
import { cancelledError } from '../errors';
import { isNotARecord, readPaymentRecord } from '../transport/records';

const WAIT_CANCELLED = 'Execution cancelled while waiting for the payment';

/** What ends a long poll besides the payment's final state, and the intent's expiry if the node knows it. */
export interface WaitUntil {
	/** End on a failed attempt too (Collect: the PIN prompt it sent has been answered). */
	failedAttemptEnds?: boolean;
	/** When the intent stops being payable, if the node set it (ISO time). */
	expiresAt?: string;
}

/**
 * `payable` for a FAILED output: whether the payer can still pay the same intent (another attempt
 * on its checkout page or a new PIN prompt), so a workflow knows a failure is not yet the end.
 */
export function payableField(record: IDataObject, expiresAt?: string): IDataObject {
	if (String(record.status) !== 'FAILED') return {};
	return {
		payable: paymentState(record, Date.now(), expiresAt) === 'payable',
		...failureFields(failureOfText(record.message)),
	};
}

/**
 * Waits for a final status with long polls: each request is held by the server until the status
 * changes, so a payment costs about one request instead of one per second. A server long poll that
 * ends with PENDING is followed by another; a PENDING answered at once waits a second first. A
 * failed attempt on an intent that can still be paid is not the end (see helpers/paymentState).
 */
export async function waitForFinalStatus(
	item: Item,
	paymentId: string,
	timeoutSeconds: number,
	until: WaitUntil = {},
): Promise<IDataObject> {
	const { context, index: itemIndex } = item;
	const deadline = Date.now() + timeoutSeconds * 1000;
	let requests = 0;
	let record: IDataObject = {};
	let longPoll = true;
	const pause = async (ms: number) =>
		await pauseUnlessCancelled(context, ms, WAIT_CANCELLED, itemIndex);
	while (Date.now() < deadline) {
		if (context.getExecutionCancelSignal()?.aborted)
			throw cancelledError(context, WAIT_CANCELLED, itemIndex);
		const started = Date.now();
		requests++;
		const answer = await sendOnce(context, {
			credential: 'littlePayApiKeyApi',
			method: 'GET',
			path: paymentStatusPath(paymentId),
			qs: longPoll ? { longPoll: true } : undefined,
			timeoutMs: Math.max(1000, deadline - Date.now()),
			itemIndex,
		});
		if (isLost(answer) || isRetryable(answer)) {
			// Our own request timeout at the deadline is the timeout the user asked for, not an error.
			if (isLost(answer) && Date.now() >= deadline - 50) break;
			await pause(1000);
			continue;
		}
		const read = readPaymentRecord(expectSuccess(context, answer, itemIndex), paymentId);
		if (isNotARecord(read)) {
			// An answer that proves nothing ends nothing: ask again, plainly (a long poll's completion may
			// come in the process result's shape, which names the intent by reference only).
			longPoll = false;
			await pause(Math.min(1000, Math.max(0, deadline - Date.now())));
			continue;
		}
		longPoll = true;
		record = read.data;
		const ended =
			paymentState(record, Date.now(), until.expiresAt) !== 'payable' ||
			(until.failedAttemptEnds === true && record.status === 'FAILED');
		if (ended) return { ...record, timedOut: false, requests };
		if (Date.now() - started < 1000)
			await pause(Math.min(1000, Math.max(0, deadline - Date.now())));
	}
	return { ...record, timedOut: true, requests };
}

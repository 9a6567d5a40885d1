import type { IDataObject } from 'n8n-workflow';
import type { Item } from '../item';

import { invalidInput, throwUnknownOutcome } from '../errors';
import { expectSuccess } from '../transport';
import { runIndexOf, runToken } from './keys';
import { isToolCall, toolCallRecordId } from './memory';
import { createOnce } from './once';
import { refundPath } from '../transport/gateway';

// A refund once per item of an execution: it has no key, so what was sent is recorded in the
// execution's flow context before sending and holds the answer after.

const SENT = 'littlePaySent';

/** What an earlier attempt of this execution sent for an item, kept in the flow context. */
export interface SentRecord {
	/** The gateway's answer once known; absent while the outcome is unknown. */
	answer?: IDataObject;
}

/**
 * The record of a keyless request (a refund) for this item of this node run, kept in the execution's
 * flow context, which n8n carries into Retry On Fail and retried executions: a re-run finds what the
 * first attempt sent instead of sending it again. Undefined `known` means a retried execution whose
 * first attempt left no context, where nothing can be told about what it sent.
 */
export function sentRecordFor(
	item: Item,
	operation: string,
): {
	known: boolean;
	get(): SentRecord | undefined;
	set(record: SentRecord | undefined): void;
} {
	const { context, index: itemIndex } = item;
	const flow = context.getContext('flow');
	const known = runToken(context) !== undefined;
	const id = isToolCall(context)
		? `tool|${toolCallRecordId(context, itemIndex)}`
		: `${context.getNode().id}|${runIndexOf(item)}|${itemIndex}|${operation}`;
	const records = (flow[SENT] ??= {}) as Record<string, SentRecord>;
	return {
		known,
		get: () => records[id],
		set: (record) => {
			if (record) records[id] = record;
			else delete records[id];
		},
	};
}

/**
 * What an earlier attempt of this execution refunded for this item: its answer (with
 * `alreadyRefunded: true`) to return instead of refunding again, or an error when it got no answer.
 * A retried execution whose first attempt left no record refuses the item before anything is sent.
 */
export function earlierRefund(item: Item): IDataObject | undefined {
	const { context, index: itemIndex } = item;
	const sent = sentRecordFor(item, 'refund');
	if (!sent.known) {
		invalidInput(
			context.getNode(),
			itemIndex,
			'Refund',
			'cannot be sent in this retried execution: its first attempt left no record of the refunds it sent',
			'The first attempt stopped before any Little Pay node ran, n8n stopped mid-run, or an older version of this node ran. Check the payment in the Little Pay dashboard and refund what is missing in a new execution.',
		);
	}
	const earlier = sent.get();
	if (earlier?.answer) return { ...earlier.answer, alreadyRefunded: true };
	if (earlier) {
		throwUnknownOutcome(
			context,
			itemIndex,
			'refund',
			'an earlier attempt of this execution sent it and got no answer',
			'Check the payment in the Little Pay dashboard before refunding again: the refund may have gone through.',
		);
	}
	return undefined;
}

/**
 * Sends a refund once: it has no key and no endpoint can tell whether a lost one happened, so it is
 * never resent automatically. The sent record is written before sending and holds the answer after,
 * so every way n8n re-runs the item finds it (earlierRefund); a refused refund clears it.
 */
export async function sendRefundOnce(
	item: Item,
	paymentId: string,
	body: IDataObject,
	toAnswer: (data: IDataObject) => IDataObject,
): Promise<IDataObject> {
	const { context, index: itemIndex } = item;
	const sent = sentRecordFor(item, 'refund');
	sent.set({});
	const { response } = await createOnce(
		context,
		{
			credential: 'littlePayApiKeyApi',
			method: 'POST',
			path: refundPath(paymentId),
			body,
			itemIndex,
		},
		undefined,
		'refund',
	);
	if (response.statusCode >= 400) sent.set(undefined); // refused: nothing was refunded
	const answer = toAnswer(expectSuccess(context, response, itemIndex));
	sent.set({ answer });
	return answer;
}

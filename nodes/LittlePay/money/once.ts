import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { expectSuccess, isLost, paymentStatusPath, readLittlePay, sendOnce } from '../transport';
import type { LittlePayRequest, LittlePayResponse, LostAnswer } from '../transport';
import { forEachAtMost } from '../helpers/pool';
import { runIndexOf, runToken } from './keys';
import { isToolCall, toolCallRecordId } from './memory';
import { itemError, throwUnknownOutcome, invalidInput } from '../errors';

function comparable(value: unknown): string | number {
	if (typeof value === 'number') return value;
	// Numbers may come back as strings; a phone number may or may not carry its "+".
	const text = String(value).trim().replace(/^\+/, '');
	const asNumber = Number(text);
	if (text !== '' && Number.isFinite(asNumber)) return asNumber;
	return text.toLowerCase();
}

/**
 * The fields of an existing record that differ from what this request asks for, as
 * "amount 500 there, 700 here". Fields the record does not carry are not compared: Little Pay's
 * documented records hold fewer fields than the requests.
 */
export function differingFields(expected: IDataObject, record: IDataObject): string[] {
	const differences: string[] = [];
	for (const [field, ours] of Object.entries(expected)) {
		const theirs = record[field];
		if (theirs === undefined || theirs === null || ours === undefined) continue;
		if (comparable(theirs) !== comparable(ours)) {
			differences.push(`${field} ${String(theirs)} there, ${String(ours)} here`);
		}
	}
	return differences;
}

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
	context: IExecuteFunctions,
	itemIndex: number,
	operation: string,
): {
	known: boolean;
	get(): SentRecord | undefined;
	set(record: SentRecord | undefined): void;
} {
	const flow = context.getContext('flow');
	const known = runToken(context) !== undefined;
	const id = isToolCall(context)
		? `tool|${toolCallRecordId(context, itemIndex)}`
		: `${context.getNode().id}|${runIndexOf(context, itemIndex)}|${itemIndex}|${operation}`;
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

/** How createOnce finds an earlier create with the same key, and whether it is this same request. */
export interface CreateLookup {
	request: LittlePayRequest;
	key: string;
	/** Look the key up before sending: a retried execution may have created it already. */
	checkFirst: boolean;
	/** The request's fields as the record shows them, to tell this request from another one. */
	expected: IDataObject;
}

/** What createOnce did: sent it, found it after an unknown outcome, or found it already there. */
export type CreateOutcome = 'created' | 'recovered' | 'existed';

/**
 * The answer to a request that moves money when it settles the outcome; undefined for no answer at
 * all or a server error, which a gateway or proxy may return after the payment was committed.
 */
function knownAnswer(result: LittlePayResponse | LostAnswer): LittlePayResponse | undefined {
	return isLost(result) || result.statusCode >= 500 ? undefined : result;
}

function describeAnswer(result: LittlePayResponse | LostAnswer): string {
	return isLost(result) ? result.reason : `HTTP ${result.statusCode}`;
}

/** A read made to recover an unknown outcome; when it gets no answer either, the outcome stays unknown. */
async function recoveryRead(
	context: IExecuteFunctions,
	request: LittlePayRequest,
	what: string,
): Promise<LittlePayResponse> {
	try {
		// More patience than an ordinary read: the answer decides whether money moved.
		return await readLittlePay(context, request, 5);
	} catch {
		// Never "try again" here: the first request may have gone through, and a retry could pay twice.
		throwUnknownOutcome(
			context,
			request.itemIndex,
			what,
			'the lookup got no answer either',
			`Check in the dashboard whether the ${what} exists before retrying: the first request may have gone through.`,
		);
	}
}

function isSuccess(response: LittlePayResponse): boolean {
	return response.statusCode >= 200 && response.statusCode < 300;
}

/** Returns a found record when it is the same request; fails the item naming the fields that differ. */
function sameRequest(
	context: IExecuteFunctions,
	found: LittlePayResponse,
	lookup: CreateLookup,
	what: string,
	itemIndex: number,
): LittlePayResponse {
	const differences = differingFields(lookup.expected, found.data);
	if (differences.length > 0) {
		itemError(
			context.getNode(),
			itemIndex,
			`Key "${lookup.key}" already belongs to a different ${what} (${differences.join('; ')})`,
			`Little Pay keeps one ${what} per key and this item asks for another one. Use a new key for a new ${what}, or correct the item if it is the same one.`,
		);
	}
	return found;
}

/**
 * Creates something that moves money, exactly once. In a retried execution the key is looked up
 * first. Then it is sent once; a 409 (the key exists) is looked up and, when the record is the same
 * request, is the answer; an unknown outcome (no answer, or a server error) is looked up and only
 * resent when the lookup proves nothing exists. A record that differs from the request fails the item.
 */
/** Keys looked up ahead of a node run's creates: each a definite answer (found, or 404) or undefined. */
const lookedUpAhead = new WeakMap<
	IExecuteFunctions,
	Map<string, Promise<LittlePayResponse | undefined>>
>();

/**
 * Starts looking a run's keys up ahead of its creates, `atOnce` at a time: reads, so wider than the
 * money moves, and they run while the first creates wait on the gateway, so a first run costs about one
 * round trip per payout instead of two. Each create waits for its own key's answer. Only a definite
 * answer counts (found, or 404); a key whose lookup failed is looked up again right before its create,
 * so nothing is ever sent blind. A concurrent run paying the same keys is caught by the gateway refusing
 * a used key (409), as between any lookup and its create.
 */
export function lookUpAhead(
	context: IExecuteFunctions,
	lookups: Array<{ key: string; request: LittlePayRequest }>,
	atOnce: number,
): void {
	const answers = new Map<string, Promise<LittlePayResponse | undefined>>();
	const settle = new Map<string, (answer: LittlePayResponse | undefined) => void>();
	for (const { key } of lookups) {
		if (!answers.has(key)) answers.set(key, new Promise((resolve) => settle.set(key, resolve)));
	}
	lookedUpAhead.set(context, answers);
	void forEachAtMost(lookups, atOnce, async ({ key, request }) => {
		let answer: LittlePayResponse | undefined;
		try {
			const found = await readLittlePay(context, request);
			if (isSuccess(found) || found.statusCode === 404) answer = found;
		} catch {
			// No answer: this key is looked up again right before its create.
		}
		settle.get(key)?.(answer);
	});
}

/** The answer looked up ahead for a key, once (a second item with the same key looks up afresh). */
async function takeLookedUpAhead(
	context: IExecuteFunctions,
	key: string,
): Promise<LittlePayResponse | undefined> {
	const answers = lookedUpAhead.get(context);
	const found = answers?.get(key);
	answers?.delete(key);
	return await found;
}

export async function createOnce(
	context: IExecuteFunctions,
	create: LittlePayRequest,
	lookup: CreateLookup | undefined,
	what: string,
): Promise<{ response: LittlePayResponse; outcome: CreateOutcome }> {
	const { itemIndex } = create;
	if (lookup?.checkFirst) {
		const found =
			(await takeLookedUpAhead(context, lookup.key)) ??
			(await recoveryRead(context, lookup.request, what));
		if (isSuccess(found)) {
			return { response: sameRequest(context, found, lookup, what, itemIndex), outcome: 'existed' };
		}
		if (found.statusCode !== 404) {
			throwUnknownOutcome(
				context,
				itemIndex,
				what,
				`the lookup of key ${lookup.key} answered HTTP ${found.statusCode}`,
				'Check the key in the dashboard before retrying.',
			);
		}
	}
	const first = await sendOnce(context, create);
	const firstAnswer = knownAnswer(first);
	if (firstAnswer && (firstAnswer.statusCode !== 409 || !lookup))
		return { response: firstAnswer, outcome: 'created' };
	if (!lookup) {
		throwUnknownOutcome(
			context,
			itemIndex,
			what,
			describeAnswer(first),
			`Check in the dashboard whether the ${what} exists before retrying.`,
		);
	}
	const found = await recoveryRead(context, lookup.request, what);
	if (isSuccess(found)) {
		return {
			response: sameRequest(context, found, lookup, what, itemIndex),
			outcome: firstAnswer ? 'existed' : 'recovered',
		};
	}
	if (found.statusCode !== 404 || firstAnswer) {
		throwUnknownOutcome(
			context,
			itemIndex,
			what,
			`lookup answered HTTP ${found.statusCode}`,
			'Check the key in the dashboard before retrying.',
		);
	}
	// The lookup proved nothing was created, so sending again cannot pay twice.
	const second = await sendOnce(context, create);
	const secondAnswer = knownAnswer(second);
	if (!secondAnswer) {
		throwUnknownOutcome(
			context,
			itemIndex,
			what,
			describeAnswer(second),
			`Little Pay failed to answer twice. Check in the dashboard whether the ${what} exists before retrying.`,
		);
	}
	return { response: secondAnswer, outcome: 'created' };
}

/**
 * The attempt that settles whether a payment of this provider was already asked for: the intent is
 * paid, or its latest attempt is of this provider (waiting, completed or failed). Undefined when a
 * new attempt may be sent.
 */
function existingAttempt(record: IDataObject, provider: unknown): IDataObject | undefined {
	const attempts = (Array.isArray(record.attempts) ? record.attempts : []) as IDataObject[];
	const latest = attempts[attempts.length - 1];
	if (record.status === 'COMPLETED') return { status: 'COMPLETED', provider: latest?.provider };
	if (latest && latest.provider === provider) return latest;
	return undefined;
}

/**
 * Sends POST /pay/{reference}/process once. An intent can be paid only once (Little Pay refuses a
 * second payment), and a payer must be asked only once: when the outcome is unknown, or before
 * sending when `checkFirst` is set (the intent existed already), the status record decides. Paid,
 * or an attempt of this provider waiting or settled, means it was asked for; otherwise it is sent.
 */
export async function processOnce(
	context: IExecuteFunctions,
	itemIndex: number,
	reference: string,
	body: IDataObject,
	cardData = false,
	checkFirst = false,
): Promise<{ data: IDataObject; recovered: boolean; alreadyPrompted?: boolean }> {
	const statusRequest: LittlePayRequest = {
		credential: 'littlePayApiKeyApi',
		method: 'GET',
		path: paymentStatusPath(reference),
		itemIndex,
	};
	if (checkFirst) {
		const record = expectSuccess(
			context,
			await recoveryRead(context, statusRequest, 'payment'),
			itemIndex,
		);
		const attempt = existingAttempt(record, body.type);
		if (attempt) {
			const provider = attempt.provider ?? body.type;
			const message = `Not asked again: this intent already has a ${String(provider)} payment attempt (${String(attempt.status)})`;
			return {
				data: { status: attempt.status, message, provider, reference },
				recovered: false,
				alreadyPrompted: true,
			};
		}
	}
	const request: LittlePayRequest = {
		credential: 'littlePayApiKeyApi',
		method: 'POST',
		path: `/pay/${encodeURIComponent(reference)}/process`,
		body,
		itemIndex,
		cardData,
	};
	const firstAnswer = knownAnswer(await sendOnce(context, request));
	if (firstAnswer)
		return { data: expectSuccess(context, firstAnswer, itemIndex, cardData), recovered: false };
	const record = expectSuccess(
		context,
		await recoveryRead(context, statusRequest, 'payment'),
		itemIndex,
	);
	const attempt = existingAttempt(record, body.type);
	if (attempt) {
		const message = 'Recovered from the status record (the first answer was lost)';
		return {
			data: { status: attempt.status, message, provider: body.type, reference },
			recovered: true,
		};
	}
	const second = await sendOnce(context, request);
	const secondAnswer = knownAnswer(second);
	if (!secondAnswer)
		throwUnknownOutcome(
			context,
			itemIndex,
			'payment',
			describeAnswer(second),
			'Check the payment status before trying again',
		);
	return { data: expectSuccess(context, secondAnswer, itemIndex, cardData), recovered: false };
}

/**
 * What an earlier attempt of this execution refunded for this item: its answer (with
 * `alreadyRefunded: true`) to return instead of refunding again, or an error when it got no answer.
 * A retried execution whose first attempt left no record refuses the item before anything is sent.
 */
export function earlierRefund(
	context: IExecuteFunctions,
	itemIndex: number,
): IDataObject | undefined {
	const sent = sentRecordFor(context, itemIndex, 'refund');
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
	context: IExecuteFunctions,
	itemIndex: number,
	paymentId: string,
	body: IDataObject,
	toAnswer: (data: IDataObject) => IDataObject,
): Promise<IDataObject> {
	const sent = sentRecordFor(context, itemIndex, 'refund');
	sent.set({});
	const { response } = await createOnce(
		context,
		{
			credential: 'littlePayApiKeyApi',
			method: 'POST',
			path: `/api/refund/${encodeURIComponent(paymentId)}`,
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

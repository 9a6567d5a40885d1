import type { IExecuteFunctions } from 'n8n-workflow';

import { forEachAtMost } from '../helpers/pool';
import { runState } from '../item';
import { readLittlePay } from '../transport';
import type { LittlePayRequest, LittlePayResponse } from '../transport';
import { nextTick, releasedSince } from './claim';
import { isSuccess } from './send';

// A payout run's keys looked up ahead of its creates, per node run, and handed to each create once.

/** Keys looked up ahead of a node run's creates: each a definite answer (found, or 404) or undefined. */
interface LookAhead {
	answers: Map<string, Promise<LittlePayResponse | undefined>>;
	/** The tick at which each key's read was issued. */
	issued: Map<string, number>;
	stopped: boolean;
}

/** This node run's look-ahead, kept in its run state (item.ts). */
function lookAheadOf(context: IExecuteFunctions): LookAhead | undefined {
	return runState(context).lookAhead as LookAhead | undefined;
}

/**
 * Starts looking a run's keys up ahead of its creates, `atOnce` at a time: reads, so wider than the
 * money moves, and they run while the first creates wait on the gateway, so a first run costs about one
 * round trip per payout instead of two. Each create waits for its own key's answer. Only a definite
 * answer counts (found, or 404), and only when no hold of the key ended after the read was issued; else
 * the key is looked up again right before its create, so nothing is ever sent on a stale answer. The
 * reads stop when the run does (stopLookingAhead, or Stop).
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
	const ahead: LookAhead = { answers, issued: new Map(), stopped: false };
	runState(context).lookAhead = ahead;
	const stopped = () => ahead.stopped || context.getExecutionCancelSignal()?.aborted === true;
	void forEachAtMost(
		lookups,
		atOnce,
		async ({ key, request }) => {
			let answer: LittlePayResponse | undefined;
			ahead.issued.set(key, nextTick());
			try {
				const found = await readLittlePay(context, request);
				if (isSuccess(found) || found.statusCode === 404) answer = found;
			} catch {
				// No answer: this key is looked up again right before its create.
			}
			settle.get(key)?.(answer);
		},
		stopped,
	).finally(() => {
		// Keys never read (the run stopped) have no answer: each is looked up before its create.
		for (const resolve of settle.values()) resolve(undefined);
	});
}

/** No more reads ahead for this run: it failed, was cancelled, or ended. */
export function stopLookingAhead(context: IExecuteFunctions): void {
	const ahead = lookAheadOf(context);
	if (ahead) ahead.stopped = true;
}

/** Each key's answer looked up ahead, once all are in: a record, a 404, or undefined (no answer). */
export async function answersAhead(
	context: IExecuteFunctions,
): Promise<Map<string, LittlePayResponse | undefined>> {
	const ahead = lookAheadOf(context);
	const answers = new Map<string, LittlePayResponse | undefined>();
	for (const [key, answer] of ahead?.answers ?? []) answers.set(key, await answer);
	return answers;
}
/** The answer looked up ahead for a key, once (a second item with the same key looks up afresh). */
export async function takeLookedUpAhead(
	context: IExecuteFunctions,
	key: string,
	what: string,
): Promise<LittlePayResponse | undefined> {
	const ahead = lookAheadOf(context);
	const found = ahead?.answers.get(key);
	if (!ahead || !found) return undefined;
	ahead.answers.delete(key);
	const answer = await found;
	const issued = ahead.issued.get(key);
	// Another execution held the key after the read was issued: its send may not have been committed
	// when the read was answered, so a 404 proves nothing. The caller holds the key now.
	if (issued === undefined || (await releasedSince(context, key, what, issued))) return undefined;
	return answer;
}

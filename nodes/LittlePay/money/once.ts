import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { itemError, throwUnknownOutcome } from '../errors';
import { forEachAtMost } from '../helpers/pool';
import { sameNumber } from '../helpers/validation';
import { readLittlePay, sendOnce } from '../transport';
import type { LittlePayRequest, LittlePayResponse } from '../transport';
import { describeAnswer, isSuccess, knownAnswer, recoveryRead } from './send';

// Keyed creates (intents, payouts) exactly once: the key looked up first when it may exist, the
// answer compared with the request, a lost answer recovered by the key (send.ts).

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
		// Little Pay may show the payee's number masked (2547•••••670): its visible digits must agree.
		if (
			comparable(theirs) !== comparable(ours) &&
			!(field === 'to' && sameNumber(String(theirs), String(ours)))
		) {
			differences.push(`${field} ${String(theirs)} there, ${String(ours)} here`);
		}
	}
	return differences;
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
	{ answers: Map<string, Promise<LittlePayResponse | undefined>>; since: number }
>();

// One key in flight once per n8n process: two executions paying the same key (the same sheet run twice
// at once) would both look it up, find nothing and send. The second now waits for the first's send and
// then looks the key up afresh, finding its record. Module state is per process: across queue-mode
// workers only the gateway's answer to a repeated key stands between two sends (docs/payout-runs.md).
const keysInFlight = new Map<string, Promise<void>>();
/** How many creates this process has sent, and the count at which each key was last sent. */
let sendCount = 0;
const sentAt = new Map<string, number>();
const SENT_KEYS_KEPT = 100_000;

/** Waits until no other execution of this process is creating under the key, then holds it. */
async function holdKey(id: string): Promise<{ waited: boolean; release: () => void }> {
	const before = keysInFlight.get(id);
	let release = () => {};
	const mine = new Promise<void>((resolve) => (release = resolve));
	const chain = (before ?? Promise.resolve()).then(async () => await mine);
	keysInFlight.set(id, chain);
	if (before) await before;
	return {
		waited: before !== undefined,
		release: () => {
			release();
			if (keysInFlight.get(id) === chain) keysInFlight.delete(id);
		},
	};
}

function noteSent(id: string): void {
	sentAt.delete(id);
	sentAt.set(id, ++sendCount);
	// Oldest first: a key sent 100,000 creates ago was looked up afresh by any run still holding it.
	if (sentAt.size > SENT_KEYS_KEPT) sentAt.delete(sentAt.keys().next().value as string);
}

/** The process-wide name of a key: keys are the merchant's (one per API-key credential) and per kind. */
function keyId(context: IExecuteFunctions, key: string, what: string): string {
	return `${context.getNode().credentials?.littlePayApiKeyApi?.id ?? ''}|${what}|${key}`;
}

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
	lookedUpAhead.set(context, { answers, since: sendCount });
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
	what: string,
): Promise<LittlePayResponse | undefined> {
	const ahead = lookedUpAhead.get(context);
	const found = ahead?.answers.get(key);
	ahead?.answers.delete(key);
	// Another execution of this process sent under the key since it was looked up: the answer is stale.
	if ((sentAt.get(keyId(context, key, what)) ?? 0) > (ahead?.since ?? 0)) return undefined;
	return await found;
}

export async function createOnce(
	context: IExecuteFunctions,
	create: LittlePayRequest,
	lookup: CreateLookup | undefined,
	what: string,
): Promise<{ response: LittlePayResponse; outcome: CreateOutcome }> {
	if (!lookup) return await createAndRecover(context, create, lookup, what, false);
	const id = keyId(context, lookup.key, what);
	const hold = await holdKey(id);
	try {
		return await createAndRecover(context, create, lookup, what, hold.waited, () => noteSent(id));
	} finally {
		hold.release();
	}
}

async function createAndRecover(
	context: IExecuteFunctions,
	create: LittlePayRequest,
	lookup: CreateLookup | undefined,
	what: string,
	keyWasInFlight: boolean,
	sent: () => void = () => {},
): Promise<{ response: LittlePayResponse; outcome: CreateOutcome }> {
	const { itemIndex } = create;
	if (lookup && (lookup.checkFirst || keyWasInFlight)) {
		const found =
			(keyWasInFlight ? undefined : await takeLookedUpAhead(context, lookup.key, what)) ??
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
	sent();
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
	sent();
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

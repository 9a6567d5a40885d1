import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { itemError, throwUnknownOutcome } from '../errors';
import { forEachAtMost } from '../helpers/pool';
import { sameNumber } from '../helpers/validation';
import { readLittlePay, sendOnce } from '../transport';
import type { LittlePayRequest, LittlePayResponse, LostAnswer } from '../transport';
import { describeAnswer, isSuccess, knownAnswer, recoveryRead } from './send';

// Keyed creates (intents, payouts) exactly once: the key claimed in this process, looked up first when
// it may exist, the answer compared with the request, a lost answer found by the key or reported
// unknown, never sent again (send.ts).

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

// One claim per key and kind in this n8n process. A key is free, in flight (an execution holds it: it
// looks the key up and may send), or its outcome is unknown (a send ended without an answer that
// settles it: Stop, a lost answer, a server error). Module state is per process: across queue-mode
// workers only the gateway's answer to a repeated key stands between two sends (docs/payout-runs.md).
const keysInFlight = new Map<string, Promise<void>>();
/** This process's clock: each release of a key's hold and each look-ahead read takes the next tick. */
let tick = 0;
/** The tick at which each key's hold was last released: a look-ahead read issued before it is stale. */
const releasedAt = new Map<string, number>();
/** When (ms) a send of each key ended with its outcome unknown. */
const unknownSince = new Map<string, number>();
const KEYS_KEPT = 100_000;

/**
 * How long after a send whose outcome is unknown a lookup's 404 proves nothing: a gateway still working
 * on the first request answers exactly that. Past it, a re-run that finds nothing sends.
 */
export const COMMIT_WINDOW_MINUTES = 5;

function remember(map: Map<string, number>, id: string, value: number): void {
	map.delete(id);
	map.set(id, value);
	// Oldest first: a key released 100,000 holds ago was looked up afresh by any run still holding it.
	if (map.size > KEYS_KEPT) map.delete(map.keys().next().value as string);
}

/** Waits until no other execution of this process holds the key, then holds it. */
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

/**
 * The process-wide name of a key: keys are the merchant's (one per API-key credential) and per kind.
 * Letter case is folded: Little Pay does not say whether EMP1 and emp1 are one key, so they are held
 * as one (the run check refuses the second row of a run).
 */
function keyId(context: IExecuteFunctions, key: string, what: string): string {
	const credential = context.getNode().credentials?.littlePayApiKeyApi?.id ?? '';
	return `${credential}|${what}|${key.toLowerCase()}`;
}

/** An execution's claim on a key, held from its lookup to its send's end. */
export interface KeyClaim {
	/** Another execution held the key first: anything looked up before is stale. */
	waited: boolean;
	/** When a send of the key ended with its outcome unknown, within the commit window. */
	unknownSince: number | undefined;
	/** Marks the key's outcome unknown: a send ended without an answer that settles it. */
	unknown(): void;
	/** The key's record was found, or its send answered: its outcome is known. */
	known(): void;
}

/**
 * Runs `use` holding the key (per credential and kind) in this process: another execution of the same
 * key waits until this one's send has ended, then learns whether its outcome is known.
 */
export async function withKeyClaim<T>(
	context: IExecuteFunctions,
	key: string,
	what: string,
	use: (claim: KeyClaim) => Promise<T>,
): Promise<T> {
	const id = keyId(context, key, what);
	const hold = await holdKey(id);
	const since = unknownSince.get(id);
	const claim: KeyClaim = {
		waited: hold.waited,
		unknownSince:
			since !== undefined && Date.now() - since < COMMIT_WINDOW_MINUTES * 60_000
				? since
				: undefined,
		unknown: () => remember(unknownSince, id, Date.now()),
		known: () => unknownSince.delete(id),
	};
	try {
		return await use(claim);
	} finally {
		remember(releasedAt, id, ++tick);
		hold.release();
	}
}

/** What a send that ended without a settling answer tells the user to do, naming the key. */
export function unknownOutcomeAdvice(key: string, what: string): string {
	return `It may still be committed at Little Pay, so it was not sent again. Run the workflow again in ${COMMIT_WINDOW_MINUTES} minutes or later: a re-run looks key ${key} up first and sends only if nothing is there. Or look the key up first${what === 'payout' || what === 'disbursement' ? ' (Payout: Reconcile)' : ''}.`;
}

/** Raises "the outcome is unknown" for a key whose send ended without a settling answer. */
function throwKeyUnknown(
	context: IExecuteFunctions,
	itemIndex: number,
	what: string,
	key: string,
	detail: string,
): never {
	throwUnknownOutcome(
		context,
		itemIndex,
		what,
		`${detail}; key ${key}`,
		unknownOutcomeAdvice(key, what),
	);
}

/**
 * Sends a request that moves money once, under a claim: an answer that settles it returns; Stop marks
 * the claim unknown and fails the item saying so (the request may be at the gateway already).
 */
export async function sendClaimed(
	context: IExecuteFunctions,
	request: LittlePayRequest,
	claim: KeyClaim | undefined,
	what: string,
	key: string | undefined,
): Promise<LittlePayResponse | LostAnswer> {
	// sendOnce throws before sending (no credential), or on Stop, when the request may be out already.
	const answer = await sendOnce(context, request).catch(async (error: unknown) => {
		if (!context.getExecutionCancelSignal()?.aborted) return await Promise.reject(error as Error);
		claim?.unknown();
		return throwUnknownOutcome(
			context,
			request.itemIndex,
			what,
			`execution cancelled while it was being sent${key === undefined ? '' : `; key ${key}`}`,
			key === undefined
				? `It may have reached Little Pay. Check in the dashboard whether the ${what} exists before retrying.`
				: unknownOutcomeAdvice(key, what),
		);
	});
	if (knownAnswer(answer)) claim?.known();
	else claim?.unknown();
	return answer;
}

/** Keys looked up ahead of a node run's creates: each a definite answer (found, or 404) or undefined. */
interface LookAhead {
	answers: Map<string, Promise<LittlePayResponse | undefined>>;
	/** The tick at which each key's read was issued. */
	issued: Map<string, number>;
	stopped: boolean;
}

const lookedUpAhead = new WeakMap<IExecuteFunctions, LookAhead>();

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
	lookedUpAhead.set(context, ahead);
	const stopped = () => ahead.stopped || context.getExecutionCancelSignal()?.aborted === true;
	void forEachAtMost(
		lookups,
		atOnce,
		async ({ key, request }) => {
			let answer: LittlePayResponse | undefined;
			ahead.issued.set(key, ++tick);
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
	const ahead = lookedUpAhead.get(context);
	if (ahead) ahead.stopped = true;
}

/** Each key's answer looked up ahead, once all are in: a record, a 404, or undefined (no answer). */
export async function answersAhead(
	context: IExecuteFunctions,
): Promise<Map<string, LittlePayResponse | undefined>> {
	const ahead = lookedUpAhead.get(context);
	const answers = new Map<string, LittlePayResponse | undefined>();
	for (const [key, answer] of ahead?.answers ?? []) answers.set(key, await answer);
	return answers;
}

/** The answer looked up ahead for a key, once (a second item with the same key looks up afresh). */
async function takeLookedUpAhead(
	context: IExecuteFunctions,
	key: string,
	what: string,
): Promise<LittlePayResponse | undefined> {
	const ahead = lookedUpAhead.get(context);
	const found = ahead?.answers.get(key);
	if (!ahead || !found) return undefined;
	ahead.answers.delete(key);
	const answer = await found;
	const issued = ahead.issued.get(key);
	// Another execution held the key after the read was issued: its send may not have been committed
	// when the read was answered, so a 404 proves nothing. The caller holds the key now.
	if (issued === undefined || (releasedAt.get(keyId(context, key, what)) ?? 0) > issued)
		return undefined;
	return answer;
}

/**
 * Creates something that moves money, exactly once. Under the key's claim in this process, the key
 * is looked up first when it may exist (a re-run, another execution held it, or an earlier send's
 * outcome is unknown), then sent once. A 409 is looked up and, when the record is the same request,
 * is the answer. An unknown outcome (Stop, no answer, a server error) is looked up and never sent
 * again: a 404 then means "not committed yet" as much as "not sent", so the item says the outcome is
 * unknown and what to do. A record that differs from the request fails the item.
 */
export async function createOnce(
	context: IExecuteFunctions,
	create: LittlePayRequest,
	lookup: CreateLookup | undefined,
	what: string,
): Promise<{ response: LittlePayResponse; outcome: CreateOutcome }> {
	if (!lookup) return await createAndRecover(context, create, undefined, what, undefined);
	return await withKeyClaim(context, lookup.key, what, async (claim) =>
		createAndRecover(context, create, lookup, what, claim),
	);
}

async function createAndRecover(
	context: IExecuteFunctions,
	create: LittlePayRequest,
	lookup: CreateLookup | undefined,
	what: string,
	claim: KeyClaim | undefined,
): Promise<{ response: LittlePayResponse; outcome: CreateOutcome }> {
	const { itemIndex } = create;
	if (lookup && claim && (lookup.checkFirst || claim.waited || claim.unknownSince !== undefined)) {
		const fresh = claim.waited || claim.unknownSince !== undefined;
		const found =
			(fresh ? undefined : await takeLookedUpAhead(context, lookup.key, what)) ??
			(await recoveryRead(context, lookup.request, what, lookup.key));
		if (isSuccess(found)) {
			claim.known();
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
		if (claim.unknownSince !== undefined) {
			throwKeyUnknown(
				context,
				itemIndex,
				what,
				lookup.key,
				`an earlier send of it got no answer at ${new Date(claim.unknownSince).toISOString()} and Little Pay shows nothing under it yet`,
			);
		}
	}
	const first = await sendClaimed(context, create, claim, what, lookup?.key);
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
	const found = await recoveryRead(context, lookup.request, what, lookup.key);
	if (isSuccess(found)) {
		claim?.known();
		return {
			response: sameRequest(context, found, lookup, what, itemIndex),
			outcome: firstAnswer ? 'existed' : 'recovered',
		};
	}
	if (firstAnswer || found.statusCode !== 404) {
		throwUnknownOutcome(
			context,
			itemIndex,
			what,
			`lookup answered HTTP ${found.statusCode}`,
			'Check the key in the dashboard before retrying.',
		);
	}
	// Nothing under the key yet proves nothing: the first request may still be committed. Never resent.
	throwKeyUnknown(
		context,
		itemIndex,
		what,
		lookup.key,
		`${describeAnswer(first)}, and Little Pay shows nothing under it yet`,
	);
}

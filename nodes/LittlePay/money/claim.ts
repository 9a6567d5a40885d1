import type { IExecuteFunctions } from 'n8n-workflow';

import { throwUnknownOutcome } from '../errors';
import { sendOnce } from '../transport';
import type { LittlePayRequest, LittlePayResponse, LostAnswer } from '../transport';
import { accountOf } from './account';
import { refuseWhilePaused } from './limitSets';
import { knownAnswer } from './send';

// The key claim: one per key and kind in this n8n process, free, in flight or outcome unknown, and
// the process's clock that tells a stale look-ahead read from a fresh one (lookAhead.ts).

// A key is free, in flight (an execution holds it: it looks the key up and may send), or its outcome
// is unknown (a send ended without an answer that settles it: Stop, a lost answer, a server error). Module state is per process: across queue-mode
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

/** The next tick of this process's clock: a look-ahead read takes one when it is issued. */
export function nextTick(): number {
	return ++tick;
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
 * The process-wide name of a key: keys are the Little Pay account's (money/account.ts: every credential
 * holding its API key) and per kind. Letter case is folded: Little Pay does not say whether EMP1 and
 * emp1 are one key, so they are held as one (the run check refuses the second row of a run).
 */
async function keyId(context: IExecuteFunctions, key: string, what: string): Promise<string> {
	const { id } = await accountOf(context, 0);
	return `${id}|${what}|${key.toLowerCase()}`;
}

/** Whether a hold of the key ended after `issued`: a read issued before then may be stale. */
export async function releasedSince(
	context: IExecuteFunctions,
	key: string,
	what: string,
	issued: number,
): Promise<boolean> {
	return (releasedAt.get(await keyId(context, key, what)) ?? 0) > issued;
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
 * Runs `use` holding the key (per account and kind) in this process: another execution of the same
 * key waits until this one's send has ended, then learns whether its outcome is known.
 */
export async function withKeyClaim<T>(
	context: IExecuteFunctions,
	key: string,
	what: string,
	use: (claim: KeyClaim) => Promise<T>,
): Promise<T> {
	const id = await keyId(context, key, what);
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
export function throwKeyUnknown(
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
	// The switch as it is now: a person may have paused money moves since this run read its credential.
	await refuseWhilePaused(context, request.itemIndex);
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

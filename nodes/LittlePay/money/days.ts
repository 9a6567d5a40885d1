import type { IExecuteFunctions } from 'n8n-workflow';

import { runState } from '../item';
import { accountOf } from './account';
import type { Account } from './account';
import { isDirectToolCall, moveIdOf, TOOL_WINDOW_MS } from './memory';
import type { DayEntry, DayView, LimitSet, MoneyMove, MoveKind, Spent } from './moves';

// The day totals the day limits count: module state of this n8n process, exact within it, not shared
// by queue-mode workers (docs/ai-agents.md).

/**
 * A move as the day totals count it: the move in its execution (the same call or row in another
 * execution is another payout, with another key), or for a direct (MCP) call in its hour, as its key.
 */
export function dayMoveOf(context: IExecuteFunctions, itemIndex: number, moveId: string): string {
	const period = isDirectToolCall(context, itemIndex)
		? `direct:${Math.floor(Date.now() / TOOL_WINDOW_MS)}`
		: (context.getExecutionId() ?? '');
	return `${period}|${moveId}`;
}

/**
 * Day totals of this n8n process, by `<day>|<scope>`: one array per scope and day, changed in place,
 * so every reader holds the same one. Module state: exact within one n8n process (its checks and
 * reservations run without awaiting in between), not shared by queue-mode workers, lost on restart.
 */
const days = new Map<string, DayEntry[]>();

/** Today's date in a time zone, as YYYY-MM-DD (what a day limit counts over). */
export function dayIn(timeZone: string): string {
	const parts = new Intl.DateTimeFormat('en-CA', {
		timeZone,
		year: 'numeric',
		month: '2-digit',
		day: '2-digit',
	}).format(new Date());
	return parts;
}

/**
 * Today's entries of a scope (`node:<workflow>|<node>` or `account:<id>`), today being the account's
 * calendar day (its credential's Day Time Zone, money/account.ts), never the workflow's.
 */
export function dayEntries(timeZone: string, scope: string): DayEntry[] {
	const day = dayIn(timeZone);
	const key = `${day}|${scope}`;
	let entries = days.get(key);
	if (!entries) {
		// Days before yesterday are over in every time zone.
		const over = new Date(Date.now() - 2 * 24 * 60 * 60 * 1000).toISOString().slice(0, 10);
		for (const old of days.keys()) if (old.slice(0, 10) < over) days.delete(old);
		entries = [];
		days.set(key, entries);
	}
	return entries;
}

/** What each item reserved in the day totals, until its move ends (in the node run's state). */
type DayReservations = Map<number, Array<{ entries: DayEntry[]; entry: DayEntry }>>;

function dayReservations(context: IExecuteFunctions): DayReservations {
	const state = runState(context);
	return (state.dayReservations ??= new Map()) as DayReservations;
}

/**
 * Counts a move in the day totals of every limit set with a day limit. Called right after the move
 * passed its checks, with nothing awaited in between, so concurrent moves cannot both pass a day
 * total only one of them fits in.
 */
export function reserveDay(
	context: IExecuteFunctions,
	itemIndex: number,
	sets: LimitSet[],
	move: MoneyMove,
	moveId: string,
): void {
	const reserved: Array<{ entries: DayEntry[]; entry: DayEntry }> = [];
	const dayMove = dayMoveOf(context, itemIndex, moveId);
	for (const day of sets.flatMap((set) => [set.day, set.grantDay])) {
		if (!day) continue;
		for (let at = day.entries.length - 1; at >= 0; at--)
			if (day.entries[at].move === dayMove) day.entries.splice(at, 1);
		const entry: DayEntry = {
			move: dayMove,
			amount: move.amount,
			currency: move.currency.toUpperCase(),
			recipient: move.recipient,
			...(move.key !== undefined ? { key: move.key } : {}),
		};
		day.entries.push(entry);
		reserved.push({ entries: day.entries, entry });
	}
	if (reserved.length === 0) return;
	dayReservations(context).set(itemIndex, reserved);
}

/**
 * Settles an item's day reservation: given back when nothing moved (the gateway refused the request,
 * or answered that the move failed).
 */
export function settleDay(
	context: IExecuteFunctions,
	itemIndex: number,
	nothingMoved: boolean,
): void {
	const byItem = dayReservations(context);
	const reserved = byItem.get(itemIndex);
	if (!reserved) return;
	byItem.delete(itemIndex);
	if (!nothingMoved) return;
	for (const { entries, entry } of reserved) {
		const at = entries.indexOf(entry);
		if (at !== -1) entries.splice(at, 1);
	}
}

/**
 * A move's key as the account holds it: the account, the kind and the key (letter case folded, as the
 * key claims fold it). The day totals find a move by it when Little Pay later says the move failed.
 */
export async function moveKeyOf(
	context: IExecuteFunctions,
	itemIndex: number,
	kind: MoveKind,
	key: string,
): Promise<string> {
	const { id } = await accountOf(context, itemIndex);
	return `${id}|${kind}|${key.toLowerCase()}`;
}

/**
 * Takes the moves sent under these keys out of every day total of the account: Little Pay's record of
 * each says it failed, so nobody was paid (Pay Again If Failed's failed attempts, a wait that ended
 * FAILED). The account's day is this process's, like the totals themselves.
 */
export async function forgetFailedMoves(
	context: IExecuteFunctions,
	itemIndex: number,
	kind: MoveKind,
	keys: string[],
): Promise<void> {
	if (keys.length === 0) return;
	const failed = new Set<string>();
	for (const key of keys) failed.add(await moveKeyOf(context, itemIndex, kind, key));
	for (const entries of days.values())
		for (let at = entries.length - 1; at >= 0; at--) {
			const key = entries[at].key;
			if (key !== undefined && failed.has(key)) entries.splice(at, 1);
		}
}

/** The limits whose running total is the day's. */
const DAY_LIMITS = ['maxTotalPerDay', 'maxCountPerDay', 'maxTotalPerRecipientPerDay'];

/**
 * Adds the day's totals to a limit set that has a day limit (none is read otherwise: no cost): the
 * account's calendar day.
 */
export function withDay(
	context: IExecuteFunctions,
	account: Account,
	scope: string,
	limits: LimitSet,
): LimitSet {
	const view = (entriesOf: string): DayView => ({
		entries: dayEntries(account.timeZone, entriesOf),
		moveOf: (itemIndex) => dayMoveOf(context, itemIndex, moveIdOf(context, itemIndex)),
		passed: { rows: new Map(), all: { count: 0, totals: {} }, byRecipient: new Map() },
	});
	if (DAY_LIMITS.some((name) => limits.values[name] !== undefined)) limits.day = view(scope);
	// The grant counts its own moves (a tool's), not the workflows' under the same credential.
	if (limits.values.grantMaxTotalPerDay !== undefined) limits.grantDay = view(`grant:${scope}`);
	return limits;
}

/**
 * What the day has moved before this move, all of it and to its recipient: the day's entries but the
 * move's own earlier try, plus the moves a payout run's check let through before this row.
 */
export function daySpent(day: DayView, itemIndex: number, move: MoneyMove) {
	const copy = (spent: Spent | undefined): Spent => ({
		count: spent?.count ?? 0,
		totals: { ...spent?.totals },
	});
	const { rows, all: passedAll, byRecipient } = day.passed;
	const all = copy(passedAll);
	const toRecipient = copy(
		move.recipient === undefined ? undefined : byRecipient.get(move.recipient),
	);
	const self = day.moveOf(itemIndex);
	for (const entry of day.entries) {
		if (entry.move === self) continue;
		add(all, entry.amount, entry.currency, 1);
		if (move.recipient !== undefined && entry.recipient === move.recipient)
			add(toRecipient, entry.amount, entry.currency, 1);
	}
	const checkedBefore = rows.get(itemIndex);
	if (checkedBefore) {
		add(all, checkedBefore.amount, checkedBefore.currency.toUpperCase(), -1);
		if (move.recipient !== undefined && checkedBefore.recipient === move.recipient)
			add(toRecipient, checkedBefore.amount, checkedBefore.currency.toUpperCase(), -1);
	}
	return { day: all, recipientDay: toRecipient };
}

/** Adds a move to (or with sign -1 takes it from) what was spent. */
function add(spent: Spent, amount: number, currency: string, sign: 1 | -1): void {
	spent.count += sign;
	spent.totals[currency] = (spent.totals[currency] ?? 0) + sign * amount;
}

/** Counts a row a payout run's check let through against the next rows' day limits. */
export function notePassed(day: DayView | undefined, itemIndex: number, move: MoneyMove): void {
	if (!day || day.passed.rows.has(itemIndex)) return;
	const currency = move.currency.toUpperCase();
	day.passed.rows.set(itemIndex, move);
	add(day.passed.all, move.amount, currency, 1);
	if (move.recipient === undefined) return;
	const toRecipient = day.passed.byRecipient.get(move.recipient) ?? { count: 0, totals: {} };
	add(toRecipient, move.amount, currency, 1);
	day.passed.byRecipient.set(move.recipient, toRecipient);
}

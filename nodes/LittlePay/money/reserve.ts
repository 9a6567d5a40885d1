import { NodeApiError } from 'n8n-workflow';

import { MoneyRefusal, refusalOf } from '../errors';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { checkLimits, checkRefundable, hasLimits, limitSetsOf } from './limitSets';
import type { LimitSet, MoneyMove, MoveKind, Spent } from './moves';
import { outcomeOfRecord } from '../helpers/payoutOutcome';
import { getPaymentRecord } from '../transport/gateway';
import {
	callIdOf,
	isToolCall,
	memoryFor,
	operationIdOf,
	sessionIdOf,
	sessionMemoryFor,
} from './memory';
import type { MoneyMemory, SpentEntry } from './memory';
import { moveKeyOf, reserveDay } from './days';

// What a money move reserves against the limits before it is sent (enforceLimits), and how the
// router's guard settles it when the item ends (settle).

/** What a money move reserved against the limits, until the router settles it. */
interface Reservation {
	/** The execution's memory, and the chat session's when there is one. */
	memories: MoneyMemory[];
	entries: SpentEntry[];
}

const reservations = new WeakMap<IExecuteFunctions, Map<number, Reservation>>();

function spentIn(memory: MoneyMemory, scope: string, exceptMove: string): Spent {
	const spent: Spent = { count: 0, totals: {} };
	for (const entry of memory.entries) {
		if (entry.scope !== scope || entry.move === exceptMove) continue;
		spent.count++;
		const currency = entry.currency.toUpperCase();
		spent.totals[currency] = (spent.totals[currency] ?? 0) + entry.amount;
	}
	return spent;
}

/** Refunds of a payment sent from these memories and not known to be completed, each counted once. */
function pendingRefunds(memories: MoneyMemory[], paymentId: string, exceptMove: string): number {
	const pending = new Map<string, number>();
	for (const entry of memories.flatMap((memory) => memory.entries)) {
		if (
			entry.paymentId === paymentId &&
			entry.refundPending &&
			entry.scope.startsWith('node:') &&
			entry.move !== exceptMove
		)
			pending.set(entry.move, entry.amount);
	}
	return [...pending.values()].reduce((sum, amount) => sum + amount, 0);
}

/** The details a money-moving operation knows before sending. */
export interface MoveRequest {
	kind: MoveKind;
	amount?: number;
	currency?: string;
	network?: string;
	recipient?: string;
	/** Payments on an existing intent (prompt, card): amount and currency come from its record. */
	intentReference?: string;
	/** Refunds: the payment, whose record says what is still refundable. */
	paymentId?: string;
	/** That payment's or intent's status record when the operation has already read it. */
	record?: IDataObject;
	/** The key the move is sent under: the day totals forget the move when Little Pay says it failed. */
	key?: string;
}

/**
 * Checks a money move against the node's and the credential's limits (the stricter wins) and what
 * this execution already moved, then reserves it; throws a MoneyRefusal before anything is sent.
 * In tool mode a refund is also held to what is still refundable on the payment. Outside tool mode
 * with no limit set it does nothing, and reads nothing.
 */
export async function enforceLimits(
	context: IExecuteFunctions,
	itemIndex: number,
	request: MoveRequest,
): Promise<void> {
	const node = context.getNode();
	const tool = isToolCall(context);
	const sets: LimitSet[] = await limitSetsOf(context, itemIndex, request.kind);
	const active = sets.filter(hasLimits);
	if (!tool && active.length === 0) return;
	const move: MoneyMove = {
		kind: request.kind,
		amount: request.amount ?? 0,
		currency: request.currency ?? '',
		network: request.network,
		recipient: request.recipient,
		paymentId: request.paymentId,
		...(request.key !== undefined
			? { key: await moveKeyOf(context, itemIndex, request.kind, request.key) }
			: {}),
	};
	const recordId = request.intentReference ?? request.paymentId;
	if (recordId !== undefined && (request.amount === undefined || request.kind === 'refund')) {
		const record =
			request.record ?? (await getPaymentRecord(context, itemIndex, recordId, false, 30000));
		move.currency = String(record.currency ?? move.currency ?? '');
		if (request.amount === undefined) move.amount = Number(record.amount ?? 0);
		if (request.kind === 'refund') {
			const paid = Number(record.amount ?? 0);
			const refunded = Number(record.refundedAmount ?? 0);
			move.refundable = paid - (Number.isFinite(refunded) ? refunded : 0);
		}
	}
	const memory = memoryFor(context, itemIndex);
	const session = sessionIdOf(context, itemIndex);
	const sessionMemory = session ? sessionMemoryFor(context, session) : undefined;
	const memories = sessionMemory ? [memory, sessionMemory] : [memory];
	const moveId = tool
		? `tool|${callIdOf(context, itemIndex, operationIdOf(context))}`
		: `${node.id}|${String(context.getWorkflowDataProxy(itemIndex).$runIndex)}|${itemIndex}`;
	if (move.refundable !== undefined && move.paymentId !== undefined)
		move.refundable -= pendingRefunds(memories, move.paymentId, moveId);
	// Everything from here to the reservation is synchronous: concurrent items (payout runs with
	// Concurrency) cannot both pass a total that only one of them fits in.
	checkRefundable(node, itemIndex, move);
	const scopes: Array<{ scope: string; limits: LimitSet }> = [
		{ scope: `node:${node.id}`, limits: sets[0] },
		{
			scope: `credential:${node.credentials?.littlePayApiKeyApi?.id ?? ''}`,
			limits: sets[1],
		},
	];
	for (const { scope, limits } of scopes) {
		checkLimits(node, itemIndex, move, limits, {
			execution: spentIn(memory, scope, moveId),
			session: spentIn(sessionMemory ?? memory, scope, moveId),
		});
	}
	const at = Date.now();
	const entries = scopes.map(({ scope }) => ({
		move: moveId,
		at,
		scope,
		amount: move.amount,
		currency: move.currency.toUpperCase(),
		...(move.kind === 'refund' ? { paymentId: move.paymentId, refundPending: true } : {}),
	}));
	for (const each of memories) {
		each.entries = each.entries.filter((entry) => entry.move !== moveId);
		each.entries.push(...entries);
	}
	reserveDay(context, itemIndex, sets, move, moveId);
	let byItem = reservations.get(context);
	if (!byItem) {
		byItem = new Map();
		reservations.set(context, byItem);
	}
	byItem.set(itemIndex, { memories, entries });
}

/** One money move of a run, as the run's check before sending sees it. */
export interface RunMove {
	itemIndex: number;
	request: MoveRequest;
}

/**
 * Checks a whole run's money moves against the node's and the credential's limits before any is sent,
 * as if each were reserved in input order, so the count and total limits refuse exactly the rows that
 * would pass them. Returns each refused row's refusal; reserves nothing (each move still reserves as it
 * is sent). A run of one kind, outside tool mode (a tool call is one move, checked as it is sent).
 */
export async function checkRunLimits(
	context: IExecuteFunctions,
	kind: MoveKind,
	moves: RunMove[],
): Promise<Map<number, MoneyRefusal>> {
	const refusals = new Map<number, MoneyRefusal>();
	if (moves.length === 0 || isToolCall(context)) return refusals;
	const node = context.getNode();
	const first = moves[0].itemIndex;
	const sets = await limitSetsOf(context, first, kind);
	if (!sets.some(hasLimits)) return refusals;
	const memory = memoryFor(context, first);
	// What this execution moved before this node run; this run's own earlier tries are counted as they
	// are re-sent (a retried node run replaces its entries).
	const thisRun = `${node.id}|${String(context.getWorkflowDataProxy(first).$runIndex)}|`;
	const spent = [
		`node:${node.id}`,
		`credential:${node.credentials?.littlePayApiKeyApi?.id ?? ''}`,
	].map((scope) => {
		const sofar = spentIn(memory, scope, '');
		for (const entry of memory.entries) {
			if (entry.scope !== scope || !entry.move.startsWith(thisRun)) continue;
			sofar.count--;
			sofar.totals[entry.currency] -= entry.amount;
		}
		return sofar;
	});
	for (const { itemIndex, request } of moves) {
		const move: MoneyMove = {
			kind,
			amount: request.amount ?? 0,
			currency: request.currency ?? '',
			network: request.network,
			recipient: request.recipient,
		};
		const refusal = await refusalOf(() => {
			sets.forEach((limits, i) =>
				checkLimits(node, itemIndex, move, limits, { execution: spent[i], session: spent[i] }),
			);
		}, MoneyRefusal);
		if (refusal) {
			refusals.set(itemIndex, refusal);
			continue;
		}
		const currency = move.currency.toUpperCase();
		for (const sofar of spent) {
			sofar.count++;
			sofar.totals[currency] = (sofar.totals[currency] ?? 0) + move.amount;
		}
	}
	return refusals;
}

/** Whether an error proves the gateway refused the request, so no money moved. */
export function gatewayRefused(error: unknown): boolean {
	if (!(error instanceof NodeApiError)) return false;
	const status = Number(error.httpCode);
	return status >= 400 && status < 500 && status !== 408 && status !== 409;
}

/**
 * Whether an item's answer says its move failed at Little Pay (a payout's outcome, a payment's or
 * refund's status read from the gateway's answer): nobody was paid.
 */
export function answeredFailed(answer: IDataObject | undefined): boolean {
	if (answer === undefined) return false;
	return answer.outcome === 'failed' || outcomeOfRecord(answer.status) === 'failed';
}

/** Whether nothing moved for an item: the gateway refused its request, or answered that it failed. */
export function nothingMoved(answer: IDataObject | undefined, error: unknown): boolean {
	return (error !== undefined && gatewayRefused(error)) || answeredFailed(answer);
}

/**
 * Settles what an item reserved: kept when money moved or may have moved, given back when nothing
 * moved (refused, or failed). Returns whether the item had sent (reserved) anything.
 */
export function settle(
	context: IExecuteFunctions,
	itemIndex: number,
	answer: IDataObject | undefined,
	error?: unknown,
): boolean {
	const byItem = reservations.get(context);
	const reservation = byItem?.get(itemIndex);
	if (!reservation) return false;
	byItem?.delete(itemIndex);
	const { memories, entries } = reservation;
	if (nothingMoved(answer, error)) {
		for (const memory of memories)
			memory.entries = memory.entries.filter((entry) => !entries.includes(entry));
	} else if (answer && answer.status === 'COMPLETED') {
		for (const entry of entries) delete entry.refundPending;
	}
	return true;
}

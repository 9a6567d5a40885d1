import { NodeApiError } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import {
	checkLimits,
	checkRefundable,
	credentialLimits,
	hasLimits,
	isExpression,
	nodeLimits,
} from './limitSets';
import { itemError, MoneyRefusal, refuseMove, unknownFailure } from '../errors';
import type { LimitSet, MoneyMove, MoveKind, Spent } from './moves';
import { getPaymentRecord } from '../transport/gateway';
import {
	callIdOf,
	callRecordFor,
	isToolCall,
	memoryFor,
	operationIdOf,
	sessionIdOf,
	sessionMemoryFor,
} from './memory';
import type { MoneyMemory, SpentEntry } from './memory';

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
	const sets: LimitSet[] = [
		nodeLimits(context, itemIndex, request.kind),
		await credentialLimits(context, itemIndex, request.kind),
	];
	const active = sets.filter(hasLimits);
	if (!tool && active.length === 0) return;
	const move: MoneyMove = {
		kind: request.kind,
		amount: request.amount ?? 0,
		currency: request.currency ?? '',
		network: request.network,
		recipient: request.recipient,
		paymentId: request.paymentId,
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
	let byItem = reservations.get(context);
	if (!byItem) {
		byItem = new Map();
		reservations.set(context, byItem);
	}
	byItem.set(itemIndex, { memories, entries });
}

/** Whether an error proves the gateway refused the request, so no money moved. */
function gatewayRefused(error: unknown): boolean {
	if (!(error instanceof NodeApiError)) return false;
	const status = Number(error.httpCode);
	return status >= 400 && status < 500 && status !== 408 && status !== 409;
}

/**
 * Settles what an item reserved: kept when money moved or may have moved, given back when the
 * gateway refused. Returns whether the item had sent (reserved) anything.
 */
function settle(
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
	if (error !== undefined && gatewayRefused(error)) {
		for (const memory of memories)
			memory.entries = memory.entries.filter((entry) => !entries.includes(entry));
	} else if (answer && answer.status === 'COMPLETED') {
		for (const entry of entries) delete entry.refundPending;
	}
	return true;
}

/** The switch an author turns on to let a tool move money; read as stored, never evaluated. */
function moneyMovesAllowed(context: IExecuteFunctions, itemIndex: number): boolean {
	const raw = context.getNode().parameters.allowMoneyMoves;
	if (isExpression(raw) || (raw !== undefined && typeof raw !== 'boolean')) {
		itemError(
			context.getNode(),
			itemIndex,
			'Allow Money Moves as a Tool is an expression, which this safety switch may not be',
			'Switch the field from Expression to Fixed and turn it on or off: an expression could be steered by the data or by the model',
		);
	}
	return raw === true;
}

const KIND_VERB: Record<MoveKind, string> = {
	payment: 'collect payments',
	payout: 'pay out',
	refund: 'refund',
};

/** What the agent gets instead of a crash: it can tell the user, and nothing was sent. */
function refusalOutput(refusal: MoneyRefusal): IDataObject {
	return {
		refused: true,
		reason: refusal.refusal.reason,
		limit: (refusal.refusal.limit ?? null) as IDataObject | null,
		sent: false,
		whatToDo: refusal.description ?? null,
	};
}

/**
 * Runs one item of any operation. Reads pass straight through. A money move is settled against the
 * limits once it finishes; in tool mode it is first refused unless the author allowed money moves,
 * an identical call already answered returns that answer (`repeated: true`) without sending, and a
 * refusal by a limit becomes the tool's output instead of an error.
 */
export async function runGuarded(
	context: IExecuteFunctions,
	operationId: string,
	kind: MoveKind | undefined,
	itemIndex: number,
	run: () => Promise<IDataObject>,
): Promise<IDataObject> {
	if (kind === undefined) return await run();
	if (!isToolCall(context)) {
		const { answer, failure } = await attempt(run);
		settle(context, itemIndex, answer, failure);
		if (answer === undefined) throw failure;
		return answer;
	}
	const { answer, failure } = await attempt(
		async () => await runToolMove(context, operationId, itemIndex, kind, run),
	);
	if (failure instanceof MoneyRefusal) return refusalOutput(failure);
	if (answer === undefined) throw failure;
	return answer;
}

/** Runs a function and hands back its result or what it threw, so callers settle before failing. */
async function attempt(
	run: () => Promise<IDataObject>,
): Promise<{ answer?: IDataObject; failure?: unknown }> {
	try {
		return { answer: await run() };
	} catch (failure) {
		return { failure: failure ?? unknownFailure() };
	}
}

/** A money move in tool mode: the switch, then repeats, then the operation (which checks the limits). */
async function runToolMove(
	context: IExecuteFunctions,
	operationId: string,
	itemIndex: number,
	kind: MoveKind,
	run: () => Promise<IDataObject>,
): Promise<IDataObject> {
	if (!moneyMovesAllowed(context, itemIndex)) {
		refuseMove(
			context.getNode(),
			itemIndex,
			`This tool may not ${KIND_VERB[kind]}: the workflow's author has not turned on Allow Money Moves as a Tool`,
			{
				field: 'allowMoneyMoves',
				label: 'Allow Money Moves as a Tool',
				value: false,
				setOn: 'node',
			},
			'Tell the user that a person has to do this; nothing was sent',
		);
	}
	const record = callRecordFor(context, itemIndex, callIdOf(context, itemIndex, operationId));
	if (record.answer) {
		return {
			...record.answer,
			repeated: true,
			repeatNote: 'An identical call was already made, so nothing new was sent: this is its answer',
		};
	}
	if (record.pending) {
		refuseMove(
			context.getNode(),
			itemIndex,
			'An identical call is still running; it was not sent a second time',
			null,
			'Wait for the first call to answer instead of calling again',
		);
	}
	if (record.unknown && kind === 'refund') {
		refuseMove(
			context.getNode(),
			itemIndex,
			'An identical refund was sent before and its outcome is unknown; it was not sent again',
			null,
			'Look the payment up (its refunded amount) before refunding again, or have a person check the dashboard',
		);
	}
	record.pending = true;
	const { answer, failure } = await attempt(run);
	record.pending = false;
	record.at = Date.now();
	const sent = settle(context, itemIndex, answer, failure);
	if (answer === undefined) {
		if (sent && !gatewayRefused(failure)) record.unknown = true;
		throw failure;
	}
	record.answer = answer;
	record.unknown = false;
	return answer;
}

import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { itemError, MoneyRefusal, refuseMove, unknownFailure } from '../errors';
import type { AppliedLimit } from '../errors';
import { isExpression } from './limitSets';
import { callIdOf, callRecordFor, isToolCall } from './memory';
import { settleDay } from './days';
import type { MoveKind } from './moves';
import { gatewayRefused, nothingMoved, settle } from './reserve';

// The guard the router runs every item through (runGuarded): reads pass, a money move is settled
// against the limits when it ends, and in tool mode the author's switch and repeated calls are decided.

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

/**
 * The limit a tool's refusal names: the rule (its field, its name, where it is set) and, for an
 * amount or a list of networks or currencies, its value. Never the Allowed Recipients' numbers: a
 * chat user or a prompt injection would learn every allowed payee by asking for one payout.
 */
function limitNamed(limit: AppliedLimit | null): IDataObject | null {
	if (limit === null) return null;
	if (limit.field !== 'allowedRecipients' && limit.field !== 'grantRecipients')
		return { ...limit } as IDataObject;
	return { field: limit.field, label: limit.label, setOn: limit.setOn };
}

/**
 * What every refusal tells the model, after its own fix: a model that retries or splits a refused
 * payout into smaller ones is what the limits are there to stop, and the user must hear of it.
 */
export const STOP_RULE =
	'Inform the user; do not retry this call, split it into smaller ones or try another way.';

/** What the agent gets instead of a crash: it can tell the user, and nothing was sent. */
function refusalOutput(refusal: MoneyRefusal): IDataObject {
	const fix = refusal.description ? `${refusal.description.replace(/[.;]?$/, '.')} ` : '';
	return {
		refused: true,
		reason: refusal.refusal.reason,
		limit: limitNamed(refusal.refusal.limit),
		sent: false,
		whatToDo: `${fix}${STOP_RULE}`,
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
		settleDay(context, itemIndex, nothingMoved(answer, failure));
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
	settleDay(context, itemIndex, nothingMoved(answer, failure));
	if (answer === undefined) {
		if (sent && !gatewayRefused(failure)) record.unknown = true;
		throw failure;
	}
	record.answer = answer;
	record.unknown = false;
	return answer;
}

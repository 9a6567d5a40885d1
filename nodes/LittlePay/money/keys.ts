import { createHash, randomUUID } from 'node:crypto';
import type { IExecuteFunctions } from 'n8n-workflow';

import { validateKey } from '../helpers/validation';
import type { Item } from '../item';
import { isDirectToolCall, isToolCall, toolCallKey } from './memory';

/**
 * A key that is the same every time n8n re-runs this item of this node run (same run token), so a
 * retry finds the intent or payout it already created instead of creating a second one.
 */
export function deterministicKey(
	runToken: string,
	nodeId: string,
	runIndex: number,
	itemIndex: number,
	operation: string,
): string {
	return createHash('sha256')
		.update(`${runToken}|${nodeId}|${runIndex}|${itemIndex}|${operation}`)
		.digest('hex')
		.slice(0, 12);
}

// The execution id of the first attempt of a run, kept in the execution's flow context. n8n saves
// that context with the execution and carries it into every retry from the Executions list (a new
// execution with a new id) and into Retry On Fail, so generated keys stay the same across them.
const RUN_TOKEN = 'littlePayRunToken';

/**
 * The token generated keys are derived from: the id of the execution that first ran a Little Pay
 * node in this line of retries. Undefined in a retried execution whose original left none (it
 * stopped before any Little Pay node ran, n8n stopped mid-run, or an older version of this node ran).
 */
export function runToken(context: IExecuteFunctions): string | undefined {
	const flow = context.getContext('flow');
	if (typeof flow[RUN_TOKEN] === 'string') return flow[RUN_TOKEN] as string;
	if (context.getMode() === 'retry') return undefined;
	// n8n runs a tool called over its MCP Server Trigger outside any execution (no id, a fresh context
	// per call): such a call gets a token of its own, though its keys come from toolCallKey alone.
	flow[RUN_TOKEN] = context.getExecutionId() || `call${randomUUID()}`;
	return flow[RUN_TOKEN] as string;
}

/** Whether n8n is re-running a failed execution (Executions list: Retry): earlier sends may exist. */
export function isExecutionRetry(context: IExecuteFunctions): boolean {
	return context.getMode() === 'retry';
}

/**
 * Whether a generated key may already be at the gateway, so it is looked up before sending: n8n is
 * retrying the execution, or the key is a direct (MCP) tool call's, which an identical call on another
 * worker or in another execution shares.
 */
export function generatedKeyMayExist({ context, index }: Item): boolean {
	return isExecutionRetry(context) || isDirectToolCall(context, index);
}

/**
 * The user's key, or one derived from the run token, node, node run and item, so every way n8n
 * re-runs this item (Retry On Fail, retrying the execution, again) reuses it. In a retried
 * execution without a token the generated key cannot be recovered, and the item is refused
 * before anything is sent: a new key there could pay twice.
 */
export function keyForItem(
	item: Item,
	given: unknown,
	operation: string,
): { key: string; generated: boolean } {
	const { context, index: itemIndex } = item;
	// An expression may give a number (order 12345678): it is a key like any other.
	const text = given === undefined || given === null ? '' : String(given).trim();
	if (text !== '') return { key: item.check(() => validateKey(text)), generated: false };
	const token = runToken(context);
	if (token === undefined) {
		item.fail(
			'Key',
			'is empty, and this retried execution cannot recover the keys its first attempt generated',
			'The first attempt left no Little Pay run token (it stopped before this node ran, n8n stopped mid-run, or it ran an older version of this node), so a new key could pay a second time. Map a Key from your data, e.g. {{ $json.orderId }}, or check the first attempt in the Little Pay dashboard and start a new execution for what was not paid.',
		);
	}
	// A tool's runs are its calls, not the node's runs: Retry On Fail of a tool call is a new run.
	if (isToolCall(context)) return { key: toolCallKey(context, itemIndex, token), generated: true };
	return {
		key: deterministicKey(token, context.getNode().id, runIndexOf(item), itemIndex, operation),
		generated: true,
	};
}

/** Which run of this node in the execution this is (nodes in a loop run several times). */
export function runIndexOf(item: Item): number {
	return item.context.getWorkflowDataProxy(item.index).$runIndex as number;
}

/**
 * Whether an item's payout key comes from the data (the default) or is generated: from the execution,
 * or, as an AI tool, from the tool call (a model has no row IDs to map).
 */
export function keyIsGenerated(item: Item): boolean {
	if (isToolCall(item.context)) return true;
	return item.param('keySource', 'mapped') === 'generated';
}

const MAP_A_KEY =
	"Map each row's own payout ID, e.g. {{ $json.payoutId }} (letters and digits), or set Payout Key to Generate a Key per Execution";

/** The key a row maps, validated; an empty one fails the item: it must never fall back to a new key. */
export function mappedKey(item: Item): string {
	const given = item.param('key', '');
	// An expression may give a number (payout 12345678): it is a key like any other.
	const text = given === undefined || given === null ? '' : String(given).trim();
	if (text === '') {
		item.fail(
			'Key',
			'is empty, so running this workflow again could pay this row twice',
			MAP_A_KEY,
		);
	}
	return item.check(() => validateKey(text, 'Key', MAP_A_KEY));
}

/**
 * The key a payout is sent with (the row's, or one generated for this execution when chosen), and
 * whether it is looked up before sending: a key from the data may have been paid by an earlier
 * execution (the same sheet run again), and Little Pay does not document what it does with a reused
 * key, so it is looked up rather than trusting a 409; a generated key only when it may exist already.
 */
export function payoutKey(item: Item): { key: string; checkFirst: boolean } {
	if (!keyIsGenerated(item)) return { key: mappedKey(item), checkFirst: true };
	return { key: keyForItem(item, '', 'disbursement').key, checkFirst: generatedKeyMayExist(item) };
}

import { createHash } from 'node:crypto';
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

/**
 * Whether the node runs as an AI tool. n8n makes the tool variant of a `usableAsTool` node as a type
 * named `<package>.<node>Tool` (n8n's NodeTypes and convertNodeToAiTool), and runs that type in every
 * tool path: the AI Agent's engine requests, its older direct calls and the MCP Server Trigger.
 */
export function isToolCall(context: IExecuteFunctions): boolean {
	return context.getNode().type?.endsWith('Tool') === true;
}

/**
 * Whether a tool call comes from outside the AI Agent's engine: the Agent (v3) puts its `toolCallId`
 * into every call's item, while a tool n8n invokes directly gets only the model's arguments. That is
 * the MCP Server Trigger, which runs each call while answering the MCP request (no execution) or, in
 * queue mode, in an execution of its own on a worker; and the older Agent versions' direct calls.
 */
export function isDirectToolCall(context: IExecuteFunctions, itemIndex: number): boolean {
	return (
		isToolCall(context) && typeof context.getInputData()[itemIndex]?.json.toolCallId !== 'string'
	);
}

/**
 * How long the node remembers the money moves of direct tool calls (MCP) in the n8n process: no
 * execution ties such calls together, so the calls within this window count as one execution for the
 * limits, and an identical call within it returns the first answer.
 */
export const TOOL_WINDOW_MS = 60 * 60 * 1000;

/** A tool call's memory: the key it got, and its answer once it has one. */
interface ToolCallRecord {
	key?: string;
	answer?: IDataObject;
	/** A try is running now: an identical call must not start a second one. */
	pending?: boolean;
	/** A try sent a request and got no usable answer: it may have moved money. */
	unknown?: boolean;
	at?: number;
}

/** One money move counted against the limits. */
export interface SpentEntry {
	/**
	 * The move this entry counts: the tool call, or in a workflow the node's run and item. Every way n8n
	 * runs that move again (Retry On Fail, a retried execution, which re-runs the failed node's items)
	 * replaces its entry instead of counting the money a second time.
	 */
	move: string;
	at: number;
	scope: string;
	amount: number;
	currency: string;
	paymentId?: string;
	/** Refunds not known to be completed: the payment record may not count them yet. */
	refundPending?: boolean;
}

/** Where a run keeps what it has moved: the execution's flow context, or the tool window memory. */
export interface MoneyMemory {
	calls: Record<string, ToolCallRecord>;
	entries: SpentEntry[];
}

const FLOW_KEY = 'littlePayMoney';

/** Tool windows of this n8n process, by `<workflow id>|<node id>`. */
const toolWindows = new Map<string, MoneyMemory>();

/**
 * How long the node remembers a chat session's money moves, in this n8n process: an AI Agent runs
 * one execution per chat message, and the session ties them together.
 */
export const SESSION_WINDOW_MS = 24 * 60 * 60 * 1000;

/** At most this many chat sessions are remembered; the least recently used are forgotten first. */
const MAX_SESSIONS = 10000;

/** Chat sessions of this n8n process, by `<workflow id>|<session id>`, least recently used first. */
const sessions = new Map<string, MoneyMemory>();

/** Forgets what a memory holds from before `since`, except calls still running. */
function forgetBefore(memory: MoneyMemory, since: number): void {
	memory.entries = memory.entries.filter((entry) => entry.at >= since);
	for (const [callId, record] of Object.entries(memory.calls)) {
		if ((record.at ?? 0) < since && !record.pending) delete memory.calls[callId];
	}
}

/**
 * The memory a call counts its money moves in: the execution's flow context, or for a direct tool
 * call (MCP: no execution, or in queue mode one execution per call) the tool window.
 */
export function memoryFor(context: IExecuteFunctions, itemIndex: number): MoneyMemory {
	if (context.getExecutionId() && !isDirectToolCall(context, itemIndex)) {
		const flow = context.getContext('flow');
		const stored = flow[FLOW_KEY] as MoneyMemory | undefined;
		if (stored && typeof stored === 'object') return stored;
		const memory: MoneyMemory = { calls: {}, entries: [] };
		flow[FLOW_KEY] = memory as unknown as IDataObject;
		return memory;
	}
	const id = `${context.getWorkflow().id ?? ''}|${context.getNode().id}`;
	let memory = toolWindows.get(id);
	if (!memory) {
		memory = { calls: {}, entries: [] };
		toolWindows.set(id, memory);
	}
	forgetBefore(memory, Date.now() - TOOL_WINDOW_MS);
	return memory;
}

/**
 * The chat session of a tool call, read from the AI Agent's own input (the Chat Trigger's
 * `sessionId`), never from the call's item: n8n-core merges the model's arguments into that item, so a
 * model writing its own `sessionId` into a call would otherwise start a fresh session and a fresh cap.
 * The Agent (v3) marks the call's item with the node its own input came from (`sourceOverwrite`);
 * that node's output is what the Agent got. Several sessions there, none found, over MCP, the older
 * Agents' direct calls and ordinary workflows: no session (the run counts as one, never looser).
 */
export function sessionIdOf(context: IExecuteFunctions, itemIndex: number): string | undefined {
	if (!isToolCall(context) || isDirectToolCall(context, itemIndex)) return undefined;
	const paired = context.getInputData()[itemIndex]?.pairedItem;
	const source =
		typeof paired === 'object' && paired !== null && !Array.isArray(paired)
			? paired.sourceOverwrite
			: undefined;
	if (!source?.previousNode) return undefined;
	let agentInput: INodeExecutionData[];
	try {
		agentInput = context
			.getWorkflowDataProxy(itemIndex)
			.$items(source.previousNode, source.previousNodeOutput ?? 0, source.previousNodeRun ?? 0);
	} catch {
		return undefined;
	}
	const ids = new Set(
		(agentInput ?? [])
			.map((item) => item?.json?.sessionId)
			.filter((id): id is string => typeof id === 'string' && id !== ''),
	);
	return ids.size === 1 ? [...ids][0] : undefined;
}

/** A chat session's memory, shared by the executions of its messages in this n8n process. */
export function sessionMemoryFor(context: IExecuteFunctions, sessionId: string): MoneyMemory {
	const id = `${context.getWorkflow().id ?? ''}|${sessionId}`;
	const memory = sessions.get(id) ?? { calls: {}, entries: [] };
	sessions.delete(id);
	sessions.set(id, memory);
	for (const oldest of sessions.keys()) {
		if (sessions.size <= MAX_SESSIONS) break;
		sessions.delete(oldest);
	}
	forgetBefore(memory, Date.now() - SESSION_WINDOW_MS);
	return memory;
}

/** Where a tool call's record lives: its chat session when it has one, else the execution's memory. */
export function callRecordFor(
	context: IExecuteFunctions,
	itemIndex: number,
	callId: string,
): ToolCallRecord {
	const session = sessionIdOf(context, itemIndex);
	const memory = session ? sessionMemoryFor(context, session) : memoryFor(context, itemIndex);
	return (memory.calls[callId] ??= { at: Date.now() });
}

function stableJson(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
	if (typeof value === 'object' && value !== null) {
		const entries = Object.entries(value as IDataObject)
			.filter(([, v]) => v !== undefined)
			.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
		return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
	}
	return JSON.stringify(value) ?? 'null';
}

/** Parameters that set the tool up rather than say what one call asks for. */
const SETUP_PARAMETERS = new Set([
	'toolDescription',
	'limitsInForce',
	'descriptionType',
	'allowMoneyMoves',
	'spendingLimits',
]);

/**
 * What a call asks for: the node's parameters as they resolve for this call, the model's `$fromAI`
 * values included. The item itself is not compared: the AI Agent merges its own input (the chat
 * message, the webhook's headers) into every tool call's item, so two messages asking for the same
 * payout would never look identical.
 */
function callRequest(context: IExecuteFunctions, itemIndex: number): IDataObject {
	const request: IDataObject = {};
	for (const name of Object.keys(context.getNode().parameters)) {
		if (SETUP_PARAMETERS.has(name)) continue;
		request[name] = context.getNodeParameter(name, itemIndex, null) as IDataObject[string];
	}
	return request;
}

/**
 * A tool call's identity: the node, its operation and what it asks for. An identical call (same
 * resolved parameters) is the same money move, whatever `toolCallId` the agent gave the repeat.
 */
export function callIdOf(
	context: IExecuteFunctions,
	itemIndex: number,
	operationId: string,
): string {
	const fingerprint = createHash('sha256')
		.update(stableJson(callRequest(context, itemIndex)))
		.digest('hex')
		.slice(0, 24);
	return `${context.getNode().id}|${operationId}|${fingerprint}`;
}

/** The `resource:operation` of the node, as the money memory names moves. */
export function operationIdOf(context: IExecuteFunctions): string {
	return `${context.getNodeParameter('resource', 0) as string}:${context.getNodeParameter('operation', 0) as string}`;
}

/**
 * The generated key of a money-moving tool call, never a constant per node. An Agent's call: from the
 * execution's run token, the call's request and `toolCallId`. A direct (MCP) call: from the workflow,
 * the call's request and the hour, with no process state in it, so an identical call that reaches
 * another process in the same hour (a second queue-mode worker, a restarted n8n) carries the same key
 * and the gateway's one record per key pays it once. An identical call and every Retry On Fail try of
 * it reuse the key of the first, so a lost answer is settled by the gateway's record.
 */
export function toolCallKey(
	context: IExecuteFunctions,
	itemIndex: number,
	runToken: string,
): string {
	const callId = callIdOf(context, itemIndex, operationIdOf(context));
	const record = callRecordFor(context, itemIndex, callId);
	if (record.key) return record.key;
	const toolCallId = context.getInputData()[itemIndex]?.json.toolCallId;
	const seed = isDirectToolCall(context, itemIndex)
		? `direct|${context.getWorkflow().id ?? ''}|${callId}|${Math.floor(Date.now() / TOOL_WINDOW_MS)}`
		: `${runToken}|${callId}|${String(toolCallId)}`;
	record.key = createHash('sha256').update(seed).digest('hex').slice(0, 12);
	return record.key;
}

/** The tool-call identity the keyless refund records itself under, so Retry On Fail finds it. */
export function toolCallRecordId(context: IExecuteFunctions, itemIndex: number): string {
	return callIdOf(context, itemIndex, operationIdOf(context));
}

/**
 * The move an item is, as the limits count it: the tool call, or in a workflow the node's run and
 * item, so every way n8n runs that move again replaces its entry instead of counting it twice.
 */
export function moveIdOf(context: IExecuteFunctions, itemIndex: number): string {
	return isToolCall(context)
		? `tool|${callIdOf(context, itemIndex, operationIdOf(context))}`
		: `${context.getNode().id}|${String(context.getWorkflowDataProxy(itemIndex).$runIndex)}|${itemIndex}`;
}

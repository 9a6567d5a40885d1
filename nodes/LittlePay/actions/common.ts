import { randomUUID } from 'node:crypto';
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import { deterministicKey, invalidInput, validateKey } from '../helpers/validation';
import { isDirectToolCall, isToolCall, toolCallKey, toolCallRecordId } from '../money/guard';
import type { MoveKind } from '../money/limits';

/** The parameter that names an item's row, and the field Continue On Fail copies it into. */
export interface RowKey {
	parameter: string;
	field: 'key' | 'reference' | 'id';
}

/**
 * What every operation file exports: everything the node knows about the operation sits beside its
 * parameters and how it runs one item, and the node's tables (canvas subtitles, row keys, the money
 * operations, which need the Client ID and Secret) are derived from these (actions/registry.ts).
 */
export interface Operation {
	/** The canvas subtitle, in words ("Collect · Mobile Money"). */
	subtitle: string;
	/** The parameter that names an item's row on a Continue On Fail error item. */
	rowKey?: RowKey;
	/** The money it moves: absent for reads and pages. */
	moves?: MoveKind;
	/** What it does as an AI tool, in one sentence (money operations: the start of the tool description). */
	toolSummary?: string;
	/** Whether it creates a payment intent (and so signs in with the Client ID and Secret). */
	createsIntent?: boolean;
	description: INodeProperties[];
	execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject>;
	/** How many items may run at once (1-10); one at a time when absent. */
	concurrency?(this: IExecuteFunctions): number;
	/**
	 * Runs once after every item, for what the whole run shares (one wait for all its payouts, a
	 * summary): gets each item's result (undefined for an item that failed under Continue On
	 * Fail), may update them in place, and returns items to add after them.
	 */
	afterItems?(
		this: IExecuteFunctions,
		results: Array<IDataObject | undefined>,
	): Promise<INodeExecutionData[]>;
}

export const NETWORK_OPTIONS = [
	{ name: 'Airtel Money', value: 'AIRTEL' },
	{ name: 'M-Pesa', value: 'MPESA' },
	{ name: 'MTN Mobile Money', value: 'MTN' },
	{ name: 'Tigo Pesa', value: 'TIGOPESA' },
];

/** Currencies of the networks Little Pay serves; an expression may still give any 3-letter code. */
export const CURRENCY_OPTIONS = [
	{ name: 'GHS (Ghanaian Cedi)', value: 'GHS' },
	{ name: 'KES (Kenyan Shilling)', value: 'KES' },
	{ name: 'RWF (Rwandan Franc)', value: 'RWF' },
	{ name: 'TZS (Tanzanian Shilling)', value: 'TZS' },
	{ name: 'UGX (Ugandan Shilling)', value: 'UGX' },
	{ name: 'USD (US Dollar)', value: 'USD' },
];

/** The currency of an amount, placed right after it. */
export const currencyField: INodeProperties = {
	displayName: 'Currency',
	name: 'currency',
	type: 'options',
	options: CURRENCY_OPTIONS,
	default: 'KES',
	description: 'Currency of the amount; Little Pay defaults to KES',
};

/** What a user must not miss about every amount: its unit. */
/** An Options entry for how many items an operation handles at once (1-10; output keeps input order). */
export function concurrencyOption(defaultValue: number, description: string): INodeProperties {
	return {
		displayName: 'Concurrency',
		name: 'concurrency',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: 10 },
		default: defaultValue,
		description,
	};
}

export const AMOUNT_HINT = "In the currency's main unit, not cents: 1500 = KES 1,500";

export const COUNTRY_OPTIONS = [
	{ name: 'Ghana', value: 'GH' },
	{ name: 'Kenya', value: 'KE' },
	{ name: 'Rwanda', value: 'RW' },
	{ name: 'Tanzania', value: 'TZ' },
	{ name: 'Uganda', value: 'UG' },
];

/** Shows parameters only for one resource and operation. */
export function showFor(
	resource: string,
	operation: string,
	properties: INodeProperties[],
): INodeProperties[] {
	return properties.map((p) => ({
		...p,
		displayOptions: {
			...p.displayOptions,
			show: { ...p.displayOptions?.show, resource: [resource], operation: [operation] },
		},
	}));
}

/** The operation selector of a resource. */
export function operationSelector(
	resource: string,
	options: Array<{ name: string; value: string; action: string; description: string }>,
): INodeProperties {
	const selector: INodeProperties = {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [resource] } },
		options,
		// The lint rule wants a literal default here; the first operation is the real one.
		default: '',
	};
	return { ...selector, default: options[0].value };
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
export function generatedKeyMayExist(context: IExecuteFunctions, itemIndex: number): boolean {
	return isExecutionRetry(context) || isDirectToolCall(context, itemIndex);
}

/**
 * The user's key, or one derived from the run token, node, node run and item, so every way n8n
 * re-runs this item (Retry On Fail, retrying the execution, again) reuses it. In a retried
 * execution without a token the generated key cannot be recovered, and the item is refused
 * before anything is sent: a new key there could pay twice.
 */
export function keyForItem(
	context: IExecuteFunctions,
	itemIndex: number,
	given: unknown,
	operation: string,
): { key: string; generated: boolean } {
	// An expression may give a number (order 12345678): it is a key like any other.
	const text = given === undefined || given === null ? '' : String(given).trim();
	if (text !== '')
		return { key: validateKey(context.getNode(), itemIndex, text), generated: false };
	const token = runToken(context);
	if (token === undefined) {
		invalidInput(
			context.getNode(),
			itemIndex,
			'Key',
			'is empty, and this retried execution cannot recover the keys its first attempt generated',
			'The first attempt left no Little Pay run token (it stopped before this node ran, n8n stopped mid-run, or it ran an older version of this node), so a new key could pay a second time. Map a Key from your data, e.g. {{ $json.orderId }}, or check the first attempt in the Little Pay dashboard and start a new execution for what was not paid.',
		);
	}
	// A tool's runs are its calls, not the node's runs: Retry On Fail of a tool call is a new run.
	if (isToolCall(context)) return { key: toolCallKey(context, itemIndex, token), generated: true };
	return {
		key: deterministicKey(
			token,
			context.getNode().id,
			runIndexOf(context, itemIndex),
			itemIndex,
			operation,
		),
		generated: true,
	};
}

/** Which run of this node in the execution this is (nodes in a loop run several times). */
function runIndexOf(context: IExecuteFunctions, itemIndex: number): number {
	return context.getWorkflowDataProxy(itemIndex).$runIndex as number;
}

const SENT = 'littlePaySent';

/** What an earlier attempt of this execution sent for an item, kept in the flow context. */
export interface SentRecord {
	/** The gateway's answer once known; absent while the outcome is unknown. */
	answer?: IDataObject;
}

/**
 * The record of a keyless request (a refund) for this item of this node run, kept in the execution's
 * flow context, which n8n carries into Retry On Fail and retried executions: a re-run finds what the
 * first attempt sent instead of sending it again. Undefined `known` means a retried execution whose
 * first attempt left no context, where nothing can be told about what it sent.
 */
export function sentRecordFor(
	context: IExecuteFunctions,
	itemIndex: number,
	operation: string,
): {
	known: boolean;
	get(): SentRecord | undefined;
	set(record: SentRecord | undefined): void;
} {
	const flow = context.getContext('flow');
	const known = runToken(context) !== undefined;
	const id = isToolCall(context)
		? `tool|${toolCallRecordId(context, itemIndex)}`
		: `${context.getNode().id}|${runIndexOf(context, itemIndex)}|${itemIndex}|${operation}`;
	const records = (flow[SENT] ??= {}) as Record<string, SentRecord>;
	return {
		known,
		get: () => records[id],
		set: (record) => {
			if (record) records[id] = record;
			else delete records[id];
		},
	};
}

export const simplifyField: INodeProperties = {
	displayName: 'Simplify',
	name: 'simplify',
	type: 'boolean',
	default: true,
	description:
		'Whether to return the fields you reconcile with (reference, key, status, amount, currency, description, provider, M-Pesa code, paid-at time) instead of the full record',
};

/**
 * What a merchant reconciles a payment with, from a status record: the currency, the order
 * description, when it was paid and the provider's own reference (the M-Pesa transaction code).
 * Little Pay's documented record carries only some of these; missing ones are null, never absent.
 */
export function reconciliationFields(record: IDataObject): IDataObject {
	const attempts = (Array.isArray(record.attempts) ? record.attempts : []) as IDataObject[];
	const latest = attempts[attempts.length - 1];
	// A long poll that ends on completion may answer in the shape of the process result (meta).
	const meta = (record.meta ?? {}) as IDataObject;
	const paid = record.status === 'COMPLETED';
	return {
		currency: record.currency ?? meta.currency ?? null,
		description: record.description ?? meta.description ?? null,
		providerReference: meta.providerReference ?? latest?.reference ?? null,
		paidAt: paid ? (record.paidAt ?? record.completedAt ?? null) : null,
	};
}

/** Picks the fields people use most from a payment status record. */
export function simplifyPayment(record: IDataObject): IDataObject {
	const payment = (record.payment ?? {}) as IDataObject;
	return {
		reference: record.reference,
		key: record.key,
		status: record.status,
		amount: record.amount,
		...reconciliationFields(record),
		provider: payment.provider ?? null,
		message: record.message ?? null,
	};
}

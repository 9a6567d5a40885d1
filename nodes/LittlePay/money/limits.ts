import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INode, INodeProperties } from 'n8n-workflow';

import { itemError } from '../errors';

import { credentialData } from '../transport';

/** What a money-moving operation does with money: charges a payer, pays out, or refunds. */
export type MoveKind = 'payment' | 'payout' | 'refund';

/** One money move as the limits see it, after the operation validated and normalised it. */
export interface MoneyMove {
	kind: MoveKind;
	amount: number;
	currency: string;
	/** MPESA, AIRTEL, MTN, TIGOPESA or CARDS; absent when the payer picks on the checkout page. */
	network?: string;
	/** Payouts: the recipient's number, digits with the country code. */
	recipient?: string;
	/** Refunds: the payment's reference or key. */
	paymentId?: string;
	/** Refunds: what is still refundable on the payment (paid less already refunded). */
	refundable?: number;
}

/** Where a limit was set: on this node, or on the API-key credential (binding every workflow using it). */
export type LimitSource = 'node' | 'credential';

/** A limit that applied, as a refusal reports it. */
export interface AppliedLimit {
	/** The limit's field: maxAmount, maxTotalPerExecution, allowedRecipients, ... */
	field: string;
	/** Its name in the panel, e.g. Max Payout Amount. */
	label: string;
	value: number | string[] | boolean;
	setOn: LimitSource | 'gateway record';
}

/** A set of limits from one source; every field absent means no limit of that kind. */
export interface LimitSet {
	source: LimitSource;
	maxAmount?: number;
	maxTotalPerExecution?: number;
	maxCountPerExecution?: number;
	/** Per chat session (an AI Agent's sessionId); a run without one counts as its own session. */
	maxTotalPerSession?: number;
	maxCountPerSession?: number;
	currencies?: string[];
	networks?: string[];
	recipients?: string[];
}

/**
 * A money move refused by a limit or by the tool switch, before anything was sent. In tool mode the
 * router returns `refusal` as the tool's output, so the agent can tell the user; otherwise it fails
 * the item like any bad input.
 */
export class MoneyRefusal extends NodeOperationError {
	readonly refusal: { reason: string; limit: AppliedLimit | null };

	constructor(
		node: INode,
		itemIndex: number,
		reason: string,
		limit: AppliedLimit | null,
		fix: string,
	) {
		super(node, `Item ${itemIndex}: ${reason}`, { itemIndex, description: fix });
		this.refusal = { reason, limit };
	}
}

export const NETWORK_LIMIT_OPTIONS = [
	{ name: 'Airtel Money', value: 'AIRTEL' },
	{ name: 'Card', value: 'CARDS' },
	{ name: 'M-Pesa', value: 'MPESA' },
	{ name: 'MTN Mobile Money', value: 'MTN' },
	{ name: 'Tigo Pesa', value: 'TIGOPESA' },
];

const NODE_LIMIT_FIELDS: Record<string, string> = {
	maxAmount: 'Max Amount',
	maxTotalPerExecution: 'Max Total per Execution',
	maxCountPerExecution: 'Max Count per Execution',
	allowedCurrencies: 'Allowed Currencies',
	allowedNetworks: 'Allowed Networks',
	allowedRecipients: 'Allowed Recipients',
	maxCountPerSession: 'Max Count per Chat Session',
	maxTotalPerSession: 'Max Total per Chat Session',
};

/** The node's Spending Limits: every money-moving operation shows them (registry), in workflows and in tool mode. */
export const spendingLimitsProperty: INodeProperties = {
	displayName: 'Spending Limits',
	name: 'spendingLimits',
	type: 'collection',
	builderHint: {
		propertyHint:
			'Fixed values only, never expressions. Set Max Amount and Max Total per Execution on any payout or refund an AI Agent or a run over many rows can trigger',
	},
	placeholder: 'Add Limit',
	default: {},
	noDataExpression: true,
	description:
		"Limits checked before anything is sent; a call outside them is refused and sends nothing. Amounts are in the currency's main unit (1500 = KES 1,500). Limits on the API-key credential apply as well; the stricter wins.",
	options: [
		{
			displayName: 'Allowed Currencies',
			name: 'allowedCurrencies',
			type: 'string',
			default: '',
			noDataExpression: true,
			placeholder: 'KES, UGX',
			description: 'Currency codes this node may move money in, separated by commas',
		},
		{
			displayName: 'Allowed Networks',
			name: 'allowedNetworks',
			type: 'multiOptions',
			options: NETWORK_LIMIT_OPTIONS,
			default: [],
			noDataExpression: true,
			description:
				'Networks this node may charge or pay out on; a payment intent whose payer picks on the checkout page has no network to check',
		},
		{
			displayName: 'Allowed Recipients',
			name: 'allowedRecipients',
			type: 'string',
			typeOptions: { rows: 3 },
			default: '',
			noDataExpression: true,
			placeholder: '+254712345670, 2547123456*',
			description:
				'Payouts only: the numbers this node may pay, with country code, separated by commas or new lines; * stands for any digits (2547* = every number starting 2547)',
		},
		{
			displayName: 'Max Amount',
			name: 'maxAmount',
			type: 'number',
			typeOptions: { minValue: 0, numberPrecision: 2 },
			default: 0,
			noDataExpression: true,
			description:
				"The largest single payment, payout or refund, in the currency's main unit (1500 = KES 1,500); 0 = no limit",
		},
		{
			displayName: 'Max Count per Chat Session',
			name: 'maxCountPerSession',
			type: 'number',
			typeOptions: { minValue: 0, numberPrecision: 0 },
			default: 0,
			noDataExpression: true,
			description:
				"As an AI Agent's tool: how many money moves this node may make in one chat session, over all its messages (kept in this n8n process for 24 hours); a run without a chat session counts as one session. 0 = no limit.",
		},
		{
			displayName: 'Max Count per Execution',
			name: 'maxCountPerExecution',
			type: 'number',
			typeOptions: { minValue: 0, numberPrecision: 0 },
			default: 0,
			noDataExpression: true,
			description: 'How many money moves this node may make in one execution; 0 = no limit',
		},
		{
			displayName: 'Max Total per Chat Session',
			name: 'maxTotalPerSession',
			type: 'number',
			typeOptions: { minValue: 0, numberPrecision: 2 },
			default: 0,
			noDataExpression: true,
			description:
				"As an AI Agent's tool: the most this node may move in one chat session, per currency, in the main unit (kept in this n8n process for 24 hours); a run without a chat session counts as one session. 0 = no limit.",
		},
		{
			displayName: 'Max Total per Execution',
			name: 'maxTotalPerExecution',
			type: 'number',
			typeOptions: { minValue: 0, numberPrecision: 2 },
			default: 0,
			noDataExpression: true,
			description:
				'The most this node may move in one execution, per currency, in the main unit; 0 = no limit',
		},
	],
};

/**
 * Whether a stored parameter value is an n8n expression. n8n stores those as text starting with "=",
 * and its Workflow constructor drops that "=" from fields marked noDataExpression, except from a lone
 * $fromAI() placeholder: so text with "{{" counts too.
 */
export function isExpression(value: unknown): boolean {
	return typeof value === 'string' && (value.startsWith('=') || value.includes('{{'));
}

function splitList(text: string): string[] {
	return text
		.split(/[,;\n]/)
		.map((entry) => entry.trim())
		.filter((entry) => entry !== '');
}

function limitNumber(
	node: INode,
	itemIndex: number,
	value: unknown,
	label: string,
	where: string,
): number | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	const number = typeof value === 'string' ? Number(value) : value;
	if (typeof number !== 'number' || !Number.isFinite(number) || number < 0) {
		itemError(
			node,
			itemIndex,
			`${label} in ${where} must be a number of 0 or more (got ${JSON.stringify(value)})`,
			"Enter the limit as a plain number in the currency's main unit; 0 means no limit",
		);
	}
	return number === 0 ? undefined : number;
}

/** Recipient patterns normalised to digits and `*`; numbers must carry their country code. */
function recipientPatterns(
	node: INode,
	itemIndex: number,
	value: unknown,
	where: string,
): string[] | undefined {
	const entries = splitList(String(value ?? ''));
	if (entries.length === 0) return undefined;
	return entries.map((entry) => {
		if (!/^\+?[\d\s().*-]+$/.test(entry) || entry.replace(/[^\d]/g, '') === '') {
			itemError(
				node,
				itemIndex,
				`Allowed Recipients in ${where} has an entry that is not a number or pattern (${JSON.stringify(entry)})`,
				'Write numbers with their country code, e.g. +254712345670, and use * for any digits, e.g. 2547*',
			);
		}
		const pattern = entry.replace(/[^\d*]/g, '');
		if (pattern.startsWith('0')) {
			itemError(
				node,
				itemIndex,
				`Allowed Recipients in ${where} has a number without its country code (${JSON.stringify(entry)})`,
				'Write numbers with their country code, e.g. 254712345670 instead of 0712345670',
			);
		}
		return pattern;
	});
}

function upperList(value: unknown): string[] | undefined {
	const list = (Array.isArray(value) ? value.map(String) : splitList(String(value ?? ''))).map(
		(v) => v.trim().toUpperCase(),
	);
	return list.length > 0 ? list : undefined;
}

/** The limits that are numbers, in the order a bad value is reported. */
const NUMBER_LIMITS = [
	'maxAmount',
	'maxTotalPerExecution',
	'maxCountPerExecution',
	'maxTotalPerSession',
	'maxCountPerSession',
] as const;
type NumberLimit = (typeof NUMBER_LIMITS)[number];

/** Reads one source's limits from its values (parameters or credential fields), checking each. */
function readLimits(
	node: INode,
	itemIndex: number,
	source: LimitSource,
	values: IDataObject,
	kind: MoveKind,
	fields: readonly NumberLimit[],
	label: (field: NumberLimit) => string,
): LimitSet {
	const where = source === 'node' ? 'the Spending Limits' : 'the Little Pay (API Key) credential';
	const limits: LimitSet = { source };
	for (const field of fields)
		limits[field] = limitNumber(node, itemIndex, values[field], label(field), where);
	limits.currencies = upperList(values.allowedCurrencies);
	limits.networks = upperList(values.allowedNetworks);
	limits.recipients =
		kind === 'payout'
			? recipientPatterns(node, itemIndex, values.allowedRecipients, where)
			: undefined;
	return limits;
}

/**
 * The node's Spending Limits, read from the node's stored parameters rather than evaluated: a limit
 * must be a fixed value, since an expression could be steered by the data or by a model ($fromAI).
 * n8n's noDataExpression only hides the expression switch in the editor, so this is checked here.
 */
export function nodeLimits(
	context: IExecuteFunctions,
	itemIndex: number,
	kind: MoveKind,
): LimitSet {
	const node = context.getNode();
	const raw = node.parameters.spendingLimits;
	const fix =
		'Spending limits must be fixed values: switch the field from Expression to Fixed and type the limit';
	if (isExpression(raw))
		itemError(node, itemIndex, 'Spending Limits is an expression, which a limit may not be', fix);
	const limits = (typeof raw === 'object' && raw !== null ? raw : {}) as IDataObject;
	for (const [name, value] of Object.entries(limits)) {
		const values = Array.isArray(value) ? value : [value];
		if (values.some(isExpression)) {
			itemError(
				node,
				itemIndex,
				`${NODE_LIMIT_FIELDS[name] ?? name} in Spending Limits is an expression, which a limit may not be`,
				fix,
			);
		}
	}
	return readLimits(
		node,
		itemIndex,
		'node',
		limits,
		kind,
		NUMBER_LIMITS,
		(field) => NODE_LIMIT_FIELDS[field],
	);
}

const CREDENTIAL_MAX_BY_KIND: Record<MoveKind, [string, string]> = {
	payment: ['maxPaymentAmount', 'Max Payment Amount'],
	payout: ['maxPayoutAmount', 'Max Payout Amount'],
	refund: ['maxRefundAmount', 'Max Refund Amount'],
};

/** The limits on the API-key credential (read once per node run, like every credential field). */
export async function credentialLimits(
	context: IExecuteFunctions,
	itemIndex: number,
	kind: MoveKind,
): Promise<LimitSet> {
	const data = await credentialData(context, 'littlePayApiKeyApi', itemIndex);
	const [maxField, maxLabel] = CREDENTIAL_MAX_BY_KIND[kind];
	// The credential has one maximum per kind of move and no chat-session limits.
	return readLimits(
		context.getNode(),
		itemIndex,
		'credential',
		{ ...data, maxAmount: data[maxField] } as IDataObject,
		kind,
		['maxAmount', 'maxTotalPerExecution', 'maxCountPerExecution'],
		(field) => (field === 'maxAmount' ? maxLabel : NODE_LIMIT_FIELDS[field]),
	);
}

/** Whether a set holds any limit at all. */
export function hasLimits(limits: LimitSet): boolean {
	return Object.entries(limits).some(([field, value]) => field !== 'source' && value !== undefined);
}

/** Whether a normalised number matches an allowlist pattern (digits, `*` for any digits). */
export function recipientAllowed(recipient: string, patterns: string[]): boolean {
	return patterns.some((pattern) =>
		new RegExp(`^${pattern.replace(/\*/g, '\\d*')}$`).test(recipient),
	);
}

const KIND_WORD: Record<MoveKind, string> = {
	payment: 'payment',
	payout: 'payout',
	refund: 'refund',
};

/** What this execution (or tool window) has already moved under one limit set. */
export interface Spent {
	count: number;
	totals: Record<string, number>;
}

/** What was already moved in the two periods limits count over. */
export interface SpentSoFar {
	execution: Spent;
	/** The chat session's moves (this execution's included); the execution's when there is no session. */
	session: Spent;
}

/** A period that count and total limits apply to, with its limits' fields and words. */
interface Period {
	name: 'execution' | 'session';
	countField: 'maxCountPerExecution' | 'maxCountPerSession';
	totalField: 'maxTotalPerExecution' | 'maxTotalPerSession';
	/** "this execution", "this chat session" */
	words: string;
}

const PERIODS: Period[] = [
	{
		name: 'execution',
		countField: 'maxCountPerExecution',
		totalField: 'maxTotalPerExecution',
		words: 'this execution',
	},
	{
		name: 'session',
		countField: 'maxCountPerSession',
		totalField: 'maxTotalPerSession',
		words: 'this chat session',
	},
];

function format(amount: number, currency: string): string {
	return `${currency} ${amount.toLocaleString('en-US', { maximumFractionDigits: 2 })}`;
}

/**
 * Checks one move against one limit set and what was already moved under it; throws a MoneyRefusal
 * naming the limit that applied. Nothing is sent before this passes.
 */
export function checkLimits(
	node: INode,
	itemIndex: number,
	move: MoneyMove,
	limits: LimitSet,
	spent: SpentSoFar,
): void {
	const on = limits.source === 'node' ? "this node's Spending Limits" : 'the credential';
	const refuse = (
		reason: string,
		field: string,
		value: AppliedLimit['value'],
		fix: string,
	): never => {
		const label =
			field === 'maxAmount' && limits.source === 'credential'
				? CREDENTIAL_MAX_BY_KIND[move.kind][1]
				: (NODE_LIMIT_FIELDS[field] ?? field);
		throw new MoneyRefusal(
			node,
			itemIndex,
			reason,
			{ field, label, value, setOn: limits.source },
			fix,
		);
	};
	const word = KIND_WORD[move.kind];
	if (limits.currencies && !limits.currencies.includes(move.currency.toUpperCase())) {
		refuse(
			`${move.currency} is not an allowed currency for this ${word} (allowed by ${on}: ${limits.currencies.join(', ')})`,
			'allowedCurrencies',
			limits.currencies,
			'Use an allowed currency, or ask the workflow owner to allow this one',
		);
	}
	if (limits.networks && move.network && !limits.networks.includes(move.network.toUpperCase())) {
		refuse(
			`${move.network} is not an allowed network for this ${word} (allowed by ${on}: ${limits.networks.join(', ')})`,
			'allowedNetworks',
			limits.networks,
			'Use an allowed network, or ask the workflow owner to allow this one',
		);
	}
	if (limits.recipients && move.recipient !== undefined) {
		if (!recipientAllowed(move.recipient, limits.recipients)) {
			refuse(
				`${move.recipient} is not on the list of recipients this payout may go to (set on ${on})`,
				'allowedRecipients',
				limits.recipients,
				'Pay only numbers on the allowlist, or ask the workflow owner to add this one',
			);
		}
	}
	if (limits.maxAmount !== undefined && move.amount > limits.maxAmount) {
		refuse(
			`${format(move.amount, move.currency)} is above the maximum of ${format(limits.maxAmount, move.currency)} per ${word} (set on ${on})`,
			'maxAmount',
			limits.maxAmount,
			`Ask for ${format(limits.maxAmount, move.currency)} or less, or have a person make this ${word}`,
		);
	}
	for (const period of PERIODS) {
		const spentInPeriod = spent[period.name];
		const maxCount = limits[period.countField];
		if (maxCount !== undefined && spentInPeriod.count + 1 > maxCount) {
			refuse(
				`This would be money move ${spentInPeriod.count + 1} in ${period.words}; at most ${maxCount} are allowed (set on ${on})`,
				period.countField,
				maxCount,
				`Nothing more can be sent in ${period.words}; have a person make this one`,
			);
		}
		const maxTotal = limits[period.totalField];
		const already = spentInPeriod.totals[move.currency.toUpperCase()] ?? 0;
		if (maxTotal !== undefined && already + move.amount > maxTotal) {
			refuse(
				`${format(move.amount, move.currency)} would bring the total of ${period.words} to ${format(already + move.amount, move.currency)}, above the maximum of ${format(maxTotal, move.currency)} (set on ${on}; ${format(already, move.currency)} already moved)`,
				period.totalField,
				maxTotal,
				`At most ${format(Math.max(0, maxTotal - already), move.currency)} more can be moved in ${period.words}`,
			);
		}
	}
}

/** Refuses a refund above what is still refundable on the payment (paid less refunded). */
export function checkRefundable(node: INode, itemIndex: number, move: MoneyMove): void {
	if (move.kind !== 'refund' || move.refundable === undefined) return;
	if (move.amount > move.refundable) {
		throw new MoneyRefusal(
			node,
			itemIndex,
			`${format(move.amount, move.currency)} is more than the ${format(Math.max(0, move.refundable), move.currency)} still refundable on payment ${move.paymentId} (paid less already refunded)`,
			{
				field: 'refundable',
				label: 'Still Refundable',
				value: Math.max(0, move.refundable),
				setOn: 'gateway record',
			},
			'Refund at most what is still refundable; look the payment up for its amount and refunds',
		);
	}
}

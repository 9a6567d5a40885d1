import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import type { MoveKind } from '../money/moves';
import type { Item } from '../item';
import { validateAmount, validateCurrency } from '../helpers/validation';
import { COUNTRY_OPTIONS, NETWORK_OPTIONS } from '../helpers/lists';

/** The parameter that names an item's row, and the field Continue On Fail copies it into. */
export interface RowKey {
	parameter: string;
	field: 'key' | 'reference' | 'id';
}

/** What the node's tables need to know of an operation, beside its parameters. */
export interface OperationMeta {
	/** The canvas subtitle, in words ("Collect · Mobile Money"), short enough not to be cut (29 characters at most). */
	subtitle: string;
	/** Another subtitle while a parameter has a value (a dry run says "Check Only"). */
	subtitleWhen?: { parameter: string; value: boolean | string; subtitle: string };
	/** The parameter that names an item's row on a Continue On Fail error item. */
	rowKey?: RowKey;
	/** The money it moves: absent for reads and pages. */
	moves?: MoveKind;
	/** What it does as an AI tool, in one sentence (money operations: the start of the tool description). */
	toolSummary?: string;
	/** Whether it creates a payment intent (and so signs in with the Client ID and Secret). */
	createsIntent?: boolean;
	/**
	 * Its Options > Concurrency entry, when items may run at once (the router runs that many; its
	 * default is the one default); one item at a time when absent.
	 */
	concurrency?: INodeProperties;
}

/**
 * What every operation file exports: what the node knows about it (`meta`) sits beside its parameters
 * and how it runs one item, and the node's tables (canvas subtitles, row keys, the money operations,
 * who needs the Client ID and Secret) are derived from it (actions/registry.ts).
 */
export interface Operation {
	meta: OperationMeta;
	description: INodeProperties[];
	/** Runs one item, given as the scope the router builds for it (item.ts). */
	execute(this: IExecuteFunctions, item: Item): Promise<IDataObject>;
	/** Runs once before the items, for work the whole run shares (a payout run's key lookups). */
	beforeItems?(this: IExecuteFunctions): Promise<void>;
	/**
	 * Runs once after every item, for what the whole run shares (one wait for all its payouts, a
	 * summary): gets each item's result (undefined for an item that failed under Continue On
	 * Fail) and each failed item's error item, may update the results in place, and returns items to
	 * add after them and, for a node with a second output, that output's items.
	 */
	afterItems?(
		this: IExecuteFunctions,
		results: Array<IDataObject | undefined>,
		failures: Array<IDataObject | undefined>,
	): Promise<RunEnd>;
	/** Adds to the error that stops a run what the run had already done (a payout run: what it sent). */
	describeFailure?(
		this: IExecuteFunctions,
		failure: unknown,
		results: Array<IDataObject | undefined>,
	): void;
}

/** What a run adds once its items are done: items after them, and a second output's items. */
export interface RunEnd {
	append?: INodeExecutionData[];
	second?: INodeExecutionData[];
}

export { NETWORK_OPTIONS };

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

/** The Country of a number typed in national form (0712...): the same field wherever a number is typed. */
export const nationalNumberCountryField: INodeProperties = {
	displayName: 'Country',
	name: 'country',
	type: 'options',
	options: COUNTRY_OPTIONS,
	default: 'KE',
	description: 'Used only for numbers typed in national form, starting with 0',
};

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

/** An Amount field with its unit visible under it; `description` says what the amount is for. */
export function amountField(description: string): INodeProperties {
	return {
		displayName: 'Amount',
		name: 'amount',
		type: 'number',
		required: true,
		default: 0,
		hint: AMOUNT_HINT,
		description,
		builderHint: {
			propertyHint:
				"The amount in the currency's main unit, never cents: map the order's total, e.g. {{ $json.total }}; 1500 means KES 1,500",
		},
	};
}

/** The one Options collection of a panel, for everything optional or technical; it sits last. */
export function optionsCollection(options: INodeProperties[]): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options,
	};
}

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

/**
 * What a sweep compares Little Pay's record with: the amount (and currency) the merchant's own record
 * holds. Empty means not checked. A record that differs comes out as mismatch, never completed.
 */
export function expectedFields(thing: 'payment' | 'payout'): INodeProperties[] {
	return [
		{
			displayName: 'Expected Amount',
			name: 'expectedAmount',
			type: 'string',
			default: '',
			placeholder: 'e.g. {{ $json.amount }}',
			hint: `From your record: a ${thing} with another amount comes out as mismatch, never completed`,
			description: `The amount your record says the ${thing} is for, in the currency's main unit; empty means not checked`,
		},
		{
			displayName: 'Expected Currency',
			name: 'expectedCurrency',
			type: 'string',
			default: '',
			placeholder: 'e.g. KES',
			description: 'The currency your record says; empty means not checked',
		},
	];
}

/** The expected fields a sweep row gives, as a record would show them (empty ones left out). */
export function readExpected(item: Item): IDataObject {
	const expected: IDataObject = {};
	const currency = String(item.param('expectedCurrency', '') ?? '').trim();
	if (currency !== '') expected.currency = item.check(() => validateCurrency(currency));
	const amount = item.param<unknown>('expectedAmount', '');
	if (amount !== '' && amount !== null && amount !== undefined) {
		// With the currency's decimals when it is given: UGX 100.5 is no amount a record can hold.
		const code = typeof expected.currency === 'string' ? expected.currency : undefined;
		expected.amount = item.check(() => validateAmount(amount, 'Expected Amount', code));
	}
	return { ...(expected.amount !== undefined ? { amount: expected.amount } : {}), ...expected };
}

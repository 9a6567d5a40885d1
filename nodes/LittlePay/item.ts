import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { atItem, invalidInput } from './errors';
import type { InvalidValue } from './errors';
import {
	normalizeMobileNumber,
	requireText,
	validateAmount,
	validateCurrency,
	validateNetwork,
	validateUrl,
} from './helpers/validation';
import type { MobileNetwork } from './helpers/validation';

/**
 * The item an operation works on, built once by the router: the node run, the item's index, typed
 * readers of its parameters (each validated; a bad value fails the item naming it and the field)
 * and one way to fail it. Validators stay pure functions of a value (helpers/validation.ts).
 */
export interface Item {
	readonly context: IExecuteFunctions;
	readonly index: number;
	/** The parameter's value for this item, as n8n resolves it (`fallback` when it is unset). */
	param<T = unknown>(name: string, fallback?: unknown): T;
	/** A required text parameter, trimmed (`fallback` when it is unset). */
	text(name: string, field: string, fallback?: string): string;
	/** A positive amount (a number, or a numeric string an expression gave). */
	amount(name: string, field?: string): number;
	/** A mobile money network, as Little Pay names it. */
	network(name: string, field?: string): MobileNetwork;
	/** A three-letter currency code, upper-case (KES unless set). */
	currency(name?: string): string;
	/** A payer or payee number for `network`, in Little Pay's form; national numbers use the Country parameter. */
	phone(name: string, field: string, network: unknown): string;
	/** An http(s) URL. */
	url(name: string, field: string): string;
	/** Runs a pure check of a value for this item: a refused value fails the item. */
	check<T>(check: () => T | InvalidValue): T;
	/** Fails the item: the field, what is wrong, how to fix it. */
	fail(field: string, problem: string, fix: string): never;
}

/** `={{ $json.amount }}` or `={{ $json["amount"] }}`: a field of the item itself, the most common mapping. */
const OWN_FIELD = /^=\{\{\s*\$json(?:\.([A-Za-z_$][\w$]*)|\[\s*(["'])([^"'\\]+)\2\s*\])\s*\}\}$/;

/**
 * A parameter mapped straight from a field of the item (`={{ $json.amount }}`) whose value is a plain
 * string, number or boolean: the value itself, as n8n's expression would give it. n8n evaluates every
 * expression in its isolated sandbox (about 1 ms each, most of a payout row's CPU in a real n8n), so a
 * 10,000-row run read its three mapped fields for 30 s of CPU. Anything else, including a field the
 * item lacks, goes to n8n.
 */
function ownField(context: IExecuteFunctions, index: number, name: string): unknown {
	if (name.includes('.')) return undefined;
	const raw = context.getNode().parameters[name];
	if (typeof raw !== 'string' || !raw.startsWith('={{')) return undefined;
	const match = OWN_FIELD.exec(raw);
	if (!match) return undefined;
	const field = match[1] ?? match[3];
	const json = context.getInputData()[index]?.json;
	if (!json || !Object.prototype.hasOwnProperty.call(json, field)) return undefined;
	const value = json[field];
	if (typeof value === 'string' || typeof value === 'boolean') return value;
	if (typeof value === 'number' && Number.isFinite(value)) return value;
	return undefined;
}

export function itemScope(context: IExecuteFunctions, index: number): Item {
	const node = context.getNode();
	const param = <T>(name: string, fallback?: unknown) =>
		(ownField(context, index, name) ?? context.getNodeParameter(name, index, fallback)) as T;
	const check = <T>(run: () => T | InvalidValue) => atItem<T>(node, index, run);
	return {
		context,
		index,
		param,
		check,
		text: (name, field, fallback) => check(() => requireText(param(name, fallback), field)),
		amount: (name, field) => check(() => validateAmount(param(name), field)),
		network: (name, field) => check(() => validateNetwork(param(name), field)),
		currency: (name = 'currency') => check(() => validateCurrency(param(name, 'KES'))),
		phone: (name, field, network) =>
			check(() => normalizeMobileNumber(param(name), network, param('country', 'KE'), field)),
		url: (name, field) => check(() => validateUrl(param(name), field)),
		fail: (field, problem, fix) => invalidInput(node, index, field, problem, fix),
	};
}

/**
 * The value that names an item's row (`{ reference: ... }`), null when it is empty or cannot be read:
 * Continue On Fail and a sweep's problem rows copy it, so a failed row can be matched to its order or payout.
 */
export function rowKeyOf(
	context: IExecuteFunctions,
	row: { parameter: string; field: string } | undefined,
	itemIndex: number,
): IDataObject | undefined {
	if (!row) return undefined;
	let value: unknown;
	try {
		value = context.getNodeParameter(row.parameter, itemIndex, '');
	} catch {
		// A broken expression is what failed the item; the error says so.
		value = '';
	}
	const text = value === undefined || value === null ? '' : String(value).trim();
	return { [row.field]: text === '' ? null : text };
}

/** How many items a run handles at once: its Options > Concurrency (1-10), else the option's default. */
export function concurrencyOf(
	context: IExecuteFunctions,
	meta: { concurrency?: { default: unknown } },
): number {
	if (!meta.concurrency) return 1;
	const given = Number(
		context.getNodeParameter('options.concurrency', 0, meta.concurrency.default),
	);
	return Math.min(10, Math.max(1, Math.floor(given) || 1));
}

/**
 * What one node run keeps while it runs (the exit, the warnings said, the keys looked up ahead): one
 * store per run of n8n's call context, so no room keeps its own. Its slots are typed by their owners.
 */
export interface RunState {
	exit?: unknown;
	warned?: Set<string>;
	lookAhead?: unknown;
	/** Choices for the whole run, read from item 0 once (runChoice). */
	choices?: Map<string, unknown>;
	/** A payout run's check before anything is sent (actions/disbursement/run.ts). */
	payoutCheck?: unknown;
	/** What each item reserved in the day totals until its move ends (money/days.ts). */
	dayReservations?: unknown;
}

const runs = new WeakMap<IExecuteFunctions, RunState>();

/** This node run's state (n8n gives each run of the node its own context object). */
export function runState(context: IExecuteFunctions): RunState {
	let state = runs.get(context);
	if (!state) {
		state = {};
		runs.set(context, state);
	}
	return state;
}

/**
 * A choice for the whole node run (a dry run, waiting, paying again), read from item 0 once: every row
 * asks, and each read costs n8n a parameter resolution.
 */
export function runChoice<T>(context: IExecuteFunctions, name: string, fallback: T): T {
	const choices = (runState(context).choices ??= new Map<string, unknown>());
	if (!choices.has(name)) choices.set(name, context.getNodeParameter(name, 0, fallback));
	return choices.get(name) as T;
}

import type { IExecuteFunctions } from 'n8n-workflow';

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

export function itemScope(context: IExecuteFunctions, index: number): Item {
	const node = context.getNode();
	const param = <T>(name: string, fallback?: unknown) =>
		context.getNodeParameter(name, index, fallback) as T;
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

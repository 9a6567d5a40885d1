// The version-1 contract: what a workflow saved today relies on in both nodes and both credentials. n8n saves
// each node's type, typeVersion and its parameter values by name, leaving out values equal to the default; so a
// saved workflow breaks when a parameter or an option value it holds disappears or is renamed, when a type or a
// default changes (an omitted value now means something else), or when a field it filled is no longer shown
// where it was. Additions break nothing. test/contract/contract.test.ts compares the package with the committed
// description (test/contract/v1.json); `npm run contract` rewrites that file on purpose.
import type { INodeProperties, INodeTypeDescription } from 'n8n-workflow';

import { LittlePayApiKeyApi } from '../credentials/LittlePayApiKeyApi.credentials';
import { LittlePayBasicApi } from '../credentials/LittlePayBasicApi.credentials';
import { LittlePay } from '../nodes/LittlePay/LittlePay.node';
import { LittlePayTrigger } from '../nodes/LittlePay/LittlePayTrigger.node';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** One parameter as a saved workflow sees it. A name may have several (one per resource and operation, say). */
export interface ContractParameter {
	name: string;
	type: string;
	default: Json;
	/** Set for options and multiOptions: the values a saved workflow may hold. */
	options?: Array<string | number | boolean>;
	/** Set for collection (the fields inside) and fixedCollection (each group's name and fields). */
	fields?: ContractParameter[];
	groups?: Array<{ name: string; fields: ContractParameter[] }>;
	multipleValues?: boolean;
	show?: Record<string, Json[]>;
	hide?: Record<string, Json[]>;
}

export interface ContractEntry {
	/** The node's or credential's type name, as saved in workflows. */
	name: string;
	/** Node versions offered (nodes only); version 1 must stay among them. */
	versions?: number[];
	parameters: ContractParameter[];
}

export interface Contract {
	version: 1;
	nodes: Record<string, ContractEntry>;
	credentials: Record<string, ContractEntry>;
}

const json = (value: unknown): Json => JSON.parse(JSON.stringify(value ?? null)) as Json;

/** Whether a `@version` display condition admits node version 1. */
function admitsVersion1(values: unknown[]): boolean {
	return values.some((value) => {
		if (typeof value === 'number') return value === 1;
		const condition = (value as { _cnd?: Record<string, unknown> })?._cnd;
		if (!condition) return false;
		const [[operator, operand]] = Object.entries(condition);
		const n = operand as number;
		switch (operator) {
			case 'eq':
				return n === 1;
			case 'not':
				return n !== 1;
			case 'gte':
				return 1 >= n;
			case 'lte':
				return 1 <= n;
			case 'gt':
				return 1 > n;
			case 'lt':
				return 1 < n;
			case 'between': {
				const { from, to } = operand as { from: number; to: number };
				return 1 >= from && 1 <= to;
			}
			default:
				return true;
		}
	});
}

function parameter(property: INodeProperties): ContractParameter | undefined {
	// A notice holds no value a workflow saves.
	if (property.type === 'notice') return undefined;
	const show = property.displayOptions?.show as Record<string, unknown[]> | undefined;
	const hide = property.displayOptions?.hide as Record<string, unknown[]> | undefined;
	if (show?.['@version'] && !admitsVersion1(show['@version'])) return undefined;
	if (hide?.['@version'] && admitsVersion1(hide['@version'])) return undefined;
	const out: ContractParameter = {
		name: property.name,
		type: property.type,
		default: json(property.default),
	};
	const options = (property.options ?? []) as unknown[];
	if (property.type === 'options' || property.type === 'multiOptions')
		out.options = options.map((option) => (option as { value: string | number | boolean }).value);
	if (property.type === 'collection') out.fields = parameters(options as INodeProperties[]);
	if (property.type === 'fixedCollection')
		out.groups = (options as Array<{ name: string; values: INodeProperties[] }>).map((group) => ({
			name: group.name,
			fields: parameters(group.values),
		}));
	if (property.typeOptions?.multipleValues) out.multipleValues = true;
	if (show) out.show = json(show) as Record<string, Json[]>;
	if (hide) out.hide = json(hide) as Record<string, Json[]>;
	return out;
}

function parameters(properties: INodeProperties[]): ContractParameter[] {
	return properties.map(parameter).filter((p): p is ContractParameter => p !== undefined);
}

function node(description: INodeTypeDescription): ContractEntry {
	const versions = Array.isArray(description.version) ? description.version : [description.version];
	return { name: description.name, versions, parameters: parameters(description.properties) };
}

function credential(type: { name: string; properties: INodeProperties[] }): ContractEntry {
	return { name: type.name, parameters: parameters(type.properties) };
}

/** The contract as the package stands now. */
export function currentContract(): Contract {
	return {
		version: 1,
		nodes: {
			littlePay: node(new LittlePay().description),
			littlePayTrigger: node(new LittlePayTrigger().description),
		},
		credentials: {
			littlePayBasicApi: credential(new LittlePayBasicApi()),
			littlePayApiKeyApi: credential(new LittlePayApiKeyApi()),
		},
	};
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Whether `now`'s display rule shows the field wherever `was` showed it (it may show it in more places). */
function showsAtLeastWhere(was: ContractParameter, now: ContractParameter): boolean {
	for (const [key, values] of Object.entries(now.show ?? {})) {
		const before = was.show?.[key];
		if (!before) return false;
		if (!before.every((value) => values.some((v) => same(v, value)))) return false;
	}
	for (const [key, values] of Object.entries(now.hide ?? {})) {
		const before = was.hide?.[key] ?? [];
		if (!values.every((value) => before.some((v) => same(v, value)))) return false;
	}
	return true;
}

function where(p: ContractParameter): string {
	const rules = [
		...Object.entries(p.show ?? {}).map(
			([k, v]) => `${k}=${v.map((x) => JSON.stringify(x)).join('|')}`,
		),
		...Object.entries(p.hide ?? {}).map(
			([k, v]) => `${k}!=${v.map((x) => JSON.stringify(x)).join('|')}`,
		),
	];
	return rules.length ? ` (${rules.join(', ')})` : '';
}

/** Why `now` cannot stand in for `was` in a saved workflow, or [] when it can. */
function parameterBreaks(path: string, was: ContractParameter, now: ContractParameter): string[] {
	const out: string[] = [];
	const label = `${path}${where(was)}`;
	if (now.type !== was.type) out.push(`${label}: type ${was.type} became ${now.type}`);
	if (!same(now.default, was.default))
		out.push(
			`${label}: default ${JSON.stringify(was.default)} became ${JSON.stringify(now.default)}`,
		);
	if (Boolean(now.multipleValues) !== Boolean(was.multipleValues))
		out.push(
			`${label}: multipleValues ${Boolean(was.multipleValues)} became ${Boolean(now.multipleValues)}`,
		);
	for (const value of was.options ?? [])
		if (!(now.options ?? []).includes(value))
			out.push(`${label}: option value ${JSON.stringify(value)} removed`);
	if (was.fields) out.push(...listBreaks(`${path}.`, was.fields, now.fields ?? []));
	for (const group of was.groups ?? []) {
		const kept = now.groups?.find((g) => g.name === group.name);
		if (!kept) out.push(`${label}: group ${group.name} removed`);
		else out.push(...listBreaks(`${path}.${group.name}.`, group.fields, kept.fields));
	}
	if (!showsAtLeastWhere(was, now)) out.push(`${label}: now shown only${where(now) || ' nowhere'}`);
	return out;
}

function listBreaks(prefix: string, was: ContractParameter[], now: ContractParameter[]): string[] {
	const out: string[] = [];
	for (const before of was) {
		const candidates = now.filter((p) => p.name === before.name);
		if (candidates.length === 0) {
			out.push(`${prefix}${before.name}${where(before)}: removed or renamed`);
			continue;
		}
		// Kept if any parameter of that name can stand in for it; otherwise report the closest one's reasons.
		const reasons = candidates.map((c) => parameterBreaks(`${prefix}${before.name}`, before, c));
		if (reasons.some((r) => r.length === 0)) continue;
		out.push(...reasons.reduce((a, b) => (b.length < a.length ? b : a)));
	}
	return out;
}

/** Every change from `was` to `now` that would break a workflow saved against `was`; additions are fine. */
export function breakingChanges(was: Contract, now: Contract): string[] {
	const out: string[] = [];
	for (const kind of ['nodes', 'credentials'] as const) {
		for (const [key, before] of Object.entries(was[kind])) {
			const after = now[kind][key];
			if (!after || after.name !== before.name) {
				out.push(`${kind}.${key}: type ${before.name} removed or renamed`);
				continue;
			}
			if (before.versions && !(after.versions ?? []).includes(1))
				out.push(`${kind}.${key}: version 1 is no longer offered`);
			out.push(...listBreaks(`${before.name}: `, before.parameters, after.parameters));
		}
	}
	return out;
}

// What a user sees of the Little Pay node, as data: for every resource and operation, in a workflow and
// as an AI tool, the canvas subtitle, the credentials asked for and the panel's fields in order (with
// their types, defaults, hints, descriptions, options and the fields of their collections). Two trees
// that print the same lines show the same panels, however their code is arranged.
//
//   npx tsx scripts/panels.ts > after.txt
//   git stash && npx tsx scripts/panels.ts > before.txt && git stash pop && diff before.txt after.txt
//
// `--raw` prints the node's whole property list instead (names, types, defaults, displayOptions), in order.
import type { INodeCredentialDescription, INodeProperties } from 'n8n-workflow';

// The .ts file by name: beside it, LittlePay.node.json (the codex) would win an extensionless import.
import { LittlePay } from '../nodes/LittlePay/LittlePay.node.js';

type Values = Record<string, unknown>;

/** Whether n8n shows a top-level property for these parameter values (show/hide by value). */
function shown(
	displayOptions: INodeProperties['displayOptions'] | undefined,
	values: Values,
): boolean {
	if (!displayOptions) return true;
	const matches = (key: string, allowed: unknown[]) =>
		allowed.includes(values[key.replace(/^\//, '')] as never);
	for (const [key, allowed] of Object.entries(displayOptions.show ?? {})) {
		if (!matches(key, allowed as unknown[])) return false;
	}
	for (const [key, hidden] of Object.entries(displayOptions.hide ?? {})) {
		if (matches(key, hidden as unknown[])) return false;
	}
	return true;
}

/** One field as the panel presents it: everything but where it is shown. */
function field(property: INodeProperties): unknown {
	const rest: Partial<INodeProperties> = { ...property };
	delete rest.displayOptions;
	delete rest.options;
	const options = property.options;
	const nested = (options ?? []).map((option) =>
		'type' in option ? field(option as INodeProperties) : option,
	);
	return options ? { ...rest, options: nested } : rest;
}

/** The fields shown, in order, filling each shown field's default in as n8n does. */
function panel(properties: INodeProperties[], fixed: Values): unknown[] {
	const values: Values = { ...fixed };
	const fields: unknown[] = [];
	for (const property of properties) {
		if (!shown(property.displayOptions, values)) continue;
		if (!(property.name in values)) values[property.name] = property.default;
		if (property.name === 'resource' || property.name === 'operation') continue;
		fields.push(field(property));
	}
	return fields;
}

/** The canvas subtitle for a resource and operation, the node's expression evaluated with defaults. */
function subtitleOf(subtitle: string | undefined, resource: string, operation: string): string {
	const expression = (subtitle ?? '').replace(/^=\{\{/, '').replace(/\}\}$/, '');
	const evaluate = new Function('$parameter', `return (${expression});`) as (
		p: Record<string, unknown>,
	) => unknown;
	const words = evaluate({ resource, operation });
	return typeof words === 'string' ? words : '(none)';
}

function credentialsOf(credentials: INodeCredentialDescription[], values: Values): string[] {
	return credentials
		.filter((credential) => shown(credential.displayOptions, values))
		.map((credential) => credential.name);
}

function main(): void {
	const description = new LittlePay().description;
	const properties = description.properties;
	if (process.argv.includes('--raw')) {
		for (const property of properties) console.log(JSON.stringify(property));
		return;
	}
	const resources = properties.find((property) => property.name === 'resource')!;
	for (const resource of resources.options as Array<{ value: string }>) {
		const selector = properties.find(
			(property) =>
				property.name === 'operation' &&
				shown(property.displayOptions, { resource: resource.value }),
		)!;
		for (const operation of selector.options as Array<{ value: string }>) {
			for (const tool of [false, true]) {
				const fixed = { resource: resource.value, operation: operation.value, '@tool': tool };
				console.log(
					JSON.stringify({
						panel: `${resource.value}:${operation.value}${tool ? ' (tool)' : ''}`,
						subtitle: subtitleOf(description.subtitle, resource.value, operation.value),
						credentials: credentialsOf(description.credentials ?? [], fixed),
						selector: operation,
						fields: panel(properties, fixed),
					}),
				);
			}
		}
	}
}

main();

// Output schemas in n8n's `__schema__` layout, derived from what the node really output. n8n's editor
// shows them as the node's fields before its first run (schema preview), so they are generated from runs
// rather than written by hand, and test/node/outputSchemas.test.ts fails when an output and its schema
// part ways.
import { join } from 'node:path';

/** A JSON type, as JSON Schema names it (numbers are all "number": money may have decimals). */
export type JsonType = 'string' | 'number' | 'boolean' | 'null' | 'object' | 'array';

/** The part of JSON Schema n8n's schema preview reads: the type, an object's properties, an array's items. */
export interface JsonSchema {
	type: JsonType | JsonType[];
	properties?: Record<string, JsonSchema>;
	items?: JsonSchema;
}

/** Where n8n looks for an operation's schema: `__schema__/v<version padded to 3 parts>/<resource>/<operation>.json` beside the node. */
export function schemaPath(nodeDir: string, resource: string, operation: string): string {
	return join(nodeDir, '__schema__', 'v1.0.0', resource, `${operation}.json`);
}

function typeOf(value: unknown): JsonType {
	if (value === null || value === undefined) return 'null';
	if (Array.isArray(value)) return 'array';
	const type = typeof value;
	if (type === 'string' || type === 'number' || type === 'boolean') return type;
	if (type === 'object') return 'object';
	throw new Error(`No JSON type for a ${type}`);
}

/** The schema of one JSON value: its type, an object's properties in their order, an array's items merged. */
export function schemaOf(value: unknown): JsonSchema {
	const type = typeOf(value);
	if (type === 'object') {
		const properties: Record<string, JsonSchema> = {};
		for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
			// An undefined field is not in the item n8n stores (JSON drops it), so it is not in the schema.
			if (inner !== undefined) properties[key] = schemaOf(inner);
		}
		return { type, properties };
	}
	if (type === 'array') {
		const elements = value as unknown[];
		// Every element, not only the first: a list whose entries differ shows all their fields.
		return elements.length === 0 ? { type } : { type, items: mergeSchemas(elements.map(schemaOf)) };
	}
	return { type };
}

function typesOf(schema: JsonSchema): JsonType[] {
	return Array.isArray(schema.type) ? schema.type : [schema.type];
}

/**
 * The types of a field seen as several types, for the schema. Null goes last, after the type it is
 * null instead of, because n8n's preview shows the first type of a list. A nullable object or array
 * keeps its one type: n8n opens an object's properties (an array's items) only when `type` is exactly
 * "object" ("array"), and the fields inside are what a user maps.
 */
function typeOfMany(types: JsonType[]): JsonType | JsonType[] {
	const distinct = [...new Set(types)];
	const others = distinct.filter((type) => type !== 'null');
	if (others.length === 0) return 'null';
	if (others.length === 1 && (others[0] === 'object' || others[0] === 'array')) return others[0];
	const all = distinct.length > others.length ? [...others, 'null' as const] : others;
	return all.length === 1 ? all[0] : all;
}

/** One schema for values seen in several items: the union of their types and of their properties. */
export function mergeSchemas(schemas: JsonSchema[]): JsonSchema {
	const merged: JsonSchema = { type: typeOfMany(schemas.flatMap(typesOf)) };
	const withProperties = schemas.filter((s) => s.properties !== undefined);
	if (withProperties.length > 0) {
		// Properties in the order first seen, so the preview lists them as the node outputs them.
		const keys = [...new Set(withProperties.flatMap((s) => Object.keys(s.properties ?? {})))];
		merged.properties = Object.fromEntries(
			keys.map((key) => [
				key,
				mergeSchemas(withProperties.flatMap((s) => s.properties?.[key] ?? [])),
			]),
		);
	}
	const withItems = schemas.flatMap((s) => s.items ?? []);
	if (withItems.length > 0) merged.items = mergeSchemas(withItems);
	return merged;
}

/** The schema of a node's output items (their `json`): one object schema for all of them. */
export function schemaOfItems(items: Array<Record<string, unknown>>): JsonSchema {
	if (items.length === 0) throw new Error('No output items to derive a schema from');
	return mergeSchemas(items.map(schemaOf));
}

function printSchema(schema: JsonSchema, indent: string): string {
	const inner = `${indent}\t`;
	const lines = [
		`${inner}"type": ${Array.isArray(schema.type) ? `[${schema.type.map((t) => `"${t}"`).join(', ')}]` : `"${schema.type}"`}`,
	];
	if (schema.properties !== undefined) {
		const entries = Object.entries(schema.properties).map(
			([key, value]) => `${inner}\t${JSON.stringify(key)}: ${printSchema(value, `${inner}\t`)}`,
		);
		lines.push(
			entries.length === 0
				? `${inner}"properties": {}`
				: `${inner}"properties": {\n${entries.join(',\n')}\n${inner}}`,
		);
	}
	if (schema.items !== undefined)
		lines.push(`${inner}"items": ${printSchema(schema.items, inner)}`);
	return `{\n${lines.join(',\n')}\n${indent}}`;
}

/** The file text of a schema, as the repo's Prettier writes JSON (tabs, short type lists on one line). */
export function schemaText(schema: JsonSchema): string {
	return `${printSchema(schema, '')}\n`;
}

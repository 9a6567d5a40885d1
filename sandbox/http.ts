// Small HTTP helpers: the {date, data} envelope, errors with a status and code, JSON body reading.
import type { IncomingMessage } from 'node:http';

/** A handler's answer; written by the dispatcher so injected faults can drop it after the state changed. */
export interface Reply {
	status: number;
	body: string;
	contentType: string;
	headers?: Record<string, string>;
}

/** An error the client caused (or a business rule); becomes a JSON error envelope, never a stack trace. */
export class SandboxError extends Error {
	constructor(
		readonly status: number,
		readonly code: string,
		message: string,
		readonly extra: Record<string, unknown> = {},
	) {
		super(message);
	}
}

/** Wraps data in the gateway's {date, data} envelope. */
export function envelope(data: unknown, status = 200): Reply {
	return {
		status,
		body: JSON.stringify({ date: new Date().toISOString(), data }),
		contentType: 'application/json; charset=utf-8',
	};
}

/** Turns any error into an envelope; unexpected ones become a plain 500 without internals. */
export function errorReply(error: unknown): Reply {
	if (error instanceof SandboxError) {
		return envelope({ message: error.message, code: error.code, ...error.extra }, error.status);
	}
	return envelope({ message: 'Internal sandbox error', code: 'INTERNAL' }, 500);
}

/** An HTML page. */
export function html(body: string, status = 200): Reply {
	return { status, body, contentType: 'text/html; charset=utf-8' };
}

/**
 * A page that takes card data (the hosted checkout): no other site may frame it (clickjacking the Pay
 * button), browsers may not sniff it, and no cache or Referer keeps it.
 */
export function cardPage(body: string, status = 200): Reply {
	return {
		...html(body, status),
		headers: {
			'x-frame-options': 'DENY',
			'x-content-type-options': 'nosniff',
			'cache-control': 'no-store',
			'referrer-policy': 'no-referrer',
		},
	};
}

/** A 303 redirect (form posts land on a GET). */
export function redirect(location: string): Reply {
	return { status: 303, body: '', contentType: 'text/plain', headers: { location } };
}

const MAX_BODY_BYTES = 1024 * 1024;

/** Reads the raw body, refusing more than 1 MiB so a client cannot exhaust memory. */
export function readBody(req: IncomingMessage): Promise<string> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		let size = 0;
		req.on('data', (chunk: Buffer) => {
			size += chunk.length;
			if (size > MAX_BODY_BYTES) {
				reject(new SandboxError(413, 'BODY_TOO_LARGE', 'Request body is larger than 1 MiB'));
				req.destroy();
				return;
			}
			chunks.push(chunk);
		});
		req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
		req.on('error', reject);
	});
}

/** Deepest nesting of arrays and objects a JSON body may have. */
export const MAX_JSON_DEPTH = 64;

/** Whether value nests arrays/objects deeper than max levels; iterative, so no input can exhaust the stack. */
function nestedDeeperThan(value: unknown, max: number): boolean {
	const stack: Array<[unknown, number]> = [[value, 1]];
	while (stack.length > 0) {
		const [current, depth] = stack.pop() as [unknown, number];
		if (typeof current !== 'object' || current === null) continue;
		if (depth > max) return true;
		for (const child of Object.values(current)) stack.push([child, depth + 1]);
	}
	return false;
}

/** Parses a body by its content type: JSON (default) or an HTML form. */
export function parseBody(raw: string, contentType: string | undefined): unknown {
	if (raw.trim() === '') return undefined;
	if ((contentType ?? '').includes('application/x-www-form-urlencoded')) {
		return Object.fromEntries(new URLSearchParams(raw));
	}
	let parsed: unknown;
	try {
		parsed = JSON.parse(raw) as unknown;
	} catch {
		throw new SandboxError(400, 'INVALID_JSON', 'Request body is not valid JSON');
	}
	// A body nested thousands deep parses, but serialising it again (status record, ledger) overflows the
	// stack: refused here so it can never be stored.
	if (nestedDeeperThan(parsed, MAX_JSON_DEPTH)) {
		throw new SandboxError(
			400,
			'INVALID_JSON',
			`Request body nests objects or arrays more than ${MAX_JSON_DEPTH} levels deep`,
		);
	}
	return parsed;
}

/** True for plain objects (not arrays, not null). */
export function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The body as an object, or a 400 saying it must be one. */
export function requireObjectBody(body: unknown): Record<string, unknown> {
	if (!isObject(body))
		throw new SandboxError(400, 'INVALID_BODY', 'Request body must be a JSON object');
	return body;
}

/** A required non-empty string field. */
export function requireString(obj: Record<string, unknown>, field: string, path = field): string {
	const value = obj[field];
	if (value === undefined || value === null || value === '') {
		throw new SandboxError(400, 'MISSING_FIELD', `${path} is required`);
	}
	if (typeof value !== 'string')
		throw new SandboxError(400, 'INVALID_FIELD', `${path} must be a string`);
	return value;
}

/** An optional string field (undefined when absent). */
export function optionalString(
	obj: Record<string, unknown>,
	field: string,
	path = field,
): string | undefined {
	const value = obj[field];
	if (value === undefined || value === null) return undefined;
	if (typeof value !== 'string')
		throw new SandboxError(400, 'INVALID_FIELD', `${path} must be a string`);
	return value;
}

/** A positive finite amount. */
export function requireAmount(obj: Record<string, unknown>, field: string, path = field): number {
	const value = obj[field];
	if (value === undefined || value === null)
		throw new SandboxError(400, 'MISSING_FIELD', `${path} is required`);
	if (typeof value !== 'number' || !Number.isFinite(value)) {
		throw new SandboxError(400, 'INVALID_FIELD', `${path} must be a number`);
	}
	if (value <= 0) throw new SandboxError(400, 'INVALID_FIELD', `${path} must be greater than 0`);
	return value;
}

/** Validates an http(s) URL field. */
export function requireHttpUrl(value: string, path: string): string {
	let url: URL;
	try {
		url = new URL(value);
	} catch {
		throw new SandboxError(400, 'INVALID_FIELD', `${path} must be an absolute http(s) URL`);
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:') {
		throw new SandboxError(400, 'INVALID_FIELD', `${path} must be an absolute http(s) URL`);
	}
	return value;
}

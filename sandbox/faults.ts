// Fault injection: rules set through /sandbox/faults and the per-request X-Sandbox-Fault header.
import { SandboxError, isObject } from './http';
import type { FaultRule } from './types';

/** What to do to one request. */
export interface Fault {
	latencyMs: number;
	status?: number;
	drop?: 'before' | 'after';
	description: string;
}

/** Validates the body of POST /sandbox/faults. */
export function parseRules(body: unknown): FaultRule[] {
	if (!isObject(body) || !Array.isArray(body.rules)) {
		throw new SandboxError(400, 'INVALID_FIELD', 'rules must be an array of fault rules');
	}
	return body.rules.map((raw, i) => {
		if (!isObject(raw))
			throw new SandboxError(400, 'INVALID_FIELD', `rules[${i}] must be an object`);
		const rule: FaultRule = {};
		if (raw.method !== undefined) {
			if (typeof raw.method !== 'string')
				throw new SandboxError(400, 'INVALID_FIELD', `rules[${i}].method must be a string`);
			rule.method = raw.method.toUpperCase();
		}
		if (raw.pathPrefix !== undefined) {
			if (typeof raw.pathPrefix !== 'string')
				throw new SandboxError(400, 'INVALID_FIELD', `rules[${i}].pathPrefix must be a string`);
			rule.pathPrefix = raw.pathPrefix;
		}
		if (raw.latencyMs !== undefined)
			rule.latencyMs = nonNegative(raw.latencyMs, `rules[${i}].latencyMs`);
		if (raw.status !== undefined) rule.status = statusCode(raw.status, `rules[${i}].status`);
		if (raw.drop !== undefined) {
			if (raw.drop !== 'before' && raw.drop !== 'after') {
				throw new SandboxError(
					400,
					'INVALID_FIELD',
					`rules[${i}].drop must be "before" or "after"`,
				);
			}
			rule.drop = raw.drop;
		}
		if (raw.rate !== undefined) {
			if (typeof raw.rate !== 'number' || raw.rate < 0 || raw.rate > 1) {
				throw new SandboxError(
					400,
					'INVALID_FIELD',
					`rules[${i}].rate must be a number from 0 to 1`,
				);
			}
			rule.rate = raw.rate;
		}
		if (raw.times !== undefined) {
			if (typeof raw.times !== 'number' || !Number.isInteger(raw.times) || raw.times < 1) {
				throw new SandboxError(
					400,
					'INVALID_FIELD',
					`rules[${i}].times must be a positive integer`,
				);
			}
			rule.times = raw.times;
		}
		return rule;
	});
}

/** Parses `latency=200;status=503;drop=after`. */
export function parseFaultHeader(header: string): Fault {
	const fault: Fault = { latencyMs: 0, description: `header: ${header}` };
	for (const part of header.split(';')) {
		const [name, value = ''] = part.split('=').map((s) => s.trim());
		if (name === '') continue;
		if (name === 'latency') fault.latencyMs = nonNegative(Number(value), 'X-Sandbox-Fault latency');
		else if (name === 'status') fault.status = statusCode(Number(value), 'X-Sandbox-Fault status');
		else if (name === 'drop') {
			if (value !== 'before' && value !== 'after') {
				throw new SandboxError(
					400,
					'INVALID_FAULT',
					'X-Sandbox-Fault drop must be "before" or "after"',
				);
			}
			fault.drop = value;
		} else
			throw new SandboxError(
				400,
				'INVALID_FAULT',
				`X-Sandbox-Fault has an unknown part "${name}" (use latency, status, drop)`,
			);
	}
	return fault;
}

/** Picks the first matching rule for a request and consumes one of its `times`. */
export function matchRule(rules: FaultRule[], method: string, path: string): Fault | undefined {
	for (let i = 0; i < rules.length; i++) {
		const rule = rules[i];
		if (rule.method && rule.method !== method) continue;
		if (rule.pathPrefix && !path.startsWith(rule.pathPrefix)) continue;
		if (rule.rate !== undefined && Math.random() >= rule.rate) continue;
		if (rule.times !== undefined) {
			rule.times -= 1;
			if (rule.times <= 0) rules.splice(i, 1);
		}
		return {
			latencyMs: rule.latencyMs ?? 0,
			status: rule.status,
			drop: rule.drop,
			description: `rule: ${JSON.stringify({ ...rule, times: undefined })}`,
		};
	}
	return undefined;
}

function nonNegative(value: unknown, path: string): number {
	if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
		throw new SandboxError(400, 'INVALID_FIELD', `${path} must be a number of milliseconds >= 0`);
	}
	return value;
}

function statusCode(value: unknown, path: string): number {
	if (typeof value !== 'number' || !Number.isInteger(value) || value < 400 || value > 599) {
		throw new SandboxError(400, 'INVALID_FIELD', `${path} must be an HTTP status from 400 to 599`);
	}
	return value;
}

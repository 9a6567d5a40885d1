// Signed callback delivery with retries and a delivery log. Loopback only unless explicitly allowed,
// so the sandbox never sends traffic off this machine by accident.
import { randomUUID, sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { CallbackLogEntry } from './types';

/** Signs `${timestamp}.${body}` with RSA-SHA256 (PKCS#1 v1.5), base64 — the way Little Pay signs callbacks. */
export function signCallback(privateKey: KeyObject, timestamp: string, body: string): string {
	return sign('sha256', Buffer.from(`${timestamp}.${body}`, 'utf8'), privateKey).toString('base64');
}

/** True for localhost and loopback addresses. */
export function isLoopbackHost(hostname: string): boolean {
	const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
	return (
		host === 'localhost' ||
		host.endsWith('.localhost') ||
		host === '::1' ||
		/^127\.\d+\.\d+\.\d+$/.test(host)
	);
}

export interface CallbackOptions {
	privateKey: KeyObject;
	retryDelaysMs: number[];
	timeoutMs: number;
	allowRemote: boolean;
	log: (line: string) => void;
}

/** Delivers callbacks, one delivery = first attempt plus one retry per configured delay. */
export class CallbackSender {
	readonly entries: CallbackLogEntry[] = [];
	private readonly timers = new Set<NodeJS.Timeout>();
	private readonly inflight = new Set<() => void>();
	private closed = false;

	constructor(private readonly options: CallbackOptions) {}

	/** Queues a signed delivery of payload to url. */
	send(event: CallbackLogEntry['event'], url: string, payload: unknown): void {
		const id = randomUUID();
		const body = JSON.stringify(payload);
		let parsed: URL | undefined;
		try {
			parsed = new URL(url);
		} catch {
			parsed = undefined;
		}
		if (!parsed || !(parsed.protocol === 'http:' || parsed.protocol === 'https:')) {
			this.entries.push({
				id,
				event,
				url,
				attempt: 0,
				at: now(),
				skipped: true,
				error: 'invalid callback URL',
				timestamp: '',
				signature: '',
				body,
			});
			return;
		}
		if (!this.options.allowRemote && !isLoopbackHost(parsed.hostname)) {
			this.entries.push({
				id,
				event,
				url,
				attempt: 0,
				at: now(),
				skipped: true,
				error: 'callback host is not loopback; set SANDBOX_ALLOW_REMOTE_CALLBACKS=1 to allow it',
				timestamp: '',
				signature: '',
				body,
			});
			return;
		}
		this.attempt(id, event, parsed, body, 1);
	}

	/** Cancels scheduled retries and aborts deliveries in flight. */
	close(): void {
		this.closed = true;
		for (const t of this.timers) clearTimeout(t);
		this.timers.clear();
		for (const abort of this.inflight) abort();
		this.inflight.clear();
	}

	/** Forgets the log (reset) without stopping the sender. */
	clear(): void {
		for (const t of this.timers) clearTimeout(t);
		this.timers.clear();
		this.entries.length = 0;
	}

	private attempt(
		id: string,
		event: CallbackLogEntry['event'],
		url: URL,
		body: string,
		attempt: number,
	): void {
		if (this.closed) return;
		// A fresh timestamp and signature per attempt, as a receiver with a replay window expects.
		const timestamp = String(Math.floor(Date.now() / 1000));
		const signature = signCallback(this.options.privateKey, timestamp, body);
		const entry: CallbackLogEntry = {
			id,
			event,
			url: url.toString(),
			attempt,
			at: now(),
			timestamp,
			signature,
			body,
		};
		this.entries.push(entry);
		const requester = url.protocol === 'https:' ? httpsRequest : httpRequest;
		let settled = false;
		const finish = (status: number | undefined, error: string | undefined): void => {
			if (settled) return;
			settled = true;
			this.inflight.delete(abort);
			if (status !== undefined) entry.status = status;
			if (error !== undefined) entry.error = error;
			const ok = status !== undefined && status >= 200 && status < 300;
			if (ok || this.closed) return;
			const delay = this.options.retryDelaysMs[attempt - 1];
			if (delay === undefined) {
				this.options.log(`callback ${event} to ${entry.url} gave up after ${attempt} attempt(s)`);
				return;
			}
			const timer = setTimeout(() => {
				this.timers.delete(timer);
				this.attempt(id, event, url, body, attempt + 1);
			}, delay);
			timer.unref();
			this.timers.add(timer);
		};
		const req = requester(
			url,
			{
				method: 'POST',
				headers: {
					'content-type': 'application/json',
					'content-length': Buffer.byteLength(body),
					'x-littlepay-timestamp': timestamp,
					'x-littlepay-signature': signature,
					'user-agent': 'littlepay-sandbox',
				},
				timeout: this.options.timeoutMs,
			},
			(res) => {
				let answer = '';
				res.setEncoding('utf8');
				res.on('data', (chunk: string) => {
					if (answer.length < 500) answer = (answer + chunk).slice(0, 500);
				});
				res.on('end', () => {
					entry.answer = answer;
					finish(res.statusCode, undefined);
				});
				res.on('error', (e) => finish(res.statusCode, e.message));
			},
		);
		const abort = (): void => {
			req.destroy(new Error('sandbox closed'));
		};
		this.inflight.add(abort);
		req.on('timeout', () =>
			req.destroy(new Error(`no answer within ${this.options.timeoutMs} ms`)),
		);
		req.on('error', (e) => finish(undefined, e.message));
		req.end(body);
	}
}

function now(): string {
	return new Date().toISOString();
}

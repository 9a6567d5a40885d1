// Shared helpers for the sandbox tests: a started sandbox, typed HTTP calls, a local callback receiver.
import axios from 'axios';
import type { AxiosResponse } from 'axios';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSandbox } from '../../sandbox';
import type { SandboxHandle, SandboxOptions } from '../../sandbox';

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A started sandbox plus helpers bound to it. */
export interface TestSandbox {
	sandbox: SandboxHandle;
	base: string;
	basic: string;
	apiKeyHeaders: Record<string, string>;
	get(path: string, headers?: Record<string, string>): Promise<AxiosResponse<Json>>;
	post(
		path: string,
		body?: unknown,
		headers?: Record<string, string>,
	): Promise<AxiosResponse<Json>>;
	createIntent(overrides?: Json): Promise<{ reference: string; key: string; checkoutUrl: string }>;
	status(referenceOrKey: string, query?: string): Promise<Json>;
}

/** A browser's device information as the enrolment step sends it. */
export const deviceInformation = {
	httpBrowserColorDepth: 24,
	httpBrowserJavaEnabled: false,
	httpBrowserJavaScriptEnabled: true,
	httpBrowserLanguage: 'en-KE',
	httpBrowserScreenHeight: 900,
	httpBrowserScreenWidth: 1440,
	httpBrowserTimeDifference: -180,
};

/** A form body, as the 3-D Secure pages post theirs. */
export const form = (fields: Record<string, string>): string =>
	new URLSearchParams(fields).toString();
export const formHeaders = { 'content-type': 'application/x-www-form-urlencoded' };

let keySeq = 0;

/** A fresh alphanumeric intent key. */
export function newKey(prefix = 'order'): string {
	keySeq += 1;
	return `${prefix}${Date.now().toString(36)}${keySeq}`.slice(0, 24);
}

/** Starts a fast sandbox for one suite. */
export async function startTestSandbox(options: SandboxOptions = {}): Promise<TestSandbox> {
	const sandbox = await startSandbox({
		port: 0,
		pinDelayMs: 100,
		longPollTimeoutMs: 600,
		quiet: true,
		callbackRetryDelaysMs: [100, 200],
		...options,
	});
	const base = sandbox.baseUrl;
	const m = sandbox.merchant;
	const basic = `Basic ${Buffer.from(`${m.clientId}:${m.clientSecret}`).toString('base64')}`;
	const apiKeyHeaders = { 'X-API-KEY': m.apiKey };
	const get = (path: string, headers: Record<string, string> = {}) =>
		axios.get<Json>(`${base}${path}`, { headers, validateStatus: () => true });
	const post = (path: string, body?: unknown, headers: Record<string, string> = {}) =>
		axios.post<Json>(`${base}${path}`, body, { headers, validateStatus: () => true });
	const createIntent = async (overrides: Json = {}) => {
		const key = (overrides.key as string | undefined) ?? newKey();
		const res = await post(
			`/api/payments/${m.tokenId}/pay`,
			{
				amount: 1500,
				currency: 'KES',
				description: 'Order',
				callbackUrl: 'http://127.0.0.1:9/unused',
				key,
				payload: { billingAddress: { firstName: 'Amina', email: 'amina@example.com' } },
				...overrides,
			},
			{ Authorization: basic },
		);
		if (res.status !== 200)
			throw new Error(`createIntent: ${res.status} ${JSON.stringify(res.data)}`);
		return {
			reference: res.data.data.reference as string,
			key,
			checkoutUrl: res.data.data.checkoutUrl as string,
		};
	};
	const status = async (referenceOrKey: string, query = '') => {
		const res = await get(`/api/payments-v2/${referenceOrKey}${query}`, apiKeyHeaders);
		if (res.status !== 200) throw new Error(`status: ${res.status} ${JSON.stringify(res.data)}`);
		return res.data.data as Json;
	};
	return { sandbox, base, basic, apiKeyHeaders, get, post, createIntent, status };
}

/** Polls until check returns a value (never longer than timeoutMs). */
export async function waitFor<T>(
	what: string,
	check: () => Promise<T | undefined> | T | undefined,
	timeoutMs = 5000,
): Promise<T> {
	const start = Date.now();
	for (;;) {
		const value = await check();
		if (value !== undefined) return value;
		if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 25));
	}
}

export interface Delivery {
	headers: IncomingHttpHeaders;
	body: string;
	path: string;
}

/** A loopback callback receiver; `answers` gives the status for each delivery in turn (last one repeats). */
export async function startReceiver(
	answers: number[] = [200],
): Promise<{ url: string; deliveries: Delivery[]; close(): Promise<void> }> {
	const deliveries: Delivery[] = [];
	const server: Server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			deliveries.push({
				headers: req.headers,
				body: Buffer.concat(chunks).toString('utf8'),
				path: req.url ?? '',
			});
			const status = answers[Math.min(deliveries.length - 1, answers.length - 1)];
			res.writeHead(status).end(`answer ${status}`);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const port = (server.address() as AddressInfo).port;
	return {
		url: `http://127.0.0.1:${port}`,
		deliveries,
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

// The test kit's sandbox: a fast sandbox started for one suite with typed HTTP calls bound to it, fresh
// intent keys, polling, and a browser's device information; shared by the sandbox, node, helper and e2e tests.
import axios from 'axios';
import type { AxiosResponse } from 'axios';
import { startSandbox } from '../sandbox';
import type { SandboxHandle, SandboxOptions } from '../sandbox';

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
	/** A payout sent straight to the gateway (not through the node); returns the gateway's record. */
	createPayout(payout: {
		key: string;
		to: string;
		amount?: number;
		method?: string;
		currency?: string;
	}): Promise<Json>;
	/** Waits until the payout with this ID or key is no longer pending. */
	payoutSettled(idOrKey: string): Promise<void>;
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
	const createPayout = async (payout: {
		key: string;
		to: string;
		amount?: number;
		method?: string;
		currency?: string;
	}) => {
		const res = await post(
			'/api/disbursements',
			{
				amount: payout.amount ?? 1000,
				method: payout.method ?? 'MPESA',
				currency: payout.currency ?? 'KES',
				key: payout.key,
				details: { to: payout.to, accountType: 'MOBILE' },
			},
			apiKeyHeaders,
		);
		if (res.status !== 200)
			throw new Error(`createPayout: ${res.status} ${JSON.stringify(res.data)}`);
		return res.data.data as Json;
	};
	const payoutSettled = async (idOrKey: string) => {
		await waitFor('the payout to settle', async () =>
			(await get(`/api/disbursements/${idOrKey}`, apiKeyHeaders)).data.data.status === 'pending'
				? undefined
				: true,
		);
	};
	return {
		sandbox,
		base,
		basic,
		apiKeyHeaders,
		get,
		post,
		createIntent,
		status,
		createPayout,
		payoutSettled,
	};
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

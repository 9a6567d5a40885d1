// Shared by the real-n8n suites, the benches and the demo scripts: example workflows, sandbox credentials,
// and running a workflow through a production webhook.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import axios from 'axios';
import type { AxiosResponse } from 'axios';
import { parse as parseFlatted } from 'flatted';

import type { SandboxHandle } from '../sandbox';
import type { MerchantCredentials } from '../sandbox/types';
import { REPO_ROOT } from './n8n';
import type { N8nApi } from './n8n';
import { createPayrollTables } from './payrollTable';
import { lastNodeWebhookNode } from './workflowParts';

/** Polls until the probe returns a value, or fails after the timeout. */
export async function waitFor<T>(
	what: string,
	probe: () => Promise<T | undefined>,
	timeoutMs = 60000,
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await probe();
		if (value !== undefined) return value;
		if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 250));
	}
}

/** Reads an example workflow and fills its `{{NAME}}` placeholders. */
export function loadExample(
	file: string,
	replacements: Record<string, string>,
): Record<string, unknown> {
	let text = readFileSync(join(REPO_ROOT, 'examples/workflows', file), 'utf8');
	for (const [name, value] of Object.entries(replacements)) {
		text = text.split(`{{${name}}}`).join(JSON.stringify(value).slice(1, -1));
	}
	return JSON.parse(text);
}

/** Creates the SMTP credential n8n's Send Email nodes use to reach the mailbox (testkit/mailSink.ts). */
export async function mailboxCredential(api: N8nApi, smtpPort: number): Promise<string> {
	return await api.createCredential('Human review mailbox (SMTP)', 'smtp', {
		host: '127.0.0.1',
		port: smtpPort,
		secure: false,
		disableStartTls: true,
		user: '',
		password: '',
	});
}

/**
 * Creates the two Little Pay credentials pointing at the sandbox, named `<label> (Basic)` and
 * `<label> (API key)`; returns their ids.
 */
export async function sandboxCredentials(
	api: N8nApi,
	sandbox: SandboxHandle,
	label: string,
): Promise<{ basicId: string; apiKeyId: string }> {
	const m = sandbox.merchant;
	const basicId = await api.createCredential(`${label} (Basic)`, 'littlePayBasicApi', {
		clientId: m.clientId,
		clientSecret: m.clientSecret,
		tokenId: m.tokenId,
		baseUrl: m.baseUrl,
	});
	const apiKeyId = await api.createCredential(`${label} (API key)`, 'littlePayApiKeyApi', {
		apiKey: m.apiKey,
		baseUrl: m.baseUrl,
		disbursementBaseUrl: '',
	});
	return { basicId, apiKeyId };
}

/** Creates a payment intent in the sandbox as a merchant's own code would (Client ID and Secret; the default merchant unless another is given); returns its reference. */
export async function createSandboxIntent(
	sandbox: SandboxHandle,
	intent: { amount: number; description: string; key: string; callbackUrl?: string },
	merchant: MerchantCredentials = sandbox.merchant,
): Promise<string> {
	const m = { ...merchant, baseUrl: sandbox.baseUrl };
	const res = await axios.post(
		`${m.baseUrl}/api/payments/${m.tokenId}/pay`,
		{
			currency: 'KES',
			callbackUrl: 'http://127.0.0.1:9/cb',
			...intent,
			payload: { billingAddress: { phoneNumber: '+254712345670' } },
		},
		{ auth: { username: m.clientId, password: m.clientSecret } },
	);
	return res.data.data.reference as string;
}

/**
 * A completed payment: an intent made as createSandboxIntent does, paid by M-Pesa straight on the
 * sandbox (a number ending in 0 pays), waited for until it is settled. Returns its reference.
 */
export async function paidSandboxIntent(
	sandbox: SandboxHandle,
	intent: { amount: number; description: string; key: string },
	merchant: MerchantCredentials = sandbox.merchant,
): Promise<string> {
	const reference = await createSandboxIntent(sandbox, intent, merchant);
	const m = { ...merchant, baseUrl: sandbox.baseUrl };
	const headers = { 'X-API-KEY': m.apiKey };
	await axios.post(
		`${m.baseUrl}/pay/${reference}/process`,
		{ type: 'MPESA', payment: { mobile: '254712345670' } },
		{ headers },
	);
	await axios.get(`${m.baseUrl}/api/payments-v2/${reference}?longPoll=true`, { headers });
	return reference;
}

/**
 * POSTs to a production webhook of a workflow just activated: activation returns before n8n has
 * registered it, so a 404 is retried for up to `waitMs`. Returns the first other answer, whatever it is.
 */
export async function postToNewWebhook(
	url: string,
	body: unknown,
	waitMs = 10000,
): Promise<AxiosResponse> {
	const deadline = Date.now() + waitMs;
	let response = await axios.post(url, body, { validateStatus: () => true, timeout: 120000 });
	while (response.status === 404 && Date.now() < deadline) {
		await new Promise((r) => setTimeout(r, 250));
		response = await axios.post(url, body, { validateStatus: () => true, timeout: 120000 });
	}
	return response;
}

/**
 * Swaps a workflow's manual trigger for a webhook, activates it, calls it and returns the last
 * node's items (n8n answers once the workflow has run); the workflow is deactivated afterwards.
 */
export async function runViaWebhook(
	api: N8nApi,
	n8nUrl: string,
	workflow: Record<string, unknown>,
): Promise<Array<Record<string, unknown>>> {
	return (await runWorkflowViaWebhook(api, n8nUrl, workflow)).items;
}

/** As runViaWebhook, and also says which workflow ran, so its executions can be read. */
export async function runWorkflowViaWebhook(
	api: N8nApi,
	n8nUrl: string,
	workflow: Record<string, unknown>,
): Promise<{ items: Array<Record<string, unknown>>; workflowId: string }> {
	const nodes = workflow.nodes as Array<Record<string, unknown>>;
	const path = `run-${randomUUID()}`;
	nodes[0] = lastNodeWebhookNode(path);
	const { id, versionId } = await api.createWorkflow(workflow);
	await api.activateWorkflow(id, versionId);
	const response = await postToNewWebhook(`${n8nUrl}/webhook/${path}`, {});
	if (response.status !== 200)
		throw new Error(
			`workflow run: HTTP ${response.status} ${JSON.stringify(response.data)}; ` +
				(await executionErrors(api, id)),
		);
	await api.http.post(`/rest/workflows/${id}/deactivate`, {});
	return { items: response.data as Array<Record<string, unknown>>, workflowId: id };
}

/**
 * What n8n recorded of a workflow's failed executions: the node that failed and its error, so a run that
 * answered "Error in workflow" says why. Never throws: it only adds to another error's message.
 */
export async function executionErrors(api: N8nApi, workflowId: string): Promise<string> {
	try {
		const found: string[] = [];
		for (const { id, status } of await api.executions(workflowId)) {
			if (status === 'success') continue;
			const full = await api.execution(id);
			const data = parseFlatted(String(full.data)) as {
				resultData?: {
					error?: { message?: string; description?: string };
					lastNodeExecuted?: string;
				};
			};
			const error = data.resultData?.error;
			found.push(
				`execution ${id} ${status} at ${data.resultData?.lastNodeExecuted ?? '?'}: ` +
					`${error?.message ?? 'no error recorded'}${error?.description ? ` (${error.description})` : ''}`,
			);
		}
		return found.length ? found.join('; ') : 'no failed execution recorded';
	} catch (e) {
		return `its executions could not be read: ${(e as Error).message}`;
	}
}

/**
 * Every execution of a workflow through the editor's REST API. n8n 2.41 orders the list by start time but
 * pages it by id (`beforeId`), so executions that started out of id order (queue mode, crash recovery) can
 * fall between two pages: ids missing from the pages inside their range are read one by one.
 */
export async function allExecutions(
	api: N8nApi,
	workflowId: string,
): Promise<Array<{ id: string; status: string }>> {
	const out = new Map<string, { id: string; status: string }>();
	let cursor: string | undefined;
	for (let page = 0; page < 1000; page++) {
		const res = await api.http.get('/rest/executions', {
			params: { filter: JSON.stringify({ workflowId }), limit: 100, ...(cursor ? { cursor } : {}) },
		});
		if (res.status !== 200)
			throw new Error(`list executions: HTTP ${res.status} ${JSON.stringify(res.data)}`);
		const data = (
			res.data as {
				data: { results: Array<{ id: string; status: string }>; nextCursor?: string | null };
			}
		).data;
		for (const e of data.results) out.set(e.id, { id: e.id, status: e.status });
		if (!data.nextCursor || data.results.length === 0) break;
		cursor = data.nextCursor;
	}
	const ids = [...out.keys()].map(Number).filter(Number.isInteger);
	if (ids.length > 1) {
		for (let id = Math.min(...ids) + 1; id < Math.max(...ids); id++) {
			if (out.has(String(id))) continue;
			const res = await api.http.get(`/rest/executions/${id}`);
			const found = (res.data as { data?: { id: string; status: string; workflowId?: string } })
				.data;
			if (res.status === 200 && found?.workflowId === workflowId)
				out.set(String(id), { id: String(id), status: found.status });
		}
	}
	return [...out.values()].sort((a, b) => Number(b.id) - Number(a.id));
}

/**
 * Waits until a workflow's executions have settled (count and statuses unchanged for `quietMs`, and none
 * running unless stuck that long) and returns them; callers judge the statuses.
 */
export async function settledExecutions(
	api: N8nApi,
	workflowId: string,
	quietMs = 3000,
	timeoutMs = 300000,
	/**
	 * How long the list must stay unchanged while an execution is still `running` (10 quiet periods): a
	 * workflow that ends in milliseconds passes less, so an execution n8n never finished recording (its
	 * database refused the write) does not hold the wait for 10 quiet periods.
	 */
	runningQuietMs = 10 * quietMs,
): Promise<Array<{ id: string; status: string }>> {
	const picture = (list: Array<{ id: string; status: string }>) =>
		list
			.map((e) => `${e.id}:${e.status}`)
			.sort()
			.join(',');
	let executions = await allExecutions(api, workflowId);
	let stableSince = Date.now();
	const deadline = Date.now() + timeoutMs;
	while (Date.now() < deadline) {
		await new Promise((r) => setTimeout(r, 500));
		const now = await allExecutions(api, workflowId);
		const running = now.some((e) => e.status === 'running');
		if (picture(now) !== picture(executions)) stableSince = Date.now();
		executions = now;
		const quiet = Date.now() - stableSince;
		if (quiet >= quietMs && (!running || quiet >= runningQuietMs)) return executions;
	}
	throw new Error(`executions of ${workflowId} did not settle within ${timeoutMs / 1000} s`);
}

/** Waits until a production webhook URL is registered (n8n answers 404 until it is), probing with an empty POST. */
export async function waitForWebhook(url: string, timeoutMs = 60000): Promise<void> {
	await waitFor(
		`the production webhook ${url}`,
		async () => {
			const probe = await axios.post(url, '', { validateStatus: () => true });
			return probe.status === 404 ? undefined : true;
		},
		timeoutMs,
	);
}

/** The Data Tables the example workflows keep their books in, by id (their placeholders' values). */
export interface ExampleTables {
	paymentsId: string;
	shipmentsId: string;
	payoutsId: string;
	refundsId: string;
	/** Example 12's payroll rows and their claims, and the rows' outcomes. */
	payrollId: string;
	payrollOutcomesId: string;
}

/**
 * Creates the Data Tables examples 3, 4 and 10 keep their books in (n8n 2.x): one per kind of money move,
 * with the same names for the same things (kind, key, amount, currency, status, started), and example 10's
 * shipments. The examples pick them by id, so their ids replace the placeholders (see exampleReplacements).
 */
export async function createExampleTables(api: N8nApi): Promise<ExampleTables> {
	const paymentsId = await api.createDataTable('littlepay_payments', [
		{ name: 'reference', type: 'string' },
		{ name: 'key', type: 'string' },
		{ name: 'amount', type: 'number' },
		{ name: 'currency', type: 'string' },
		{ name: 'status', type: 'string' },
		{ name: 'started', type: 'date' },
		// Which execution claimed the paid order, when, and when it shipped: the sweep takes over a claim
		// whose execution died before shipping.
		{ name: 'claimedBy', type: 'string' },
		{ name: 'claimedAt', type: 'date' },
		{ name: 'shippedAt', type: 'date' },
		{ name: 'kind', type: 'string' },
		// The payer's link, so that an order sent again is answered with it.
		{ name: 'checkoutUrl', type: 'string' },
	]);
	const shipmentsId = await api.createDataTable('littlepay_shipments', [
		{ name: 'reference', type: 'string' },
		{ name: 'executionId', type: 'string' },
		{ name: 'via', type: 'string' },
	]);
	const payoutsId = await api.createDataTable('littlepay_payouts', [
		{ name: 'kind', type: 'string' },
		{ name: 'key', type: 'string' },
		{ name: 'littlePayId', type: 'string' },
		{ name: 'amount', type: 'number' },
		{ name: 'fee', type: 'number' },
		{ name: 'currency', type: 'string' },
		{ name: 'network', type: 'string' },
		{ name: 'to', type: 'string' },
		{ name: 'status', type: 'string' },
		{ name: 'reason', type: 'string' },
		{ name: 'started', type: 'date' },
		{ name: 'settled', type: 'date' },
		{ name: 'nextStep', type: 'string' },
		{ name: 'checkedAt', type: 'date' },
	]);
	const refundsId = await api.createDataTable('littlepay_refunds', [
		{ name: 'kind', type: 'string' },
		{ name: 'key', type: 'string' },
		{ name: 'orderId', type: 'string' },
		{ name: 'reference', type: 'string' },
		{ name: 'amount', type: 'number' },
		{ name: 'currency', type: 'string' },
		{ name: 'status', type: 'string' },
		{ name: 'reason', type: 'string' },
		{ name: 'message', type: 'string' },
		{ name: 'started', type: 'date' },
		{ name: 'settled', type: 'date' },
		{ name: 'nextStep', type: 'string' },
		{ name: 'checkedAt', type: 'date' },
	]);
	const { payrollId, payrollOutcomesId } = await createPayrollTables(api);
	return { paymentsId, shipmentsId, payoutsId, refundsId, payrollId, payrollOutcomesId };
}

/** The placeholders of the examples' tables and of the refund callbacks' token, with their values. */
export function exampleReplacements(
	tables: ExampleTables,
	refundCallbackToken: string,
): Record<string, string> {
	return {
		PAYMENTS_TABLE_ID: tables.paymentsId,
		SHIPMENTS_TABLE_ID: tables.shipmentsId,
		PAYOUTS_TABLE_ID: tables.payoutsId,
		REFUNDS_TABLE_ID: tables.refundsId,
		PAYROLL_TABLE_ID: tables.payrollId,
		PAYROLL_OUTCOMES_TABLE_ID: tables.payrollOutcomesId,
		REFUND_CALLBACK_TOKEN: refundCallbackToken,
	};
}

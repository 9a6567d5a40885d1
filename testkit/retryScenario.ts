// A payout run and a collect run that fail mid-run in a real n8n, retried from the Executions list
// the way the editor does it (POST /rest/executions/{id}/retry, both loadWorkflow values), and once
// more after the retry succeeded; counted from the sandbox ledger. Shared by the 2.x and 1.x suites.
import { randomUUID } from 'node:crypto';

import axios from 'axios';

import type { SandboxHandle } from '../sandbox';
import type { N8nApi } from './n8n';
import { postToNewWebhook, sandboxCredentials, waitFor } from './n8nRuns';
import { chain, littlePayNode, webhookNode } from './workflowParts';

type Json = Record<string, unknown>;

/** What a user sees after each step: per recipient (or order), how many payouts, intents, prompts. */
export interface RetryCounts {
	original: { status: string; counts: number[] };
	retries: Array<{ loadWorkflow: boolean; status: string; mode: string; counts: number[] }>;
	prompts?: number[];
}

function littlePayParameters(operation: 'payouts' | 'collect', callbackUrl: string): Json {
	if (operation === 'payouts') {
		return {
			resource: 'disbursement',
			operation: 'create',
			method: 'MPESA',
			amount: '={{ $json.amount }}',
			to: '={{ $json.to }}',
			keySource: 'generated',
			options: { checkLimits: false },
		};
	}
	return {
		resource: 'mobileMoney',
		operation: 'collect',
		amount: '={{ $json.amount }}',
		description: '={{ $json.description }}',
		callbackUrl,
		key: '',
		network: 'MPESA',
		mobile: '={{ $json.mobile }}',
		waitForPayment: 'no',
	};
}

/**
 * How the third create fails: `refused` (429, a definite answer: nothing was created, so a retry
 * sends it) or `unknown` (503 and every lookup 503: the create may have gone through, so the key's
 * outcome stays unknown for the commit window and retries within it send nothing).
 */
export type CreateFault = 'refused' | 'unknown';

/**
 * Runs a three-item payout (or collect) run with Key left empty whose third create fails (`fault`),
 * so the execution fails; then retries it from the Executions list with the original workflow, with
 * the currently saved one, and once more after that.
 */
export async function failAndRetry(
	api: N8nApi,
	n8nUrl: string,
	sandbox: SandboxHandle,
	operation: 'payouts' | 'collect',
	fault: CreateFault,
): Promise<RetryCounts> {
	const ids = await sandboxCredentials(api, sandbox, `retry ${operation}`);
	const path = `retry-${randomUUID()}`;
	const tag = randomUUID().slice(0, 8);
	const base = 1000 + Math.floor(Math.random() * 90000);
	const rows = [0, 1, 2].map((i) => ({
		amount: base + i,
		to: '+254712345670',
		mobile: '+254712345670',
		description: `Order ${i + 1} ${tag}`,
	}));
	const workflow = {
		name: `Retry ${operation} ${tag}`,
		nodes: [
			webhookNode(path),
			{
				name: 'Rows',
				type: 'n8n-nodes-base.splitOut',
				typeVersion: 1,
				position: [220, 0],
				parameters: { fieldToSplitOut: 'body.rows', options: {} },
			},
			littlePayNode(
				littlePayParameters(operation, `${sandbox.baseUrl}/sandbox/merchant`),
				ids,
				[440, 0],
			),
		],
		connections: chain('Webhook', 'Rows', 'Little Pay'),
	};
	const { id, versionId } = await api.createWorkflow(workflow);
	await api.activateWorkflow(id, versionId);

	const createPath = operation === 'payouts' ? '/api/disbursements' : '/api/payments/';
	const lookupPath = operation === 'payouts' ? '/api/disbursements/' : '/api/payments-v2/';
	await axios.post(`${sandbox.baseUrl}/sandbox/faults`, {
		rules:
			fault === 'unknown'
				? [
						{ method: 'POST', pathPrefix: createPath, times: 2 },
						{ method: 'POST', pathPrefix: createPath, status: 503 },
						{ method: 'GET', pathPrefix: lookupPath, status: 503 },
					]
				: [
						{ method: 'POST', pathPrefix: createPath, times: 2 },
						{ method: 'POST', pathPrefix: createPath, status: 429 },
					],
	});
	const response = await postToNewWebhook(`${n8nUrl}/webhook/${path}`, { rows });
	if (response.status !== 200) throw new Error(`webhook: HTTP ${response.status}`);
	const failed = await waitFor(
		'the failed execution',
		async () => (await api.executions(id)).find((e) => e.status === 'error'),
		120000,
	);
	await api.http.post(`/rest/workflows/${id}/deactivate`, {});

	const counts = async (): Promise<number[]> => {
		const ledger = (await axios.get(`${sandbox.baseUrl}/sandbox/ledger`)).data.data as {
			disbursements: Array<{ amount: number }>;
			intents: Array<{ description: string; attempts: unknown[] }>;
		};
		return operation === 'payouts'
			? rows.map((r) => ledger.disbursements.filter((d) => d.amount === r.amount).length)
			: rows.map((r) => ledger.intents.filter((i) => i.description === r.description).length);
	};
	const result: RetryCounts = {
		original: { status: failed.status, counts: await counts() },
		retries: [],
	};
	await axios.post(`${sandbox.baseUrl}/sandbox/faults`, { rules: [] });
	// With the original workflow, then with the currently saved one, then the original again after
	// a retry succeeded: n8n allows every one of them on the same failed execution.
	for (const loadWorkflow of [false, true, false]) {
		const retry = await api.http.post(`/rest/executions/${failed.id}/retry`, { loadWorkflow });
		if (retry.status >= 300)
			throw new Error(`retry: HTTP ${retry.status} ${JSON.stringify(retry.data)}`);
		const data = (retry.data as { data: Json }).data;
		result.retries.push({
			loadWorkflow,
			status: String(data.status),
			mode: String(data.mode),
			counts: await counts(),
		});
	}
	if (operation === 'collect') {
		const ledger = (await axios.get(`${sandbox.baseUrl}/sandbox/ledger`)).data.data as {
			intents: Array<{ description: string; attempts: unknown[] }>;
		};
		result.prompts = rows.map((r) =>
			ledger.intents
				.filter((i) => i.description === r.description)
				.reduce((sum, i) => sum + i.attempts.length, 0),
		);
	}
	return result;
}

/**
 * What a retry after an unknown outcome gives within the commit window (money/README.md, invariant
 * 2): nothing more is sent, each retry fails saying the outcome is unknown; nobody is paid twice.
 */
export function expectUnknownHeld(result: RetryCounts): void {
	expect(result.original).toEqual({ status: 'error', counts: [1, 1, 0] });
	expect(result.retries).toEqual([
		{ loadWorkflow: false, status: 'error', mode: 'retry', counts: [1, 1, 0] },
		{ loadWorkflow: true, status: 'error', mode: 'retry', counts: [1, 1, 0] },
		{ loadWorkflow: false, status: 'error', mode: 'retry', counts: [1, 1, 0] },
	]);
	if (result.prompts) expect(result.prompts).toEqual([1, 1, 0]);
}

/** What every retry path must give after a definite refusal: each recipient or order once, every retry a success. */
export function expectExactlyOnce(result: RetryCounts): void {
	expect(result.original).toEqual({ status: 'error', counts: [1, 1, 0] });
	expect(result.retries).toEqual([
		{ loadWorkflow: false, status: 'success', mode: 'retry', counts: [1, 1, 1] },
		{ loadWorkflow: true, status: 'success', mode: 'retry', counts: [1, 1, 1] },
		{ loadWorkflow: false, status: 'success', mode: 'retry', counts: [1, 1, 1] },
	]);
	if (result.prompts) expect(result.prompts).toEqual([1, 1, 1]);
}

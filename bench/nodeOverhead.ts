// Bench 1: what the Little Pay node costs per request. 1,000 payment status lookups (Payment: Get Status)
// against the sandbox on loopback, compared in the same run with
//  a) the same 1,000 GETs from a plain sequential axios loop, in the same Node 20 process as n8n-core's
//     engine (WorkflowExecute via the test harness) running the node;
//  b) n8n's own HTTP Request node doing the same GETs, both workflows in one real n8n 2.41.1 server
//     (Node 24): Webhook -> Split Out (1,000 items) -> the node; timed by the node's own executionTime
//     from n8n's run data, so the webhook and split are not counted.
// Rounds alternate so both sides see the same machine noise.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';

import axios from 'axios';
import { parse as parseFlatted } from 'flatted';

import { startSandbox } from '../sandbox';
import type { SandboxHandle } from '../sandbox';
import { N8nApi, startN8n } from '../scripts/n8n';
import { runWorkflow } from './engine';
import type { WorkflowJson } from './engine';
import { note, result, sum } from './lib';

const LOOKUPS = 1000;
const ROUNDS = 3;

const littlePayGetStatus = {
	name: 'Little Pay',
	type: 'n8n-nodes-littlepay.littlePay',
	typeVersion: 1,
	position: [440, 0] as [number, number],
	parameters: { resource: 'payment', operation: 'getStatus', paymentId: '={{ $json.paymentId }}' },
};

/** Creates `count` intents directly at the sandbox and returns their keys. */
async function createIntents(sandbox: SandboxHandle, count: number): Promise<string[]> {
	const m = sandbox.merchant;
	const auth = { username: m.clientId, password: m.clientSecret };
	const keys: string[] = [];
	for (let i = 0; i < count; i++) {
		const key = `bench${i}x${randomUUID().slice(0, 8)}`;
		await axios.post(
			`${m.baseUrl}/api/payments/${m.tokenId}/pay`,
			{ amount: 100 + i, description: `Bench ${i}`, callbackUrl: 'http://127.0.0.1:9/unused', key, payload: { billingAddress: { email: 'bench@example.com' } } },
			{ auth },
		);
		keys.push(key);
	}
	return keys;
}

/** The plain baseline: one GET after the other with axios. */
async function axiosLoop(sandbox: SandboxHandle, keys: string[]): Promise<number> {
	const headers = { 'X-API-KEY': sandbox.merchant.apiKey };
	const started = performance.now();
	for (const key of keys) {
		const res = await axios.get(`${sandbox.baseUrl}/api/payments-v2/${key}`, { headers });
		if (res.data?.data?.key !== key) throw new Error(`axios loop: wrong answer for ${key}`);
	}
	return performance.now() - started;
}

/** The node through n8n-core's engine; returns the node's executionTime (ms) as the engine measured it. */
async function engineRun(sandbox: SandboxHandle, keys: string[]): Promise<number> {
	const workflow: WorkflowJson = {
		name: 'bench get status',
		nodes: [
			{ id: 'items', name: 'Items', type: 'test.fixtureItems', typeVersion: 1, position: [0, 0], parameters: { items: JSON.stringify(keys.map((paymentId) => ({ paymentId }))) } },
			{ id: 'lp', ...littlePayGetStatus },
		],
		connections: { Items: { main: [[{ node: 'Little Pay', type: 'main' as never, index: 0 }]] } },
	};
	const run = await runWorkflow(workflow, { credentials: { littlePayApiKeyApi: { apiKey: sandbox.merchant.apiKey, baseUrl: sandbox.baseUrl } } });
	if (run.error) throw run.error;
	const out = run.output('Little Pay');
	if (out.length !== keys.length || out.some((o, i) => o.json.key !== keys[i])) throw new Error('engine run: wrong output');
	return run.run.data.resultData.runData['Little Pay'][0].executionTime;
}

type Which = 'littlePay' | 'littlePayConcurrent' | 'httpRequest';

interface RealN8n {
	/** Runs the workflow on these keys through its webhook; returns the timed node's executionTime (ms). */
	run(which: Which, keys: string[]): Promise<number>;
	stop(): Promise<void>;
}

async function startRealN8n(sandbox: SandboxHandle): Promise<RealN8n> {
	const n8n = await startN8n();
	try {
		const api = new N8nApi(n8n.url);
		await api.setupOwner();
		const m = sandbox.merchant;
		const apiKeyId = await api.createCredential('bench key', 'littlePayApiKeyApi', { apiKey: m.apiKey, baseUrl: m.baseUrl, disbursementBaseUrl: '' });
		const headerId = await api.createCredential('bench header', 'httpHeaderAuth', { name: 'X-API-KEY', value: m.apiKey });
		const timedNodes = {
			littlePay: { ...littlePayGetStatus, credentials: { littlePayApiKeyApi: { id: apiKeyId, name: 'bench key' } } },
			// The node's own option for many lookups: up to 10 at once, output order kept.
			littlePayConcurrent: {
				...littlePayGetStatus,
				parameters: { ...littlePayGetStatus.parameters, concurrency: 10 },
				credentials: { littlePayApiKeyApi: { id: apiKeyId, name: 'bench key' } },
			},
			httpRequest: {
				name: 'HTTP Request',
				type: 'n8n-nodes-base.httpRequest',
				typeVersion: 4.2,
				position: [440, 0],
				// The defaults a user gets: n8n sends all items' requests at once (no batching).
				parameters: { method: 'GET', url: `=${m.baseUrl}/api/payments-v2/{{ $json.paymentId }}`, authentication: 'genericCredentialType', genericAuthType: 'httpHeaderAuth', options: {} },
				credentials: { httpHeaderAuth: { id: headerId, name: 'bench header' } },
			},
		};
		const workflows: Record<string, { id: string; path: string; node: string }> = {};
		for (const [which, node] of Object.entries(timedNodes)) {
			const path = `bench-${which}-${randomUUID().slice(0, 8)}`;
			const { id, versionId } = await api.createWorkflow({
				name: `bench ${which}`,
				nodes: [
					{ parameters: { httpMethod: 'POST', path, responseMode: 'lastNode', responseData: 'noData', options: {} }, name: 'Webhook', type: 'n8n-nodes-base.webhook', typeVersion: 2, position: [0, 0], webhookId: randomUUID() },
					{ parameters: { fieldToSplitOut: 'body.items', options: {} }, name: 'Split Out', type: 'n8n-nodes-base.splitOut', typeVersion: 1, position: [220, 0] },
					node,
				],
				connections: {
					Webhook: { main: [[{ node: 'Split Out', type: 'main', index: 0 }]] },
					'Split Out': { main: [[{ node: node.name, type: 'main', index: 0 }]] },
				},
			});
			await api.activateWorkflow(id, versionId);
			workflows[which] = { id, path, node: node.name };
		}
		const run = async (which: Which, keys: string[]) => {
			const wf = workflows[which];
			const before = new Set((await api.executions(wf.id)).map((e) => e.id));
			let response = await axios.post(`${n8n.url}/webhook/${wf.path}`, { items: keys.map((paymentId) => ({ paymentId })) }, { validateStatus: () => true, timeout: 300000 });
			// Activation returns before the production webhook listens.
			for (let i = 0; response.status === 404 && i < 40; i++) {
				await new Promise((r) => setTimeout(r, 250));
				response = await axios.post(`${n8n.url}/webhook/${wf.path}`, { items: keys.map((paymentId) => ({ paymentId })) }, { validateStatus: () => true, timeout: 300000 });
			}
			if (response.status !== 200) throw new Error(`${which}: HTTP ${response.status} ${JSON.stringify(response.data).slice(0, 500)}`);
			for (let i = 0; i < 200; i++) {
				const fresh = (await api.executions(wf.id)).find((e) => !before.has(e.id) && e.status !== 'running' && e.status !== 'new');
				if (fresh) {
					const execution = await api.execution(fresh.id);
					const raw = execution.data;
					const data = (typeof raw === 'string' ? parseFlatted(raw) : raw) as { resultData: { runData: Record<string, Array<{ executionTime: number; data?: { main: Array<Array<{ json: Record<string, unknown> }>> } }>> } };
					const nodeRun = data.resultData.runData[wf.node]?.[0];
					const items = nodeRun?.data?.main?.[0] ?? [];
					if (fresh.status !== 'success' || items.length !== keys.length) throw new Error(`${which}: execution ${fresh.id} ${fresh.status} with ${items.length} items`);
					const keyOf = (json: Record<string, unknown>) => (json.key ?? (json.data as Record<string, unknown> | undefined)?.key) as string;
					if (items.some((item, i) => keyOf(item.json) !== keys[i])) throw new Error(`${which}: output does not match the lookups`);
					return nodeRun.executionTime;
				}
				await new Promise((r) => setTimeout(r, 100));
			}
			throw new Error(`${which}: no finished execution recorded`);
		};
		return { run, stop: n8n.stop };
	} catch (error) {
		await n8n.stop();
		throw error;
	}
}

/** Runs bench 1 and prints its RESULT lines. */
export async function benchNodeOverhead(): Promise<void> {
	const sandbox = await startSandbox({ port: 0, quiet: true });
	try {
		const keys = await createIntents(sandbox, LOOKUPS);

		// a) node in n8n-core's engine vs axios, same process.
		await axiosLoop(sandbox, keys.slice(0, 100));
		await engineRun(sandbox, keys.slice(0, 100));
		const axiosMs: number[] = [];
		const engineMs: number[] = [];
		for (let i = 0; i < ROUNDS; i++) {
			axiosMs.push(await axiosLoop(sandbox, keys));
			engineMs.push(await engineRun(sandbox, keys));
		}
		note(`nodeOverhead: ${LOOKUPS} lookups x ${ROUNDS} rounds; axios loop ${axiosMs.map((v) => v.toFixed(0)).join('/')} ms, Little Pay node (engine) ${engineMs.map((v) => v.toFixed(0)).join('/')} ms`);
		const vsAxios = sum(engineMs) / sum(axiosMs);
		note(`nodeOverhead: per lookup axios ${(sum(axiosMs) / ROUNDS / LOOKUPS).toFixed(3)} ms, node ${(sum(engineMs) / ROUNDS / LOOKUPS).toFixed(3)} ms`);
		result('nodeOverhead.ratio_vs_axios', vsAxios, '<=1.15', vsAxios <= 1.15);

		// For scale: the same comparison when each lookup takes 20 ms at the gateway, as over a network.
		await axios.post(`${sandbox.baseUrl}/sandbox/faults`, { rules: [{ method: 'GET', pathPrefix: '/api/payments-v2/', latencyMs: 20 }] });
		const sample = keys.slice(0, 200);
		const slowAxios = await axiosLoop(sandbox, sample);
		const slowEngine = await engineRun(sandbox, sample);
		await axios.delete(`${sandbox.baseUrl}/sandbox/faults`);
		note(`nodeOverhead: with 20 ms gateway latency, ${sample.length} lookups: axios ${slowAxios.toFixed(0)} ms, node ${slowEngine} ms, ratio ${(slowEngine / slowAxios).toFixed(3)} (information, no target)`);

		// b) node vs the HTTP Request node in a real n8n.
		const n8n = await startRealN8n(sandbox);
		try {
			await n8n.run('littlePay', keys.slice(0, 100));
			await n8n.run('littlePayConcurrent', keys.slice(0, 100));
			await n8n.run('httpRequest', keys.slice(0, 100));
			const lpMs: number[] = [];
			const lpConcurrentMs: number[] = [];
			const httpMs: number[] = [];
			for (let i = 0; i < ROUNDS; i++) {
				lpMs.push(await n8n.run('littlePay', keys));
				lpConcurrentMs.push(await n8n.run('littlePayConcurrent', keys));
				httpMs.push(await n8n.run('httpRequest', keys));
			}
			note(`nodeOverhead: real n8n, node executionTime: Little Pay ${lpMs.join('/')} ms, Little Pay concurrency 10 ${lpConcurrentMs.join('/')} ms, HTTP Request ${httpMs.join('/')} ms`);
			// The HTTP Request node sends all items' requests at once by default; the Little Pay node runs
			// one at a time unless its Concurrency option is set, so both are shown.
			const sequentialVsHttp = sum(lpMs) / sum(httpMs);
			note(`nodeOverhead: Little Pay one at a time vs HTTP Request (all at once): ${sequentialVsHttp.toFixed(3)}x`);
			const vsHttp = sum(lpConcurrentMs) / sum(httpMs);
			result('nodeOverhead.ratio_vs_http_request_node', vsHttp, '<=1.0', vsHttp <= 1.0);
		} finally {
			await n8n.stop();
		}
	} finally {
		await sandbox.close();
	}
}

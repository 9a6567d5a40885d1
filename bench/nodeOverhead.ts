// Bench 1: what the Little Pay node costs per request. 1,000 payment status lookups (Payment: Get Status)
// against the sandbox on loopback (its own process, as a gateway would be), compared in the same run with
//  a) the same 1,000 GETs from a plain axios loop (keep-alive, Node's default), in the same Node 20 process
//     as n8n-core's engine (WorkflowExecute via the test harness) running the node; beside it, two sides
//     that locate the cost: axios opening a new connection per request (what n8n's request helper does for
//     every node, see below) and a minimal node that only reads its parameter and calls n8n's helper;
//  b) n8n's own HTTP Request node doing the same GETs, both workflows in one real n8n 2.41.1 server
//     (Node 24): Webhook -> Split Out (1,000 items) -> the node; timed by the node's own executionTime
//     from n8n's run data, so the webhook and split are not counted.
// Rounds alternate so every side sees the same machine noise.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Agent } from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import axios from 'axios';
import { parse as parseFlatted } from 'flatted';
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';

import type { SandboxMerchant } from '../sandbox/types';
import { N8nApi, startN8n } from '../testkit/n8n';
import { lastNodeWebhookNode } from '../testkit/workflowParts';
import { registerNodeType, runWorkflow } from './engine';
import type { WorkflowJson } from './engine';
import { mapConcurrent, note, result, sum } from './lib';

const LOOKUPS = 1000;
const ROUNDS = 3;

export interface Gateway {
	baseUrl: string;
	merchant: SandboxMerchant;
	close(): Promise<void>;
}

/** Starts the sandbox in its own process, so the gateway's work is not done on the engine's thread. */
export async function startGatewayProcess(): Promise<Gateway> {
	const child = spawn(
		process.execPath,
		['--import', 'tsx', join(__dirname, '..', 'sandbox', 'cli.ts'), '--port', '0'],
		{
			env: { ...process.env, SANDBOX_QUIET: '1' },
			stdio: ['ignore', 'pipe', 'inherit'],
		},
	);
	const merchant = await new Promise<SandboxMerchant>((resolve, reject) => {
		let text = '';
		child.stdout.on('data', (chunk: Buffer) => {
			text += chunk.toString();
			if (text.includes('\n'))
				resolve(JSON.parse(text.slice(0, text.indexOf('\n'))) as SandboxMerchant);
		});
		child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
	});
	return {
		baseUrl: merchant.baseUrl,
		merchant,
		close: () =>
			new Promise<void>((resolve) => {
				child.once('exit', () => resolve());
				child.kill('SIGTERM');
			}),
	};
}

const littlePayGetStatus = {
	name: 'Little Pay',
	type: 'n8n-nodes-littlepay.littlePay',
	typeVersion: 1,
	position: [440, 0] as [number, number],
	parameters: { resource: 'payment', operation: 'getStatus', paymentId: '={{ $json.paymentId }}' },
};

/**
 * The least any node can do for these lookups in n8n: read its one parameter per item and call n8n's
 * request helper with the same credential (read once, as the Little Pay node does). What it costs over
 * axios is n8n's, not the Little Pay node's.
 */
class BareLookup implements INodeType {
	description = {
		displayName: 'Bare Lookup',
		name: 'bareLookup',
		group: ['transform'],
		version: 1,
		description: 'GET /api/payments-v2/{paymentId} and nothing else',
		defaults: { name: 'Bare Lookup' },
		inputs: ['main'],
		outputs: ['main'],
		credentials: [{ name: 'littlePayApiKeyApi', required: true }],
		properties: [{ displayName: 'Payment ID', name: 'paymentId', type: 'string', default: '' }],
	} as unknown as INodeTypeDescription;

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const data = await this.getCredentials('littlePayApiKeyApi');
		const credentialsDecrypted = {
			id: 'littlePayApiKeyApi',
			name: 'littlePayApiKeyApi',
			type: 'littlePayApiKeyApi',
			data,
		};
		const out: INodeExecutionData[] = [];
		for (let i = 0; i < items.length; i++) {
			const paymentId = this.getNodeParameter('paymentId', i) as string;
			const body = (await this.helpers.httpRequestWithAuthentication.call(
				this,
				'littlePayApiKeyApi',
				{ method: 'GET', url: `${String(data.baseUrl)}/api/payments-v2/${paymentId}`, json: true },
				{ credentialsDecrypted },
			)) as { data: IDataObject };
			out.push({ json: body.data, pairedItem: { item: i } });
		}
		return [out];
	}
}
registerNodeType('bench.bareLookup', new BareLookup());

/** Creates `count` intents directly at the sandbox and returns their keys. */
async function createIntents(gateway: Gateway, count: number): Promise<string[]> {
	const m = gateway.merchant;
	const auth = { username: m.clientId, password: m.clientSecret };
	const keys: string[] = [];
	for (let i = 0; i < count; i++) {
		const key = `bench${i}x${randomUUID().slice(0, 8)}`;
		await axios.post(
			`${m.baseUrl}/api/payments/${m.tokenId}/pay`,
			{
				amount: 100 + i,
				description: `Bench ${i}`,
				callbackUrl: 'http://127.0.0.1:9/unused',
				key,
				payload: { billingAddress: { email: 'bench@example.com' } },
			},
			{ auth },
		);
		keys.push(key);
	}
	return keys;
}

/**
 * The plain baseline: the GETs from an axios loop, `concurrency` at a time (1 = one after the other).
 * `newConnections` gives every request its own http.Agent, as n8n's request helper does.
 */
async function axiosLoop(
	gateway: Gateway,
	keys: string[],
	concurrency = 1,
	newConnections = false,
): Promise<number> {
	const headers = { 'X-API-KEY': gateway.merchant.apiKey };
	const started = performance.now();
	await mapConcurrent(keys, concurrency, async (key) => {
		const res = await axios.get(`${gateway.baseUrl}/api/payments-v2/${key}`, {
			headers,
			...(newConnections ? { httpAgent: new Agent() } : {}),
		});
		if (res.data?.data?.key !== key) throw new Error(`axios loop: wrong answer for ${key}`);
	});
	return performance.now() - started;
}

type EngineSide = 'littlePay' | 'bare';

/** A node through n8n-core's engine; returns the node's executionTime (ms) as the engine measured it. */
async function engineRun(
	gateway: Gateway,
	keys: string[],
	side: EngineSide = 'littlePay',
	concurrency = 1,
): Promise<number> {
	const timed =
		side === 'littlePay'
			? {
					id: 'timed',
					...littlePayGetStatus,
					parameters: { ...littlePayGetStatus.parameters, options: { concurrency } },
				}
			: {
					id: 'timed',
					name: 'Little Pay',
					type: 'bench.bareLookup',
					typeVersion: 1,
					position: [440, 0] as [number, number],
					parameters: { paymentId: '={{ $json.paymentId }}' },
					credentials: {
						littlePayApiKeyApi: { id: 'littlePayApiKeyApi', name: 'littlePayApiKeyApi' },
					},
				};
	const workflow: WorkflowJson = {
		name: 'bench get status',
		nodes: [
			{
				id: 'items',
				name: 'Items',
				type: 'test.fixtureItems',
				typeVersion: 1,
				position: [0, 0],
				parameters: { items: JSON.stringify(keys.map((paymentId) => ({ paymentId }))) },
			},
			timed,
		],
		connections: { Items: { main: [[{ node: 'Little Pay', type: 'main' as never, index: 0 }]] } },
	};
	const run = await runWorkflow(workflow, {
		credentials: {
			littlePayApiKeyApi: { apiKey: gateway.merchant.apiKey, baseUrl: gateway.baseUrl },
		},
	});
	if (run.error) throw run.error;
	const out = run.output('Little Pay');
	if (out.length !== keys.length || out.some((o, i) => o.json.key !== keys[i]))
		throw new Error(`engine run (${side}): wrong output`);
	return run.run.data.resultData.runData['Little Pay'][0].executionTime;
}

type Which = 'littlePay' | 'littlePayConcurrent' | 'httpRequest';

interface RealN8n {
	/** Runs the workflow on these keys through its webhook; returns the timed node's executionTime (ms). */
	run(which: Which, keys: string[]): Promise<number>;
	stop(): Promise<void>;
}

async function startRealN8n(sandbox: Gateway): Promise<RealN8n> {
	const n8n = await startN8n();
	try {
		const api = new N8nApi(n8n.url);
		await api.setupOwner();
		const m = sandbox.merchant;
		const apiKeyId = await api.createCredential('bench key', 'littlePayApiKeyApi', {
			apiKey: m.apiKey,
			baseUrl: m.baseUrl,
			disbursementBaseUrl: '',
		});
		const headerId = await api.createCredential('bench header', 'httpHeaderAuth', {
			name: 'X-API-KEY',
			value: m.apiKey,
		});
		const timedNodes = {
			littlePay: {
				...littlePayGetStatus,
				credentials: { littlePayApiKeyApi: { id: apiKeyId, name: 'bench key' } },
			},
			// The node's own option for many lookups: up to 10 at once, output order kept.
			littlePayConcurrent: {
				...littlePayGetStatus,
				parameters: { ...littlePayGetStatus.parameters, options: { concurrency: 10 } },
				credentials: { littlePayApiKeyApi: { id: apiKeyId, name: 'bench key' } },
			},
			httpRequest: {
				name: 'HTTP Request',
				type: 'n8n-nodes-base.httpRequest',
				typeVersion: 4.2,
				position: [440, 0],
				// The defaults a user gets: n8n sends all items' requests at once (no batching).
				parameters: {
					method: 'GET',
					url: `=${m.baseUrl}/api/payments-v2/{{ $json.paymentId }}`,
					authentication: 'genericCredentialType',
					genericAuthType: 'httpHeaderAuth',
					options: {},
				},
				credentials: { httpHeaderAuth: { id: headerId, name: 'bench header' } },
			},
		};
		const workflows: Record<string, { id: string; path: string; node: string }> = {};
		for (const [which, node] of Object.entries(timedNodes)) {
			const path = `bench-${which}-${randomUUID().slice(0, 8)}`;
			const { id, versionId } = await api.createWorkflow({
				name: `bench ${which}`,
				nodes: [
					lastNodeWebhookNode(path, 'Webhook', 'noData'),
					{
						parameters: { fieldToSplitOut: 'body.items', options: {} },
						name: 'Split Out',
						type: 'n8n-nodes-base.splitOut',
						typeVersion: 1,
						position: [220, 0],
					},
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
			let response = await axios.post(
				`${n8n.url}/webhook/${wf.path}`,
				{ items: keys.map((paymentId) => ({ paymentId })) },
				{ validateStatus: () => true, timeout: 300000 },
			);
			// Activation returns before the production webhook listens.
			for (let i = 0; response.status === 404 && i < 40; i++) {
				await new Promise((r) => setTimeout(r, 250));
				response = await axios.post(
					`${n8n.url}/webhook/${wf.path}`,
					{ items: keys.map((paymentId) => ({ paymentId })) },
					{ validateStatus: () => true, timeout: 300000 },
				);
			}
			if (response.status !== 200)
				throw new Error(
					`${which}: HTTP ${response.status} ${JSON.stringify(response.data).slice(0, 500)}`,
				);
			for (let i = 0; i < 200; i++) {
				const fresh = (await api.executions(wf.id)).find(
					(e) => !before.has(e.id) && e.status !== 'running' && e.status !== 'new',
				);
				if (fresh) {
					const execution = await api.execution(fresh.id);
					const raw = execution.data;
					const data = (typeof raw === 'string' ? parseFlatted(raw) : raw) as {
						resultData: {
							runData: Record<
								string,
								Array<{
									executionTime: number;
									data?: { main: Array<Array<{ json: Record<string, unknown> }>> };
								}>
							>;
						};
					};
					const nodeRun = data.resultData.runData[wf.node]?.[0];
					const items = nodeRun?.data?.main?.[0] ?? [];
					if (fresh.status !== 'success' || items.length !== keys.length)
						throw new Error(
							`${which}: execution ${fresh.id} ${fresh.status} with ${items.length} items`,
						);
					const keyOf = (json: Record<string, unknown>) =>
						(json.key ?? (json.data as Record<string, unknown> | undefined)?.key) as string;
					if (items.some((item, i) => keyOf(item.json) !== keys[i]))
						throw new Error(`${which}: output does not match the lookups`);
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

const AXIOS = 'axios, keep-alive, 1 at a time';
const AXIOS_NEW_CONNECTIONS = 'axios, new connection per request, 1 at a time';
const BARE = 'bare n8n node (parameter + n8n request helper), 1 at a time';
const NODE = 'Little Pay node, Concurrency 1';
const AXIOS_10 = 'axios, keep-alive, 10 at a time';
const NODE_10 = 'Little Pay node, Concurrency 10';

/** Runs bench 1 and prints its RESULT lines. */
export async function benchNodeOverhead(): Promise<void> {
	const sandbox = await startGatewayProcess();
	try {
		const keys = await createIntents(sandbox, LOOKUPS);

		// a) node in n8n-core's engine vs axios, same process, sandbox in its own.
		const sides: Record<string, (k: string[]) => Promise<number>> = {
			[AXIOS]: (k) => axiosLoop(sandbox, k),
			[AXIOS_NEW_CONNECTIONS]: (k) => axiosLoop(sandbox, k, 1, true),
			[BARE]: (k) => engineRun(sandbox, k, 'bare'),
			[NODE]: (k) => engineRun(sandbox, k, 'littlePay', 1),
			[AXIOS_10]: (k) => axiosLoop(sandbox, k, 10),
			[NODE_10]: (k) => engineRun(sandbox, k, 'littlePay', 10),
		};
		const names = Object.keys(sides);
		for (const name of names) await sides[name](keys.slice(0, 100));
		const ms = new Map<string, number[]>(names.map((n) => [n, []]));
		for (let i = 0; i < ROUNDS; i++) {
			for (const name of i % 2 === 0 ? names : [...names].reverse())
				ms.get(name)!.push(await sides[name](keys));
		}
		note(
			`nodeOverhead: ${LOOKUPS} lookups x ${ROUNDS} rounds, sandbox in its own process, sides alternating order`,
		);
		const total = (name: string) => sum(ms.get(name)!);
		for (const name of names) {
			note(
				`nodeOverhead: ${name}: ${ms
					.get(name)!
					.map((v) => v.toFixed(0))
					.join(
						'/',
					)} ms, ${(total(name) / ROUNDS / LOOKUPS).toFixed(3)} ms per lookup, ${(total(name) / total(AXIOS)).toFixed(3)}x axios`,
			);
		}
		const vsAxios = total(NODE) / total(AXIOS);
		result('nodeOverhead.ratio_vs_axios', vsAxios, '<=1.15', vsAxios <= 1.15);
		// Where the gap comes from: what any node pays in n8n, and what is the Little Pay node's own.
		const floor = total(BARE) / total(AXIOS);
		note(
			`nodeOverhead: n8n's floor (bare node vs axios): ${floor.toFixed(3)}x; of it, a new connection per request: ${(total(AXIOS_NEW_CONNECTIONS) / total(AXIOS)).toFixed(3)}x`,
		);
		const own = total(NODE) / total(BARE);
		result('nodeOverhead.ratio_vs_bare_n8n_node', own, '<=1.15', own <= 1.15);
		note(
			`nodeOverhead: 10 at a time: Little Pay node ${(total(NODE_10) / total(AXIOS_10)).toFixed(3)}x axios (both CPU-bound on loopback)`,
		);

		// For scale: the same comparison when each lookup takes 20 ms at the gateway, as over a network.
		await axios.post(`${sandbox.baseUrl}/sandbox/faults`, {
			rules: [{ method: 'GET', pathPrefix: '/api/payments-v2/', latencyMs: 20 }],
		});
		const sample = keys.slice(0, 200);
		const slowAxios = await axiosLoop(sandbox, sample);
		const slowEngine = await engineRun(sandbox, sample);
		await axios.delete(`${sandbox.baseUrl}/sandbox/faults`);
		note(
			`nodeOverhead: with 20 ms gateway latency, ${sample.length} lookups one at a time: axios ${slowAxios.toFixed(0)} ms, node ${slowEngine} ms, ratio ${(slowEngine / slowAxios).toFixed(3)} (information, no target)`,
		);

		// b) node vs the HTTP Request node in a real n8n.
		const n8n = await startRealN8n(sandbox);
		try {
			await n8n.run('littlePay', keys.slice(0, 100));
			await n8n.run('littlePayConcurrent', keys.slice(0, 100));
			await n8n.run('httpRequest', keys.slice(0, 100));
			const lpMs: number[] = [];
			const lpConcurrentMs: number[] = [];
			const httpMs: number[] = [];
			const runs: Array<[Which, number[]]> = [
				['littlePay', lpMs],
				['littlePayConcurrent', lpConcurrentMs],
				['httpRequest', httpMs],
			];
			for (let i = 0; i < ROUNDS; i++) {
				for (const [which, times] of i % 2 === 0 ? runs : [...runs].reverse())
					times.push(await n8n.run(which, keys));
			}
			note(
				`nodeOverhead: real n8n, node executionTime: Little Pay ${lpMs.join('/')} ms, Little Pay concurrency 10 ${lpConcurrentMs.join('/')} ms, HTTP Request ${httpMs.join('/')} ms`,
			);
			// Each with its defaults: the HTTP Request node sends all items' requests at once, the Little Pay
			// node one after the other; its Concurrency option (10) is shown too.
			const vsHttp = sum(lpMs) / sum(httpMs);
			result('nodeOverhead.ratio_vs_http_request_node', vsHttp, '<=1.0', vsHttp <= 1.0);
			const concurrentVsHttp = sum(lpConcurrentMs) / sum(httpMs);
			result(
				'nodeOverhead.ratio_vs_http_request_node_concurrency10',
				concurrentVsHttp,
				'<=1.0',
				concurrentVsHttp <= 1.0,
			);
		} finally {
			await n8n.stop();
		}
	} finally {
		await sandbox.close();
	}
}

// Bench payroll (issue 43, point 6): a payroll run where users run it, in a real n8n 2.41.1 server with the
// package installed from its npm-pack tarball (testkit/n8n.ts), never the engine harness. Webhook -> Code
// (N payout rows, keys from the data, distinct numbers and amounts) -> Little Pay Disbursement: Create (Pay
// Out; key mapped, Concurrency 10, Check Limits and Fee First on, Don't Wait), against the sandbox in its own
// process with 100 ms of latency on every /api/ request. N = 1,000 and 10,000. Baselines in the same run and
// the same n8n: the limit (rows x 100 ms / 10), and n8n's HTTP Request node POSTing each row to the same
// payout endpoint (Batching 10 items per batch, 0 ms interval: n8n 2.41.1 sleeps only when the interval is
// above 0, so it still sends every row at once). Per N: wall time, n8n's CPU seconds per row (utime+stime
// of its process from /proc/<pid>/stat), peak RSS above idle per row (VmRSS sampled every 100 ms), a re-run
// of the same rows (every key found, nobody paid); every row paid exactly once (sandbox ledger). Then the
// Little Pay Trigger's answer time to signed callbacks, 10 a second, idle and while a 10,000-row run goes on.
// `npm run bench -- payrollProfile`: one 1,000-row run under `--cpu-prof`, summarised by bench/cpuProfile.ts.
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import {
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	writeFileSync,
} from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import axios from 'axios';

import { N8nApi, startN8n } from '../testkit/n8n';
import type { N8nServer } from '../testkit/n8n';
import { waitForWebhook } from '../testkit/n8nRuns';
import { formatSummary, summariseCpuProfile } from './cpuProfile';
import { note, percentile, result, sleep } from './lib';
import { startGatewayProcess } from './nodeOverhead';
import type { Gateway } from './nodeOverhead';

const LATENCY_MS = 100;
const CONCURRENCY = 10;
// PAYROLL_SIZES=100,500 for a quick try; the bench's figures are at 1,000 and 10,000.
const SIZES = (process.env.PAYROLL_SIZES ?? '1000,10000')
	.split(',')
	.map(Number)
	.filter((n) => n > 0);
/** The run callbacks arrive during (PAYROLL_LOADED_ROWS; 10,000). */
const LOADED_ROWS = Number(process.env.PAYROLL_LOADED_ROWS || 10000);
const WARM_UP_ROWS = 20;
// Open loop, as a gateway sends them. 2 a second: each callback costs n8n 2.41.1 about 120 ms of CPU here (its
// expression isolate for the webhook call), so 10 a second saturated an idle n8n on the 2 shared cores.
const CALLBACKS_PER_SECOND = Number(process.env.PAYROLL_CALLBACK_RATE || 2);
const IDLE_CALLBACKS = 60;
const CLOCK_TICKS = 100; // getconf CLK_TCK on Linux

/** The limit: one round trip per payout, CONCURRENCY at a time. */
const limitMs = (rows: number) => (rows * LATENCY_MS) / CONCURRENCY;

// ---- the n8n process, from /proc --------------------------------------------------------------

/** CPU seconds (user + system) a process has used so far. */
function cpuSeconds(pid: number): number {
	const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
	// Fields after the command name, which may hold spaces: state is field 3, utime 14, stime 15.
	const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
	return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** The ids of a process's descendants (n8n's task runner, when it starts one). */
function descendants(pid: number): number[] {
	const parentOf = new Map<number, number>();
	for (const entry of readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
			parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
		} catch {
			// gone meanwhile
		}
	}
	const out: number[] = [];
	const walk = (p: number) => {
		for (const [child, parent] of parentOf)
			if (parent === p) {
				out.push(child);
				walk(child);
			}
	};
	walk(pid);
	return out;
}

/** CPU seconds of a process's descendants that are alive now. */
function descendantsCpuSeconds(pid: number): number {
	let total = 0;
	for (const child of descendants(pid)) {
		try {
			total += cpuSeconds(child);
		} catch {
			// gone meanwhile
		}
	}
	return total;
}

/** Resident memory of a process, in MiB. */
function rssMiB(pid: number): number {
	const status = readFileSync(`/proc/${pid}/status`, 'utf8');
	const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
	return kb / 1024;
}

/** Samples a process's RSS every 100 ms until stopped; returns the peak. */
function sampleRss(pid: number): { stop: () => number } {
	let peak = rssMiB(pid);
	const timer = setInterval(() => {
		try {
			peak = Math.max(peak, rssMiB(pid));
		} catch {
			// the process is gone: the run fails on its own
		}
	}, 100);
	return {
		stop: () => {
			clearInterval(timer);
			return Math.max(peak, rssMiB(pid));
		},
	};
}

function loadAverage(): string {
	return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

// ---- the workflows ------------------------------------------------------------------------------

type Json = Record<string, unknown>;

/** A POST Webhook that answers when the workflow has run, with the last node's first item only. */
function startNode(path: string): Json {
	return {
		name: 'Start',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: [0, 0],
		webhookId: randomUUID(),
		parameters: {
			httpMethod: 'POST',
			path,
			responseMode: 'lastNode',
			responseData: 'firstEntryJson',
			options: {},
		},
	};
}

// The rows a bookkeeper's sheet gives: a payout ID per row, a number and an amount of its own. Run `block`
// keeps each run's numbers apart from every other run's (numbers end in 0: the sandbox pays those).
const ROWS_CODE = `const body = $input.first().json.body || {};
const n = Number(body.n) || 0;
const rows = [];
for (let i = 0; i < n; i++) {
  rows.push({ json: {
    row: i + 1,
    name: 'Worker ' + (i + 1),
    payoutId: body.prefix + 'x' + i,
    to: '2547' + String(body.block * 20000 + i).padStart(7, '0') + '0',
    amount: 100 + i,
  } });
}
return rows;`;

const codeNode: Json = {
	name: 'Payroll Rows',
	type: 'n8n-nodes-base.code',
	typeVersion: 2,
	position: [220, 0],
	parameters: { jsCode: ROWS_CODE },
};

/** A row as the Code node makes it, to check the ledger against. */
function expectedRow(prefix: string, block: number, i: number) {
	return {
		key: `${prefix}x${i}`,
		to: `2547${String(block * 20000 + i).padStart(7, '0')}0`,
		amount: 100 + i,
	};
}

type Side = 'payOut' | 'httpRequest' | 'codeOnly';

function sideNode(side: Side, gateway: Gateway, apiKeyId: string, headerId: string): Json {
	if (side === 'payOut')
		return {
			name: 'Pay Out',
			type: 'n8n-nodes-littlepay.littlePay',
			typeVersion: 1,
			position: [440, 0],
			parameters: {
				resource: 'disbursement',
				operation: 'create',
				amount: '={{ $json.amount }}',
				currency: 'KES',
				method: 'MPESA',
				to: '={{ $json.to }}',
				country: 'KE',
				keySource: 'mapped',
				key: '={{ $json.payoutId }}',
				waitForResult: 'no',
				options: { checkLimits: true, concurrency: CONCURRENCY },
			},
			credentials: { littlePayApiKeyApi: { id: apiKeyId, name: 'payroll key' } },
		};
	if (side === 'httpRequest')
		return {
			name: 'HTTP Request',
			type: 'n8n-nodes-base.httpRequest',
			typeVersion: 4.2,
			position: [440, 0],
			parameters: {
				method: 'POST',
				url: `${gateway.baseUrl}/api/disbursements`,
				authentication: 'genericCredentialType',
				genericAuthType: 'httpHeaderAuth',
				sendBody: true,
				specifyBody: 'json',
				jsonBody:
					'={{ JSON.stringify({ amount: $json.amount, method: "MPESA", currency: "KES", key: $json.payoutId, details: { to: $json.to, accountType: "MOBILE" } }) }}',
				// 10 per batch, no interval: n8n sleeps between batches only for an interval above 0.
				options: { batching: { batch: { batchSize: CONCURRENCY, batchInterval: 0 } } },
			},
			credentials: { httpHeaderAuth: { id: headerId, name: 'payroll header' } },
		};
	return {
		name: 'Rows Only',
		type: 'n8n-nodes-base.noOp',
		typeVersion: 1,
		position: [440, 0],
		parameters: {},
	};
}

// ---- signed callbacks to the trigger -----------------------------------------------------------

const signingKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const publicKeyPem = signingKeys.publicKey.export({ type: 'spki', format: 'pem' }).toString();
const callbackAgent = new Agent({ keepAlive: true, maxSockets: 50 });
let callbackSeq = 0;

function signedCallback(): { body: string; headers: Record<string, string> } {
	callbackSeq++;
	const body = JSON.stringify({
		reference: `PAYROLL-${randomUUID().slice(0, 8)}-${callbackSeq}`,
		status: 'COMPLETED',
		payload: { billingAddress: { firstName: 'Payroll', email: 'payroll@example.com' } },
		amount: 100 + callbackSeq,
		key: `payroll${callbackSeq}`,
		currency: 'KES',
		provider: 'MPESA',
		date: new Date().toISOString(),
	});
	const timestamp = String(Math.floor(Date.now() / 1000));
	const signature = sign(
		'sha256',
		Buffer.from(`${timestamp}.${body}`),
		signingKeys.privateKey,
	).toString('base64');
	return {
		body,
		headers: {
			'content-type': 'application/json',
			'x-littlepay-timestamp': timestamp,
			'x-littlepay-signature': signature,
		},
	};
}

function postCallback(url: string): Promise<{ status: number; ms: number }> {
	const { body, headers } = signedCallback();
	const started = performance.now();
	return new Promise((resolve) => {
		const req = request(
			url,
			{ method: 'POST', headers, agent: callbackAgent, timeout: 60000 },
			(res) => {
				res.resume();
				res.on('end', () =>
					resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }),
				);
			},
		);
		req.on('timeout', () => req.destroy(new Error('timeout')));
		req.on('error', () => resolve({ status: 0, ms: performance.now() - started }));
		req.end(body);
	});
}

/** Callbacks at a gateway's steady pace (open loop) until `count` are sent or `until()` says stop. */
async function pacedCallbacks(
	url: string,
	count: number,
	until: () => boolean = () => false,
): Promise<Array<{ status: number; ms: number }>> {
	const pending: Array<Promise<{ status: number; ms: number }>> = [];
	const started = performance.now();
	for (let i = 0; i < count && !until(); i++) {
		const wait = started + (i * 1000) / CALLBACKS_PER_SECOND - performance.now();
		if (wait > 0) await sleep(wait);
		pending.push(postCallback(url));
	}
	return await Promise.all(pending);
}

// ---- the rig: sandbox process, n8n, credentials, workflows --------------------------------------

interface Measured {
	ms: number;
	/** CPU seconds of n8n's main process over the run. */
	cpuS: number;
	/** CPU seconds of n8n's descendants alive at the end (a task runner), over the run. */
	childCpuS: number;
	idleMiB: number;
	peakMiB: number;
	requests: number;
	posts: number;
	first: Json;
	load: string;
}

interface Rig {
	gateway: Gateway;
	n8n: N8nServer;
	api: N8nApi;
	triggerUrl: string;
	/** Runs one side over `n` rows (keys `<prefix>x<i>`); measures it. `during` runs beside it. */
	run(
		side: Side,
		n: number,
		prefix: string,
		block: number,
		during?: (done: () => boolean) => Promise<void>,
	): Promise<Measured>;
	/** Rows whose number or key is not in the ledger exactly once, with the right amount. */
	notPaidOnce(prefix: string, block: number, n: number): Promise<number>;
	ledgerSize(): Promise<number>;
	stop(): Promise<void>;
}

async function startRig(n8nOptions: Parameters<typeof startN8n>[0] = {}): Promise<Rig> {
	const gateway = await startGatewayProcess();
	let n8n: N8nServer | undefined;
	try {
		await axios.post(`${gateway.baseUrl}/sandbox/faults`, {
			rules: [{ pathPrefix: '/api/', latencyMs: LATENCY_MS }],
		});
		n8n = await startN8n(n8nOptions);
		const server = n8n;
		const api = new N8nApi(server.url);
		await api.setupOwner();
		const m = gateway.merchant;
		const apiKeyId = await api.createCredential('payroll key', 'littlePayApiKeyApi', {
			apiKey: m.apiKey,
			baseUrl: m.baseUrl,
			disbursementBaseUrl: '',
		});
		const headerId = await api.createCredential('payroll header', 'httpHeaderAuth', {
			name: 'X-API-KEY',
			value: m.apiKey,
		});
		const workflows = new Map<Side, { id: string; url: string }>();
		for (const side of ['payOut', 'httpRequest', 'codeOnly'] as Side[]) {
			const path = `payroll-${side}-${randomUUID().slice(0, 8)}`;
			const node = sideNode(side, gateway, apiKeyId, headerId);
			const { id, versionId } = await api.createWorkflow({
				name: `payroll ${side}`,
				settings: { executionOrder: 'v1' },
				nodes: [startNode(path), codeNode, node],
				connections: {
					Start: { main: [[{ node: 'Payroll Rows', type: 'main', index: 0 }]] },
					'Payroll Rows': { main: [[{ node: String(node.name), type: 'main', index: 0 }]] },
				},
			});
			await api.activateWorkflow(id, versionId);
			workflows.set(side, { id, url: `${server.url}/webhook/${path}` });
		}
		const hook = randomUUID();
		const trigger = await api.createWorkflow({
			name: 'payroll callbacks',
			nodes: [
				{
					parameters: {
						events: ['*'],
						verifySignatures: true,
						options: { publicKey: publicKeyPem },
					},
					name: 'Little Pay Trigger',
					type: 'n8n-nodes-littlepay.littlePayTrigger',
					typeVersion: 2,
					position: [0, 0],
					webhookId: hook,
				},
				{
					parameters: {},
					name: 'Receipt',
					type: 'n8n-nodes-base.noOp',
					typeVersion: 1,
					position: [220, 0],
				},
			],
			connections: {
				'Little Pay Trigger': { main: [[{ node: 'Receipt', type: 'main', index: 0 }]] },
			},
		});
		await api.activateWorkflow(trigger.id, trigger.versionId);
		// The empty probes run each workflow with no rows: nothing is paid.
		for (const { url } of workflows.values()) await waitForWebhook(url);
		const triggerUrl = `${server.url}/webhook/${hook}/littlepay`;
		await waitForWebhook(triggerUrl);

		const stats = async () =>
			Number((await axios.get(`${gateway.baseUrl}/sandbox/stats`)).data.data.requests);
		const postsSince = async (since: number) =>
			(
				(await axios.get(`${gateway.baseUrl}/sandbox/requests`, { params: { since } })).data.data
					.requests as Array<{ method: string; path: string }>
			).filter((r) => r.method === 'POST' && r.path.startsWith('/api/disbursements')).length;
		const ledger = async () =>
			(await axios.get(`${gateway.baseUrl}/sandbox/ledger`, { maxContentLength: Infinity })).data
				.data.disbursements as Array<{ key: string; to: string; amount: number }>;

		/** Waits until no execution of the workflow is running: n8n saves its run data after it answers. */
		const settled = async (workflowId: string) => {
			for (let i = 0; i < 600; i++) {
				const list = await api.executions(workflowId);
				if (list.every((e) => e.status !== 'running' && e.status !== 'new')) return;
				await sleep(500);
			}
		};

		const run: Rig['run'] = async (side, n, prefix, block, during) => {
			const wf = workflows.get(side)!;
			await settled(wf.id);
			await sleep(1000);
			const load = loadAverage();
			const before = await stats();
			const idleMiB = rssMiB(server.pid);
			const cpu0 = cpuSeconds(server.pid);
			const child0 = descendantsCpuSeconds(server.pid);
			const rss = sampleRss(server.pid);
			const started = performance.now();
			let done = false;
			const beside = during?.(() => done);
			const response = await axios.post(
				wf.url,
				{ n, prefix, block },
				{ validateStatus: () => true, timeout: 3600000, maxContentLength: Infinity },
			);
			const ms = performance.now() - started;
			done = true;
			await beside;
			// The run's data is saved after the answer: count its CPU and memory too.
			await settled(wf.id);
			const cpuS = cpuSeconds(server.pid) - cpu0;
			const childCpuS = descendantsCpuSeconds(server.pid) - child0;
			const peakMiB = rss.stop();
			if (response.status !== 200)
				throw new Error(
					`payroll ${side} (${n} rows): HTTP ${response.status} ${JSON.stringify(response.data).slice(0, 500)}`,
				);
			const requests = (await stats()) - before;
			const posts = await postsSince(before);
			return {
				ms,
				cpuS,
				childCpuS,
				idleMiB,
				peakMiB,
				requests,
				posts,
				first: (response.data ?? {}) as Json,
				load,
			};
		};

		const notPaidOnce: Rig['notPaidOnce'] = async (prefix, block, n) => {
			const all = await ledger();
			const byTo = new Map<string, Array<{ key: string; amount: number }>>();
			for (const d of all) byTo.set(d.to, [...(byTo.get(d.to) ?? []), d]);
			let bad = 0;
			for (let i = 0; i < n; i++) {
				const row = expectedRow(prefix, block, i);
				const paid = byTo.get(row.to) ?? [];
				if (paid.length !== 1 || paid[0].key !== row.key || paid[0].amount !== row.amount) bad++;
			}
			return bad;
		};

		return {
			gateway,
			n8n: server,
			api,
			triggerUrl,
			run,
			notPaidOnce,
			ledgerSize: async () => (await ledger()).length,
			stop: async () => {
				await server.stop();
				await gateway.close();
			},
		};
	} catch (error) {
		await n8n?.stop();
		await gateway.close();
		throw error;
	}
}

// ---- the bench ------------------------------------------------------------------------------------

function describe(label: string, n: number, m: Measured): void {
	note(
		`payroll: ${label}, ${n} rows: ${(m.ms / 1000).toFixed(1)} s (${(m.ms / limitMs(n)).toFixed(2)}x the limit ${(limitMs(n) / 1000).toFixed(0)} s); n8n CPU ${m.cpuS.toFixed(2)} s = ${((m.cpuS * 1000) / n).toFixed(2)} ms/row (descendants ${m.childCpuS.toFixed(2)} s); RSS idle ${m.idleMiB.toFixed(0)} MiB, peak ${m.peakMiB.toFixed(0)} MiB, +${(m.peakMiB - m.idleMiB).toFixed(0)} MiB = ${(((m.peakMiB - m.idleMiB) * 1024) / n).toFixed(1)} KiB/row; gateway ${m.requests} requests (${(m.requests / n).toFixed(2)}/row), ${m.posts} payout POSTs; loadavg ${m.load}`,
	);
}

let runTag = 0;
/** A fresh alphanumeric prefix for a run's keys. */
function newPrefix(): string {
	runTag++;
	return `pr${Date.now().toString(36)}${runTag}`;
}

/** Runs bench payroll and prints its RESULT lines. */
export async function benchPayroll(): Promise<void> {
	const rig = await startRig();
	const stopOnSignal = () => void rig.stop().finally(() => process.exit(130));
	process.once('SIGINT', stopOnSignal);
	process.once('SIGTERM', stopOnSignal);
	try {
		const pid = rig.n8n.pid;
		note(
			`payroll: n8n 2.41.1 pid ${pid}, descendants ${descendants(pid).join(',') || 'none'}; sandbox in its own process, ${LATENCY_MS} ms on every /api/ request; loadavg ${loadAverage()}`,
		);
		let block = 0;
		// Warm-up: every side once on a few rows (modules loaded, code compiled).
		for (const side of ['payOut', 'httpRequest', 'codeOnly'] as Side[])
			await rig.run(side, WARM_UP_ROWS, newPrefix(), ++block);
		// n8n's own CPU while nothing runs, to read the per-row figures against.
		const idle0 = cpuSeconds(pid);
		await sleep(5000);
		note(
			`payroll: n8n idle CPU ${(((cpuSeconds(pid) - idle0) / 5) * 1000).toFixed(1)} ms per second`,
		);

		for (const n of SIZES) {
			const payPrefix = newPrefix();
			const payBlock = ++block;
			const httpPrefix = newPrefix();
			const httpBlock = ++block;
			// The side that runs first meets a smaller heap; the order flips between the sizes.
			const order: Side[] = n === SIZES[0] ? ['payOut', 'httpRequest'] : ['httpRequest', 'payOut'];
			const measured = new Map<Side, Measured>();
			for (const side of order) {
				const m =
					side === 'payOut'
						? await rig.run('payOut', n, payPrefix, payBlock)
						: await rig.run('httpRequest', n, httpPrefix, httpBlock);
				measured.set(side, m);
				describe(side === 'payOut' ? 'Pay Out' : 'HTTP Request (batching 10, 0 ms)', n, m);
			}
			const pay = measured.get('payOut')!;
			const http = measured.get('httpRequest')!;
			const ledgerBefore = await rig.ledgerSize();
			const rerun = await rig.run('payOut', n, payPrefix, payBlock);
			const rerunPaid = (await rig.ledgerSize()) - ledgerBefore;
			describe('Pay Out re-run, same rows (every key found)', n, rerun);
			const floor = await rig.run('codeOnly', n, newPrefix(), ++block);
			describe('Code node only (the rows, no payouts: what both sides share)', n, floor);
			note(
				`payroll: first output item: Pay Out ${JSON.stringify({ outcome: pay.first.outcome, alreadyExisted: pay.first.alreadyExisted })}, re-run ${JSON.stringify({ outcome: rerun.first.outcome, alreadyExisted: rerun.first.alreadyExisted })}`,
			);

			const vsLimit = pay.ms / limitMs(n);
			result(`payroll.n${n}.payout_seconds`, pay.ms / 1000, 'info', true, 's');
			result(`payroll.n${n}.payout_vs_limit`, vsLimit, '<=1.25', vsLimit <= 1.25, 'x');
			result(`payroll.n${n}.http_request_vs_limit`, http.ms / limitMs(n), 'info', true, 'x');
			const payCpu = (pay.cpuS * 1000) / n;
			const httpCpu = (http.cpuS * 1000) / n;
			result(`payroll.n${n}.payout_cpu_ms_per_row`, payCpu, 'info', true, 'ms');
			result(`payroll.n${n}.http_request_cpu_ms_per_row`, httpCpu, 'info', true, 'ms');
			result(
				`payroll.n${n}.cpu_per_row_vs_http_request`,
				payCpu / httpCpu,
				'<=2',
				payCpu / httpCpu <= 2,
				'x',
			);
			const rerunVsLimit = rerun.ms / limitMs(n);
			result(`payroll.n${n}.rerun_vs_limit`, rerunVsLimit, '<=0.3', rerunVsLimit <= 0.3, 'x');
			const payMem = pay.peakMiB - pay.idleMiB;
			const httpMem = http.peakMiB - http.idleMiB;
			result(
				`payroll.n${n}.payout_peak_rss_above_idle_kib_per_row`,
				(payMem * 1024) / n,
				'info',
				true,
				'KiB',
			);
			result(
				`payroll.n${n}.http_request_peak_rss_above_idle_kib_per_row`,
				(httpMem * 1024) / n,
				'info',
				true,
				'KiB',
			);
			result(
				`payroll.n${n}.peak_rss_above_idle_vs_http_request`,
				payMem / httpMem,
				'<=1.5',
				payMem / httpMem <= 1.5,
				'x',
			);
			const payBad = await rig.notPaidOnce(payPrefix, payBlock, n);
			const httpBad = await rig.notPaidOnce(httpPrefix, httpBlock, n);
			result(`payroll.n${n}.payout_rows_not_paid_exactly_once`, payBad, '0', payBad === 0);
			result(`payroll.n${n}.http_request_rows_not_paid_exactly_once`, httpBad, '0', httpBad === 0);
			result(`payroll.n${n}.rerun_payouts_sent`, rerun.posts, '0', rerun.posts === 0);
			result(`payroll.n${n}.rerun_ledger_growth`, rerunPaid, '0', rerunPaid === 0);
		}

		// The trigger's answer time to signed callbacks: idle, then while a 10,000-row run goes on.
		const n = LOADED_ROWS;
		await pacedCallbacks(rig.triggerUrl, 20);
		const idleCpu0 = cpuSeconds(pid);
		const idleLoad = loadAverage();
		const idle = await pacedCallbacks(rig.triggerUrl, IDLE_CALLBACKS);
		note(
			`payroll: ${IDLE_CALLBACKS} callbacks at ${CALLBACKS_PER_SECOND}/s on an idle n8n: n8n CPU ${(((cpuSeconds(pid) - idleCpu0) * 1000) / IDLE_CALLBACKS).toFixed(1)} ms per callback; loadavg ${idleLoad}`,
		);
		const prefix = newPrefix();
		const loadedBlock = ++block;
		let loaded: Array<{ status: number; ms: number }> = [];
		const busy = await rig.run('payOut', n, prefix, loadedBlock, async (done) => {
			await sleep(2000);
			loaded = await pacedCallbacks(rig.triggerUrl, 100000, done);
		});
		describe(`Pay Out with callbacks arriving ${CALLBACKS_PER_SECOND}/s`, n, busy);
		const loadedBad = await rig.notPaidOnce(prefix, loadedBlock, n);
		const ms = (list: Array<{ ms: number }>) => list.map((c) => c.ms);
		const notOk = [...idle, ...loaded].filter((c) => c.status !== 200).length;
		if (notOk > 0)
			note(
				`payroll: callbacks not answered 200: ${[...idle, ...loaded]
					.filter((c) => c.status !== 200)
					.map((c) => `HTTP ${c.status} after ${c.ms.toFixed(0)} ms`)
					.slice(0, 10)
					.join(', ')}`,
			);
		const idleP50 = percentile(ms(idle), 0.5);
		const idleP99 = percentile(ms(idle), 0.99);
		const busyP50 = percentile(ms(loaded), 0.5);
		const busyP99 = percentile(ms(loaded), 0.99);
		note(
			`payroll: trigger answers, ${CALLBACKS_PER_SECOND}/s: idle ${idle.length} callbacks p50 ${idleP50.toFixed(1)} ms p99 ${idleP99.toFixed(1)} ms; during the ${n}-row run ${loaded.length} callbacks p50 ${busyP50.toFixed(1)} ms p99 ${busyP99.toFixed(1)} ms max ${Math.max(...ms(loaded)).toFixed(0)} ms`,
		);
		result('payroll.callbacks_during_run_p50_ms', busyP50, 'info', true, 'ms');
		result('payroll.callbacks_during_run_p50_vs_idle', busyP50 / idleP50, 'info', true, 'x');
		result('payroll.callbacks_during_run_p99_vs_idle', busyP99 / idleP99, 'info', true, 'x');
		result('payroll.callbacks_not_200', notOk, '0', notOk === 0);
		result('payroll.loaded_run_rows_not_paid_exactly_once', loadedBad, '0', loadedBad === 0);
	} finally {
		process.removeListener('SIGINT', stopOnSignal);
		process.removeListener('SIGTERM', stopOnSignal);
		callbackAgent.destroy();
		await rig.stop();
	}
}

/**
 * One 1,000-row Pay Out run with n8n under `--cpu-prof`, then the profile summarised for the run's
 * window only (bench/cpuProfile.ts). The profile and summary stay in PAYROLL_PROFILE_DIR (or a temp folder).
 */
export async function benchPayrollProfile(): Promise<void> {
	const dir = process.env.PAYROLL_PROFILE_DIR || mkdtempSync(join(tmpdir(), 'payroll-prof-'));
	if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
	const rows = SIZES[0];
	const rig = await startRig({
		nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`],
		stopGraceMs: 120000,
	});
	let window: [number, number] = [0, 0];
	let measured: Measured | undefined;
	try {
		await rig.run('payOut', WARM_UP_ROWS, newPrefix(), 1);
		const hr = () => Number(process.hrtime.bigint() / 1000n);
		const from = hr();
		measured = await rig.run('payOut', rows, newPrefix(), 2);
		window = [from, hr()];
		describe('Pay Out under --cpu-prof', rows, measured);
	} finally {
		callbackAgent.destroy();
		await rig.stop();
	}
	// CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile: n8n's main thread is thread 0 (others are workers).
	const main = readdirSync(dir).filter(
		(f) => f.includes(`.${rig.n8n.pid}.0.`) && f.endsWith('.cpuprofile'),
	);
	if (main.length !== 1)
		throw new Error(`no one main-thread .cpuprofile of pid ${rig.n8n.pid} in ${dir}`);
	const file = join(dir, main[0]);
	note(
		`payrollProfile: the run's window on the monotonic clock: ${window[0]}-${window[1]} us (${((window[1] - window[0]) / 1e6).toFixed(1)} s)`,
	);
	const summary = summariseCpuProfile(file, window[0], window[1]);
	const text = formatSummary(summary, rows);
	writeFileSync(join(dir, 'summary.txt'), `${text}\n`);
	note(`payrollProfile: ${file} (summary in ${join(dir, 'summary.txt')})`);
	for (const line of text.split('\n')) note(`payrollProfile: ${line}`);
	result('payrollProfile.sampled_ms', summary.sampledMs, 'info', true, 'ms');
}

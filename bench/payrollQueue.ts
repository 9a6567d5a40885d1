// Bench payroll-queue (issue 52, point 4): example 12 (a payroll over queue-mode workers, each row
// claimed in a Data Table before it is sent) in n8n 2.41.1's queue mode: main, 2 workers, a webhook
// process, Postgres and Redis (testkit/queueCluster.ts), against the sandbox in its own process answering
// every /api/ request in 100 ms. PAYROLL_QUEUE_ROWS rows (100,000 by default), loaded into the payroll
// table through n8n's REST API (loading is not what is measured), paid by one Start the Payroll in chunks
// of PAYROLL_QUEUE_CHUNK (500). Prints: every row paid exactly once (sandbox ledger by key); the wall
// time against the physical limit for the concurrency used (rows x 100 ms / payouts in flight: the chunks
// at once, min(chunks, workers x worker concurrency - the slot the start holds), x Pay Out's 10); n8n CPU
// and peak memory above idle per row, per worker (from /proc, for the rows each worker claimed); the
// claim's cost per row (from the chunk executions' node times); and the Little Pay Trigger's
// acknowledgement p50/p99 for signed callbacks at 2/s on the webhook process, with no payroll and during
// it. Machine load from /proc/loadavg.
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';

import axios from 'axios';

import { N8nApi } from '../testkit/n8n';
import { waitFor } from '../testkit/n8nRuns';
import {
	executionsRunBy,
	importPayrollWorkflow,
	ledgerCountByKey,
	nodeTimes,
	paidOnce,
	payrollRows,
	startPayroll,
} from '../testkit/payrollQueue';
import { startQueueCluster } from '../testkit/queueCluster';
import { note, percentile, result, sleep } from './lib';
import { startGatewayProcess } from './nodeOverhead';

const ROWS = Number(process.env.PAYROLL_QUEUE_ROWS || 100000);
const CHUNK = Number(process.env.PAYROLL_QUEUE_CHUNK || 500);
const WORKERS = 2;
const WORKER_CONCURRENCY = Number(process.env.PAYROLL_QUEUE_WORKER_CONCURRENCY || 10);
const PAY_OUT_CONCURRENCY = 10; // example 12's Pay Out
const LATENCY_MS = 100;
const CALLBACKS_PER_SECOND = 2;
const IDLE_CALLBACKS = 40;
const CLOCK_TICKS = 100; // getconf CLK_TCK on Linux

// ---- processes, from /proc ------------------------------------------------------------------------

/** CPU seconds (user + system) a process and its live descendants have used so far. */
function treeCpuSeconds(pid: number): number {
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
	const tree = [pid];
	for (let i = 0; i < tree.length; i++)
		for (const [child, parent] of parentOf) if (parent === tree[i]) tree.push(child);
	let total = 0;
	for (const p of tree) {
		try {
			const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
			const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
			total += (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
		} catch {
			// gone meanwhile
		}
	}
	return total;
}

/** Resident memory of a process, in MiB. */
function rssMiB(pid: number): number {
	const status = readFileSync(`/proc/${pid}/status`, 'utf8');
	return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024;
}

function loadAverage(): string {
	return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

// ---- signed callbacks to a Little Pay Trigger -------------------------------------------------------

const signingKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const publicKeyPem = signingKeys.publicKey.export({ type: 'spki', format: 'pem' }).toString();
const callbackAgent = new Agent({ keepAlive: true, maxSockets: 50 });
let callbackSeq = 0;

function postCallback(url: string): Promise<{ status: number; ms: number }> {
	callbackSeq++;
	const body = JSON.stringify({
		reference: `PAYQ-${randomUUID().slice(0, 8)}-${callbackSeq}`,
		status: 'COMPLETED',
		amount: 100 + callbackSeq,
		key: `payq${callbackSeq}`,
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
	const headers = {
		'content-type': 'application/json',
		'x-littlepay-timestamp': timestamp,
		'x-littlepay-signature': signature,
	};
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

// ---- the bench ------------------------------------------------------------------------------------

/** Runs bench payroll-queue and prints its RESULT lines. */
export async function benchPayrollQueue(): Promise<void> {
	const gateway = await startGatewayProcess();
	await axios.post(`${gateway.baseUrl}/sandbox/faults`, {
		rules: [{ pathPrefix: '/api/', latencyMs: LATENCY_MS }],
	});
	const cluster = await startQueueCluster({
		workers: WORKERS,
		webhooks: 1,
		workerConcurrency: WORKER_CONCURRENCY,
	}).catch(async (error: unknown) => {
		await gateway.close();
		throw error;
	});
	const stopOnSignal = () =>
		void cluster
			.stop()
			.then(() => gateway.close())
			.finally(() => process.exit(130));
	process.once('SIGINT', stopOnSignal);
	process.once('SIGTERM', stopOnSignal);
	try {
		const api = new N8nApi(cluster.main.url!);
		await api.setupOwner();
		const m = gateway.merchant;
		const apiKeyId = await api.createCredential('payroll queue key', 'littlePayApiKeyApi', {
			apiKey: m.apiKey,
			baseUrl: m.baseUrl,
			disbursementBaseUrl: '',
		});
		const webhookUrl = cluster.webhooks[0].url!;
		const payroll = await importPayrollWorkflow(api, apiKeyId, [webhookUrl]);

		// The trigger the callbacks go to, on the same webhook process as the payroll's chunks.
		const hook = randomUUID();
		const trigger = await api.createWorkflow({
			name: 'payroll queue callbacks',
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
		const triggerUrl = `${webhookUrl}/webhook/${hook}/littlepay`;
		await waitFor('the trigger on the webhook process', async () =>
			(await postCallback(triggerUrl)).status === 200 ? true : undefined,
		);

		// The payroll, straight into the table (5,000 rows a request).
		const payrollId = `pq${randomUUID().replace(/-/g, '').slice(0, 6)}`;
		const rows = payrollRows(payrollId, ROWS, 3);
		for (let i = 0; i < rows.length; i += 5000)
			await api.insertDataTableRows(
				payroll.tableId,
				rows.slice(i, i + 5000).map((r, j) => ({
					payrollId,
					payoutId: r.payoutId,
					name: r.name,
					to: r.phone,
					amount: r.amount,
					currency: r.currency,
					network: 'MPESA',
					block: Math.floor((i + j) / 100),
					status: 'open',
					claimedBy: 'none',
				})),
			);

		// Callbacks with no payroll running.
		const idleLoad = loadAverage();
		const idle = await pacedCallbacks(triggerUrl, IDLE_CALLBACKS);

		const pids = cluster.workers.map((w) => w.pid);
		const cpu0 = pids.map(treeCpuSeconds);
		const idleMiB = pids.map(rssMiB);
		const peakMiB = [...idleMiB];
		const sampler = setInterval(() => {
			pids.forEach((pid, i) => {
				try {
					peakMiB[i] = Math.max(peakMiB[i], rssMiB(pid));
				} catch {
					// gone: the run fails on its own
				}
			});
		}, 200);
		const loads: string[] = [loadAverage()];
		const loadSampler = setInterval(() => loads.push(loadAverage()), 15000);
		let done = false;
		const t0 = performance.now();
		const run = startPayroll(webhookUrl, { payrollId, chunkSize: CHUNK }).finally(() => {
			done = true;
		});
		const during = await pacedCallbacks(triggerUrl, 1000000, () => done);
		const answer = await run;
		const ms = performance.now() - t0;
		clearInterval(sampler);
		clearInterval(loadSampler);
		loads.push(loadAverage());
		const cpu = pids.map((pid, i) => treeCpuSeconds(pid) - cpu0[i]);

		// Paid once: the ledger, by key.
		const paid = paidOnce(await ledgerCountByKey(gateway.baseUrl), rows);
		// Rows per worker: which chunk execution claimed each row, and which worker ran it.
		const tableRows = (await api.dataTableRows(payroll.tableId)).filter(
			(r) => r.payrollId === payrollId,
		);
		const ran = cluster.workers.map((w) => executionsRunBy(w.logs()));
		const rowsBy = ran.map((ids) => tableRows.filter((r) => ids.has(String(r.claimedBy))).length);
		// The claim's cost: its two table writes per row, against Pay Out's time, over every chunk.
		const chunkIds = [...new Set(tableRows.map((r) => String(r.claimedBy)))];
		const totals = { claim: 0, record: 0, payOut: 0, rows: 0 };
		for (const id of chunkIds) {
			const t = await nodeTimes(api, id, [
				'Claim the Block',
				'Outcome per Row',
				'Record the Outcomes',
				'Pay Out',
			]);
			totals.claim += t['Claim the Block'].ms;
			totals.record += t['Outcome per Row'].ms + t['Record the Outcomes'].ms;
			totals.payOut += t['Pay Out'].ms;
			totals.rows += t['Claim the Block'].items;
		}

		// Chunk executions at once: the workers' slots less the one the start holds, or fewer chunks.
		const slots = Math.min(WORKERS * WORKER_CONCURRENCY - 1, chunkIds.length);
		const inFlight = slots * PAY_OUT_CONCURRENCY;
		const limitMs = (ROWS * LATENCY_MS) / inFlight;
		const ackMs = (list: Array<{ ms: number }>) => list.map((c) => c.ms);
		const notOk = [...idle, ...during].filter((c) => c.status !== 200).length;
		const summary = answer.summary;
		note(
			`payroll_queue: ${ROWS} rows, chunks of ${CHUNK}, ${WORKERS} workers x concurrency ${WORKER_CONCURRENCY} (${slots} chunks at once x Pay Out ${PAY_OUT_CONCURRENCY} = ${inFlight} payouts in flight), sandbox ${LATENCY_MS} ms: answered ${answer.status} in ${(ms / 1000).toFixed(1)} s, limit ${(limitMs / 1000).toFixed(1)} s; summary sent ${String(summary.sent)}, found already sent ${String(summary.alreadySent)}, refused ${String(summary.refused)}, unknown ${String(summary.unknown)}, in progress ${String(summary.inProgress)}; rows per worker ${rowsBy.join(' / ')}; chunk executions ${chunkIds.length}`,
		);
		note(
			`payroll_queue: loadavg before the idle callbacks ${idleLoad}; during the run ${loads.join(' | ')}`,
		);
		result(
			'payrollQueue.rows_paid_twice',
			paid.twiceOrMore.length,
			'0',
			paid.twiceOrMore.length === 0,
		);
		result('payrollQueue.rows_unpaid', paid.unpaid.length, '0', paid.unpaid.length === 0);
		result('payrollQueue.seconds', ms / 1000, '(information)', true, 's');
		result('payrollQueue.vs_limit', ms / limitMs, '(information)', true, 'x');
		cluster.workers.forEach((w, i) => {
			const n = Math.max(1, rowsBy[i]);
			result(
				`payrollQueue.${w.name}.cpu_ms_per_row`,
				(cpu[i] * 1000) / n,
				'(information)',
				true,
				'ms',
			);
			result(
				`payrollQueue.${w.name}.peak_kib_above_idle_per_row`,
				((peakMiB[i] - idleMiB[i]) * 1024) / n,
				'(information)',
				true,
				'KiB',
			);
		});
		const perRow = (x: number) => x / Math.max(1, totals.rows);
		result('payrollQueue.claim_ms_per_row', perRow(totals.claim), '(information)', true, 'ms');
		result('payrollQueue.record_ms_per_row', perRow(totals.record), '(information)', true, 'ms');
		result(
			'payrollQueue.claim_and_record_vs_pay_out_time',
			(totals.claim + totals.record) / Math.max(1, totals.payOut),
			'(information)',
			true,
			'x',
		);
		const idleP50 = percentile(ackMs(idle), 0.5);
		const idleP99 = percentile(ackMs(idle), 0.99);
		const busyP50 = percentile(ackMs(during), 0.5);
		const busyP99 = percentile(ackMs(during), 0.99);
		note(
			`payroll_queue: trigger acknowledgements at ${CALLBACKS_PER_SECOND}/s: no payroll ${idle.length} callbacks p50 ${idleP50.toFixed(1)} ms p99 ${idleP99.toFixed(1)} ms; during it ${during.length} callbacks p50 ${busyP50.toFixed(1)} ms p99 ${busyP99.toFixed(1)} ms`,
		);
		result(
			'payrollQueue.callbacks_during_p50_vs_idle',
			busyP50 / idleP50,
			'(information)',
			true,
			'x',
		);
		result(
			'payrollQueue.callbacks_during_p99_vs_idle',
			busyP99 / idleP99,
			'(information)',
			true,
			'x',
		);
		result('payrollQueue.callbacks_not_200', notOk, '0', notOk === 0);
	} finally {
		process.removeListener('SIGINT', stopOnSignal);
		process.removeListener('SIGTERM', stopOnSignal);
		callbackAgent.destroy();
		await cluster.stop();
		await gateway.close();
	}
}

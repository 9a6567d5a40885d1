// Bench queueCallbacks (issue 13): the trigger in n8n queue mode (main, 2 workers, 2 webhook processes,
// Postgres, Redis). 1,000 genuine signed callbacks sent round-robin to the two webhook processes, 50 at a
// time; 20% of them delivered again 1-5 s after their first answer, to the *other* webhook process, so only
// the static data saved by the first process can recognise them (no shared process memory). Counted from
// n8n's executions; the acknowledgement time is measured at the sender. Every process is stopped at the end.
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';

import { signCallback } from '../sandbox';
import { N8nApi } from '../testkit/n8n';
import { postgresBin, startQueueCluster } from '../testkit/queueCluster';
import { settledExecutions, waitForWebhook } from '../testkit/n8nRuns';
import { mapConcurrent, note, percentile, result, sleep } from './lib';

const CALLBACKS = 1000;
const AT_ONCE = 50;
const REDELIVERED = 200;

const gateway = generateKeyPairSync('rsa', { modulusLength: 2048 });
const run = randomUUID().slice(0, 8);
const agent = new Agent({ keepAlive: true, maxSockets: AT_ONCE * 2 });

interface Answer {
	status: number;
	body: string;
	ms: number;
}

function callbackBody(i: number): string {
	return JSON.stringify({
		reference: `QUEUE-${run}-${i}`,
		status: 'COMPLETED',
		payload: { billingAddress: { firstName: 'Queue', email: `payer${i}@example.com` } },
		amount: 100 + i,
		key: `q${run}${i}`,
		currency: 'KES',
		provider: 'MPESA',
		date: new Date(Date.UTC(2026, 10, 23, 12, 0, i % 60)).toISOString(),
	});
}

/** Sends one delivery as the gateway does (fresh timestamp and signature) and times the answer. */
function deliver(url: string, body: string): Promise<Answer> {
	const timestamp = String(Math.floor(Date.now() / 1000));
	const headers = {
		'content-type': 'application/json',
		'x-littlepay-timestamp': timestamp,
		'x-littlepay-signature': signCallback(gateway.privateKey, timestamp, body),
	};
	const started = performance.now();
	return new Promise((resolve) => {
		const req = request(url, { method: 'POST', headers, agent, timeout: 60000 }, (res) => {
			let text = '';
			res.setEncoding('utf8');
			res.on('data', (chunk: string) => (text += chunk));
			res.on('end', () =>
				resolve({ status: res.statusCode ?? 0, body: text, ms: performance.now() - started }),
			);
		});
		req.on('timeout', () => req.destroy(new Error('timeout')));
		req.on('error', (error) =>
			resolve({ status: 0, body: String(error), ms: performance.now() - started }),
		);
		req.end(body);
	});
}

const isNew = (a: Answer) => a.status === 200 && /"event":/.test(a.body);
const isDuplicate = (a: Answer) => a.status === 200 && /"duplicate":\s*true/.test(a.body);

/** Runs bench queueCallbacks and prints its RESULT lines. */
export async function benchQueueCallbacks(): Promise<void> {
	const cluster = await startQueueCluster({ workers: 2, webhooks: 2 });
	const stopOnSignal = () => void cluster.stop().finally(() => process.exit(130));
	process.once('SIGINT', stopOnSignal);
	process.once('SIGTERM', stopOnSignal);
	try {
		const api = new N8nApi(cluster.main.url!);
		await api.setupOwner();
		const hook = randomUUID();
		const created = await api.createWorkflow({
			name: 'queue callbacks',
			nodes: [
				{
					parameters: {
						events: ['*'],
						options: {
							publicKey: gateway.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
						},
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
		await api.activateWorkflow(created.id, created.versionId);
		const urls = cluster.webhooks.map((w) => `${w.url}/webhook/${hook}/littlepay`);
		for (const url of urls) await waitForWebhook(url);

		// Which callbacks are delivered again: every fifth, so both processes' firsts are included.
		const again = new Set(Array.from({ length: REDELIVERED }, (_, k) => k * 5 + (k % 5)));
		const firsts: Answer[] = new Array(CALLBACKS);
		const redeliveries: Array<Promise<Answer>> = [];
		let seed = 13;
		const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
		const t0 = performance.now();
		await mapConcurrent(
			Array.from({ length: CALLBACKS }, (_, i) => i),
			AT_ONCE,
			async (i) => {
				const body = callbackBody(i);
				firsts[i] = await deliver(urls[i % 2], body);
				if (again.has(i)) {
					const delay = 1000 + random() * 4000;
					redeliveries.push(sleep(delay).then(() => deliver(urls[(i + 1) % 2], body)));
				}
			},
		);
		const firstsMs = performance.now() - t0;
		const repeats = await Promise.all(redeliveries);
		const executions = await settledExecutions(api, created.id, 5000, 600000);

		// What the unlocked blob saves left in the database at rest (the ids of all 1,000 fit the limit).
		const row = execFileSync(
			`${postgresBin().bin}/psql`,
			[
				'-h',
				'127.0.0.1',
				'-p',
				String(cluster.postgres.port),
				'-U',
				'postgres',
				'-d',
				cluster.postgres.database,
				'-Atc',
				`SELECT "staticData" FROM workflow_entity WHERE id = '${created.id}'`,
			],
			{ encoding: 'utf8' },
		);
		const stored = JSON.parse(row) as Record<string, { acceptedEvents?: Record<string, number> }>;
		const storedIds = new Set(Object.keys(stored['node:Little Pay Trigger']?.acceptedEvents ?? {}));
		const acceptedIds = [...firsts, ...repeats]
			.filter(isNew)
			.map((a) => (JSON.parse(a.body) as { eventId: string }).eventId);
		const missingAtRest = acceptedIds.filter((id) => !storedIds.has(id)).length;

		const firstsNew = firsts.filter(isNew).length;
		const repeatsNew = repeats.filter(isNew).length;
		const repeatsDuplicate = repeats.filter(isDuplicate).length;
		const notOk = [...firsts, ...repeats].filter((a) => a.status !== 200);
		const statuses = new Map<string, number>();
		for (const e of executions) statuses.set(e.status, (statuses.get(e.status) ?? 0) + 1);
		note(
			`queue_callbacks: executions by status ${[...statuses].map(([k, n]) => `${k} ${n}`).join(', ')}`,
		);
		const acks = firsts.map((a) => a.ms);
		const ranOn = cluster.workers.map(
			(w) => new Set([...w.logs().matchAll(/Worker started execution (\d+)/g)].map((m) => m[1])),
		);
		note(
			`queue_callbacks: ${CALLBACKS} callbacks round-robin to 2 webhook processes, ${AT_ONCE} at a time, in ${(firstsMs / 1000).toFixed(1)} s; ${REDELIVERED} delivered again 1-5 s later to the other process`,
		);
		note(
			`queue_callbacks: first deliveries ${firstsNew} accepted as new; redeliveries ${repeatsDuplicate} duplicate, ${repeatsNew} accepted as new (ids lost to concurrent static-data saves); ${notOk.length} not HTTP 200`,
		);
		for (const a of notOk.slice(0, 5))
			note(`queue_callbacks: HTTP ${a.status} ${a.body.slice(0, 200)}`);
		note(
			`queue_callbacks: executions per worker ${ranOn.map((s) => s.size).join(' / ')}; ids missing from static data at rest ${missingAtRest} of ${acceptedIds.length}`,
		);
		result(
			'queueCallbacks.executions',
			executions.length,
			String(CALLBACKS),
			executions.length === CALLBACKS,
		);
		result(
			'queueCallbacks.executions_not_successful',
			executions.filter((e) => e.status !== 'success').length,
			'0',
			executions.every((e) => e.status === 'success'),
		);
		result('queueCallbacks.redeliveries_started_again', repeatsNew, '0', repeatsNew === 0);
		result('queueCallbacks.ids_missing_at_rest', missingAtRest, '0', missingAtRest === 0);
		result('queueCallbacks.not_acknowledged', notOk.length, '0', notOk.length === 0);
		const p50 = percentile(acks, 0.5);
		const p99 = percentile(acks, 0.99);
		result('queueCallbacks.ack_p50_ms', p50, '<=250', p50 <= 250, 'ms');
		result('queueCallbacks.ack_p99_ms', p99, '<=1000', p99 <= 1000, 'ms');
	} finally {
		process.removeListener('SIGINT', stopOnSignal);
		process.removeListener('SIGTERM', stopOnSignal);
		agent.destroy();
		await cluster.stop();
	}
}

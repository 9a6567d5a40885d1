// Bench queuePayouts (issue 13): 10 payout runs of 100 items each, started at the same moment through the
// two webhook processes of an n8n queue-mode cluster, run by its 2 workers, against the sandbox gateway.
// Every recipient must be paid exactly once (counted in the sandbox ledger) and both workers must run some.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';

import axios from 'axios';

import { startSandbox } from '../sandbox';
import { N8nApi } from '../testkit/n8n';
import { startQueueCluster } from '../testkit/queueCluster';
import { sandboxCredentials, settledExecutions, waitForWebhook } from '../testkit/n8nRuns';
import { lastNodeWebhookNode } from '../testkit/workflowParts';
import { note, result } from './lib';

const RUNS = 10;
const PER_RUN = 100;

/** Runs bench queuePayouts and prints its RESULT lines. */
export async function benchQueuePayouts(): Promise<void> {
	const sandbox = await startSandbox({ port: 0, quiet: true });
	// Concurrency 5 per worker: 10 runs started at once cannot all land on one worker.
	const cluster = await startQueueCluster({ workers: 2, webhooks: 2, workerConcurrency: 5 });
	const stopOnSignal = () =>
		void cluster
			.stop()
			.then(() => sandbox.close())
			.finally(() => process.exit(130));
	process.once('SIGINT', stopOnSignal);
	process.once('SIGTERM', stopOnSignal);
	try {
		const api = new N8nApi(cluster.main.url!);
		await api.setupOwner();
		const { apiKeyId } = await sandboxCredentials(api, sandbox, 'queue payouts');
		const path = `payout-run-${randomUUID()}`;
		const created = await api.createWorkflow({
			name: 'queue payout run',
			nodes: [
				lastNodeWebhookNode(path),
				{
					parameters: { fieldToSplitOut: 'body.recipients', options: {} },
					name: 'One Item per Recipient',
					type: 'n8n-nodes-base.splitOut',
					typeVersion: 1,
					position: [220, 0],
				},
				{
					parameters: {
						resource: 'disbursement',
						operation: 'create',
						method: 'MPESA',
						amount: '={{ $json.amount }}',
						to: '={{ $json.to }}',
						country: 'KE',
						currency: 'KES',
						key: '={{ $json.payoutId }}',
						options: { checkLimits: true, concurrency: 10 },
					},
					name: 'Pay Out',
					type: 'n8n-nodes-littlepay.littlePay',
					typeVersion: 1,
					position: [440, 0],
					credentials: { littlePayApiKeyApi: { id: apiKeyId, name: 'queue payouts key' } },
				},
			],
			connections: {
				Start: { main: [[{ node: 'One Item per Recipient', type: 'main', index: 0 }]] },
				'One Item per Recipient': { main: [[{ node: 'Pay Out', type: 'main', index: 0 }]] },
			},
		});
		await api.activateWorkflow(created.id, created.versionId);
		const urls = cluster.webhooks.map((w) => `${w.url}/webhook/${path}`);
		for (const url of urls) await waitForWebhook(url);
		// waitForWebhook's empty probes ran the workflow with no recipients; count executions from here.
		const before = (await settledExecutions(api, created.id, 2000)).length;

		// Recipient r of run k: a number of its own, ending in 0 (the sandbox pays those), and a payout ID.
		const recipient = (k: number, r: number) => ({
			to: `2547${String(k * PER_RUN + r).padStart(7, '0')}0`,
			amount: 100 + r,
			payoutId: `q${path.slice(-8).replace(/[^a-z0-9]/gi, '')}x${k}x${r}`,
		});
		const t0 = performance.now();
		const answers = await Promise.all(
			Array.from({ length: RUNS }, (_, k) =>
				axios.post(
					urls[k % urls.length],
					{ recipients: Array.from({ length: PER_RUN }, (_, r) => recipient(k, r)) },
					{ validateStatus: () => true, timeout: 600000 },
				),
			),
		);
		const ms = performance.now() - t0;
		const executions = (await settledExecutions(api, created.id, 3000)).length - before;

		const ledger = (await axios.get(`${sandbox.baseUrl}/sandbox/ledger`)).data.data
			.disbursements as Array<{ to: string; status: string }>;
		const paid = new Map<string, number>();
		for (const d of ledger) paid.set(d.to, (paid.get(d.to) ?? 0) + 1);
		const expected = Array.from({ length: RUNS * PER_RUN }, (_, i) =>
			recipient(Math.floor(i / PER_RUN), i % PER_RUN),
		).map((r) => r.to);
		const unpaid = expected.filter((to) => !paid.has(to)).length;
		const twice = [...paid.values()].filter((n) => n > 1).length;
		const outputs = answers.reduce(
			(n, a) => n + (Array.isArray(a.data) ? (a.data as unknown[]).length : 0),
			0,
		);
		const failedRuns = answers.filter((a) => a.status !== 200).length;
		const ranOn = cluster.workers.map(
			(w) => new Set([...w.logs().matchAll(/Worker started execution (\d+)/g)].map((m) => m[1])),
		);
		note(
			`queue_payouts: ${RUNS} runs x ${PER_RUN} payouts started at once over 2 webhook processes: all answered in ${(ms / 1000).toFixed(1)} s; ${executions} executions, per worker (incl. probes) ${ranOn.map((s) => s.size).join(' / ')}; ledger ${ledger.length} payouts, ${outputs} output items`,
		);
		result('queuePayouts.runs_failed', failedRuns, '0', failedRuns === 0);
		result('queuePayouts.recipients_unpaid', unpaid, '0', unpaid === 0);
		result('queuePayouts.recipients_paid_twice', twice, '0', twice === 0);
		result(
			'queuePayouts.ledger_payouts',
			ledger.length,
			String(RUNS * PER_RUN),
			ledger.length === RUNS * PER_RUN,
		);
		const bothWorkers = ranOn.every((s) => s.size > 0);
		result('queuePayouts.both_workers_used', bothWorkers ? 1 : 0, '1', bothWorkers);
		result('queuePayouts.seconds_all_runs', ms / 1000, '(information)', true, 's');
	} finally {
		process.removeListener('SIGINT', stopOnSignal);
		process.removeListener('SIGTERM', stopOnSignal);
		await cluster.stop();
		await sandbox.close();
	}
}

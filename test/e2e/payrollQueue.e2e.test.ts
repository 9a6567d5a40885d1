// Example 12 (a payroll over queue-mode workers, issue 52) in n8n 2.41.1's queue mode: main, 2 workers, the
// first of 2 webhook processes, Postgres and Redis (the jest run's shared cluster, testkit/queueCluster.ts; the
// worker this file kills is started again when it releases the cluster), the sandbox as gateway set to accept a
// repeated key, so that only the workflow's claim stands between a row and a second payout. "Paid once" is
// read from the sandbox ledger, never from n8n's outputs.
import axios from 'axios';

import { startSandbox } from '../../sandbox';
import type { SandboxHandle } from '../../sandbox';
import type { N8nApi } from '../../testkit/n8n';
import { sandboxCredentials, waitFor } from '../../testkit/n8nRuns';
import {
	executionsRunBy,
	importPayrollWorkflow,
	ledgerCountByKey,
	loadPayroll,
	paidOnce,
	payrollRows,
	payrollSummary,
	startPayroll,
} from '../../testkit/payrollQueue';
import type { PayrollRow } from '../../testkit/payrollQueue';
import { sharedQueueCluster } from '../../testkit/queueCluster';
import type { SharedQueueCluster } from '../../testkit/queueCluster';

jest.setTimeout(1500000);

const ROWS = 1500;
const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));

describe('example 12 in queue mode: each row paid once across workers', () => {
	let sandbox: SandboxHandle;
	let cluster: SharedQueueCluster;
	let api: N8nApi;
	let webhookUrl: string;

	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0, quiet: true });
		// The gateway takes a second payout under a key it already has: the claim alone must stop it.
		await axios.post(`${sandbox.baseUrl}/sandbox/settings`, { acceptRepeatedPayoutKeys: true });
		cluster = await sharedQueueCluster('payroll');
		api = cluster.api;
		const { apiKeyId } = await sandboxCredentials(api, sandbox, 'payroll');
		webhookUrl = cluster.webhooks[0].url!;
		await importPayrollWorkflow(api, apiKeyId, [webhookUrl]);
	});

	afterAll(async () => {
		await cluster?.release();
		await sandbox?.close();
	});

	/** Which worker (1-based) ran an execution, from the workers' logs. */
	const workerOf = (executionId: unknown): number =>
		cluster.workers.findIndex((w) => executionsRunBy(w.logs()).has(String(executionId))) + 1;

	/** The keys of `rows` the ledger holds, once each, and none twice, and the summary that says so. */
	async function expectPaidOnce(payrollId: string, rows: PayrollRow[]): Promise<void> {
		const counts = await ledgerCountByKey(sandbox.baseUrl);
		expect(paidOnce(counts, rows)).toEqual({ once: rows.length, twiceOrMore: [], unpaid: [] });
		const summary = await payrollSummary(webhookUrl, payrollId);
		expect(summary).toMatchObject({
			rows: rows.length,
			sent: expect.any(Number),
			alreadySent: expect.any(Number),
			refused: 0,
			unknown: 0,
			inProgress: 0,
			notStarted: 0,
		});
		expect(Number(summary.sent) + Number(summary.alreadySent)).toBe(rows.length);
	}

	it('a payroll started twice at once, on both workers, pays each row once', async () => {
		const payrollId = 'dbl';
		const rows = payrollRows(payrollId, ROWS, 1);
		await loadPayroll(webhookUrl, payrollId, rows);
		expect(await payrollSummary(webhookUrl, payrollId)).toMatchObject({
			rows: ROWS,
			notStarted: ROWS,
		});
		const [a, b] = await Promise.all([
			startPayroll(webhookUrl, { payrollId, chunkSize: 150 }),
			startPayroll(webhookUrl, { payrollId, chunkSize: 150 }),
		]);
		expect([a.status, b.status]).toEqual([200, 200]);
		const starts = [a.summary.thisStart, b.summary.thisStart] as Array<Record<string, number>>;
		process.stdout.write(
			`payroll doubled: ${JSON.stringify(starts.map((s) => ({ ...s, worker: workerOf(s.startedBy) })))}\n`,
		);
		// Two executions on two workers, each claiming a share of the rows; rows one posted that the other
		// claimed first were reported, not sent (claimedElsewhere): the two really raced.
		expect(starts.map((s) => workerOf(s.startedBy)).sort()).toEqual([1, 2]);
		expect(starts.map((s) => s.chunksFailed)).toEqual([0, 0]);
		expect(starts[0].claimedHere + starts[1].claimedHere).toBe(ROWS);
		expect(starts[0].claimedElsewhere + starts[1].claimedElsewhere).toBeGreaterThan(0);
		await expectPaidOnce(payrollId, rows);
		const summary = await payrollSummary(webhookUrl, payrollId);
		expect(summary).toMatchObject({ sent: ROWS, alreadySent: 0 });
		expect((summary.byCurrency as Record<string, Record<string, number>>).KES).toMatchObject({
			count: ROWS,
			amount: rows.reduce((sum, r) => sum + r.amount, 0),
		});
	});

	it('a worker SIGKILLed mid-run: started again, every row is paid exactly once', async () => {
		const payrollId = 'kill';
		const rows = payrollRows(payrollId, ROWS, 2);
		await loadPayroll(webhookUrl, payrollId, rows);
		expect(await payrollSummary(webhookUrl, payrollId)).toMatchObject({
			rows: ROWS,
			notStarted: ROWS,
		});
		// What worker 2 ran before this test (the cluster is the run's shared one).
		const ranBefore = executionsRunBy(cluster.workers[1].logs());
		// 100 ms a call, so the run lasts long enough to be cut in the middle.
		await axios.post(`${sandbox.baseUrl}/sandbox/faults`, {
			rules: [{ pathPrefix: '/api/', latencyMs: 100 }],
		});
		const paidSoFar = async () => {
			const counts = await ledgerCountByKey(sandbox.baseUrl);
			return rows.filter((r) => counts.has(r.payoutId)).length;
		};
		const first = startPayroll(webhookUrl, { payrollId, chunkSize: 100 }).catch(
			(error: unknown) => ({ status: 0, summary: { error: String(error) } }),
		);
		await waitFor(
			'a fifth of the payroll paid',
			async () => ((await paidSoFar()) >= ROWS / 5 ? true : undefined),
			300000,
		);
		const killed = cluster.workers[1];
		expect(
			[...executionsRunBy(killed.logs())].filter((id) => !ranBefore.has(id)).length,
		).toBeGreaterThan(0);
		await killed.kill();
		const paidAtKill = await paidSoFar();
		// Wait until the surviving worker has finished what it runs: the ledger stops growing for 20 s.
		let last = -1;
		for (let quiet = 0; quiet < 4; ) {
			await sleep(5000);
			const now = await paidSoFar();
			quiet = now === last ? quiet + 1 : 0;
			last = now;
		}
		const afterFirst = await Promise.race([first, sleep(1000).then(() => undefined)]);
		const cut = await payrollSummary(webhookUrl, payrollId);
		// The kill left rows claimed by executions that died: in progress, not paid by anybody yet or paid
		// with no outcome recorded.
		expect(Number(cut.inProgress) + Number(cut.unknown)).toBeGreaterThan(0);
		expect(last).toBeLessThan(ROWS);

		// Started again: claims older than 10 s (their executions are over) are looked up first.
		await axios.delete(`${sandbox.baseUrl}/sandbox/faults`);
		await sleep(10000);
		const again = await startPayroll(webhookUrl, {
			payrollId,
			chunkSize: 100,
			staleClaimMinutes: 1 / 6,
		});
		expect(again.status).toBe(200);
		const start = again.summary.thisStart as Record<string, number>;
		expect(workerOf(start.startedBy)).toBe(1);
		// Stale claims were looked up at Little Pay: some found paid, the rest released and paid now.
		expect(start.staleReleased + start.staleFoundSent).toBe(
			Number(cut.inProgress) + Number(cut.unknown),
		);
		await expectPaidOnce(payrollId, rows);
		process.stdout.write(
			`payroll kill: ${paidAtKill} of ${ROWS} paid at the kill, ${last} when the surviving worker went quiet; first start answered: ${afterFirst ? afterFirst.status : 'not yet'}; cut summary inProgress ${String(cut.inProgress)}, unknown ${String(cut.unknown)}; again: stale found sent ${start.staleFoundSent}, released ${start.staleReleased}, sent ${String(again.summary.sent)}, found already sent ${String(again.summary.alreadySent)}\n`,
		);
	});
});

// Example 4 (a payout run: preview, pay with Wait for Result, summary) in a real n8n 2.41.1 against the
// sandbox, executed twice through the REST API: each recipient is paid once (the sandbox ledger) and the
// second run's summary matches the first. And cancelling a run that waits for a payout stops it at once
// without creating anything. `npm test` builds dist/ before this runs.
import { randomUUID } from 'node:crypto';

import axios from 'axios';
import { parse as parseFlatted } from 'flatted';

import { startSandbox } from '../../sandbox';
import type { SandboxHandle } from '../../sandbox';
import type { N8nApi } from '../../testkit/n8n';
import { sharedN8n } from '../../testkit/sharedN8n';
import type { SharedN8n } from '../../testkit/sharedN8n';
import {
	createExampleTables,
	exampleReplacements,
	loadExample,
	postToNewWebhook,
	runWorkflowViaWebhook,
	sandboxCredentials,
	waitFor,
} from '../../testkit/n8nRuns';
import { chain, littlePayNode, webhookNode } from '../../testkit/workflowParts';

jest.setTimeout(300000);

type Json = Record<string, unknown>;
type Payout = { id: string; key: string; to: string; amount: number; status: string };

describe('example 4, the payout run, in a real n8n', () => {
	let sandbox: SandboxHandle;
	let n8n: SharedN8n;
	let api: N8nApi;
	let ids: { basicId: string; apiKeyId: string };
	let tables: Record<string, string>;

	beforeAll(async () => {
		n8n = await sharedN8n('payoutRun');
		api = n8n.api;
		tables = exampleReplacements(await createExampleTables(api), 'payout0run0token');
	});

	// A sandbox and credentials per test: its ledger and request log hold only that test's payouts, so
	// "exactly these five payouts" holds whichever test ran before it.
	beforeEach(async () => {
		sandbox = await startSandbox({ port: 0, pinDelayMs: 300, quiet: true });
		ids = await sandboxCredentials(api, sandbox, `payout run ${randomUUID().slice(0, 8)}`);
	});

	afterEach(async () => {
		await sandbox?.close();
	});

	afterAll(async () => {
		await n8n?.release();
	});

	const ledger = async (): Promise<Payout[]> =>
		(await axios.get(`${sandbox.baseUrl}/sandbox/ledger`)).data.data.disbursements as Payout[];
	const requests = async (): Promise<Array<{ method: string; path: string }>> =>
		(await axios.get(`${sandbox.baseUrl}/sandbox/requests`)).data.data.requests;

	/** Runs example 4 once; returns its summary and what its Pay Out node output. */
	async function runExample4(): Promise<{ summary: Json[]; paidOut: Json[] }> {
		const workflow = loadExample('4-payout-run.json', {
			BASIC_CREDENTIAL_ID: ids.basicId,
			API_KEY_CREDENTIAL_ID: ids.apiKeyId,
			...tables,
		});
		const { items, workflowId } = await runWorkflowViaWebhook(api, n8n.url, workflow);
		const [execution] = await api.executions(workflowId);
		const full = await api.execution(execution.id);
		const data = parseFlatted(String(full.data)) as {
			resultData: {
				runData: Record<string, Array<{ data: { main: Array<Array<{ json: Json }>> } }>>;
			};
		};
		const paidOut = data.resultData.runData['Pay Out'][0].data.main[0].map((i) => i.json);
		return { summary: items, paidOut };
	}

	it('pays each recipient once over two runs; both reports give every outcome, and the second says the money moved before', async () => {
		const first = await runExample4();
		const byOutcome = Object.fromEntries(first.summary.map((row) => [row.outcome, row]));
		expect(Object.keys(byOutcome).sort()).toEqual(['completed', 'failed', 'pending', 'refused']);
		// What happened first, then whether the money moved in this run, then the figures.
		expect(Object.keys(byOutcome.completed)).toEqual([
			'outcome',
			'run',
			'payouts',
			'amount',
			'fees',
			'rows',
		]);
		expect(byOutcome.completed).toMatchObject({
			run: 'sent in this run',
			payouts: 2,
			amount: 1700,
			fees: 30,
			rows: 'Amina (po1001); Chausiku (po1003)',
		});
		expect(byOutcome.failed).toMatchObject({
			run: 'sent in this run',
			payouts: 2,
			amount: 2750,
			fees: 46,
			rows: 'Baraka (po1002): The recipient wallet rejected the transfer (wallet limit reached); Esther (po1006): The recipient number is not registered for mobile money',
		});
		expect(byOutcome.pending).toMatchObject({
			run: 'sent in this run',
			payouts: 1,
			amount: 300,
			fees: 7,
			rows: 'Dalmas (po1004): not settled yet, look it up later',
		});
		expect(byOutcome.refused).toMatchObject({
			run: 'not sent',
			payouts: 1,
			amount: 5,
			rows: 'Too small (po1005): Amount 5 is outside the MPESA limits 10-150000',
		});
		expect(first.paidOut.map((o) => o.alreadyExisted ?? false)).toEqual([
			false,
			false,
			false,
			false,
			false,
		]);
		const afterFirst = await ledger();
		expect(afterFirst.map((d) => d.key).sort()).toEqual([
			'po1001',
			'po1002',
			'po1003',
			'po1004',
			'po1006',
		]);

		const seen = (await requests()).length;
		const secondStarted = Date.now();
		const second = await runExample4();
		// It sends nothing, so it waits for nothing: Dalmas's payout, pending since the first run, is not
		// waited for again (that held the second run for the whole 20 s timeout).
		const secondSeconds = (Date.now() - secondStarted) / 1000;
		process.stdout.write(`Example 4, second run: ${secondSeconds.toFixed(1)} s\n`);
		expect(secondSeconds).toBeLessThan(20);
		// The same outcomes, and the report says the money moved before, not in this run.
		expect(second.summary).toEqual(
			first.summary.map((row) =>
				row.run === 'sent in this run' ? { ...row, run: 'sent before, not again' } : row,
			),
		);
		// Every payout was found by its ID before sending: the second run sent no payout request at all.
		const sentSince = (await requests()).slice(seen);
		expect(sentSince.filter((r) => r.method === 'POST')).toEqual([]);
		expect(second.paidOut.map((o) => [o.key, o.alreadyExisted, o.outcome])).toEqual(
			first.paidOut.map((o) => [o.key, true, o.outcome]),
		);
		const afterSecond = await ledger();
		expect(afterSecond.map((d) => d.id).sort()).toEqual(afterFirst.map((d) => d.id).sort());
	});

	it('cancelling an execution that waits for a payout stops it at once; nothing more is sent', async () => {
		const path = `wait-${randomUUID()}`;
		const key = `cancel${randomUUID().replace(/-/g, '').slice(0, 8)}`;
		const workflow = {
			name: `Cancel a waiting payout ${key}`,
			nodes: [
				webhookNode(path),
				littlePayNode(
					{
						resource: 'disbursement',
						operation: 'create',
						amount: 400,
						currency: 'KES',
						method: 'MPESA',
						// Ends in 3: the sandbox never settles it.
						to: '254712345673',
						keySource: 'mapped',
						key,
						waitForResult: 'untilSettled',
						waitTimeoutSeconds: 600,
						options: {},
					},
					ids,
				),
			],
			connections: chain('Webhook', 'Little Pay'),
			settings: { executionOrder: 'v1' },
		};
		const { id, versionId } = await api.createWorkflow(workflow);
		await api.activateWorkflow(id, versionId);
		expect((await postToNewWebhook(`${n8n.url}/webhook/${path}`, {})).status).toBe(200);
		const running = await waitFor('the execution waiting for the payout', async () => {
			const list = await api.executions(id);
			const paid = (await ledger()).some((d) => d.key === key);
			return paid && list[0]?.status === 'running' ? list[0] : undefined;
		});
		const stoppedAt = Date.now();
		const stop = await api.http.post(`/rest/executions/${running.id}/stop`, {});
		expect(stop.status).toBe(200);
		const ended = await waitFor(
			'the execution to end',
			async () => {
				const [execution] = await api.executions(id);
				return execution.status !== 'running' ? execution : undefined;
			},
			10000,
		);
		expect(ended.status).toBe('canceled');
		expect(Date.now() - stoppedAt).toBeLessThan(5000);
		const seen = (await requests()).length;
		await new Promise((r) => setTimeout(r, 5000));
		expect((await requests()).length).toBe(seen);
		expect((await ledger()).filter((d) => d.key === key)).toHaveLength(1);
		await api.http.post(`/rest/workflows/${id}/deactivate`, {});
	});
});

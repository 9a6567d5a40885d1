// The package in n8n's queue mode (issue 13): n8n 2.41.1 main + 2 workers + 2 webhook processes, a private
// Postgres and Redis (testkit/queueCluster.ts), the sandbox as gateway. One cluster for the whole suite,
// stopped in afterAll.
import { generateKeyPairSync, randomUUID } from 'node:crypto';

import axios from 'axios';

import { signCallback, startSandbox } from '../../sandbox';
import type { SandboxHandle } from '../../sandbox';
import { N8nApi } from '../../testkit/n8n';
import { runQueueCallbackFault } from '../../testkit/callbackFaults';
import {
	callMcpTool,
	connectMcp,
	mcpWorkflow,
	payoutToolParameters,
} from '../../testkit/mcpClient';
import { startQueueCluster } from '../../testkit/queueCluster';
import type { QueueCluster } from '../../testkit/queueCluster';
import {
	loadExample,
	postToNewWebhook,
	runViaWebhook,
	sandboxCredentials,
	settledExecutions,
	waitFor,
	waitForWebhook,
} from '../../testkit/n8nRuns';
import { littlePayToolNode } from '../../testkit/workflowParts';
import { pausingWorkflowJson } from './pauseWorkflow';

jest.setTimeout(900000);

const gatewayKey = generateKeyPairSync('rsa', { modulusLength: 2048 });

/** A gateway redelivery of a callback body: same body, fresh timestamp and signature. */
function redelivery(body: string): { body: string; headers: Record<string, string> } {
	const timestamp = String(Math.floor(Date.now() / 1000));
	return {
		body,
		headers: {
			'content-type': 'application/json',
			'x-littlepay-timestamp': timestamp,
			'x-littlepay-signature': signCallback(gatewayKey.privateKey, timestamp, body),
		},
	};
}

/** The execution ids a worker's log says it ran. */
function executionsRunBy(logs: string): Set<string> {
	return new Set([...logs.matchAll(/Worker started execution (\d+)/g)].map((m) => m[1]));
}

describe('the package in n8n queue mode (main, 2 workers, 2 webhook processes, Postgres, Redis)', () => {
	let sandbox: SandboxHandle;
	let cluster: QueueCluster;
	let api: N8nApi;
	let ids: { basicId: string; apiKeyId: string };

	beforeAll(async () => {
		sandbox = await startSandbox({
			port: 0,
			pinDelayMs: 1500,
			quiet: true,
			callbackRetryDelaysMs: [],
			privateKeyPem: gatewayKey.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
		});
		cluster = await startQueueCluster({ workers: 2, webhooks: 2, workerConcurrency: 5 });
		api = new N8nApi(cluster.main.url!);
		await api.setupOwner();
		ids = await sandboxCredentials(api, sandbox, 'queue');
	});

	afterAll(async () => {
		await cluster?.stop();
		await sandbox?.close();
	});

	/** Imports and activates a copy of example 5 (receipt on callback) with its own webhook id. */
	async function activeReceiptWorkflow(): Promise<{ id: string; webhookId: string }> {
		const workflow = loadExample('5-callback-receipt.json', {
			SANDBOX_PUBLIC_KEY: sandbox.merchant.publicKeyPem,
		});
		const webhookId = randomUUID();
		(workflow.nodes as Array<{ webhookId?: string }>)[0].webhookId = webhookId;
		const { id, versionId } = await api.createWorkflow(workflow);
		await api.activateWorkflow(id, versionId);
		for (const w of cluster.webhooks)
			await waitForWebhook(`${w.url}/webhook/${webhookId}/littlepay`);
		return { id, webhookId };
	}

	it('runs on Postgres 15 and loads the package in the main and both webhook processes', async () => {
		expect(cluster.postgres.major).toBe(15);
		expect(cluster.main.logs()).toMatch(/Postgres 15 is not supported/);
		const names = (await api.nodeTypes()).map((n) => n.name);
		expect(names).toEqual(
			expect.arrayContaining([
				'n8n-nodes-littlepay.littlePay',
				'n8n-nodes-littlepay.littlePayTrigger',
			]),
		);
		const { webhookId } = await activeReceiptWorkflow();
		// Each webhook process runs the trigger's own code: it refuses a body that is not JSON with its reason.
		for (const w of cluster.webhooks) {
			const res = await axios.post(`${w.url}/webhook/${webhookId}/littlepay`, 'hello', {
				headers: { 'content-type': 'text/plain' },
				validateStatus: () => true,
			});
			expect([w.name, res.status, res.data]).toEqual([
				w.name,
				400,
				{ received: false, error: 'The body is not JSON' },
			]);
		}
		// The main process does not serve production webhooks in this setup.
		const onMain = await axios.post(`${cluster.main.url}/webhook/${webhookId}/littlepay`, 'x', {
			validateStatus: () => true,
		});
		expect(onMain.data).not.toEqual({ received: false, error: 'The body is not JSON' });
	});

	it('completes example 1 (collect and wait) and the payout run on the workers, both workers used', async () => {
		const run = (file: string, callbackUrl: string, webhook: number) => {
			const workflow = loadExample(file, {
				BASIC_CREDENTIAL_ID: ids.basicId,
				API_KEY_CREDENTIAL_ID: ids.apiKeyId,
			});
			for (const node of workflow.nodes as Array<{ parameters: Record<string, unknown> }>) {
				if (typeof node.parameters.callbackUrl === 'string')
					node.parameters.callbackUrl = callbackUrl;
			}
			return runViaWebhook(api, cluster.webhooks[webhook].url!, workflow);
		};
		const before = (await axios.get(`${sandbox.baseUrl}/sandbox/ledger`)).data.data;
		// Six collections that each wait 1.5 s for the payer and three payout runs, started at once over both
		// webhook processes: more than one worker's concurrency (5), so both workers take some.
		const collects = Array.from({ length: 6 }, (_, i) =>
			run('1-mpesa-collect.json', `${sandbox.baseUrl}/sandbox/merchant`, i % 2),
		);
		const payouts = Array.from({ length: 3 }, (_, i) => run('4-payout-run.json', '', i % 2));
		const collected = await Promise.all(collects);
		const summaries = await Promise.all(payouts);

		for (const [item] of collected) {
			expect(item).toMatchObject({ status: 'COMPLETED', network: 'MPESA', timedOut: false });
		}
		// The three runs pay the same payout IDs: each recipient is paid once between them, and every
		// run reports the same outcomes.
		for (const summary of summaries) {
			const total = (outcome: string) => {
				const rows = summary.filter((row) => row.outcome === outcome);
				return {
					payouts: rows.reduce((sum, row) => sum + Number(row.payouts), 0),
					amount: rows.reduce((sum, row) => sum + Number(row.amount), 0),
				};
			};
			expect(total('completed')).toEqual({ payouts: 2, amount: 1700 });
			expect(total('failed')).toEqual({ payouts: 2, amount: 2750 });
			expect(total('pending')).toEqual({ payouts: 1, amount: 300 });
			expect(total('refused')).toEqual({ payouts: 1, amount: 5 });
		}
		// Between the three runs each payout was sent once: the rows "sent in this run" add up to it.
		const sentNow = summaries
			.flat()
			.filter((row) => row.run === 'sent in this run')
			.reduce((sum, row) => sum + Number(row.payouts), 0);
		expect(sentNow).toBe(5);
		const after = (await axios.get(`${sandbox.baseUrl}/sandbox/ledger`)).data.data;
		expect(after.disbursements.length - before.disbursements.length).toBe(5);
		const keys = collected.map(([item]) => String(item.key));
		const intents = after.intents as Array<{ key: string; status: string }>;
		for (const key of keys) {
			expect(intents.filter((i) => i.key === key).map((i) => i.status)).toEqual(['COMPLETED']);
		}

		const ranOn = cluster.workers.map((w) => executionsRunBy(w.logs()));
		expect(ranOn.map((s) => s.size).every((n) => n > 0)).toBe(true);
		expect(cluster.main.logs()).not.toMatch(/Worker started execution/);
	});

	it('pauses a payment on a worker and resumes it through a webhook process when Little Pay calls back', async () => {
		const { workflow, path } = pausingWorkflowJson(
			'collect',
			{ amount: 30, unit: 'minutes' },
			ids,
			sandbox.merchant.publicKeyPem,
		);
		const { id, versionId } = await api.createWorkflow(workflow);
		await api.activateWorkflow(id, versionId);
		const key = `q${Date.now().toString(36)}`;
		// A number ending in 3: the payer answers only when the test settles the payment below.
		const order = { amount: 650, description: 'Queue pause', key, mobile: '+254712345673' };
		// The webhook processes learn of an activation a little later than main: up to 60 s.
		const started = await postToNewWebhook(
			`${cluster.webhooks[1].url}/webhook/${path}`,
			order,
			60000,
		);
		expect(started.status).toBe(200);
		const waiting = await waitFor(
			'the paused execution',
			async () => (await api.executions(id)).find((e) => e.status === 'waiting'),
			120000,
		);
		const intent = (
			(await axios.get(`${sandbox.baseUrl}/sandbox/ledger`)).data.data.intents as Array<{
				key: string;
				reference: string;
			}>
		).find((i) => i.key === key)!;
		await axios.post(`${sandbox.baseUrl}/sandbox/payments/${intent.reference}/resolve`, {
			status: 'COMPLETED',
		});
		await waitFor(
			'the resumed execution',
			async () => ((await api.executions(id))[0]?.status === 'success' ? true : undefined),
			120000,
		);
		const callbacks = (await axios.get(`${sandbox.baseUrl}/sandbox/callbacks`)).data.data
			.callbacks as Array<{ url: string; status?: number }>;
		const resume = callbacks.filter((c) => c.url.includes(`/webhook-waiting/${waiting.id}`));
		// Through a webhook process (the resume URL's host is one), answered once.
		expect(resume.map((c) => c.status)).toEqual([200]);
		expect(cluster.webhooks.some((w) => resume[0].url.startsWith(w.url!))).toBe(true);
		expect(JSON.stringify(await api.execution(waiting.id))).toContain('payment.completed');
		expect(cluster.workers.some((w) => executionsRunBy(w.logs()).has(waiting.id))).toBe(true);
	});

	let delivered: { workflowId: string; webhookId: string; body: string };

	it('starts the trigger workflow once for a signed callback through a webhook process, also when redelivered to the other one', async () => {
		const { id, webhookId } = await activeReceiptWorkflow();
		const basic = Buffer.from(
			`${sandbox.merchant.clientId}:${sandbox.merchant.clientSecret}`,
		).toString('base64');
		const intent = await axios.post(
			`${sandbox.baseUrl}/api/payments/${sandbox.merchant.tokenId}/pay`,
			{
				amount: 1500,
				currency: 'KES',
				description: 'Queue order',
				callbackUrl: `${cluster.webhooks[0].url}/webhook/${webhookId}/littlepay`,
				key: 'queueorder01',
				payload: { billingAddress: { firstName: 'Amina', email: 'amina@example.com' } },
			},
			{ headers: { Authorization: `Basic ${basic}` } },
		);
		const reference = intent.data.data.reference as string;
		await axios.post(`${sandbox.baseUrl}/pay/${reference}/process`, {
			type: 'MPESA',
			payment: { mobile: '254712345670' },
		});
		const callback = await waitFor('the signed callback', async () => {
			const log = (await axios.get(`${sandbox.baseUrl}/sandbox/callbacks`)).data.data
				.callbacks as Array<{ body: string; status?: number; url: string }>;
			return log.find((c) => c.body.includes(reference) && c.status !== undefined);
		});
		expect(callback.status).toBe(200);

		const executions = await settledExecutions(api, id);
		expect(executions.map((e) => e.status)).toEqual(['success']);
		const execution = JSON.stringify(await api.execution(executions[0].id));
		expect(execution).toContain(
			`Received KES 1500 via MPESA for order queueorder01 (ref ${reference})`,
		);
		expect(cluster.workers.some((w) => executionsRunBy(w.logs()).has(executions[0].id))).toBe(true);

		// The gateway delivers it again, to the other webhook process: acknowledged, nothing started.
		const again = redelivery(callback.body);
		const replay = await axios.post(
			`${cluster.webhooks[1].url}/webhook/${webhookId}/littlepay`,
			again.body,
			{ headers: again.headers, validateStatus: () => true },
		);
		expect(replay.status).toBe(200);
		expect(replay.data).toMatchObject({ received: true, duplicate: true });
		expect(await settledExecutions(api, id)).toHaveLength(1);
		delivered = { workflowId: id, webhookId, body: callback.body };
	});

	it('starts nothing for a redelivered callback after every n8n process restarted', async () => {
		expect(delivered).toBeDefined();
		await cluster.restartN8n();
		api = new N8nApi(cluster.main.url!);
		await api.setupOwner();
		for (const w of cluster.webhooks) {
			await waitForWebhook(`${w.url}/webhook/${delivered.webhookId}/littlepay`);
			const again = redelivery(delivered.body);
			const replay = await axios.post(
				`${w.url}/webhook/${delivered.webhookId}/littlepay`,
				again.body,
				{ headers: again.headers, validateStatus: () => true },
			);
			expect([w.name, replay.status, replay.data.duplicate]).toEqual([w.name, 200, true]);
		}
		// A new event after the restart still starts the workflow (the trigger is live, not just deaf).
		const fresh = redelivery(delivered.body.replace('"amount":1500', '"amount":1501'));
		const accepted = await axios.post(
			`${cluster.webhooks[1].url}/webhook/${delivered.webhookId}/littlepay`,
			fresh.body,
			{ headers: fresh.headers, validateStatus: () => true },
		);
		expect(accepted.status).toBe(200);
		expect(accepted.data).toMatchObject({ received: true, event: 'payment.completed' });
		expect(accepted.data.eventId).toMatch(/^[0-9a-f]{32}$/);
		expect((await settledExecutions(api, delivered.workflowId)).map((e) => e.status)).toEqual([
			'success',
			'success',
		]);
	});

	it('an MCP client: the same payout called on both workers pays once, under one key', async () => {
		const token = `mcp-${randomUUID()}`;
		const bearerId = await api.createCredential('mcp bearer', 'httpBearerAuth', { token });
		const path = `littlepay-queue-${randomUUID()}`;
		const payout = littlePayToolNode(
			'payout',
			payoutToolParameters({ allowMoneyMoves: true, spendingLimits: { maxAmount: 1000 } }),
			ids,
			0,
		);
		const { id, versionId } = await api.createWorkflow(
			mcpWorkflow('Little Pay over MCP, queue mode', path, bearerId, [payout]),
		);
		await api.activateWorkflow(id, versionId);
		const client = await connectMcp(`${cluster.webhooks[0].url}/mcp/${path}`, token);
		const ledger = async () =>
			(await axios.get(`${sandbox.baseUrl}/sandbox/ledger`)).data.data.disbursements as Array<{
				key: string;
				amount: number;
			}>;
		const before = (await ledger()).length;
		try {
			const args = { amount: 430, to: '254712345670' };
			const ranBefore = cluster.workers.map((w) => executionsRunBy(w.logs()));
			// Each call runs as an execution of its own; the workers take turns at an idle queue, so four
			// identical calls reach both of them.
			const answers = [];
			for (let i = 0; i < 4; i++) answers.push(await callMcpTool(client, 'payout', args));
			const ranCalls = cluster.workers.map(
				(w, i) => [...executionsRunBy(w.logs())].filter((id) => !ranBefore[i].has(id)).length,
			);
			expect(ranCalls.every((n) => n > 0)).toBe(true);
			const [paid, ...again] = answers;
			expect(paid).toMatchObject({ outcome: 'accepted', amount: 430 });
			// A worker that ran the call remembers its answer (repeated); the other has no memory of it,
			// and the key, the same for the same call in the same hour, finds the payout at the gateway.
			for (const answer of again) {
				expect(answer).toMatchObject({ key: paid.key, id: paid.id });
				expect(answer.repeated === true || answer.alreadyExisted === true).toBe(true);
			}
			expect(again.some((answer) => answer.alreadyExisted === true)).toBe(true);
			const other = await callMcpTool(client, 'payout', { ...args, amount: 440 });
			expect(other.key).not.toEqual(paid.key);
			expect((await ledger()).slice(before).map((p) => [p.amount, p.key])).toEqual([
				[430, paid.key],
				[440, other.key],
			]);
		} finally {
			await client.close();
		}
	});

	// Last: it kills the cluster's database. Issue 18: n8n answers only after it has queued the execution.
	it('loses no acknowledged callback when Postgres is killed mid-burst and started again', async () => {
		const report = await runQueueCallbackFault(cluster, {
			receiver: 'littlePayTrigger',
			fault: { kind: 'killPostgres', afterAcks: 50, downMs: 5000 },
			callbacks: 150,
			concurrency: 20,
		});
		// The whole report on failure: which references were lost, and executions without a callback.
		expect({
			...report,
			lost: report.acknowledgedThenLost,
			faultMidBurst: report.acknowledgedBeforeFault >= 50,
		}).toMatchObject({
			faultMidBurst: true,
			lost: 0,
			neverAcknowledged: 0,
			redeliveredRan: report.redelivered,
		});
	});
});

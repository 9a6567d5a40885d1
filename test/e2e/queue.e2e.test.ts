// The package in n8n's queue mode (issue 13): n8n 2.41.1 main + 2 workers + 2 webhook processes, a private
// Postgres and Redis (testkit/queueCluster.ts), the sandbox as gateway. The jest run's shared cluster
// (sharedQueueCluster): this file restarts every n8n process and kills Postgres, and leaves it running.
import { generateKeyPairSync, randomUUID } from 'node:crypto';

import axios from 'axios';
import type { AxiosResponse } from 'axios';

import { signCallback, startSandbox } from '../../sandbox';
import type { CallbackLogEntry, SandboxHandle } from '../../sandbox';
import type { N8nApi } from '../../testkit/n8n';
import { runQueueCallbackFault } from '../../testkit/callbackFaults';
import {
	callMcpTool,
	connectMcp,
	mcpWorkflow,
	payoutToolParameters,
} from '../../testkit/mcpClient';
import { sharedQueueCluster } from '../../testkit/queueCluster';
import type { SharedQueueCluster } from '../../testkit/queueCluster';
import type { ExampleTables } from '../../testkit/n8nRuns';
import {
	createExampleTables,
	exampleReplacements,
	loadExample,
	postToNewWebhook,
	runViaWebhook,
	sandboxCredentials,
	settledExecutions,
	waitFor,
	waitForWebhook,
} from '../../testkit/n8nRuns';
import { lastNodeWebhookNode, littlePayToolNode } from '../../testkit/workflowParts';
import { pausingWorkflowJson } from '../../testkit/pauseWorkflow';

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

/**
 * Example 10 for this cluster: its trigger under a fresh webhook id, the intents' callbacks pointed at a
 * webhook process, the sweep's Schedule Trigger swapped for a Webhook (POST `littlepay-sweep`, answering
 * once the sweep has run) and the daily statement path left out (it needs a mailbox, and is not the point).
 */
function example10ForQueue(
	replacements: Record<string, string>,
	webhookUrl: string,
	triggerWebhookId: string,
): Record<string, unknown> {
	const loaded = loadExample('10-orders-ship-once.json', replacements);
	const original = (loaded.nodes as Array<Record<string, unknown>>).find(
		(n) => n.type === 'n8n-nodes-littlepay.littlePayTrigger',
	);
	if (!original) throw new Error('example 10 has no Little Pay Trigger');
	const workflow = JSON.parse(
		JSON.stringify(loaded)
			.split('http://127.0.0.1:5678')
			.join(webhookUrl)
			.split(String(original.webhookId))
			.join(triggerWebhookId),
	) as Record<string, unknown>;
	const connections = workflow.connections as Record<
		string,
		{ main?: Array<Array<{ node: string }> | null> }
	>;
	const statement = new Set<string>();
	const visit = (name: string) => {
		if (statement.has(name)) return;
		statement.add(name);
		for (const output of connections[name]?.main ?? [])
			for (const next of output ?? []) visit(next.node);
	};
	// The daily statement moved to example 11 (issue 37); an example 10 that has one again still leaves it out.
	let nodes = workflow.nodes as Array<Record<string, unknown>>;
	if (nodes.some((n) => n.name === 'Every Day at 18:00')) visit('Every Day at 18:00');
	nodes = nodes.filter((n) => !statement.has(String(n.name)));
	for (const name of statement) delete connections[name];
	const at = nodes.findIndex(
		(n) => n.name === 'Every 15 Minutes' && n.type === 'n8n-nodes-base.scheduleTrigger',
	);
	if (at < 0) throw new Error('example 10 has no Schedule Trigger named Every 15 Minutes');
	nodes[at] = {
		...lastNodeWebhookNode('littlepay-sweep', 'Every 15 Minutes', 'noData'),
		position: nodes[at].position,
	};
	if (
		nodes.some(
			(n) => n.type === 'n8n-nodes-base.scheduleTrigger' || n.type === 'n8n-nodes-base.emailSend',
		)
	)
		throw new Error('example 10 still has a Schedule Trigger or the statement e-mail');
	workflow.nodes = nodes;
	return workflow;
}

describe('the package in n8n queue mode (main, 2 workers, 2 webhook processes, Postgres, Redis)', () => {
	let sandbox: SandboxHandle;
	let cluster: SharedQueueCluster;
	let api: N8nApi;
	let ids: { basicId: string; apiKeyId: string };
	// The Data Tables the examples keep their books in: example 4 records its payouts, example 10 its payments.
	let tables: ExampleTables;

	beforeAll(async () => {
		sandbox = await startSandbox({
			port: 0,
			pinDelayMs: 1500,
			quiet: true,
			callbackRetryDelaysMs: [],
			privateKeyPem: gatewayKey.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
		});
		cluster = await sharedQueueCluster('queue');
		api = cluster.api;
		ids = await sandboxCredentials(api, sandbox, 'queue');
		tables = await createExampleTables(api);
	});

	afterAll(async () => {
		await cluster?.release();
		await sandbox?.close();
	});

	/** Imports and activates a copy of example 5 (receipt on callback) with its own webhook id. */
	async function activeReceiptWorkflow(): Promise<{ id: string; webhookId: string }> {
		const workflow = loadExample('5-callback-receipt.json', {
			API_KEY_CREDENTIAL_ID: ids.apiKeyId,
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
				...exampleReplacements(tables, 'queue0refund0token'),
			});
			for (const node of workflow.nodes as Array<{ parameters: Record<string, unknown> }>) {
				if (typeof node.parameters.callbackUrl === 'string')
					node.parameters.callbackUrl = callbackUrl;
			}
			return runViaWebhook(api, cluster.webhooks[webhook].url!, workflow);
		};
		const before = (await axios.get(`${sandbox.baseUrl}/sandbox/ledger`)).data.data;
		// What the workers ran before (the cluster is the run's shared one): this test counts only its own.
		const ranBefore = cluster.workers.map((w) => executionsRunBy(w.logs()));
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
		// The three runs pay the same payout IDs: each recipient is paid once between them. A run waits for
		// the payouts it sends and reports the ones another run sent as they stood (Pay Out waits only for
		// what its own run sends, issue 39), so every run accounts for all six rows, and the rows each run
		// sent, added up over the three, settle as one run alone would.
		const total = (rows: Array<Record<string, unknown>>, outcome: string) => {
			const matching = rows.filter((row) => row.outcome === outcome);
			return {
				payouts: matching.reduce((sum, row) => sum + Number(row.payouts), 0),
				amount: matching.reduce((sum, row) => sum + Number(row.amount), 0),
			};
		};
		for (const summary of summaries) {
			const accounted = ['completed', 'failed', 'pending'].map((outcome) =>
				total(summary, outcome),
			);
			expect({
				payouts: accounted.reduce((sum, t) => sum + t.payouts, 0),
				amount: accounted.reduce((sum, t) => sum + t.amount, 0),
			}).toEqual({ payouts: 5, amount: 4750 });
			expect(total(summary, 'refused')).toEqual({ payouts: 1, amount: 5 });
		}
		const sentRows = summaries.flat().filter((row) => row.run === 'sent in this run');
		expect(total(sentRows, 'completed')).toEqual({ payouts: 2, amount: 1700 });
		expect(total(sentRows, 'failed')).toEqual({ payouts: 2, amount: 2750 });
		expect(total(sentRows, 'pending')).toEqual({ payouts: 1, amount: 300 });
		// Between the three runs each payout was sent once: the rows "sent in this run" add up to it.
		const sentNow = summaries
			.flat()
			.filter((row) => row.run === 'sent in this run')
			.reduce((sum, row) => sum + Number(row.payouts), 0);
		expect(sentNow).toBe(5);
		const after = (await axios.get(`${sandbox.baseUrl}/sandbox/ledger`)).data.data;
		expect(after.disbursements.length - before.disbursements.length).toBe(5);
		// Example 4 keeps the books: every payout sent, whichever worker sent it, is recorded under its key.
		const sentKeys = (after.disbursements as Array<{ key: string }>)
			.slice(before.disbursements.length)
			.map((d) => d.key);
		const booked = (await api.dataTableRows(tables.payoutsId)).map((row) => String(row.key));
		expect([...new Set(booked)].sort()).toEqual([...new Set(sentKeys)].sort());
		const keys = collected.map(([item]) => String(item.key));
		const intents = after.intents as Array<{ key: string; status: string }>;
		for (const key of keys) {
			expect(intents.filter((i) => i.key === key).map((i) => i.status)).toEqual(['COMPLETED']);
		}

		const ranOn = cluster.workers.map(
			(w, i) => [...executionsRunBy(w.logs())].filter((id) => !ranBefore[i].has(id)).length,
		);
		expect(ranOn.every((n) => n > 0)).toBe(true);
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

	/**
	 * A paid sandbox payment (key `key`) whose signed callback went to a new receipt workflow through the
	 * first webhook process: the workflow, its webhook and the delivery as the sandbox logged it.
	 */
	/** Pays a new sandbox payment whose Callback URL is the trigger's on `webhookUrl`; its delivery. */
	const payTo = async (webhookUrl: string, webhookId: string, key: string) => {
		const basic = Buffer.from(
			`${sandbox.merchant.clientId}:${sandbox.merchant.clientSecret}`,
		).toString('base64');
		const intent = await axios.post(
			`${sandbox.baseUrl}/api/payments/${sandbox.merchant.tokenId}/pay`,
			{
				amount: 1500,
				currency: 'KES',
				description: 'Queue order',
				callbackUrl: `${webhookUrl}/webhook/${webhookId}/littlepay`,
				key,
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
				.callbacks as Array<{ body: string; status?: number; url: string; answer?: string }>;
			return log.find((c) => c.body.includes(reference) && c.status !== undefined);
		});
		return { reference, callback };
	};

	const paidCallback = async (key: string) => {
		const { id, webhookId } = await activeReceiptWorkflow();
		const { reference, callback } = await payTo(cluster.webhooks[0].url!, webhookId, key);
		return { id, webhookId, reference, callback };
	};

	it('starts the trigger workflow once for a signed callback through a webhook process, also when redelivered to the other one', async () => {
		const { id, webhookId, reference, callback } = await paidCallback('queueorder01');
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
	});

	it('starts nothing for a redelivered callback after every n8n process restarted', async () => {
		// Its own workflow and payment, run once before the restart (not the previous test's).
		const own = await paidCallback('queueorder02');
		const ran = await settledExecutions(api, own.id);
		if (own.callback.status !== 200 || ran.length !== 1 || ran[0].status !== 'success')
			throw new Error(
				`the first delivery did not run once: HTTP ${own.callback.status}, ${JSON.stringify(ran)}`,
			);
		const delivered = { workflowId: own.id, webhookId: own.webhookId, body: own.callback.body };
		expect(delivered).toBeDefined();
		await cluster.restartN8n();
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
		// A new payment's callback after the restart still starts the workflow (the trigger is live,
		// not just deaf). A genuine one: the trigger confirms each callback with the merchant's account,
		// so a re-signed copy with another amount would be refused as not this merchant's payment.
		const fresh = await payTo(cluster.webhooks[1].url!, delivered.webhookId, 'queueorder03');
		expect(fresh.callback.status).toBe(200);
		const accepted = JSON.parse(String(fresh.callback.answer)) as Record<string, unknown>;
		expect(accepted).toMatchObject({ received: true, event: 'payment.completed' });
		expect(accepted.eventId).toMatch(/^[0-9a-f]{32}$/);
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

	it('example 10: each payment callback delivered again to both webhook processes during a sweep on a worker ships each paid order once', async () => {
		const triggerWebhookId = randomUUID();
		const workflow = example10ForQueue(
			{
				BASIC_CREDENTIAL_ID: ids.basicId,
				API_KEY_CREDENTIAL_ID: ids.apiKeyId,
				SMTP_CREDENTIAL_ID: 'left-out',
				...exampleReplacements(tables, 'queue0refund0token'),
			},
			cluster.webhooks[0].url!,
			triggerWebhookId,
		);
		const { id, versionId } = await api.createWorkflow(workflow);
		await api.activateWorkflow(id, versionId);
		const triggerPath = `/webhook/${triggerWebhookId}/littlepay`;
		for (const w of cluster.webhooks) await waitForWebhook(`${w.url}${triggerPath}`);
		const genuineUrl = `${cluster.webhooks[0].url}${triggerPath}`;
		const sweepUrl = `${cluster.webhooks[1].url}/webhook/littlepay-sweep`;
		const callbackLog = async (): Promise<CallbackLogEntry[]> =>
			(await axios.get(`${sandbox.baseUrl}/sandbox/callbacks`)).data.data
				.callbacks as CallbackLogEntry[];
		const referenceOf = (entry: CallbackLogEntry) =>
			String((JSON.parse(entry.body) as Record<string, unknown>).reference);

		// Twelve orders through the New Order path, over both webhook processes: each recorded PENDING.
		const tag = randomUUID().replace(/-/g, '').slice(0, 6);
		const orders = await Promise.all(
			Array.from({ length: 12 }, async (_, i) => {
				const answer = await postToNewWebhook(
					`${cluster.webhooks[i % 2].url}/webhook/littlepay-order`,
					{ orderId: `qship${tag}${i}`, amount: 1200 + i },
					60000,
				);
				if (answer.status !== 200)
					throw new Error(`New Order: HTTP ${answer.status} ${JSON.stringify(answer.data)}`);
				return String((answer.data as { reference: string }).reference);
			}),
		);
		expect(new Set(orders).size).toBe(12);
		const recorded = await api.dataTableRows(tables.paymentsId);
		expect(recorded.map((row) => [row.reference, row.status]).sort()).toEqual(
			orders.map((r) => [r, 'PENDING']).sort(),
		);

		// All paid at once. As each genuine callback leaves the sandbox (for webhook process 1), the same
		// event goes again to BOTH webhook processes, re-signed as a gateway redelivery; the sweep is posted
		// with the first callback, so its Reconcile and claims run on a worker among the callbacks' claims.
		await Promise.all(
			orders.map((reference) =>
				axios.post(`${sandbox.baseUrl}/pay/${reference}/process`, {
					type: 'MPESA',
					payment: { mobile: '254712345670' },
				}),
			),
		);
		const mine = new Set(orders);
		const fired = new Set<string>();
		const copies: Array<Promise<{ process: string; status: number; answer: string }>> = [];
		let sweep: Promise<AxiosResponse> | undefined;
		const deadline = Date.now() + 120000;
		while (fired.size < orders.length) {
			if (Date.now() > deadline)
				throw new Error(`only ${fired.size} of ${orders.length} callbacks left the sandbox`);
			for (const entry of await callbackLog()) {
				if (entry.url !== genuineUrl) continue;
				const reference = referenceOf(entry);
				if (!mine.has(reference) || fired.has(reference)) continue;
				fired.add(reference);
				sweep ??= postToNewWebhook(sweepUrl, {}, 60000);
				for (const w of cluster.webhooks) {
					const copy = redelivery(entry.body);
					copies.push(
						axios
							.post(`${w.url}${triggerPath}`, copy.body, {
								headers: copy.headers,
								validateStatus: () => true,
								timeout: 120000,
							})
							.then((res) => {
								const data = res.data as Record<string, unknown>;
								const answer =
									res.status === 200
										? data.duplicate === true
											? 'duplicate'
											: 'ran'
										: `${res.status} ${String(data.error ?? data.reason ?? JSON.stringify(data))}`;
								return { process: w.name, status: res.status, answer };
							}),
					);
				}
			}
			await new Promise((r) => setTimeout(r, 25));
		}
		const answers = await Promise.all(copies);
		const firstSweep = await sweep!;
		expect(firstSweep.status).toBe(200);
		await settledExecutions(api, id);
		const secondSweep = await axios.post(
			sweepUrl,
			{},
			{ validateStatus: () => true, timeout: 120000 },
		);
		expect(secondSweep.status).toBe(200);
		const executions = await settledExecutions(api, id);

		const genuine = (await callbackLog()).filter((c) => c.url === genuineUrl);
		const shipments = await api.dataTableRows(tables.shipmentsId);
		const byReference = new Map<string, Array<Record<string, unknown>>>();
		for (const row of shipments) {
			const reference = String(row.reference);
			byReference.set(reference, [...(byReference.get(reference) ?? []), row]);
		}
		const doubles = [...byReference.entries()].filter(([, rows]) => rows.length > 1);
		const statuses = new Map(
			(await api.dataTableRows(tables.paymentsId)).map((row) => [
				String(row.reference),
				String(row.status),
			]),
		);
		const viaCallback = shipments.filter((row) => row.via === 'callback').length;
		const tally = (process: string) => {
			const counts: Record<string, number> = {};
			for (const a of answers.filter((x) => x.process === process))
				counts[a.answer] = (counts[a.answer] ?? 0) + 1;
			return JSON.stringify(counts);
		};
		const ranOn = cluster.workers.map(
			(w) => executions.filter((e) => executionsRunBy(w.logs()).has(e.id)).length,
		);
		// Executions of this workflow: the orders, the two sweeps and every callback copy n8n ran.
		const callbackRuns = executions.length - orders.length - 2;
		process.stdout.write(
			`queue ship-once: ${orders.length} paid, each callback delivered 3 times across both webhook ` +
				`processes during a sweep on a worker: shipments ${shipments.length} (${viaCallback} via callback, ` +
				`${shipments.length - viaCallback} via sweep), doubles ${doubles.length}; genuine callbacks ` +
				`answered ${JSON.stringify(genuine.map((c) => c.status))}; copies to ` +
				cluster.webhooks.map((w) => `${w.name} ${tally(w.name)}`).join(', ') +
				`; ${callbackRuns} callback executions, ${executions.length} in all (per worker ${ranOn.join('/')})\n`,
		);
		expect({
			shipped: orders.map((r) => [r, byReference.get(r)?.length ?? 0]),
			doubles: doubles.map(([r, rows]) => [r, rows.map((row) => [row.executionId, row.via])]),
			strays: [...byReference.keys()].filter((r) => !mine.has(r)),
			statuses: orders.map((r) => [r, statuses.get(r)]),
			notSuccess: executions.filter((e) => e.status !== 'success'),
			onWorkers: ranOn.reduce((a, b) => a + b, 0),
			copiesAnswered: answers.filter(
				(a) => !(a.status === 200 || (a.status === 503 && a.answer.includes('in-flight'))),
			),
		}).toEqual({
			shipped: orders.map((r) => [r, 1]),
			doubles: [],
			strays: [],
			statuses: orders.map((r) => [r, 'COMPLETED']),
			notSuccess: [],
			onWorkers: executions.length,
			copiesAnswered: [],
		});
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

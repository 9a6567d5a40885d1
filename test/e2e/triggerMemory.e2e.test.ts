// The trigger's duplicate memory in one real n8n 2.x process (issue 13): a gateway redelivery of a callback
// that already ran starts nothing after the workflow is deactivated and activated again, after an edit of
// the trigger's parameters is published (a rotated key), and after n8n restarts.
import { generateKeyPairSync, randomUUID } from 'node:crypto';

import axios from 'axios';

import { signCallback } from '../../sandbox';
import { N8nApi, startN8n } from '../../testkit/n8n';
import type { N8nServer } from '../../testkit/n8n';
import { settledExecutions, waitForWebhook } from '../../testkit/n8nRuns';

jest.setTimeout(600000);

const keys = [
	generateKeyPairSync('rsa', { modulusLength: 2048 }),
	generateKeyPairSync('rsa', { modulusLength: 2048 }),
];
const pem = (i: number) => keys[i].publicKey.export({ type: 'spki', format: 'pem' }).toString();

describe('the trigger remembers accepted events across re-activation, edits and restarts (one n8n)', () => {
	let n8n: N8nServer;
	let api: N8nApi;

	/** Delivers a callback body as the gateway does: fresh timestamp, signed with key `key`. */
	const deliver = async (url: string, body: string, key = 0) => {
		const timestamp = String(Math.floor(Date.now() / 1000));
		return axios.post(url, body, {
			headers: {
				'content-type': 'application/json',
				'x-littlepay-timestamp': timestamp,
				'x-littlepay-signature': signCallback(keys[key].privateKey, timestamp, body),
			},
			validateStatus: () => true,
		});
	};
	const body = (reference: string) =>
		JSON.stringify({
			reference,
			status: 'COMPLETED',
			payload: { billingAddress: { firstName: 'Amina' } },
			amount: 1500,
			key: 'order12345',
			currency: 'KES',
			provider: 'MPESA',
			date: '2026-11-23T10:00:00.000Z',
		});

	/**
	 * A published workflow of the test's own (Little Pay Trigger with key 0 -> Receipt) on its own webhook,
	 * so that what one test delivered is never another test's redelivery.
	 */
	const publishTrigger = async (): Promise<{ workflowId: string; url: string }> => {
		const hook = randomUUID();
		const created = await api.createWorkflow({
			name: `trigger memory ${hook}`,
			nodes: [
				{
					// The event memory across processes, not whose payment it is: no API key credential here,
					// so the account confirmation (its own tests) is turned off.
					parameters: {
						events: ['*'],
						confirmWithStatusApi: false,
						options: { publicKey: pem(0) },
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
		const url = `${n8n.url}/webhook/${hook}/littlepay`;
		await waitForWebhook(url);
		return { workflowId: created.id, url };
	};

	/** Delivers the first copy of each callback (key 0) and waits until their executions have run. */
	const acceptFirstCopies = async (
		trigger: { workflowId: string; url: string },
		references: string[],
	): Promise<void> => {
		for (const reference of references) {
			const first = await deliver(trigger.url, body(reference));
			if (first.status !== 200)
				throw new Error(
					`first copy of ${reference}: HTTP ${first.status} ${JSON.stringify(first.data)}`,
				);
		}
		const executions = await settledExecutions(api, trigger.workflowId);
		if (executions.length !== references.length || executions.some((e) => e.status !== 'success'))
			throw new Error(`first copies did not run once each: ${JSON.stringify(executions)}`);
	};

	beforeAll(async () => {
		// Its own n8n, not the run's shared one (testkit/sharedN8n.ts): a test restarts it.
		n8n = await startN8n();
		api = new N8nApi(n8n.url);
		await api.setupOwner();
	});

	afterAll(async () => {
		await n8n?.stop();
	});

	it('acknowledges an accepted callback with a small JSON body and outputs its eventId', async () => {
		const { workflowId, url } = await publishTrigger();
		const first = await deliver(url, body('MEM-1'));
		expect(first.status).toBe(200);
		expect(first.headers['content-type']).toMatch(/application\/json/);
		expect(first.data).toEqual({
			received: true,
			event: 'payment.completed',
			eventId: expect.stringMatching(/^[0-9a-f]{32}$/),
		});
		const [execution] = await settledExecutions(api, workflowId);
		const run = JSON.stringify(await api.execution(execution.id));
		expect(run).toContain(first.data.eventId);
	});

	it('starts nothing for a redelivery after the workflow is deactivated and activated again', async () => {
		const trigger = await publishTrigger();
		const { workflowId, url } = trigger;
		await acceptFirstCopies(trigger, ['MEM-1']);
		const res = await api.http.post(`/rest/workflows/${workflowId}/deactivate`, {});
		expect(res.status).toBe(200);
		const { versionId } = (await api.http.get(`/rest/workflows/${workflowId}`)).data.data;
		await api.activateWorkflow(workflowId, versionId);
		await waitForWebhook(url);
		const again = await deliver(url, body('MEM-1'));
		expect([again.status, again.data.duplicate]).toEqual([200, true]);
		expect(await settledExecutions(api, workflowId)).toHaveLength(1);
	});

	it('starts nothing for a redelivery after an edit of the trigger (rotated key) is published', async () => {
		const trigger = await publishTrigger();
		const { workflowId, url } = trigger;
		await acceptFirstCopies(trigger, ['MEM-1']);
		const current = (await api.http.get(`/rest/workflows/${workflowId}`)).data.data;
		const nodes = current.nodes as Array<{ name: string; parameters: Record<string, unknown> }>;
		nodes[0].parameters = { ...nodes[0].parameters, options: { publicKey: pem(1) } };
		const saved = await api.http.patch(`/rest/workflows/${workflowId}`, {
			...current,
			nodes,
		});
		expect(saved.status).toBe(200);
		expect(saved.data.data.versionId).not.toBe(current.versionId);
		await api.activateWorkflow(workflowId, saved.data.data.versionId);
		const published = (await api.http.get(`/rest/workflows/${workflowId}`)).data.data;
		expect(published.activeVersionId).toBe(saved.data.data.versionId);
		// n8n 2.41 publishes through an outbox polled every 15 s: until then the old key is live and a
		// redelivery signed with the new key is refused (401), and while n8n swaps the versions the webhook
		// is briefly not registered (404). Once live, it must be a duplicate.
		const deadline = Date.now() + 60000;
		let again = await deliver(url, body('MEM-1'), 1);
		while ((again.status === 401 || again.status === 404) && Date.now() < deadline) {
			await new Promise((r) => setTimeout(r, 500));
			again = await deliver(url, body('MEM-1'), 1);
		}
		expect([again.status, again.data.duplicate]).toEqual([200, true]);
		expect((await deliver(url, body('MEM-1'), 0)).status).toBe(401);
		expect((await deliver(url, body('MEM-2'), 1)).data).toMatchObject({
			event: 'payment.completed',
		});
		expect(await settledExecutions(api, workflowId)).toHaveLength(2);
	});

	it('starts nothing for a redelivery after n8n restarts', async () => {
		const trigger = await publishTrigger();
		const { workflowId, url } = trigger;
		await acceptFirstCopies(trigger, ['MEM-1', 'MEM-2']);
		const { userFolder } = n8n;
		const port = Number(new URL(n8n.url).port);
		await n8n.stop();
		n8n = await startN8n({ userFolder, port });
		api = new N8nApi(n8n.url);
		await api.setupOwner();
		await waitForWebhook(url);
		for (const reference of ['MEM-1', 'MEM-2']) {
			const again = await deliver(url, body(reference));
			expect([reference, again.status, again.data.duplicate]).toEqual([reference, 200, true]);
		}
		expect(await settledExecutions(api, workflowId)).toHaveLength(2);
	});
});

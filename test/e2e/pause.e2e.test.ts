// "Pause Until Little Pay Calls Back" in a real n8n 2.41.1: the execution waits in n8n's database,
// survives a restart of n8n, refuses forged, tampered, stale and unsigned resume calls, resumes once
// with the genuine signed callback, and goes on by itself at its timeout. Against the sandbox.
import { generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import axios from 'axios';
import { parse as parseFlatted } from 'flatted';

import { startSandbox } from '../../sandbox';
import type { SandboxHandle } from '../../sandbox';
import { N8nApi, startN8n } from '../../testkit/n8n';
import type { N8nServer } from '../../testkit/n8n';
import { deviceInformation } from '../../testkit/sandbox';
import { loadExample, postToNewWebhook, sandboxCredentials, waitFor } from '../../testkit/n8nRuns';
import { pausingWorkflowJson } from '../../testkit/pauseWorkflow';
import { webhookNode } from '../../testkit/workflowParts';

jest.setTimeout(600000);

type Json = Record<string, unknown>;

const gatewayKey = generateKeyPairSync('rsa', { modulusLength: 2048 });
const attacker = generateKeyPairSync('rsa', { modulusLength: 2048 });

describe('pausing an execution until Little Pay calls back, in a real n8n', () => {
	let sandbox: SandboxHandle;
	let n8n: N8nServer;
	let api: N8nApi;
	let port: number | undefined;
	const userFolder = mkdtempSync(join(tmpdir(), 'littlepay-pause-'));
	let ids: { basicId: string; apiKeyId: string };

	// Its own n8n, not the run's shared one (testkit/sharedN8n.ts): a test restarts it.
	/** Starts n8n in the suite's folder: the first time on a port startN8n picks, then on the same one. */
	const startOurN8n = async () => {
		n8n = await startN8n({ port, userFolder });
		port = Number(new URL(n8n.url).port);
		api = new N8nApi(n8n.url);
		await api.setupOwner();
	};

	beforeAll(async () => {
		sandbox = await startSandbox({
			port: 0,
			pinDelayMs: 300,
			quiet: true,
			callbackRetryDelaysMs: [500, 1000, 2000],
			privateKeyPem: gatewayKey.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
		});
		await startOurN8n();
		ids = await sandboxCredentials(api, sandbox, 'pause');
	});

	afterAll(async () => {
		await n8n?.stop();
		await sandbox?.close();
	});

	/** Webhook -> Little Pay (paused) -> Paid (No Operation); returns the webhook path and workflow id. */
	async function pausingWorkflow(
		operation: 'create' | 'collect',
		timeout: { amount: number; unit: string },
		expiresInMinutes?: number,
	): Promise<{ id: string; path: string }> {
		const { workflow, path } = pausingWorkflowJson(
			operation,
			timeout,
			ids,
			sandbox.merchant.publicKeyPem,
			expiresInMinutes,
		);
		const { id, versionId } = await api.createWorkflow(workflow);
		await api.activateWorkflow(id, versionId);
		return { id, path };
	}

	async function start(path: string, body: Json): Promise<void> {
		expect((await postToNewWebhook(`${n8n.url}/webhook/${path}`, body)).status).toBe(200);
	}

	const executionsOf = async (workflowId: string) => await api.executions(workflowId);

	async function onlyExecution(workflowId: string, status: string): Promise<{ id: string }> {
		return await waitFor(
			`an execution ${status}`,
			async () => {
				const list = await executionsOf(workflowId);
				return list.length === 1 && list[0].status === status ? list[0] : undefined;
			},
			240000,
		);
	}

	/** The items the Paid node received, read from the finished execution's run data. */
	async function paidItems(executionId: string): Promise<{ items: Json[]; raw: string }> {
		const execution = await api.execution(executionId);
		const raw =
			typeof execution.data === 'string' ? execution.data : JSON.stringify(execution.data);
		const data = parseFlatted(raw) as {
			resultData: {
				runData: Record<string, Array<{ data?: { main: Array<Array<{ json: Json }>> } }>>;
			};
		};
		const items = data.resultData.runData.Paid?.[0]?.data?.main?.[0] ?? [];
		return { items: items.map((i) => i.json), raw };
	}

	/** The callback URL the node gave Little Pay for a key: the execution's resume URL. */
	async function callbackUrlFor(key: string): Promise<string> {
		const requests = (await axios.get(`${sandbox.baseUrl}/sandbox/requests`)).data.data
			.requests as Array<{ method: string; path: string; body?: Json }>;
		const create = requests.find((r) => r.method === 'POST' && r.body?.key === key);
		return String(create?.body?.callbackUrl);
	}

	async function intentOf(key: string): Promise<Json> {
		const res = await axios.get(`${sandbox.baseUrl}/api/payments-v2/${key}`, {
			headers: { 'X-API-KEY': sandbox.merchant.apiKey },
		});
		return res.data.data as Json;
	}

	async function referenceOf(key: string): Promise<string> {
		return await waitFor(`the intent ${key}`, async () => {
			const intents = (await axios.get(`${sandbox.baseUrl}/sandbox/ledger`)).data.data
				.intents as Json[];
			return intents.find((i) => i.key === key)?.reference as string | undefined;
		});
	}

	async function statusBecomes(key: string, status: string): Promise<void> {
		await waitFor(`${key} to be ${status}`, async () =>
			(await intentOf(key)).status === status ? true : undefined,
		);
	}

	/** The payer types a number on the intent's hosted checkout page, as a person would. */
	async function payOnCheckoutPage(key: string, mobile: string): Promise<void> {
		const reference = await referenceOf(key);
		const page = await axios.post(
			`${sandbox.baseUrl}/checkout/${reference}/mobile`,
			new URLSearchParams({ type: 'MPESA', mobile }).toString(),
			{
				headers: { 'content-type': 'application/x-www-form-urlencoded' },
				maxRedirects: 0,
				validateStatus: () => true,
			},
		);
		expect(page.status).toBe(303);
	}

	async function createSandboxIntentFor(key: string, callbackUrl: string): Promise<void> {
		const basic = Buffer.from(
			`${sandbox.merchant.clientId}:${sandbox.merchant.clientSecret}`,
		).toString('base64');
		await axios.post(
			`${sandbox.baseUrl}/api/payments/${sandbox.merchant.tokenId}/pay`,
			{
				amount: 1200,
				currency: 'KES',
				description: 'Trigger order',
				callbackUrl,
				key,
				payload: { billingAddress: { country: 'KE', email: 'amina@example.com' } },
			},
			{ headers: { Authorization: `Basic ${basic}` } },
		);
	}

	type Delivery = Json & { url: string; status?: number; answer?: string; body: string };

	/**
	 * The sandbox's deliveries to a URL that n8n acknowledged (2xx), once there are `count`. A try that
	 * reached n8n before it had recorded the execution as waiting is answered 409 ("running already")
	 * and the gateway sends it again: under load that happens, and is no lost callback.
	 */
	async function deliveredTo(url: string, count: number): Promise<Delivery[]> {
		return await waitFor(`${count} callbacks to ${url}`, async () => {
			const all = (await axios.get(`${sandbox.baseUrl}/sandbox/callbacks`)).data.data
				.callbacks as Delivery[];
			const answered = all.filter((c) => c.url === url && c.status !== undefined);
			const acknowledged = answered.filter((c) => c.status! >= 200 && c.status! < 300);
			expect(answered.filter((c) => !acknowledged.includes(c) && c.status !== 409)).toEqual([]);
			return acknowledged.length >= count ? acknowledged : undefined;
		});
	}

	function signedCall(body: string, options: { ageSeconds?: number; forged?: boolean } = {}) {
		const timestamp = String(Math.floor(Date.now() / 1000) - (options.ageSeconds ?? 0));
		const key = options.forged ? attacker.privateKey : gatewayKey.privateKey;
		return {
			'content-type': 'application/json',
			'x-littlepay-timestamp': timestamp,
			'x-littlepay-signature': sign('sha256', Buffer.from(`${timestamp}.${body}`), key).toString(
				'base64',
			),
		};
	}

	it('a checkout link paid after an n8n restart resumes the execution once, verified, with COMPLETED; the timeout goes on by itself', async () => {
		// A one-minute pause that nobody pays, started first so its timeout runs during the rest. Its
		// intent expires later than the pause (else the sandbox's FAILED callback at expiry may come first).
		const lapsing = await pausingWorkflow('create', { amount: 1, unit: 'minutes' }, 10);
		const lapsingKey = `lapse${Date.now().toString(36)}`;
		await start(lapsing.path, { amount: 900, description: 'Never paid', key: lapsingKey });

		const checkout = await pausingWorkflow('create', { amount: 2, unit: 'hours' });
		const key = `chk${Date.now().toString(36)}`;
		await start(checkout.path, { amount: 1500, description: 'Order 77', key });
		const waiting = await onlyExecution(checkout.id, 'waiting');
		const resumeUrl = await callbackUrlFor(key);
		expect(resumeUrl).toContain(`/webhook-waiting/${waiting.id}`);
		const reference = (
			(await axios.get(`${sandbox.baseUrl}/sandbox/ledger`)).data.data.intents as Json[]
		).find((i) => i.key === key)?.reference as string;

		// Forged, tampered, stale, unsigned and other-payment calls: 401, and it keeps waiting.
		const body = JSON.stringify({
			reference,
			status: 'COMPLETED',
			payload: { billingAddress: { email: 'amina@example.com' } },
			amount: 1500,
			key,
			currency: 'KES',
			provider: 'MPESA',
			date: new Date().toISOString(),
		});
		const other = body.replace(reference, 'someone-else');
		const attempts: Array<[string, string, Record<string, string>]> = [
			['forged', body, signedCall(body, { forged: true })],
			['tampered', body.replace('1500', '1'), signedCall(body)],
			['stale', body, signedCall(body, { ageSeconds: 3600 })],
			['unsigned', body, { 'content-type': 'application/json' }],
			['other payment', other, signedCall(other)],
		];
		for (const [label, raw, headers] of attempts) {
			const res = await axios.post(resumeUrl, raw, { headers, validateStatus: () => true });
			expect({ label, status: res.status }).toEqual({ label, status: 401 });
		}
		expect((await executionsOf(checkout.id)).map((e) => e.status)).toEqual(['waiting']);

		// Restart n8n while the execution waits: nothing of the wait lives in the process.
		await n8n.stop();
		await startOurN8n();
		expect((await executionsOf(checkout.id)).map((e) => e.status)).toEqual(['waiting']);

		// The payer pays on the checkout link (here by card, straight at the gateway).
		await axios.post(`${sandbox.baseUrl}/pay/${reference}/cspaToken`, {
			type: 'CARDS',
			payment: {
				cc_number: '4111111111111111',
				cc_cvv: '123',
				cc_exp: '01/39',
				cc_name: 'Amina Otieno',
			},
		});
		await axios.post(`${sandbox.baseUrl}/pay/${reference}/enroll`, { deviceInformation });
		const paid = await axios.post(`${sandbox.baseUrl}/pay/${reference}/process`, { type: 'CARDS' });
		expect(paid.data.data.status).toBe('COMPLETED');

		const finished = await onlyExecution(checkout.id, 'success');
		const { items, raw } = await paidItems(finished.id);
		expect(items).toHaveLength(1);
		expect(items[0]).toMatchObject({
			event: 'payment.completed',
			reference,
			key,
			status: 'COMPLETED',
			provider: 'CARDS',
			verified: 'signature',
			timedOut: false,
		});
		expect(items[0].waitedSeconds).toEqual(expect.any(Number));
		// No card data in the execution's run data.
		expect(raw).not.toContain('4111111111111111');
		expect(raw).not.toContain('01/39');

		// A duplicate delivery of the genuine callback after resumption starts nothing.
		const delivered = (
			(await axios.get(`${sandbox.baseUrl}/sandbox/callbacks`)).data.data.callbacks as Array<
				Json & {
					url: string;
					status?: number;
					answer?: string;
					body: string;
					timestamp: string;
					signature: string;
				}
			>
		).filter((c) => c.url === resumeUrl);
		expect(delivered.filter((c) => c.status === 200)).toHaveLength(1);
		const genuine = delivered.find((c) => c.status === 200)!;
		// n8n answered it with the node's JSON, once it had recorded the resumption.
		expect(JSON.parse(String(genuine.answer))).toEqual({
			received: true,
			event: 'payment.completed',
		});
		const replay = await axios.post(resumeUrl, genuine.body, {
			headers: {
				'content-type': 'application/json',
				'x-littlepay-timestamp': genuine.timestamp,
				'x-littlepay-signature': genuine.signature,
			},
			validateStatus: () => true,
		});
		expect(replay.status).toBeGreaterThanOrEqual(400);
		expect((await executionsOf(checkout.id)).map((e) => e.status)).toEqual(['success']);

		// The unpaid one: n8n's wait tracker resumes it at its timeout, across the restart too.
		const lapsed = await onlyExecution(lapsing.id, 'success');
		const lapsedItems = (await paidItems(lapsed.id)).items;
		expect(lapsedItems).toEqual([
			expect.objectContaining({
				key: lapsingKey,
				status: 'PENDING',
				timedOut: true,
				waitedSeconds: 60,
			}),
		]);
	});

	it('a failed PIN prompt keeps the pause waiting while the intent is payable; its expiry ends it FAILED once, and a late callback is answered 409', async () => {
		const collect = await pausingWorkflow('collect', { amount: 30, unit: 'minutes' });
		const key = `fail${Date.now().toString(36)}`;
		// Numbers ending in 1: insufficient funds.
		await start(collect.path, {
			amount: 700,
			description: 'Order 78',
			key,
			mobile: '+254712345671',
		});
		const reference = await referenceOf(key);
		await statusBecomes(key, 'FAILED');
		const resumeUrl = await callbackUrlFor(key);
		// The FAILED attempt's callback was acknowledged and the execution is still waiting.
		const failedCall = await deliveredTo(resumeUrl, 1);
		expect(failedCall.map((c) => [c.status, JSON.parse(String(c.answer))])).toEqual([
			[200, { received: true, ignored: 'payer-can-still-pay' }],
		]);
		expect((await executionsOf(collect.id)).map((e) => e.status)).toEqual(['waiting']);
		// The intent expires unpaid: now the payment has failed for good.
		await axios.post(`${sandbox.baseUrl}/sandbox/payments/${reference}/expire`);
		const finished = await onlyExecution(collect.id, 'success');
		const { items } = await paidItems(finished.id);
		expect(items).toEqual([
			expect.objectContaining({ key, status: 'FAILED', event: 'payment.failed', timedOut: false }),
		]);
		expect(items[0].payable).toBe(false);
		// One PIN prompt, one intent.
		const intents = (
			(await axios.get(`${sandbox.baseUrl}/sandbox/ledger`)).data.data.intents as Json[]
		).filter((i) => i.key === key);
		expect(intents.map((i) => (i.attempts as unknown[]).length)).toEqual([1]);
		// A callback after the end: n8n answers 409 (not 2xx), so a gateway that retries keeps it, and
		// Payment: Get Status by key finds the payment; nothing runs again.
		const [expiry] = (await deliveredTo(resumeUrl, 2)).slice(1);
		expect(expiry.status).toBe(200);
		const late = await axios.post(resumeUrl, expiry.body, {
			headers: signedCall(String(expiry.body)),
			validateStatus: () => true,
		});
		expect(late.status).toBe(409);
		expect((await executionsOf(collect.id)).map((e) => e.status)).toEqual(['success']);
	});

	it('a payer who fails once and then pays on the same checkout page: the paused Collect and the paused Wait for Completion each end COMPLETED once', async () => {
		const collect = await pausingWorkflow('collect', { amount: 30, unit: 'minutes' });
		const checkout = await pausingWorkflow('create', { amount: 30, unit: 'minutes' });
		const collectKey = `retryc${Date.now().toString(36)}`;
		const checkoutKey = `retryw${Date.now().toString(36)}`;
		await start(collect.path, {
			amount: 700,
			description: 'Order 79',
			key: collectKey,
			mobile: '+254712345671',
		});
		await start(checkout.path, { amount: 900, description: 'Order 80', key: checkoutKey });
		await onlyExecution(checkout.id, 'waiting');
		// The Collect prompt failed on the phone; the checkout payer fails on the page first.
		await statusBecomes(collectKey, 'FAILED');
		await payOnCheckoutPage(checkoutKey, '0712345671');
		await statusBecomes(checkoutKey, 'FAILED');
		for (const id of [collect.id, checkout.id]) {
			expect((await executionsOf(id)).map((e) => e.status)).toEqual(['waiting']);
		}
		// Both pay on the same intent's checkout page.
		await payOnCheckoutPage(collectKey, '0712345670');
		await payOnCheckoutPage(checkoutKey, '0712345670');
		for (const [id, key] of [
			[collect.id, collectKey],
			[checkout.id, checkoutKey],
		]) {
			const finished = await onlyExecution(id, 'success');
			const { items } = await paidItems(finished.id);
			expect(items).toEqual([
				expect.objectContaining({ key, status: 'COMPLETED', event: 'payment.completed' }),
			]);
			const attempts = ((await intentOf(key)).attempts as Json[]).map((a) => a.status);
			expect(attempts).toEqual(['FAILED', 'COMPLETED']);
		}
	});

	it('the long poll of Wait for Completion ends COMPLETED when a failed attempt is followed by a payment', async () => {
		const { workflow, path } = pausingWorkflowJson(
			'create',
			{ amount: 30, unit: 'minutes' },
			ids,
			sandbox.merchant.publicKeyPem,
		);
		const wait = (workflow.nodes as Json[]).find((n) => n.name === 'Wait')!;
		wait.parameters = {
			...(wait.parameters as Json),
			waitForPayment: 'longPoll',
			options: { waitTimeoutSeconds: 120 },
		};
		const { id, versionId } = await api.createWorkflow(workflow);
		await api.activateWorkflow(id, versionId);
		const key = `retryl${Date.now().toString(36)}`;
		await start(path, { amount: 1100, description: 'Order 81', key });
		await payOnCheckoutPage(key, '0712345672');
		await statusBecomes(key, 'FAILED');
		await payOnCheckoutPage(key, '0712345670');
		const finished = await onlyExecution(id, 'success');
		const { items } = await paidItems(finished.id);
		expect(items).toEqual([expect.objectContaining({ key, status: 'COMPLETED', timedOut: false })]);
	});

	it('the trigger pattern (example 5): a failed attempt tells the payer, the payment that follows writes the one receipt', async () => {
		const workflow = loadExample('5-callback-receipt.json', {
			API_KEY_CREDENTIAL_ID: ids.apiKeyId,
		});
		const trigger = (workflow.nodes as Json[])[0];
		trigger.webhookId = `retry-${Date.now().toString(36)}`;
		const { id, versionId } = await api.createWorkflow(workflow);
		await api.activateWorkflow(id, versionId);
		const callbackUrl = `${n8n.url}/webhook/${String(trigger.webhookId)}/littlepay`;
		await waitFor('the production webhook', async () => {
			const probe = await axios.post(callbackUrl, '', { validateStatus: () => true });
			return probe.status === 404 ? undefined : probe.status;
		});
		const key = `retryt${Date.now().toString(36)}`;
		await createSandboxIntentFor(key, callbackUrl);
		await payOnCheckoutPage(key, '0712345671');
		await statusBecomes(key, 'FAILED');
		await payOnCheckoutPage(key, '0712345670');
		const executions = await waitFor('two executions', async () => {
			const list = await executionsOf(id);
			return list.length === 2 && list.every((e) => e.status === 'success') ? list : undefined;
		});
		const ran: string[] = [];
		for (const execution of executions) {
			const { raw } = await paidItems(execution.id);
			for (const node of ['Write Receipt', 'Tell the Payer'])
				if (raw.includes(`"${node}"`)) ran.push(node);
		}
		expect(ran.sort()).toEqual(['Tell the Payer', 'Write Receipt']);
	});

	it('example 6: the checkout link is sent, the execution pauses, and the paid order is shipped', async () => {
		const workflow = loadExample('6-checkout-link-pause.json', {
			BASIC_CREDENTIAL_ID: ids.basicId,
			API_KEY_CREDENTIAL_ID: ids.apiKeyId,
		});
		const nodes = workflow.nodes as Json[];
		const path = `example6-${Date.now().toString(36)}`;
		// The demo starts it by hand; here a Webhook starts it.
		nodes[0] = webhookNode(path, 'Start');
		const { id, versionId } = await api.createWorkflow(workflow);
		await api.activateWorkflow(id, versionId);
		await start(path, {});
		await onlyExecution(id, 'waiting');
		const intent = (
			(await axios.get(`${sandbox.baseUrl}/sandbox/ledger`)).data.data.intents as Json[]
		).find((i) => i.description === 'Order 1006' && i.status === 'PENDING');
		expect(intent).toBeDefined();
		expect(await callbackUrlFor(String(intent!.key))).toContain('/webhook-waiting/');
		// The customer follows the sticky note on the checkout page: 0712345671 fails, then 0712345670 pays.
		const key = String(intent!.key);
		await payOnCheckoutPage(key, '0712345671');
		await statusBecomes(key, 'FAILED');
		expect((await executionsOf(id)).map((e) => e.status)).toEqual(['waiting']);
		await payOnCheckoutPage(key, '0712345670');
		const finished = await onlyExecution(id, 'success');
		const execution = await api.execution(finished.id);
		const data = parseFlatted(String(execution.data)) as {
			resultData: {
				runData: Record<string, Array<{ data?: { main: Array<Array<{ json: Json }>> } }>>;
			};
		};
		const shipped = data.resultData.runData['Ship the Order']?.[0]?.data?.main?.[0] ?? [];
		expect(shipped.map((i) => i.json)).toEqual([
			expect.objectContaining({ reference: intent!.reference, status: 'COMPLETED' }),
		]);
		expect(data.resultData.runData['Look the Status Up']).toBeUndefined();
		expect(data.resultData.runData['Payment Failed']).toBeUndefined();
	});
});

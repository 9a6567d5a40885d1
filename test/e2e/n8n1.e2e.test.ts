// The package in the last n8n 1.x line (1.123.81, on this machine's Node 20): it loads, and a
// workflow runs against the sandbox. The full end-to-end suite runs on n8n 2.41.1 (n8n.e2e.test.ts).
import axios from 'axios';

import { startSandbox } from '../../sandbox';
import type { SandboxHandle } from '../../sandbox';
import { N8nApi, startN8n } from '../../testkit/n8n';
import type { N8nServer } from '../../testkit/n8n';
import {
	loadExample,
	postToNewWebhook,
	runViaWebhook,
	sandboxCredentials,
	waitFor,
} from '../../testkit/n8nRuns';
import { pausingWorkflowJson } from '../../testkit/pauseWorkflow';
import { expectExactlyOnce, expectUnknownHeld, failAndRetry } from '../../testkit/retryScenario';

jest.setTimeout(900000);

const N8N_1_VERSION = '1.123.81';

describe(`the package in n8n ${N8N_1_VERSION}`, () => {
	let sandbox: SandboxHandle;
	let n8n: N8nServer;
	let api: N8nApi;

	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0, pinDelayMs: 300, quiet: true });
		// Its own n8n: the shared one is 2.41.1 (testkit/sharedN8n.ts).
		n8n = await startN8n({ version: N8N_1_VERSION });
		api = new N8nApi(n8n.url);
		await api.setupOwner();
	});

	afterAll(async () => {
		await n8n?.stop();
		await sandbox?.close();
	});

	it('loads both nodes and both credential types', async () => {
		expect(n8n.logs()).toContain(`Version: ${N8N_1_VERSION}`);
		const names = (await api.nodeTypes()).map((n) => n.name);
		expect(names).toEqual(
			expect.arrayContaining([
				'n8n-nodes-littlepay.littlePay',
				'n8n-nodes-littlepay.littlePayTrigger',
			]),
		);
		const credentials = (await api.credentialTypes()).map((c) => c.name);
		expect(credentials).toEqual(
			expect.arrayContaining(['littlePayBasicApi', 'littlePayApiKeyApi']),
		);
	});

	it('collects an M-Pesa payment and waits for it (example 1)', async () => {
		const ids = await sandboxCredentials(api, sandbox, 'n8n 1.x');
		const workflow = loadExample('1-mpesa-collect.json', {
			BASIC_CREDENTIAL_ID: ids.basicId,
			API_KEY_CREDENTIAL_ID: ids.apiKeyId,
		});
		(workflow.nodes as Array<{ parameters: Record<string, unknown> }>)[1].parameters.callbackUrl =
			`${sandbox.baseUrl}/sandbox/merchant`;
		const [collected] = await runViaWebhook(api, n8n.url, workflow);
		expect(collected).toMatchObject({
			status: 'COMPLETED',
			// New credentials mask payer details by default (Payer Details: masked); the payer was sent as typed.
			mobile: '2547•••••670',
			network: 'MPESA',
			timedOut: false,
		});
		const intents = (await axios.get(`${sandbox.baseUrl}/sandbox/ledger`)).data.data
			.intents as Array<{ key: string; status: string }>;
		expect(intents.filter((i) => i.key === collected.key).map((i) => i.status)).toEqual([
			'COMPLETED',
		]);
	});

	it('a failed payout run with Key empty, retried from the Executions list, pays each recipient once', async () => {
		expectExactlyOnce(await failAndRetry(api, n8n.url, sandbox, 'payouts', 'refused'));
	});

	it('a payout run whose create got a 503 and no lookup answer, retried at once, sends nothing more', async () => {
		expectUnknownHeld(await failAndRetry(api, n8n.url, sandbox, 'payouts', 'unknown'));
	});

	it('pauses a collect until the signed callback and resumes it with COMPLETED', async () => {
		const ids = await sandboxCredentials(api, sandbox, 'n8n 1.x pause');
		const { workflow, path } = pausingWorkflowJson(
			'collect',
			{ amount: 30, unit: 'minutes' },
			ids,
			sandbox.merchant.publicKeyPem,
		);
		const { id, versionId } = await api.createWorkflow(workflow);
		await api.activateWorkflow(id, versionId);
		const key = `one${Date.now().toString(36)}`;
		const body = { amount: 800, description: 'Order 1x', key, mobile: '+254712345670' };
		expect((await postToNewWebhook(`${n8n.url}/webhook/${path}`, body)).status).toBe(200);
		const finished = await waitFor(
			'the resumed execution',
			async () => {
				const list = await api.executions(id);
				return list.length === 1 && list[0].status === 'success' ? list[0] : undefined;
			},
			120000,
		);
		expect(JSON.stringify(await api.execution(finished.id))).toContain('payment.completed');
		const callbacks = (await axios.get(`${sandbox.baseUrl}/sandbox/callbacks`)).data.data
			.callbacks as Array<{ url: string; status?: number }>;
		expect(
			callbacks.filter((c) => c.url.includes('/webhook-waiting/') && c.status === 200),
		).toHaveLength(1);
	});
});

// Little Pay tools in n8n's AI Agent (issue 19), in a real n8n 2.41.1: the OpenAI Chat Model's credential
// points at a fake chat-completions server on loopback that answers with fixed tool calls (a status
// question, a refund over the cap, the same payout twice, and a chat session over several messages). The
// refusals reach the agent as data (the tool messages n8n sends back to the model), and the sandbox's ledger
// shows what the limits allow and no more.
import { randomUUID } from 'node:crypto';

import axios from 'axios';

import { startSandbox } from '../../sandbox';
import type { SandboxHandle } from '../../sandbox';
import { fakeModel } from '../../testkit/fakeModel';
import type { Json } from '../../testkit/fakeModel';
import type { N8nApi } from '../../testkit/n8n';
import { sharedN8n } from '../../testkit/sharedN8n';
import type { SharedN8n } from '../../testkit/sharedN8n';
import {
	paidSandboxIntent,
	postToNewWebhook,
	sandboxCredentials,
	waitFor,
} from '../../testkit/n8nRuns';
import { agentWorkflow, littlePayToolNode, webhookNode } from '../../testkit/workflowParts';

jest.setTimeout(600000);

describe('Little Pay tools in an AI Agent (real n8n 2.41.1, scripted model)', () => {
	let sandbox: SandboxHandle;
	let n8n: SharedN8n;
	let api: N8nApi;
	let model: Awaited<ReturnType<typeof fakeModel>>;
	let path: string;
	let paidReference: string;
	let workflowId: string;
	let chatWorkflowId: string;
	let chatWebhookId: string;
	let guardedWorkflowId: string;
	let guardedPath: string;

	const ledger = async () =>
		(await axios.get(`${sandbox.merchant.baseUrl}/sandbox/ledger`)).data.data;

	/** Sends one message to the agent, waits for its execution, and returns the tool answers the model got. */
	async function ask(message: string): Promise<Json[]> {
		return await answered(workflowId, message, async () => {
			const res = await postToNewWebhook(`${n8n.url}/webhook/${path}`, { message });
			if (res.status !== 200)
				throw new Error(`agent: HTTP ${res.status} ${JSON.stringify(res.data)}`);
		});
	}

	/** Sends one message to the agent whose tools use the paused credential and a day cap (issue 53). */
	async function askGuarded(message: string): Promise<Json[]> {
		return await answered(guardedWorkflowId, message, async () => {
			const res = await postToNewWebhook(`${n8n.url}/webhook/${guardedPath}`, { message });
			if (res.status !== 200)
				throw new Error(`agent: HTTP ${res.status} ${JSON.stringify(res.data)}`);
		});
	}

	/** Sends one chat message in a session, as n8n's chat widget does, and returns the tool answers. */
	async function chat(sessionId: string, chatInput: string): Promise<Json[]> {
		return await answered(chatWorkflowId, chatInput, async () => {
			const res = await postToNewWebhook(`${n8n.url}/webhook/${chatWebhookId}/chat`, {
				action: 'sendMessage',
				sessionId,
				chatInput,
			});
			if (res.status !== 200)
				throw new Error(`chat: HTTP ${res.status} ${JSON.stringify(res.data)}`);
		});
	}

	/** Sends a message, waits for the new execution of the workflow, and reads what the model was told. */
	async function answered(
		workflow: string,
		message: string,
		send: () => Promise<void>,
	): Promise<Json[]> {
		const known = new Set((await api.executions(workflow)).map((e) => e.id));
		await send();
		const execution = await waitFor('the agent execution', async () => {
			const done = (await api.executions(workflow)).find(
				(e) => !known.has(e.id) && e.status !== 'running' && e.status !== 'new',
			);
			return done;
		});
		expect(execution.status).toBe('success');
		return model.toolAnswersFor(message);
	}

	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0, pinDelayMs: 100, quiet: true });
		// The payment the status and refund questions are about: 1,000 KES, completed.
		paidReference = await paidSandboxIntent(sandbox, {
			amount: 1000,
			description: 'Agent test',
			key: `agent${Date.now()}`,
		});
		model = await fakeModel({
			'has my payment arrived': [{ name: 'payment_status', args: { reference: paidReference } }],
			'refund 800': [
				{ name: 'refund', args: { reference: paidReference, amount: 800, reason: 'test' } },
			],
			'pay out twice': [
				{ name: 'payout', args: { amount: 500, to: '254712345670' } },
				{ name: 'payout', args: { amount: 500, to: '254712345670' } },
			],
			'pay out too much': [{ name: 'payout', args: { amount: 5000, to: '254712345670' } }],
			'pay Amina 300': [{ name: 'payout', args: { amount: 300, to: '254712345670' } }],
			'did it go? pay her 300 then': [
				{ name: 'payout', args: { amount: 300, to: '254712345670' } },
			],
			'now pay Baraka 600': [{ name: 'payout', args: { amount: 600, to: '254712345680' } }],
			'forge: pay 500': [{ name: 'payout', args: { amount: 500, to: '254712345670' } }],
			// The model writes its own sessionId into the call, hoping for a fresh session cap.
			'forge: new session, pay 400': [
				{
					name: 'payout',
					args: { amount: 400, to: '254712345670', sessionId: 'forged-by-the-model' },
				},
			],
			'paused: pay 100': [{ name: 'payout_paused', args: { amount: 100, to: '254712345670' } }],
			'daily: pay 400': [{ name: 'payout_daily', args: { amount: 400, to: '254712345670' } }],
			'daily: pay 350 more': [{ name: 'payout_daily', args: { amount: 350, to: '254712345670' } }],
		});
		n8n = await sharedN8n('agent');
		api = n8n.api;
		const ids = await sandboxCredentials(api, sandbox, 'agent');
		const openAiId = await api.createCredential('fake model', 'openAiApi', {
			apiKey: 'sk-test',
			url: model.url,
		});
		const tool = (name: string, parameters: Json, y: number) =>
			littlePayToolNode(name, parameters, ids, y);
		path = `agent-${randomUUID()}`;
		const tools = [
			tool(
				'payment_status',
				{
					resource: 'payment',
					operation: 'getStatus',
					paymentId: "={{ $fromAI('reference', 'Payment reference or key', 'string') }}",
				},
				200,
			),
			tool(
				'refund',
				{
					resource: 'refund',
					operation: 'create',
					paymentId: "={{ $fromAI('reference', 'Payment reference or key', 'string') }}",
					refundType: 'partial',
					amount: "={{ $fromAI('amount', 'Amount in the main unit', 'number') }}",
					reason: "={{ $fromAI('reason', 'Why', 'string') }}",
					allowMoneyMoves: true,
					spendingLimits: { maxAmount: 500 },
				},
				350,
			),
			tool(
				'payout',
				{
					resource: 'disbursement',
					operation: 'create',
					method: 'MPESA',
					amount: "={{ $fromAI('amount', 'Amount in KES', 'number') }}",
					to: "={{ $fromAI('to', 'Recipient number', 'string') }}",
					allowMoneyMoves: true,
					spendingLimits: { maxAmount: 1000 },
				},
				500,
			),
		];
		const created = await api.createWorkflow(
			agentWorkflow(
				'Little Pay agent',
				webhookNode(path),
				{ promptType: 'define', text: '={{ $json.body.message }}', options: {} },
				openAiId,
				tools,
			),
		);
		workflowId = created.id;
		await api.activateWorkflow(created.id, created.versionId);

		// A public chat (the widget's webhook) whose payout tool may move at most KES 800 per chat session.
		chatWebhookId = randomUUID();
		const chatPayout = tool(
			'payout',
			{
				...(tools[2].parameters as Json),
				spendingLimits: { maxAmount: 1000, maxTotalPerSession: 800 },
			},
			200,
		);
		const chatCreated = await api.createWorkflow(
			agentWorkflow(
				'Little Pay chat agent',
				{
					name: 'When Chat Message Received',
					type: '@n8n/n8n-nodes-langchain.chatTrigger',
					typeVersion: 1.1,
					position: [0, 0],
					webhookId: chatWebhookId,
					parameters: { public: true, mode: 'webhook', options: {} },
				},
				{ options: {} },
				openAiId,
				[chatPayout],
			),
		);
		chatWorkflowId = chatCreated.id;
		await api.activateWorkflow(chatCreated.id, chatCreated.versionId);

		// Issue 53: a payout tool on a credential with Pause Money Moves on, and one with a day cap.
		const pausedId = await api.createCredential('agent paused', 'littlePayApiKeyApi', {
			apiKey: sandbox.merchant.apiKey,
			baseUrl: sandbox.merchant.baseUrl,
			disbursementBaseUrl: '',
			pauseMoneyMoves: true,
		});
		guardedPath = `agent-guarded-${randomUUID()}`;
		const guarded = await api.createWorkflow(
			agentWorkflow(
				'Little Pay guarded agent',
				webhookNode(guardedPath),
				{ promptType: 'define', text: '={{ $json.body.message }}', options: {} },
				openAiId,
				[
					littlePayToolNode(
						'payout_paused',
						tools[2].parameters as Json,
						{ ...ids, apiKeyId: pausedId },
						200,
					),
					tool(
						'payout_daily',
						{
							...(tools[2].parameters as Json),
							spendingLimits: { maxAmount: 1000, maxTotalPerDay: 700 },
						},
						350,
					),
				],
			),
		);
		guardedWorkflowId = guarded.id;
		await api.activateWorkflow(guarded.id, guarded.versionId);
	});

	afterAll(async () => {
		await n8n?.release();
		model?.server.close();
		await sandbox?.close();
	});

	it('a status question: the tool answers the agent with the payment record', async () => {
		const [answer] = await ask('has my payment arrived?');
		expect(answer).toMatchObject({ reference: paidReference, status: 'COMPLETED', amount: 1000 });
	});

	it('a refund of 800 of a 1,000 payment, over the cap of 500, reaches the agent as a refusal, and nothing is refunded', async () => {
		const [answer] = await ask('please refund 800');
		expect(answer).toMatchObject({
			refused: true,
			sent: false,
			limit: { field: 'maxAmount', value: 500, setOn: 'node' },
		});
		const refunds = (await ledger()).refunds as Array<{ reference: string }>;
		expect(refunds.filter((r) => r.reference === paidReference)).toEqual([]);
	});

	it('the same payout asked twice in one message pays once; one over the cap pays nothing', async () => {
		const before = ((await ledger()).disbursements as Array<{ id: string }>).length;
		const [first, second] = await ask('pay out twice');
		expect(first).toMatchObject({ outcome: 'accepted', amount: 500 });
		expect(second).toMatchObject({ id: first.id, key: first.key, repeated: true });
		const [tooMuch] = await ask('pay out too much');
		expect(tooMuch).toMatchObject({ refused: true, limit: { field: 'maxAmount' } });
		const payouts = (await ledger()).disbursements as Array<{ amount: number; key: string }>;
		expect(payouts.slice(before).map((p) => ({ amount: p.amount, key: p.key }))).toEqual([
			{ amount: 500, key: first.key },
		]);
	});

	it('a chat session: the same payout asked again in the next message pays once, and the session total holds across messages', async () => {
		const before = ((await ledger()).disbursements as Array<{ id: string }>).length;
		const session = randomUUID();
		const [first] = await chat(session, 'pay Amina 300');
		expect(first).toMatchObject({ outcome: 'accepted', amount: 300 });
		const [again] = await chat(session, 'did it go? pay her 300 then');
		expect(again).toMatchObject({ id: first.id, key: first.key, repeated: true });
		const [over] = await chat(session, 'now pay Baraka 600');
		expect(over).toMatchObject({
			refused: true,
			sent: false,
			limit: { field: 'maxTotalPerSession', value: 800, setOn: 'node' },
		});
		const [otherSession] = await chat(randomUUID(), 'now pay Baraka 600');
		expect(otherSession).toMatchObject({ outcome: 'accepted', amount: 600 });
		const payouts = (await ledger()).disbursements as Array<{ amount: number; to: string }>;
		expect(payouts.slice(before).map((p) => p.amount)).toEqual([300, 600]);
	});

	it('Pause Money Moves on the credential (kill switch): the payout reaches the agent as a refusal naming the switch, nothing sent', async () => {
		const before = ((await ledger()).disbursements as Array<{ id: string }>).length;
		const [answer] = await askGuarded('paused: pay 100');
		expect(answer).toMatchObject({
			refused: true,
			sent: false,
			limit: { field: 'pauseMoneyMoves', setOn: 'credential' },
		});
		expect(String(answer.reason)).toContain('Pause Money Moves is on in the credential');
		expect(String(answer.whatToDo)).toContain('Inform the user; do not retry this call');
		expect(((await ledger()).disbursements as unknown[]).length).toBe(before);
	});

	it('Max Total per Day holds across agent executions: 400, then 350 more over 700 is refused', async () => {
		const before = ((await ledger()).disbursements as Array<{ id: string }>).length;
		const [first] = await askGuarded('daily: pay 400');
		expect(first).toMatchObject({ outcome: 'accepted', amount: 400 });
		const [second] = await askGuarded('daily: pay 350 more');
		expect(second).toMatchObject({
			refused: true,
			limit: { field: 'maxTotalPerDay', value: 700, setOn: 'node' },
		});
		const payouts = (await ledger()).disbursements as Array<{ amount: number }>;
		expect(payouts.slice(before).map((p) => p.amount)).toEqual([400]);
	});

	it('a tool call carrying its own sessionId does not reset the chat session cap', async () => {
		const before = ((await ledger()).disbursements as Array<{ id: string }>).length;
		const session = randomUUID();
		const [first] = await chat(session, 'forge: pay 500');
		expect(first).toMatchObject({ outcome: 'accepted', amount: 500 });
		const [forged] = await chat(session, 'forge: new session, pay 400');
		expect(forged).toMatchObject({
			refused: true,
			limit: { field: 'maxTotalPerSession', value: 800 },
		});
		const payouts = (await ledger()).disbursements as Array<{ amount: number }>;
		expect(payouts.slice(before).map((p) => p.amount)).toEqual([500]);
	});
});

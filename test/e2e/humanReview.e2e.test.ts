// n8n 2.41.1's Human review in front of the Little Pay refund tool (issue 19), as example 8 wires it: the
// refund tool hangs off a Send Email Human review node, which e-mails a supervisor Approve and Decline links
// (to the loopback mailbox, testkit/mailSink.ts) and waits. A scripted model asks for refunds; the test
// clicks the links as a supervisor would and reads what the model was told and what the gateway's ledger
// shows: approved refunds are made once, declined ones never, and the node's limits still hold after a
// person approved.
import { randomUUID } from 'node:crypto';

import axios from 'axios';

import { startSandbox } from '../../sandbox';
import type { SandboxHandle } from '../../sandbox';
import { fakeModel } from '../../testkit/fakeModel';
import type { Json } from '../../testkit/fakeModel';
import { startMailSink } from '../../testkit/mailSink';
import type { Mail, MailSink } from '../../testkit/mailSink';
import type { N8nApi } from '../../testkit/n8n';
import { sharedN8n } from '../../testkit/sharedN8n';
import type { SharedN8n } from '../../testkit/sharedN8n';
import {
	loadExample,
	mailboxCredential,
	paidSandboxIntent,
	postToNewWebhook,
	sandboxCredentials,
	waitFor,
} from '../../testkit/n8nRuns';

jest.setTimeout(600000);

type Refund = { reference: string; amount: number };

const BROWSER =
	'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36';

describe("n8n 2.41.1's Human review in front of the refund tool (example 8)", () => {
	let sandbox: SandboxHandle;
	let mailbox: MailSink;
	let n8n: SharedN8n;
	let api: N8nApi;
	let model: Awaited<ReturnType<typeof fakeModel>>;
	let workflowId: string;
	let chatUrl: string;
	const paid: Record<string, string> = {};

	const refundsOf = async (reference: string): Promise<Refund[]> =>
		(
			(await axios.get(`${sandbox.merchant.baseUrl}/sandbox/ledger`)).data.data.refunds as Refund[]
		).filter((r) => r.reference === reference);

	const payment = (amount: number) =>
		paidSandboxIntent(sandbox, {
			amount,
			description: 'Human review test',
			key: `hr${randomUUID().slice(0, 8)}`,
		});

	/**
	 * Sends a chat message, waits for the review e-mail, answers it with the link labelled `decision`,
	 * and returns the mail and the tool answers the model got once the execution finished.
	 */
	async function askAndReview(
		message: string,
		decision: 'Approve' | 'Decline',
	): Promise<{ mail: Mail; link: string; toolAnswers: Json[] }> {
		const mailsBefore = mailbox.messages().length;
		const known = new Set((await api.executions(workflowId)).map((e) => e.id));
		const chat = postToNewWebhook(chatUrl, {
			action: 'sendMessage',
			sessionId: randomUUID(),
			chatInput: message,
		});
		const mail = await waitFor('the review e-mail', async () => mailbox.messages()[mailsBefore]);
		// n8n sends the e-mail before it records the execution as waiting: wait until it has settled.
		const waiting = await waitFor('the waiting execution', async () =>
			(await api.executions(workflowId)).find(
				(e) => !known.has(e.id) && !['new', 'running'].includes(e.status),
			),
		);
		expect(waiting.status).toBe('waiting');
		const link = mail.links.find((l) => l.label === decision);
		if (!link) throw new Error(`no ${decision} link in ${JSON.stringify(mail.links)}`);
		// From a browser: n8n ignores approval links fetched by bots and link previewers (isbot).
		const answer = await axios.get(link.url, {
			headers: { 'user-agent': BROWSER },
			validateStatus: () => true,
		});
		expect(answer.status).toBe(200);
		const done = await waitFor('the resumed execution', async () => {
			const execution = (await api.executions(workflowId)).find((e) => e.id === waiting.id);
			return execution && !['waiting', 'running', 'new'].includes(execution.status)
				? execution
				: undefined;
		});
		expect(done.status).toBe('success');
		// The chat streams the agent's answer (example 8's Response Mode); the stream ends when the
		// execution starts waiting for the reviewer, without an error.
		expect((await chat).status).toBe(200);
		const toolAnswers = model.toolAnswersFor(message);
		return { mail, link: link.url, toolAnswers };
	}

	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0, pinDelayMs: 100, quiet: true });
		mailbox = await startMailSink();
		paid.approved = await payment(1000);
		paid.declined = await payment(1000);
		paid.overLimit = await payment(3000);
		// Partly refunded already (200 of 1,000), straight on the gateway.
		paid.lookedUp = await payment(1000);
		await axios.post(
			`${sandbox.merchant.baseUrl}/api/refund/${paid.lookedUp}`,
			{ amount: 200, reason: 'earlier refund' },
			{ headers: { 'X-API-KEY': sandbox.merchant.apiKey } },
		);
		const refund = (reference: string, amount: number) => ({
			name: 'refund',
			args: {
				toolParameters: { reference, amount, reason: 'Damaged on arrival' },
				hitlParameters: {},
			},
		});
		model = await fakeModel({
			'refund 300 of the first order': [refund(paid.approved, 300)],
			'refund 200 of the second order': [refund(paid.declined, 200)],
			'refund 2500 of the third order': [refund(paid.overLimit, 2500)],
			// What a model reads in payment_status and hands the review: currency, payer, refunded amount.
			'look up and refund 300 of the fourth order': [
				{ name: 'payment_status', args: { reference: paid.lookedUp } },
				{
					name: 'refund',
					args: {
						toolParameters: { reference: paid.lookedUp, amount: 300, reason: 'Damaged on arrival' },
						hitlParameters: {
							currency: 'KES',
							customer: '+254712345670',
							alreadyRefunded: '200 KES',
						},
					},
				},
			],
		});
		n8n = await sharedN8n('humanReview');
		api = n8n.api;
		const ids = await sandboxCredentials(api, sandbox, 'review');
		const smtpId = await mailboxCredential(api, mailbox.smtpPort);
		const openAiId = await api.createCredential('fake model', 'openAiApi', {
			apiKey: 'sk-test',
			url: model.url,
		});
		const workflow = loadExample('8-refund-agent-limits.json', {
			BASIC_CREDENTIAL_ID: ids.basicId,
			API_KEY_CREDENTIAL_ID: ids.apiKeyId,
			SMTP_CREDENTIAL_ID: smtpId,
		});
		const nodes = workflow.nodes as Array<{
			name: string;
			webhookId?: string;
			parameters: Json;
			credentials?: Json;
		}>;
		// The example's chat, opened to a client as n8n's embedded chat widget calls it, on the fake model.
		const trigger = nodes.find((n) => n.name === 'When Chat Message Received');
		if (!trigger) throw new Error('example 8 has no chat trigger');
		trigger.parameters = { ...trigger.parameters, public: true, mode: 'webhook' };
		const chatModel = nodes.find((n) => n.name === 'OpenAI Chat Model');
		if (!chatModel) throw new Error('example 8 has no chat model');
		chatModel.credentials = { openAiApi: { id: openAiId, name: 'fake model' } };
		const { id, versionId } = await api.createWorkflow(workflow);
		workflowId = id;
		await api.activateWorkflow(id, versionId);
		chatUrl = `${n8n.url}/webhook/${String(trigger.webhookId)}/chat`;
	});

	afterAll(async () => {
		await n8n?.release();
		model?.server.close();
		await mailbox?.close();
		await sandbox?.close();
	});

	it("approved: the supervisor gets the refund to approve, it is made once, and the model gets the refund's result", async () => {
		const { mail, link, toolAnswers } = await askAndReview(
			'refund 300 of the first order',
			'Approve',
		);
		expect(mail.to).toEqual(['supervisor@example.com']);
		expect(mail.subject).toBe(`Refund to approve: 300 on ${paid.approved}`);
		expect(mail.html).toContain('Damaged on arrival');
		// The reported bug (Approve handing the model the approval, {"data":{"approved":true}}, instead of
		// the tool's answer) does not happen on 2.41.1: the model gets the refund.
		expect(toolAnswers).toEqual([
			expect.objectContaining({ reference: paid.approved, amount: 300, status: 'COMPLETED' }),
		]);
		// The supervisor clicks Approve again: the execution is over, nothing more is refunded.
		await axios.get(link, { headers: { 'user-agent': BROWSER }, validateStatus: () => true });
		expect(await refundsOf(paid.approved)).toMatchObject([{ amount: 300 }]);
	});

	it('after a look-up, the supervisor reads the amount in its currency, the customer and what was already refunded', async () => {
		const { mail, toolAnswers } = await askAndReview(
			'look up and refund 300 of the fourth order',
			'Approve',
		);
		expect(mail.html).toContain('Refund: 300 KES');
		expect(mail.html).toContain('Customer: +254712345670');
		expect(mail.html).toContain('Already refunded: 200 KES');
		// The model read them in payment_status' whole record (Simplify off), then got the refund.
		expect(toolAnswers).toEqual([
			expect.objectContaining({ reference: paid.lookedUp, currency: 'KES', refundedAmount: 200 }),
			expect.objectContaining({ reference: paid.lookedUp, amount: 300, status: 'COMPLETED' }),
		]);
		expect(await refundsOf(paid.lookedUp)).toMatchObject([{ amount: 200 }, { amount: 300 }]);
	});

	it('declined: nothing is refunded, and the model is told the user rejected the call', async () => {
		const { mail, toolAnswers } = await askAndReview('refund 200 of the second order', 'Decline');
		// The agent did not look the payment up: the e-mail says what it does not know.
		expect(mail.html).toContain(
			'(currency not given: the agent did not look this payment up; check it in Little Pay before you approve)',
		);
		expect(await refundsOf(paid.declined)).toEqual([]);
		expect(toolAnswers).toEqual([
			{
				output: expect.stringMatching(
					/^User rejected the tool call to refund \(id: call_\d+\)\. STOP/,
				),
			},
		]);
	});

	it("approved above the node's limit: the refund tool still refuses, as data, and sends nothing", async () => {
		const { toolAnswers } = await askAndReview('refund 2500 of the third order', 'Approve');
		expect(await refundsOf(paid.overLimit)).toEqual([]);
		expect(toolAnswers).toEqual([
			expect.objectContaining({
				refused: true,
				sent: false,
				limit: expect.objectContaining({ field: 'maxAmount', value: 1000, setOn: 'node' }),
			}),
		]);
	});
});

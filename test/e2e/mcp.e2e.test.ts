// Little Pay tools published through n8n's MCP Server Trigger (issue 19), in a real n8n 2.41.1, driven by
// the MCP SDK's client over streamable HTTP with bearer auth: the tools list with their schemas, a status
// call answers, payouts are refused by each limit with nothing sent (the sandbox's ledger), an allowed
// payout pays once, the same call repeated pays nothing new, and a wrong token is refused.
import { randomUUID } from 'node:crypto';

import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import axios from 'axios';

import { startSandbox } from '../../sandbox';
import type { SandboxHandle } from '../../sandbox';
import {
	callMcpTool,
	connectMcp,
	mcpWorkflow,
	payoutToolParameters,
} from '../../testkit/mcpClient';
import type { N8nApi } from '../../testkit/n8n';
import { sharedN8n } from '../../testkit/sharedN8n';
import type { SharedN8n } from '../../testkit/sharedN8n';
import { createSandboxIntent, loadExample, sandboxCredentials } from '../../testkit/n8nRuns';
import { littlePayToolNode } from '../../testkit/workflowParts';

jest.setTimeout(600000);

type Json = Record<string, unknown>;
type Payout = { id: string; key: string; amount: number; to: string };

const TOKEN = `mcp-${randomUUID()}`;

describe('Little Pay tools over MCP (MCP Server Trigger, real n8n 2.41.1)', () => {
	let sandbox: SandboxHandle;
	let n8n: SharedN8n;
	let url: string;
	let client: Client;
	let api: N8nApi;
	let ids: { basicId: string; apiKeyId: string };

	const payouts = async (): Promise<Payout[]> =>
		(await axios.get(`${sandbox.merchant.baseUrl}/sandbox/ledger`)).data.data.disbursements;

	const callTool = (name: string, args: Json) => callMcpTool(client, name, args);

	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0, pinDelayMs: 300, quiet: true });
		n8n = await sharedN8n('mcp');
		api = n8n.api;
		ids = await sandboxCredentials(api, sandbox, 'mcp');
		const bearerId = await api.createCredential('mcp bearer', 'httpBearerAuth', { token: TOKEN });
		// The owner's kill switch (issue 53): the same account, with Pause Money Moves on.
		const pausedId = await api.createCredential('mcp paused', 'littlePayApiKeyApi', {
			apiKey: sandbox.merchant.apiKey,
			baseUrl: sandbox.merchant.baseUrl,
			disbursementBaseUrl: '',
			pauseMoneyMoves: true,
		});
		const path = `littlepay-${randomUUID()}`;
		const tools = [
			littlePayToolNode(
				'payment_status',
				{
					resource: 'payment',
					operation: 'getStatus',
					paymentId: "={{ $fromAI('reference', 'Payment reference or key', 'string') }}",
				},
				ids,
				0,
			),
			littlePayToolNode('payout_at_defaults', payoutToolParameters(), ids, 150),
			littlePayToolNode(
				'payout',
				payoutToolParameters({
					allowMoneyMoves: true,
					spendingLimits: {
						maxAmount: 1000,
						maxTotalPerExecution: 1500,
						allowedRecipients: '2547123456*',
					},
				}),
				ids,
				300,
			),
			littlePayToolNode(
				'payout_paused',
				payoutToolParameters({ allowMoneyMoves: true }),
				{ ...ids, apiKeyId: pausedId },
				450,
			),
			littlePayToolNode(
				'payout_daily',
				payoutToolParameters({ allowMoneyMoves: true, spendingLimits: { maxCountPerDay: 1 } }),
				ids,
				600,
			),
		];
		const created = await api.createWorkflow(
			mcpWorkflow('Little Pay over MCP', path, bearerId, tools),
		);
		await api.activateWorkflow(created.id, created.versionId);
		url = `${n8n.url}/mcp/${path}`;
		client = await connectMcp(url, TOKEN);
	});

	afterAll(async () => {
		await client?.close();
		await n8n?.release();
		await sandbox?.close();
	});

	it('tools/list shows the tools, the arguments the model fills, units and the limits in force', async () => {
		const { tools } = await client.listTools();
		const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
		expect(Object.keys(byName).sort()).toEqual([
			'payment_status',
			'payout',
			'payout_at_defaults',
			'payout_daily',
			'payout_paused',
		]);
		expect(byName.payout.inputSchema).toMatchObject({
			type: 'object',
			properties: { amount: { type: 'number' }, to: { type: 'string' } },
		});
		expect(Object.keys(byName.payout.inputSchema.properties ?? {}).sort()).toEqual([
			'amount',
			'to',
		]);
		expect(byName.payout.description).toContain('1500 means KES 1,500');
		expect(byName.payout.description).toContain(
			'Limits in force: at most 1000 per call; at most 1500 in total per agent run (over MCP: per hour), per currency; only to these numbers: 2547123456*.',
		);
		expect(byName.payment_status.inputSchema.properties).toHaveProperty('reference');
	});

	it('a status call answers', async () => {
		const reference = await createSandboxIntent(sandbox, {
			amount: 1200,
			description: 'MCP status',
			key: `mcp${Date.now()}`,
		});
		const out = await callTool('payment_status', { reference });
		expect(out).toMatchObject({ reference, status: 'PENDING', amount: 1200 });
	});

	it('a payout through the tool at its defaults is refused and sends nothing', async () => {
		const before = (await payouts()).length;
		const out = await callTool('payout_at_defaults', { amount: 9999999, to: '254712345670' });
		expect(out).toMatchObject({
			refused: true,
			sent: false,
			limit: { field: 'allowMoneyMoves', value: false },
		});
		expect((await payouts()).length).toBe(before);
	});

	it('payouts above the cap or to a number off the allowlist are refused and send nothing', async () => {
		const before = (await payouts()).length;
		expect(await callTool('payout', { amount: 1200, to: '254712345670' })).toMatchObject({
			refused: true,
			limit: { field: 'maxAmount', value: 1000, setOn: 'node' },
		});
		// The refusal names the rule, never the allowlist: a model (or a prompt injection) learns no payee.
		const offList = await callTool('payout', { amount: 100, to: '254799999990' });
		expect(offList).toMatchObject({ refused: true, limit: { field: 'allowedRecipients' } });
		expect(offList.limit).not.toHaveProperty('value');
		expect(JSON.stringify(offList)).not.toContain('2547123456');
		expect((await payouts()).length).toBe(before);
	});

	it('an allowed payout pays once; the same call repeated pays nothing new; the next one past the total is refused', async () => {
		const before = await payouts();
		const first = await callTool('payout', { amount: 800, to: '+254712345670' });
		expect(first).toMatchObject({ outcome: 'accepted', amount: 800, to: '•••••••••670' });
		const repeat = await callTool('payout', { amount: 800, to: '+254712345670' });
		expect(repeat).toMatchObject({ id: first.id, key: first.key, repeated: true });
		const pastTotal = await callTool('payout', { amount: 750, to: '254712345670' });
		expect(pastTotal).toMatchObject({
			refused: true,
			limit: { field: 'maxTotalPerExecution', value: 1500 },
		});
		const made = (await payouts()).filter((p) => !before.some((b) => b.id === p.id));
		expect(made.map((p) => ({ amount: p.amount, key: p.key }))).toEqual([
			{ amount: 800, key: first.key },
		]);
	});

	it('Pause Money Moves on the credential (kill switch): refused naming the switch, a read still answers, nothing sent', async () => {
		const before = (await payouts()).length;
		const out = await callTool('payout_paused', { amount: 100, to: '254712345670' });
		expect(out).toMatchObject({
			refused: true,
			sent: false,
			limit: { field: 'pauseMoneyMoves', setOn: 'credential' },
		});
		expect(String(out.reason)).toContain('Pause Money Moves is on in the credential');
		expect(String(out.whatToDo)).toContain('Inform the user; do not retry this call');
		expect((await payouts()).length).toBe(before);
	});

	it('Max Count per Day: the second payout of the day over MCP is refused', async () => {
		const before = await payouts();
		const first = await callTool('payout_daily', { amount: 30, to: '254712345670' });
		expect(first).toMatchObject({ outcome: 'accepted', amount: 30 });
		const second = await callTool('payout_daily', { amount: 31, to: '254712345670' });
		expect(second).toMatchObject({ refused: true, limit: { field: 'maxCountPerDay', value: 1 } });
		const made = (await payouts()).filter((p) => !before.some((b) => b.id === p.id));
		expect(made.map((p) => p.amount)).toEqual([30]);
	});

	it('distinct payouts get distinct keys', async () => {
		const a = await callTool('payout', { amount: 10, to: '254712345670' });
		const b = await callTool('payout', { amount: 11, to: '254712345670' });
		expect(a.outcome).toBe('accepted');
		expect(b.outcome).toBe('accepted');
		expect(a.key).not.toEqual(b.key);
	});

	it('an SSE client (the older MCP transport) gets the same refusal and nothing is sent', async () => {
		const sse = await connectMcp(url, TOKEN, 'sse');
		try {
			const before = (await payouts()).length;
			const out = await callMcpTool(sse, 'payout', { amount: 5000, to: '254712345670' });
			expect(out).toMatchObject({ refused: true, limit: { field: 'maxAmount', value: 1000 } });
			expect((await payouts()).length).toBe(before);
		} finally {
			await sse.close();
		}
	});

	it('a wrong bearer token is refused with 403', async () => {
		const res = await axios.post(
			url,
			{ jsonrpc: '2.0', id: 1, method: 'tools/list' },
			{
				headers: {
					Authorization: 'Bearer wrong',
					Accept: 'application/json, text/event-stream',
				},
				validateStatus: () => true,
			},
		);
		expect(res.status).toBe(403);
	});

	it('the two agent examples import with their tools, the switch and the limits as written', async () => {
		for (const [file, tools] of [
			['7-support-agent-status.json', ['payment_status']],
			['8-refund-agent-limits.json', ['payment_status', 'refund']],
		] as const) {
			const { id } = await api.createWorkflow(
				loadExample(file, {
					BASIC_CREDENTIAL_ID: ids.basicId,
					API_KEY_CREDENTIAL_ID: ids.apiKeyId,
				}),
			);
			const stored = (await api.http.get(`/rest/workflows/${id}`)).data.data as {
				nodes: Array<{ name: string; type: string; parameters: Json }>;
			};
			const littlePay = stored.nodes.filter((n) => n.type === 'n8n-nodes-littlepay.littlePayTool');
			expect(littlePay.map((n) => n.name)).toEqual(tools);
			const refund = littlePay.find((n) => n.name === 'refund');
			if (refund) {
				expect(refund.parameters).toMatchObject({
					allowMoneyMoves: true,
					spendingLimits: { maxAmount: 1000, maxCountPerExecution: 1, allowedCurrencies: 'KES' },
				});
			}
		}
	});
});

// What the money suites (spending limits, the agent's money) share: a one-node workflow fed items, as a
// node or as the AI Agent's tool, run through n8n-core's engine against the test sandbox, and the
// sandbox's ledger read back.
import { randomUUID } from 'node:crypto';
import type { ICredentialDataDecryptedObject, INode } from 'n8n-workflow';

import { runWorkflow } from './engine';
import type { RunResult, WorkflowJson } from './engine';
import type { useNodeTestSandbox } from './nodeSandbox';

type Json = Record<string, unknown>;
export type Payout = { id: string; key: string; amount: number; to: string; method: string };

export const TOOL = 'n8n-nodes-littlepay.littlePayTool';
export const NODE = 'n8n-nodes-littlepay.littlePay';

/** Items, then one Little Pay node (or tool) of `type` with the parameters given. */
export function workflow(type: string, parameters: Json, items: Json[], node: Partial<INode> = {}) {
	return {
		nodes: [
			{
				name: 'Items',
				type: 'test.fixtureItems',
				typeVersion: 1,
				position: [0, 0],
				parameters: { items: JSON.stringify(items) },
			},
			{
				name: 'Little Pay',
				id: randomUUID(),
				type,
				typeVersion: 1,
				position: [220, 0],
				parameters,
				...node,
			},
		],
		connections: { Items: { main: [[{ node: 'Little Pay', type: 'main', index: 0 }]] } },
	} as unknown as WorkflowJson;
}

/** A payout from each item's amount, to and (optional) network and currency, under generated keys. */
export const payoutParameters = (extra: Json = {}): Json => ({
	resource: 'disbursement',
	operation: 'create',
	method: "={{ $json.network ?? 'MPESA' }}",
	amount: '={{ $json.amount }}',
	to: '={{ $json.to }}',
	currency: "={{ $json.currency ?? 'KES' }}",
	// Limits, not keys, are under test here: the explicit per-execution choice (a tool ignores it).
	keySource: 'generated',
	...extra,
});

/** A tool call as the AI Agent hands it to the tool: the model's arguments plus its call id. */
export const call = (args: Json): Json => ({ ...args, toolCallId: `call_${randomUUID()}` });

/** The first output of the Little Pay node. */
export const outputs = (result: RunResult) => result.output('Little Pay').map((o) => o.json);

/** Runs, credentials, the ledger and paid payments on the suite's sandbox. */
export function moneyRun(sb: ReturnType<typeof useNodeTestSandbox>) {
	const withCredential = (fields: Json): Record<string, ICredentialDataDecryptedObject> =>
		({
			...sb.credentials,
			littlePayApiKeyApi: { ...sb.credentials.littlePayApiKeyApi, ...fields },
		}) as Record<string, ICredentialDataDecryptedObject>;
	const payouts = async (): Promise<Payout[]> =>
		(await sb.get('/sandbox/ledger')).data.data.disbursements as Payout[];
	return {
		withCredential,
		payouts,
		run(
			json: WorkflowJson,
			options: {
				credentials?: Record<string, ICredentialDataDecryptedObject>;
				mcp?: boolean;
				retryOf?: RunResult;
			} = {},
		): Promise<RunResult> {
			return runWorkflow(json, {
				credentials: options.credentials ?? sb.credentials,
				withoutExecutionId: options.mcp,
				retryOf: options.retryOf,
			});
		},
		async newPayouts(before: Payout[]): Promise<Payout[]> {
			const known = new Set(before.map((p) => p.id));
			return (await payouts()).filter((p) => !known.has(p.id));
		},
		/** The money-moving requests the sandbox received since the last look (reads are allowed). */
		async moneyRequests(): Promise<string[]> {
			return (await sb.received())
				.filter((r) => r.method === 'POST')
				.map((r) => `${r.method} ${r.path}`);
		},
		/** A COMPLETED M-Pesa payment of `amount`, made straight on the sandbox. */
		async paid(amount: number): Promise<string> {
			const intent = await sb.createIntent({ amount });
			await sb.post(`/pay/${intent.reference}/process`, {
				type: 'MPESA',
				payment: { mobile: '254712345670' },
			});
			const record = await sb.status(intent.key, '?longPoll=true');
			if (record.status !== 'COMPLETED') throw new Error(`payment is ${String(record.status)}`);
			await sb.received();
			return intent.reference;
		},
	};
}

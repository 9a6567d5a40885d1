// Pause Money Moves stops the next send, not the next run (issue 66): the credential's switch is read
// as stored right before every request that moves money, so a person who turns it on while a payout
// run, a tool call or a collect is under way stops every send after that moment. Through n8n-core's
// engine; the switch is turned by changing the stored credential as a request leaves the node, and
// "paid" is read from the sandbox's ledger.
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { runWorkflow } from '../../testkit/engine';
import type { AuthenticatedRequest, RunResult, WorkflowJson } from '../../testkit/engine';
import { call, NODE, outputs, payoutParameters, TOOL, workflow } from '../../testkit/moneyRun';
import { startNodeTestSandbox } from '../../testkit/nodeSandbox';
import type { NodeTestSandbox } from '../../testkit/nodeSandbox';

type Json = Record<string, unknown>;

let sb: NodeTestSandbox;
beforeEach(async () => {
	sb = await startNodeTestSandbox({ pinDelayMs: 50, longPollTimeoutMs: 400 });
});
afterEach(async () => {
	await sb.sandbox.close();
});

const PAUSED = /Pause Money Moves is on in the credential/;

const ledger = async (): Promise<Array<{ key: string; amount: number }>> =>
	(await sb.get('/sandbox/ledger')).data.data.disbursements as Array<{
		key: string;
		amount: number;
	}>;

const isPayoutPost = (r: AuthenticatedRequest) =>
	r.method === 'POST' && /\/disbursements?\b/.test(r.url);

/**
 * Runs `json` with the sandbox's credentials; `turnOn` sees each request as it leaves the node and
 * returns true to turn Pause Money Moves on in the stored credential at that moment.
 */
async function runTurning(
	json: WorkflowJson,
	turnOn: (request: AuthenticatedRequest, sent: AuthenticatedRequest[]) => boolean,
): Promise<{ result: RunResult; sent: AuthenticatedRequest[]; turned: boolean }> {
	const apiKey = { ...sb.credentials.littlePayApiKeyApi } as ICredentialDataDecryptedObject;
	const credentials = { ...sb.credentials, littlePayApiKeyApi: apiKey };
	const sent: AuthenticatedRequest[] = [];
	let turned = false;
	const result = await runWorkflow(json, {
		credentials,
		onRequest: (request) => {
			sent.push(request);
			if (!turned && turnOn(request, sent)) {
				apiKey.pauseMoneyMoves = true;
				turned = true;
			}
		},
	});
	return { result, sent, turned };
}

const rows = (count: number): Json[] =>
	Array.from({ length: count }, (_, i) => ({
		amount: 100 + i,
		to: `2547123456${String(i % 100).padStart(2, '0')}`,
	}));

/** The run's error, or the reasons its items carry. */
const refusals = (result: RunResult): string =>
	[result.error?.message ?? '', ...outputs(result).map((o) => String(o.reason ?? ''))].join('\n');

describe('Pause Money Moves turned on while a payout run goes on', () => {
	it.each([
		[40, 1, 5],
		[40, 4, 5],
		[12, 1, 1],
		[12, 3, 12],
	])(
		'a %i-row run at Concurrency %i, turned on as payout %i leaves the node: no payout is sent after the ones already in flight',
		async (count, concurrency, at) => {
			const json = workflow(NODE, payoutParameters({ options: { concurrency } }), rows(count));
			const { result, sent, turned } = await runTurning(
				json,
				(request, all) => isPayoutPost(request) && all.filter(isPayoutPost).length === at,
			);
			expect(turned).toBe(true);
			const paid = await ledger();
			// The one being sent and, at Concurrency n, at most n - 1 others already past their check.
			expect(paid.length).toBeGreaterThanOrEqual(at);
			expect(paid.length).toBeLessThanOrEqual(Math.min(count, at + concurrency - 1));
			expect(sent.filter(isPayoutPost)).toHaveLength(paid.length);
			if (paid.length < count) expect(refusals(result)).toMatch(PAUSED);
		},
	);

	it('with On Error: Continue, every row after the switch is refused with the switch named, and nothing sent for it', async () => {
		const json = workflow(NODE, payoutParameters(), rows(10), { onError: 'continueRegularOutput' });
		const { result } = await runTurning(
			json,
			(request, all) => isPayoutPost(request) && all.filter(isPayoutPost).length === 3,
		);
		expect(await ledger()).toHaveLength(3);
		const items = outputs(result);
		expect(items).toHaveLength(10);
		const after = items.slice(3).map((item) => JSON.stringify(item));
		for (const text of after) expect(text).toMatch(PAUSED);
	});
});

describe('Pause Money Moves turned on in the middle of one move', () => {
	it('a payout whose key is looked up first: turned on during the look-up, the payout is not sent', async () => {
		const json = workflow(
			NODE,
			payoutParameters({ keySource: 'mapped', key: '={{ $json.key }}' }),
			[{ amount: 500, to: '254712345670', key: 'PAUSELOOKUP1' }],
		);
		const { result, turned } = await runTurning(json, (request) => request.method === 'GET');
		expect(turned).toBe(true);
		expect(await ledger()).toEqual([]);
		expect(refusals(result)).toMatch(PAUSED);
	});

	it('a tool call: turned on after its checks passed, during the look-up, it sends nothing and tells the model to stop', async () => {
		const json = workflow(
			TOOL,
			payoutParameters({
				allowMoneyMoves: true,
				keySource: 'mapped',
				key: '={{ $json.key }}',
			}),
			[call({ amount: 500, to: '254712345670', key: 'PAUSETOOL1' })],
		);
		const { result, turned } = await runTurning(json, (request) => request.method === 'GET');
		expect(turned).toBe(true);
		expect(await ledger()).toEqual([]);
		const [answer] = outputs(result);
		expect(answer).toMatchObject({ sent: false });
		expect(JSON.stringify(answer)).toMatch(PAUSED);
	});

	it('a collect: turned on once its intent is created, the payer is not prompted', async () => {
		const json = workflow(
			NODE,
			{
				resource: 'mobileMoney',
				operation: 'collect',
				amount: 250,
				description: 'Order 1',
				callbackUrl: 'http://127.0.0.1:9/cb',
				mobile: '0712345670',
			},
			[{}],
		);
		const { result, sent, turned } = await runTurning(
			json,
			(request) => request.method === 'POST' && /\/api\/payments\/[^/]+\/pay$/.test(request.url),
		);
		expect(turned).toBe(true);
		expect(refusals(result)).toMatch(PAUSED);
		// The intent (a link, no money) was created; no prompt went to the payer's phone.
		expect(sent.filter((r) => r.method === 'POST').map((r) => r.url)).toHaveLength(1);
	});
});

// What never moved does not count (issue 66): a payout Little Pay says FAILED paid nobody, so it stops
// filling the account's day totals (the total, the count and the recipient's), whether its failure was
// seen by the run's own wait or by Pay Again If Failed reading its record in a later run. Through
// n8n-core's engine; the sandbox fails a payout to a number ending in 1 and pays one ending in 0, and
// "paid" is read from its ledger. Each test has a sandbox (an account) of its own.
import { randomUUID } from 'node:crypto';

import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { runWorkflow } from '../../testkit/engine';
import type { RunResult } from '../../testkit/engine';
import { NODE, outputs, payoutParameters, workflow } from '../../testkit/moneyRun';
import { startNodeTestSandbox } from '../../testkit/nodeSandbox';
import type { NodeTestSandbox } from '../../testkit/nodeSandbox';
import { newKey } from '../../testkit/sandbox';

type Json = Record<string, unknown>;
type Disbursement = { key: string; amount: number; to: string; status: string };

let sb: NodeTestSandbox;
beforeEach(async () => {
	sb = await startNodeTestSandbox({ pinDelayMs: 50, longPollTimeoutMs: 400 });
});
afterEach(async () => {
	await sb.sandbox.close();
});

const FAILS = '254712345671';
const PAYS = '254712345670';

const ledger = async (): Promise<Disbursement[]> =>
	(await sb.get('/sandbox/ledger')).data.data.disbursements as Disbursement[];

/** Waits until the sandbox has settled every payout (none PENDING). */
async function settled(): Promise<Disbursement[]> {
	for (let i = 0; i < 100; i++) {
		const all = await ledger();
		if (all.every((d) => d.status !== 'pending')) return all;
		await new Promise((r) => setTimeout(r, 50));
	}
	throw new Error('the sandbox did not settle its payouts');
}

/** One payout run of `rows` under mapped keys with the credential's `limits`. */
function payRun(
	rows: Json[],
	limits: Json,
	options: { wait?: boolean; payAgain?: boolean; node?: Json; nodeId?: string } = {},
): Promise<RunResult> {
	const parameters = payoutParameters({
		keySource: 'mapped',
		key: '={{ $json.key }}',
		...(options.wait ? { waitForResult: 'untilSettled', waitTimeoutSeconds: 20 } : {}),
		...(options.payAgain ? { options: { payAgainIfFailed: true } } : {}),
		...(options.node ?? {}),
	});
	// One node id across runs: the node's own day totals are the node's.
	const json = workflow(NODE, parameters, rows, options.nodeId ? { id: options.nodeId } : {});
	const credentials = {
		...sb.credentials,
		littlePayApiKeyApi: { ...sb.credentials.littlePayApiKeyApi, ...limits },
	} as Record<string, ICredentialDataDecryptedObject>;
	return runWorkflow(json, { credentials });
}

const refusal = (result: RunResult): string =>
	result.error?.message ?? outputs(result).map((o) => String(o.reason ?? ''))[0];

describe('a payout Little Pay says FAILED stops counting under the day limits', () => {
	// The bookkeeper: cap 5,000; 3,000 failed and 2,000 paid; Pay Again sends the 3,000 again.
	it.each([
		['seen by the run that sent it (Until Settled)', true],
		['seen only by Pay Again reading its record in the next run', false],
	])(
		'Max Total per Day 5,000: 3,000 failed and 2,000 paid, Pay Again pays the corrected 3,000 (%s)',
		async (_how, wait) => {
			const a = newKey('rowa');
			const b = newKey('rowb');
			const limits = { maxTotalPerDay: 5000 };
			const first = await payRun(
				[
					{ amount: 3000, to: FAILS, key: a },
					{ amount: 2000, to: PAYS, key: b },
				],
				limits,
				{ wait },
			);
			expect(first.error).toBeUndefined();
			expect((await settled()).map((d) => [d.key, d.status])).toEqual([
				[a, 'failed'],
				[b, 'success'],
			]);
			// The bookkeeper corrects the number and runs Pay Again If Failed.
			const again = await payRun(
				[
					{ amount: 3000, to: PAYS, key: a },
					{ amount: 2000, to: PAYS, key: b },
				],
				limits,
				{ payAgain: true },
			);
			expect(again.error).toBeUndefined();
			const paid = (await settled()).filter((d) => d.status === 'success');
			expect(paid.map((d) => [d.key, d.amount])).toEqual([
				[b, 2000],
				[`${a}r2`, 3000],
			]);
		},
	);

	it("Max Count per Day 2: a failed payout leaves room for the day's second", async () => {
		const limits = { maxCountPerDay: 2 };
		await payRun([{ amount: 100, to: FAILS, key: newKey('cnta') }], limits, { wait: true });
		await payRun([{ amount: 100, to: PAYS, key: newKey('cntb') }], limits, { wait: true });
		const third = await payRun([{ amount: 100, to: PAYS, key: newKey('cntc') }], limits, {
			wait: true,
		});
		expect(third.error).toBeUndefined();
		expect((await settled()).map((d) => d.status)).toEqual(['failed', 'success', 'success']);
		// Control: the day's two paid payouts fill it; a fourth is refused and nothing is sent.
		const fourth = await payRun([{ amount: 100, to: PAYS, key: newKey('cntd') }], limits);
		expect(refusal(fourth)).toMatch(/money move 3 in one day; at most 2 are allowed/);
		expect(await ledger()).toHaveLength(3);
	});

	it('Max Total per Recipient per Day 3,000: a failed 3,000 to a number leaves its day open for the retry', async () => {
		const limits = { maxTotalPerRecipientPerDay: 3000 };
		const key = newKey('rcpt');
		await payRun([{ amount: 3000, to: FAILS, key }], limits, { wait: true });
		const again = await payRun([{ amount: 3000, to: FAILS, key }], limits, { payAgain: true });
		expect(again.error).toBeUndefined();
		expect((await ledger()).map((d) => d.key)).toEqual([key, `${key}r2`]);
	});

	it("the node's own Max Total per Day forgets a failed payout too", async () => {
		const node = { spendingLimits: { maxTotalPerDay: 1000 } };
		const key = newKey('node');
		const parameters = { node, nodeId: randomUUID() };
		const first = await payRun(
			[{ amount: 1000, to: FAILS, key }],
			{},
			{ wait: true, ...parameters },
		);
		expect(first.error).toBeUndefined();
		const again = await payRun(
			[{ amount: 1000, to: PAYS, key }],
			{},
			{
				payAgain: true,
				...parameters,
			},
		);
		expect(again.error).toBeUndefined();
		expect((await settled()).map((d) => [d.key, d.status])).toEqual([
			[key, 'failed'],
			[`${key}r2`, 'success'],
		]);
	});

	it('a payout still pending keeps counting: Pay Again does not resend it, and a new payout over the cap is refused', async () => {
		const limits = { maxTotalPerDay: 1000 };
		// ...3: the sandbox leaves the payout pending.
		await payRun([{ amount: 1000, to: '254712345673', key: newKey('pend') }], limits);
		const next = await payRun([{ amount: 1000, to: PAYS, key: newKey('next') }], limits);
		expect(refusal(next)).toMatch(/would bring the total of one day to KES 2,000/);
		expect(await ledger()).toHaveLength(1);
	});
});

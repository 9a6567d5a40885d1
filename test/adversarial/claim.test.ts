// One key claim per process that never lies (issue 49, point 2): the payday and collect red teams'
// reproductions, counted on the sandbox's ledger (payouts) and status records (PIN prompts), through
// n8n-core's engine against a gateway set to accept a repeated payout key.
import type { WorkflowJson } from '../../testkit/engine';
import { loadFixture, runWorkflow } from '../../testkit/engine';
import type { RunResult } from '../../testkit/engine';
import { useNodeTestSandbox } from '../../testkit/nodeSandbox';
import { newKey } from '../../testkit/sandbox';

const sb = useNodeTestSandbox({ pinDelayMs: 50, longPollTimeoutMs: 400 });

type Item = Record<string, unknown>;
type Disbursement = { id: string; key: string; status: string; amount: number; to: string };

interface PayoutRunOptions {
	continueOnFail?: boolean;
	payAgain?: boolean;
	onStart?: (cancel: () => void) => void;
}

function payoutRun(items: Item[], options: PayoutRunOptions = {}): Promise<RunResult> {
	const json: WorkflowJson = loadFixture('disbursement-create.json', {
		ITEMS: JSON.stringify(items),
		ON_ERROR: options.continueOnFail ? 'continueRegularOutput' : 'stopWorkflow',
	});
	const node = json.nodes.find((n) => n.name === 'Little Pay');
	const params = node?.parameters as { options: Record<string, unknown> };
	if (options.payAgain) params.options.payAgainIfFailed = true;
	return runWorkflow(json, { credentials: sb.credentials, onStart: options.onStart });
}

const row = (n: number, overrides: Item = {}): Item => ({
	method: 'MPESA',
	amount: 100 + n,
	// Numbers ending in 0: the sandbox completes them.
	to: `2547123${String(n).padStart(4, '0')}0`.slice(0, 12),
	key: newKey(`c${n}x`),
	...overrides,
});

async function ledger(): Promise<Disbursement[]> {
	return (await sb.get('/sandbox/ledger')).data.data.disbursements as Disbursement[];
}

/** How many payouts the gateway holds under each of the keys. */
async function payoutsUnder(keys: unknown[]): Promise<number> {
	const wanted = new Set(keys.map(String));
	return (await ledger()).filter((d) => wanted.has(d.key)).length;
}

const later = async <T>(ms: number, start: () => Promise<T>): Promise<T> => {
	await new Promise((resolve) => setTimeout(resolve, ms));
	return await start();
};

const slowPayouts = async (latencyMs: number, times?: number) =>
	await sb.post('/sandbox/faults', {
		rules: [{ method: 'POST', pathPrefix: '/api/disbursements', latencyMs, times }],
	});

beforeEach(async () => {
	await sb.post('/sandbox/settings', { acceptRepeatedPayoutKeys: true });
});

describe('Two executions of this process paying the same keys (payday #1)', () => {
	// [first run's concurrency, second run's concurrency, ms between their starts]
	const timings: Array<[number, number, number]> = [
		[10, 1, 300],
		[1, 10, 300],
		[10, 10, 300],
		[1, 1, 300],
		[10, 1, 100],
		[10, 1, 700],
	];
	it.each(timings)(
		'the same 20-row sheet at Concurrency %i and %i, %i ms apart, POSTs taking 400 ms: 20 payouts',
		async (first, second, apart) => {
			await slowPayouts(400);
			const rows = Array.from({ length: 20 }, (_, i) => row(i));
			const [a, b] = await Promise.all([
				payoutRun(rows.map((r) => ({ ...r, concurrency: first }))),
				later(apart, () => payoutRun(rows.map((r) => ({ ...r, concurrency: second })))),
			]);
			expect(a.error).toBeUndefined();
			expect(b.error).toBeUndefined();
			expect(await payoutsUnder(rows.map((r) => r.key))).toBe(20);
		},
		60000,
	);

	it('run 2 = [X, B] starting 600 ms after run 1 = [A, B]: B is paid once', async () => {
		await slowPayouts(400);
		const [a, b, x] = [row(1), row(2), row(3)];
		const [one, two] = await Promise.all([payoutRun([a, b]), later(600, () => payoutRun([x, b]))]);
		expect(one.error).toBeUndefined();
		expect(two.error).toBeUndefined();
		expect(await payoutsUnder([b.key])).toBe(1);
		expect(await payoutsUnder([a.key, b.key, x.key])).toBe(3);
	});
});

describe('Stop while a payout is at the gateway (payday #2)', () => {
	it('the stopped run says the outcome is unknown, the waiting run does not send: 1 payout', async () => {
		await slowPayouts(1500, 1);
		const b = row(5);
		let cancel = () => {};
		const first = payoutRun([b], { onStart: (c) => (cancel = c) });
		setTimeout(() => cancel(), 500);
		const second = later(200, () => payoutRun([b], { continueOnFail: true }));
		const [one, two] = await Promise.all([first, second]);
		expect(String(one.error?.message)).toMatch(/outcome .*unknown/);
		expect(String(one.error?.message)).toContain(String(b.key));
		const [out] = two.output('Little Pay');
		// The waiting run either finds the first payout or says its outcome is unknown: never sends.
		if (out.json.error !== undefined) expect(String(out.json.error)).toMatch(/unknown/);
		else expect(out.json).toMatchObject({ key: b.key, alreadyExisted: true });
		// Let the first request land.
		await new Promise((resolve) => setTimeout(resolve, 1500));
		expect(await payoutsUnder([b.key])).toBe(1);
	});
});

describe('A lost answer followed by a 404 (payday #3)', () => {
	it('is not sent again at once: the row says its outcome is unknown and what to do', async () => {
		// The connection drops before the gateway handles the POST: the node hears nothing.
		await sb.post('/sandbox/faults', {
			rules: [{ method: 'POST', pathPrefix: '/api/disbursements', drop: 'before', times: 1 }],
		});
		const b = row(6);
		const result = await payoutRun([b], { continueOnFail: true });
		const [out] = result.output('Little Pay');
		expect(String(out.json.error)).toMatch(/outcome .*unknown/);
		expect(String(out.json.error)).toContain(String(b.key));
		expect(String(out.json.description)).toMatch(/Reconcile|run .*again later/);
		const posts = (await sb.received()).filter((r) => r.method === 'POST');
		expect(posts).toHaveLength(1);
		expect(await payoutsUnder([b.key])).toBe(0);
	});
});

type Intent = { key: string; reference: string; attempts: Array<{ status: string }> };

function collect(items: Item[]): Promise<RunResult> {
	return runWorkflow(
		loadFixture('mobile-money-collect.json', {
			ITEMS: JSON.stringify(items),
			ON_ERROR: 'continueRegularOutput',
		}),
		{ credentials: sb.credentials },
	);
}

/** The PIN prompts (payment attempts) the gateway holds for the order's intents. */
async function promptsFor(key: unknown): Promise<number> {
	const intents = (await sb.get('/sandbox/ledger')).data.data.intents as Intent[];
	return intents
		.filter((intent) => intent.key === key)
		.reduce((sum, intent) => sum + intent.attempts.length, 0);
}

const order = (mobile: string): Item => ({
	amount: 1500,
	network: 'MPESA',
	mobile,
	key: newKey('ord'),
	wait: false,
});

describe('Two executions collecting one order (collect C1)', () => {
	// A number ending 2: the payer cancels, so the gateway would take a second prompt. Ending 0: paid.
	it.each(['254712345672', '254712345670'])(
		'the gateway slow on /process (300 ms), the second execution 20 ms later, payer %s: 1 prompt, neither fails',
		async (mobile) => {
			await sb.post('/sandbox/faults', {
				rules: [{ method: 'POST', pathPrefix: '/pay/', latencyMs: 300, times: 1 }],
			});
			const payment = order(mobile);
			const [a, b] = await Promise.all([collect([payment]), later(20, () => collect([payment]))]);
			// Let any late prompt land before counting.
			await new Promise((resolve) => setTimeout(resolve, 400));
			expect(await promptsFor(payment.key)).toBe(1);
			const outputs = [a, b].map((r) => r.output('Little Pay')[0].json);
			for (const out of outputs) expect(out.error).toBeUndefined();
			expect(outputs.filter((out) => out.alreadyPrompted === true)).toHaveLength(1);
		},
	);
});

describe('A lost PIN prompt answer (collect C2)', () => {
	it('with no attempt on record yet, is not sent again: PENDING, promptOutcomeUnknown, 1 prompt', async () => {
		// The connection drops before the gateway handles /process: the node hears nothing.
		await sb.post('/sandbox/faults', {
			rules: [{ method: 'POST', pathPrefix: '/pay/', drop: 'before', times: 1 }],
		});
		const payment = order('254712345672');
		const result = await collect([payment]);
		const [out] = result.output('Little Pay');
		expect(out.json).toMatchObject({ status: 'PENDING', promptOutcomeUnknown: true });
		expect(String(out.json.message)).toMatch(/was not sent again/);
		const prompts = (await sb.received()).filter(
			(r) => r.method === 'POST' && r.path.endsWith('/process'),
		);
		expect(prompts).toHaveLength(1);
	});
});

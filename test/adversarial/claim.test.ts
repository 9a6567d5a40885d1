// One key claim per process that never lies (issue 49, point 2): the payday and collect red teams'
// reproductions, counted on the sandbox's ledger (payouts) and status records (PIN prompts), through
// n8n-core's engine against a gateway set to accept a repeated payout key.
import { loadFixture, runWorkflow } from '../../testkit/engine';
import type { RunResult, WorkflowJson } from '../../testkit/engine';
import { useNodeTestSandbox } from '../../testkit/nodeSandbox';
import { newKey } from '../../testkit/sandbox';

const sb = useNodeTestSandbox({ pinDelayMs: 50, longPollTimeoutMs: 400 });

type Item = Record<string, unknown>;
type Disbursement = { id: string; key: string; status: string; amount: number; to: string };

interface PayoutRunOptions {
	continueOnFail?: boolean;
	payAgain?: boolean;
	onStart?: (cancel: () => void) => void;
	/** Spending Limits set on the API key credential. */
	credentialLimits?: Item;
}

function payoutRun(items: Item[], options: PayoutRunOptions = {}): Promise<RunResult> {
	const json: WorkflowJson = loadFixture('disbursement-create.json', {
		ITEMS: JSON.stringify(items),
		ON_ERROR: options.continueOnFail ? 'continueRegularOutput' : 'stopWorkflow',
	});
	const node = json.nodes.find((n) => n.name === 'Little Pay');
	const params = node?.parameters as { options: Record<string, unknown> };
	if (options.payAgain) params.options.payAgainIfFailed = true;
	const credentials = {
		...sb.credentials,
		littlePayApiKeyApi: { ...sb.credentials.littlePayApiKeyApi, ...options.credentialLimits },
	} as typeof sb.credentials;
	return runWorkflow(json, { credentials, onStart: options.onStart });
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
		[10, 10, 100],
		[10, 10, 700],
		[1, 1, 100],
		[1, 10, 700],
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

describe('Keys that differ only by letter case (payday S1, editor #5)', () => {
	it('EMP1 and emp1 in one run: the second row is refused naming both, and nothing is paid', async () => {
		const key = newKey('Emp');
		const rows = [row(1, { key: key.toLowerCase() }), row(2, { key: key.toUpperCase() })];
		const result = await payoutRun(rows);
		expect(result.error?.message).toBe('Nothing was paid: 1 of 2 rows is refused');
		expect(result.error?.description).toContain(
			`Row 2 (key ${key.toUpperCase()}): Key "${key.toUpperCase()}" differs from the key of row 1 ("${key.toLowerCase()}") only by letter case`,
		);
		expect(await payoutsUnder([key.toLowerCase(), key.toUpperCase()])).toBe(0);
	});

	it('two executions paying EMP1 and emp1 at once are held as one key: the second finds nothing yet and waits its turn', async () => {
		await slowPayouts(400);
		const key = newKey('Emq');
		const [one, two] = await Promise.all([
			payoutRun([row(1, { key: key.toLowerCase() })]),
			later(100, () => payoutRun([row(2, { key: key.toUpperCase() })], { continueOnFail: true })),
		]);
		expect(one.error).toBeUndefined();
		// The sandbox tells case apart, so the second is its own payout; what matters is that it looked
		// its key up after the first's send had ended (its answer was not taken from before).
		expect(two.output('Little Pay')[0].json.error).toBeUndefined();
		const gets = (await sb.received()).filter(
			(r) => r.method === 'GET' && r.path.endsWith(`/${key.toUpperCase()}`),
		);
		expect(gets.length).toBeGreaterThanOrEqual(2);
	});
});

describe("Pay Again's derived keys (payday #4)", () => {
	it("a row whose key is another row's r2 is refused when Pay Again If Failed is on", async () => {
		const key = newKey('EMP');
		const rows = [row(1, { key }), row(2, { key: `${key}r2` })];
		const result = await payoutRun(rows, { payAgain: true });
		expect(result.error?.message).toBe('Nothing was paid: 1 of 2 rows is refused');
		expect(result.error?.description).toContain(
			`Row 2 (key ${key}r2): Key "${key}r2" is the key row 1 is paid again under (Pay Again If Failed, attempt 2)`,
		);
		expect(await payoutsUnder([key, `${key}r2`])).toBe(0);
	});

	it("A's retry does not take B's payout under <key>r2 for its own (B paid first, in another run)", async () => {
		const key = newKey('EMQ');
		// A's first payout fails (a number ending in 1); B was paid under A's r2 key by another sheet.
		const a = row(1, { key, to: '254711111111', amount: 1500 });
		expect((await payoutRun([a])).error).toBeUndefined();
		const b = row(2, { key: `${key}r2`, to: '254722222220', amount: 2000 });
		expect((await payoutRun([b])).error).toBeUndefined();
		await new Promise((resolve) => setTimeout(resolve, 300));
		const corrected = { ...a, to: '254711111110' };
		const result = await payoutRun([corrected], { payAgain: true, continueOnFail: true });
		const [out] = result.output('Little Pay');
		expect(String(out.json.error)).toContain(
			`Key "${key}r2", where this row would be paid again (attempt 2), holds a payout that is not this row's (amount 2000 there, 1500 here)`,
		);
		expect(out.json.outcome).toBeUndefined();
		expect(await payoutsUnder([key, `${key}r2`, `${key}r3`])).toBe(2);
	});
});

describe('The check before sending (payday #14, #15, #16)', () => {
	it('a key that already holds a different payout refuses its row before anything is paid', async () => {
		const a = row(1, { amount: 1000 });
		expect((await payoutRun([a])).error).toBeUndefined();
		const [x, y] = [row(2), row(3)];
		await sb.received();
		const result = await payoutRun([x, { ...a, amount: 1200 }, y]);
		expect(result.error?.message).toBe('Nothing was paid: 1 of 3 rows is refused');
		expect(result.error?.description).toContain(
			`Row 2 (key ${String(a.key)}): Key "${String(a.key)}" already belongs to a different payout (amount 1000 there, 1200 here)`,
		);
		expect((await sb.received()).filter((r) => r.method === 'POST')).toEqual([]);
		expect(await payoutsUnder([x.key, y.key])).toBe(0);
	});

	it.each([false, true])(
		'a re-run does not count rows already paid against Max Count per Execution (Pay Again If Failed: %s): the third row is paid',
		async (payAgain) => {
			const rows = [row(1), row(2), row(3)];
			const limits = {
				credentialLimits: { maxCountPerExecution: 2 },
				continueOnFail: true,
				payAgain,
			};
			const first = await payoutRun(rows, limits);
			expect(first.output('Little Pay')[2].json.error).toMatch(/at most 2 are allowed/);
			expect(await payoutsUnder(rows.map((r) => r.key))).toBe(2);
			const again = await payoutRun(rows, limits);
			const out = again.output('Little Pay').map((o) => o.json);
			expect(out.map((o) => o.alreadyExisted)).toEqual([true, true, false]);
			expect(await payoutsUnder(rows.map((r) => r.key))).toBe(3);
		},
	);

	it('the dry run with Pay Again If Failed says what the real run does: a failed row would be paid again under r2', async () => {
		const key = newKey('D');
		// The first payout settles failed (a number ending in 1); the number is then corrected.
		expect((await payoutRun([row(1, { key, to: '254711111111' })])).error).toBeUndefined();
		await new Promise((resolve) => setTimeout(resolve, 300));
		const corrected = row(1, { key, to: '254711111110' });
		const dry = await payoutRun([{ ...corrected, checkOnly: true }], { payAgain: true });
		const [checked] = dry.output('Little Pay').map((o) => o.json);
		expect(checked).toMatchObject({ valid: true, key: `${key}r2`, attempt: 2 });
		expect(checked.alreadyExisted).toBeUndefined();
		const real = await payoutRun([corrected], { payAgain: true });
		expect(real.output('Little Pay')[0].json).toMatchObject({ key: `${key}r2`, attempt: 2 });
		expect(real.output('Little Pay')[0].json.alreadyExisted).toBe(false);
	});
});

describe('Stop at each step', () => {
	it('during the lookup before the send: nothing was sent, so the key stays free and a re-run pays it once', async () => {
		await sb.post('/sandbox/faults', {
			rules: [{ method: 'GET', pathPrefix: '/api/disbursements/', latencyMs: 1000, times: 1 }],
		});
		const b = row(7);
		let cancel = () => {};
		const stopped = payoutRun([b], { onStart: (c) => (cancel = c) });
		setTimeout(() => cancel(), 300);
		await stopped;
		await new Promise((resolve) => setTimeout(resolve, 900));
		expect(await payoutsUnder([b.key])).toBe(0);
		const again = await payoutRun([b]);
		expect(again.error).toBeUndefined();
		expect(again.output('Little Pay')[0].json).toMatchObject({ key: b.key, alreadyExisted: false });
		expect(await payoutsUnder([b.key])).toBe(1);
	});

	it('during the lookup after a 503: the error says the outcome is unknown, and a run right after does not send', async () => {
		await sb.post('/sandbox/faults', {
			rules: [
				{ method: 'GET', pathPrefix: '/api/disbursements/', times: 1 },
				{ method: 'POST', pathPrefix: '/api/disbursements', status: 503, times: 1 },
				{ method: 'GET', pathPrefix: '/api/disbursements/', latencyMs: 1000, times: 1 },
			],
		});
		const b = row(10);
		let cancel = () => {};
		const stopped = payoutRun([b], { onStart: (c) => (cancel = c) });
		setTimeout(() => cancel(), 300);
		const result = await stopped;
		expect(String(result.error?.message)).toMatch(/outcome of the payout is unknown/);
		expect(String(result.error?.message)).toContain(String(b.key));
		const again = await payoutRun([b], { continueOnFail: true });
		expect(String(again.output('Little Pay')[0].json.error)).toMatch(/unknown/);
		expect(await payoutsUnder([b.key])).toBe(0);
	});

	it("while waiting for another execution's send of the key: 1 payout, the first run's", async () => {
		await slowPayouts(1000, 1);
		const b = row(8);
		let cancel = () => {};
		const [one, two] = await Promise.all([
			payoutRun([b]),
			later(100, () => {
				const waiting = payoutRun([b], { onStart: (c) => (cancel = c) });
				setTimeout(() => cancel(), 300);
				return waiting;
			}),
		]);
		expect(one.error).toBeUndefined();
		expect(two.error).toBeDefined();
		await new Promise((resolve) => setTimeout(resolve, 500));
		expect(await payoutsUnder([b.key])).toBe(1);
	});
});

describe('The look-ahead stops with its run (payday #19)', () => {
	it('a 300-row run whose first payout is refused (HTTP 400) reads no key after it ended', async () => {
		await sb.post('/sandbox/faults', {
			rules: [{ method: 'POST', pathPrefix: '/api/disbursements', status: 400, times: 1 }],
		});
		const rows = Array.from({ length: 300 }, (_, i) => row(i, { checkLimits: false }));
		const result = await payoutRun(rows);
		expect(result.error?.message).toMatch(/HTTP 400/);
		await sb.received();
		await new Promise((resolve) => setTimeout(resolve, 1000));
		const lookups = (await sb.received()).filter(
			(r) => r.method === 'GET' && r.path.startsWith('/api/disbursements/'),
		);
		expect(lookups).toEqual([]);
	});
});

describe('A late commit after a lost answer (payday #3, collect C2, the node timing out at 30 s)', () => {
	it('the payout and the PIN prompt the gateway commits at 31 s are each made once, and both say so', async () => {
		await sb.post('/sandbox/faults', {
			rules: [
				{ method: 'POST', pathPrefix: '/api/disbursements', latencyMs: 31000, times: 1 },
				{ method: 'POST', pathPrefix: '/pay/', latencyMs: 31000, times: 1 },
			],
		});
		const b = row(9);
		const payment = order('254712345672');
		const [payout, prompt] = await Promise.all([
			payoutRun([b], { continueOnFail: true }),
			collect([payment]),
		]);
		const [paid] = payout.output('Little Pay');
		expect(String(paid.json.error)).toMatch(/outcome of the payout is unknown/);
		const [asked] = prompt.output('Little Pay');
		expect(asked.json).toMatchObject({ status: 'PENDING', promptOutcomeUnknown: true });
		await new Promise((resolve) => setTimeout(resolve, 2500));
		expect(await payoutsUnder([b.key])).toBe(1);
		expect(await promptsFor(payment.key)).toBe(1);
	}, 90000);
});

describe('A prompt another process sent first (collect C1, across n8n processes)', () => {
	it.each([
		['254712345673', 'ATTEMPT_IN_PROGRESS'],
		['254712345670', 'ALREADY_PAID'],
	])(
		'Request Payment meeting a 422 (payer %s, %s) after reading no attempt returns the record, not an error',
		async (mobile) => {
			const intent = await sb.createIntent({ amount: 1500 });
			// Every prompt takes 300 ms: the other process's prompt is committed while ours travels.
			await sb.post('/sandbox/faults', {
				rules: [{ method: 'POST', pathPrefix: '/pay/', latencyMs: 300 }],
			});
			const other = sb.post(`/pay/${intent.reference}/process`, {
				type: 'MPESA',
				payment: { mobile },
			});
			const ours = later(100, () =>
				runWorkflow(
					loadFixture('mobile-money-request-payment.json', {
						ITEMS: JSON.stringify([{ reference: intent.reference, network: 'MPESA', mobile }]),
						ON_ERROR: 'continueRegularOutput',
					}),
					{ credentials: sb.credentials },
				),
			);
			const [, result] = await Promise.all([other, ours]);
			const [out] = result.output('Little Pay');
			expect(out.json.error).toBeUndefined();
			expect(out.json).toMatchObject({ reference: intent.reference, alreadyPrompted: true });
			expect(await promptsFor(intent.key)).toBe(1);
		},
	);
});

// Waiting for payouts to settle (Disbursement: Create with Wait for Result, and Wait for Settlement), run as
// workflows through n8n-core's engine against the sandbox: outcomes and reasons by the sandbox's last-digit
// rules, one shared polling loop with backoff, the timeout, cancellation, and a second run paying nobody.
import { loadFixture, runWorkflow } from '../../testkit/engine';
import { useNodeTestSandbox } from '../../testkit/nodeSandbox';
import type { NodeTestSandbox } from '../../testkit/nodeSandbox';
import { newKey, waitFor } from '../../testkit/sandbox';

jest.setTimeout(60000);

type Item = Record<string, unknown>;
type Logged = { method: string; path: string; status: number; at: string };
type Disbursement = { id: string; key: string; status: string };

function run(
	sb: NodeTestSandbox,
	file: string,
	items: Item[],
	options: { continueOnFail?: boolean; onStart?: (cancel: () => void) => void } = {},
) {
	return runWorkflow(
		loadFixture(file, {
			ITEMS: JSON.stringify(items),
			ON_ERROR: options.continueOnFail ? 'continueRegularOutput' : 'stopWorkflow',
		}),
		{ credentials: sb.credentials, onStart: options.onStart },
	);
}

async function ledger(sb: NodeTestSandbox): Promise<Disbursement[]> {
	return (await sb.get('/sandbox/ledger')).data.data.disbursements as Disbursement[];
}

/** Times (ms since the first) of the requests for a path. */
function times(requests: Logged[], path: string): number[] {
	return requests.filter((r) => r.path === path).map((r) => Date.parse(r.at));
}

const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);

describe('Disbursement: Create with Wait for Result: Until Settled', () => {
	const sb = useNodeTestSandbox({ pinDelayMs: 50, longPollTimeoutMs: 400 });

	it('reports completed, failed with the reason, and timedOut for the payout that never settles, from one shared loop with backoff; a second run pays nobody and reports the same', async () => {
		// Sandbox rules by the number's last digit: 0 pays, 1 and 2 fail, 3 never settles.
		const rows = [
			{ to: '254712345670', amount: 500 },
			{ to: '254712345671', amount: 750 },
			{ to: '254712345672', amount: 2000 },
			{ to: '254712345673', amount: 300 },
		].map((r) => ({ ...r, method: 'MPESA', key: newKey('w'), wait: true, waitTimeout: 7 }));
		const started = Date.now();
		const result = await run(sb, 'disbursement-create.json', rows);
		const elapsed = Date.now() - started;
		expect(result.error).toBeUndefined();
		const out = result.output('Little Pay').map((o) => o.json);
		expect(
			out.map((o) => [o.key, o.outcome, o.reason, o.timedOut, o.gatewayStatus, o.fee]),
		).toEqual([
			[rows[0].key, 'completed', null, false, 'success', 7],
			[
				rows[1].key,
				'failed',
				'The recipient wallet rejected the transfer (wallet limit reached)',
				false,
				'failed',
				13,
			],
			[
				rows[2].key,
				'failed',
				'The recipient number is not registered for mobile money',
				false,
				'failed',
				33,
			],
			[rows[3].key, 'pending', null, true, 'pending', 7],
		]);
		expect(out.map((o) => o.settledAt)).toEqual([ISO, ISO, ISO, null]);
		expect(result.output('Little Pay').map((o) => o.pairedItem)).toEqual(
			rows.map((_, item) => ({ item })),
		);
		// The timeout ends the wait: 7 s, not a minute of backoff.
		expect(elapsed).toBeGreaterThanOrEqual(7000);
		expect(elapsed).toBeLessThan(9500);

		const requests = (await sb.received()) as unknown as Logged[];
		expect(requests.filter((r) => r.method === 'POST')).toHaveLength(4);
		const lastPost = Math.max(...times(requests, '/api/disbursements'));
		const lookups = out.map((o) => times(requests, `/api/disbursements/${String(o.id)}`));
		// Settled payouts are looked up once; only the unsettled one is asked again, each round.
		expect(lookups.map((l) => l.length)).toEqual([1, 1, 1, 3]);
		// One loop for the run: the first round looks every payout up together, 2 s after the last was sent.
		const firstRound = lookups.map((l) => l[0]);
		expect(Math.max(...firstRound) - Math.min(...firstRound)).toBeLessThan(500);
		expect(Math.min(...firstRound) - lastPost).toBeGreaterThanOrEqual(1900);
		expect(Math.min(...firstRound) - lastPost).toBeLessThan(3000);
		// Then the pause doubles (4 s) and a last round comes at the timeout (7 s after the start).
		const [, second, third] = lookups[3];
		expect(second - lookups[3][0]).toBeGreaterThanOrEqual(3900);
		expect(second - lookups[3][0]).toBeLessThan(5000);
		expect(third - second).toBeGreaterThanOrEqual(700);
		expect(third - second).toBeLessThan(1800);

		// The same rows again: nobody is paid a second time, and the outcomes read the same.
		// A re-run sends nothing, so it waits for nothing: the pending payout is not waited for again
		// (it would hold the run for its whole 3 s timeout) and comes out as it stands: pending, timedOut.
		const before = await ledger(sb);
		const againStarted = Date.now();
		const again = await run(
			sb,
			'disbursement-create.json',
			rows.map((r) => ({ ...r, waitTimeout: 3 })),
		);
		const againElapsed = Date.now() - againStarted;
		expect(again.error).toBeUndefined();
		const againOut = again.output('Little Pay').map((o) => o.json);
		expect(againOut.map((o) => o.alreadyExisted)).toEqual([true, true, true, true]);
		// Whether the run paid anyone is the fourth column, right after the outcome.
		expect(Object.keys(againOut[0]).slice(0, 4)).toEqual([
			'id',
			'key',
			'outcome',
			'alreadyExisted',
		]);
		expect(againOut.map((o) => [o.id, o.outcome, o.reason, o.timedOut])).toEqual(
			out.map((o) => [o.id, o.outcome, o.reason, o.timedOut]),
		);
		expect(againElapsed).toBeLessThan(3000);
		const after = await ledger(sb);
		expect(after).toHaveLength(before.length);
		for (const row of rows) expect(after.filter((d) => d.key === row.key)).toHaveLength(1);
	});

	it('cancelling the execution stops the wait at once, and nothing is created or looked up after it', async () => {
		const row = {
			to: '254712345673',
			amount: 400,
			method: 'MPESA',
			key: newKey('c'),
			wait: true,
			waitTimeout: 60,
		};
		let cancel: (() => void) | undefined;
		const running = run(sb, 'disbursement-create.json', [row], { onStart: (c) => (cancel = c) });
		// Cancel during the 4 s pause after the first round of lookups.
		await waitFor(
			'the first lookup of the payout',
			async () => {
				const d = (await ledger(sb)).find((x) => x.key === row.key);
				if (!d) return undefined;
				const logged = (await sb.get('/sandbox/requests')).data.data.requests as Logged[];
				return logged.some((r) => r.path === `/api/disbursements/${d.id}`) ? true : undefined;
			},
			10000,
		);
		await sb.received();
		const cancelledAt = Date.now();
		cancel?.();
		const result = await running;
		expect(Date.now() - cancelledAt).toBeLessThan(1000);
		expect(result.error?.message).toMatch(/cancelled/i);
		await new Promise((r) => setTimeout(r, 3000));
		expect(await sb.received()).toEqual([]);
		expect((await ledger(sb)).filter((d) => d.key === row.key)).toHaveLength(1);
	});
});

describe('Disbursement: Wait for Settlement', () => {
	// Payouts take 2.5 s to settle here, so the wait has something to wait for.
	const sb = useNodeTestSandbox({ pinDelayMs: 50, payoutSettleMs: 2500 });

	it('waits for payouts of an earlier run by ID or key, with one lookup per round each, creating nothing; an unknown one fails alone', async () => {
		const make = async (to: string) => {
			const key = newKey('s');
			const res = await sb.post(
				'/api/disbursements',
				{
					amount: 1000,
					method: 'MPESA',
					currency: 'KES',
					key,
					details: { to, accountType: 'MOBILE' },
				},
				sb.apiKeyHeaders,
			);
			return { key, id: String(res.data.data.id) };
		};
		const paid = await make('254712345670');
		const failed = await make('254712345671');
		const never = await make('254712345673');
		await sb.received();
		const before = (await ledger(sb)).length;
		const result = await run(
			sb,
			'disbursement-wait-for-settlement.json',
			[
				{ id: paid.key, waitTimeout: 8 },
				{ id: failed.id },
				{ id: never.key },
				{ id: 'noSuchPayout9' },
			],
			{ continueOnFail: true },
		);
		expect(result.error).toBeUndefined();
		const out = result.output('Little Pay').map((o) => o.json);
		expect(out.slice(0, 3).map((o) => [o.id, o.key, o.outcome, o.reason, o.timedOut])).toEqual([
			[paid.id, paid.key, 'completed', null, false],
			[
				failed.id,
				failed.key,
				'failed',
				'The recipient wallet rejected the transfer (wallet limit reached)',
				false,
			],
			[never.id, never.key, 'pending', null, true],
		]);
		expect(out[0]).toMatchObject({
			amount: 1000,
			currency: 'KES',
			fee: 13,
			method: 'MPESA',
			to: '2547•••••670',
			settledAt: ISO,
			gatewayStatus: 'success',
		});
		expect(out[3].error).toMatch(/noSuchPayout9/);
		const requests = (await sb.received()) as unknown as Logged[];
		expect(requests.filter((r) => r.method !== 'GET')).toEqual([]);
		expect((await ledger(sb)).length).toBe(before);
		// First looked up as given, then by id each round until settled: at 0 s (pending), 2 s
		// (pending: it settles 2.5 s after creation) and 6 s (settled).
		const paidLookups = requests.filter(
			(r) =>
				r.path === `/api/disbursements/${paid.key}` || r.path === `/api/disbursements/${paid.id}`,
		);
		expect(paidLookups.map((r) => r.path)).toEqual([
			`/api/disbursements/${paid.key}`,
			`/api/disbursements/${paid.id}`,
			`/api/disbursements/${paid.id}`,
		]);
		expect(times(requests, `/api/disbursements/${never.id}`)).toHaveLength(3);
	});
});

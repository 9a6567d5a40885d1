// The payout run's summary as the payroll's page (issue 51 point 3, editor review problem 11): what the
// bookkeeper reads above the output, on the Summary output, and in the error of a run that stopped
// after sending. Through n8n-core's engine against the sandbox.
import type { WorkflowJson } from '../../testkit/engine';
import { loadFixture, runWorkflow } from '../../testkit/engine';
import { useNodeTestSandbox } from '../../testkit/nodeSandbox';
import { newKey } from '../../testkit/sandbox';

const sb = useNodeTestSandbox({ pinDelayMs: 50, longPollTimeoutMs: 300 });

type Item = Record<string, unknown>;

function run(items: Item[], onError = 'stopWorkflow') {
	const json: WorkflowJson = loadFixture('disbursement-create.json', {
		ITEMS: JSON.stringify(items),
		ON_ERROR: onError,
	});
	const node = json.nodes.find((n) => n.name === 'Little Pay');
	(node?.parameters as { options: Item }).options.runSummaryOutput = true;
	return runWorkflow(json, { credentials: sb.credentials });
}

/** A payroll row paid to a number ending in `lastDigit` (0 completes, 1 fails, 3 never settles). */
const row = (lastDigit: number, amount: number, extra: Item = {}): Item => ({
	method: 'MPESA',
	amount,
	to: `25471234567${lastDigit}`,
	key: newKey('book'),
	...extra,
});

describe("The run summary is the payroll's page", () => {
	it('a dry run counts a payout found failed as failed with a line to act on, never as found already sent (issue 61)', async () => {
		const failedBefore = row(1, 27551);
		const paidBefore = row(0, 700);
		for (const paid of [failedBefore, paidBefore]) {
			await sb.createPayout({
				key: String(paid.key),
				to: String(paid.to),
				amount: Number(paid.amount),
			});
			await sb.payoutSettled(String(paid.key));
		}
		await sb.received();
		const fresh = row(0, 1000);
		const rows = [fresh, failedBefore, paidBefore].map((r) => ({ ...r, checkOnly: true }));
		const result = await run(rows);
		expect(result.error).toBeUndefined();
		const [summary] = result.output('Little Pay', 1).map((o) => o.json);
		expect(summary).toMatchObject({
			checkOnly: true,
			count: 1,
			alreadyExisted: 1,
			failed: 1,
			payroll: {
				KES: {
					foundAlreadySent: { count: 1, amount: 700 },
					failed: { count: 1, amount: 27551 },
				},
			},
		});
		expect(summary.rowsToActOn).toEqual([
			expect.objectContaining({ row: 2, key: failedBefore.key, outcome: 'failed' }),
		]);
		const out = result.output('Little Pay').map((o) => o.json);
		expect(out[1]).toMatchObject({ outcome: 'failed', valid: true });
		expect(
			result
				.hints('Little Pay')
				.map((h) => h.message)
				.join('\n'),
		).toMatch(
			/Check only, nothing sent: 1 would be paid \(KES 1,000\.00, fees KES [\d.]+\), 1 found already sent \(KES 700\.00\), 1 found failed \(KES 27,551\.00\)/,
		);
		expect((await sb.received()).filter((r) => r.method === 'POST')).toEqual([]);
	});

	it('gives paid so far, sent now without the failed payouts, found already sent with its amount, and pending and failed rows to act on with what to do', async () => {
		const paidBefore = row(0, 700);
		await sb.createPayout({ key: String(paidBefore.key), to: String(paidBefore.to), amount: 700 });
		await sb.payoutSettled(String(paidBefore.key));
		const completes = row(0, 1000, { wait: true, waitTimeout: 4 });
		const fails = row(1, 2000, { wait: true, waitTimeout: 4 });
		const staysPending = row(3, 3000, { wait: true, waitTimeout: 4 });
		const rows = [completes, fails, staysPending, { ...paidBefore, wait: true, waitTimeout: 4 }];
		const result = await run(rows);
		expect(result.error).toBeUndefined();
		const out = result.output('Little Pay').map((o) => o.json);
		expect(out.map((o) => o.outcome)).toEqual(['completed', 'failed', 'pending', 'completed']);
		const [summary] = result.output('Little Pay', 1).map((o) => o.json);
		const fee = (i: number) => Number(out[i].fee);
		expect(summary).toMatchObject({
			rows: 4,
			// Sent now is money on its way: the failed payout paid nobody.
			count: 2,
			totalAmount: 4000,
			alreadyExisted: 1,
			completed: 2,
			failed: 1,
			pending: 1,
			payroll: {
				KES: {
					asked: { count: 4, amount: 6700 },
					paidSoFar: { count: 2, amount: 1700, fees: fee(0) + fee(3) },
					sentNow: { count: 2, amount: 4000, fees: fee(0) + fee(2) },
					foundAlreadySent: { count: 1, amount: 700 },
					failed: { count: 1, amount: 2000 },
				},
			},
		});
		expect(summary.rowsToActOn).toEqual([
			{
				row: 2,
				key: fails.key,
				outcome: 'failed',
				reason: expect.any(String),
				nextStep: expect.stringContaining('Options > Pay Again If Failed'),
			},
			{
				row: 3,
				key: staysPending.key,
				outcome: 'pending',
				reason: 'Little Pay has not settled it yet',
				nextStep: expect.stringMatching(/^Not settled yet: do not pay it again/),
			},
		]);
		const [hint] = result.hints('Little Pay');
		const kes = (n: number) => `KES ${n.toLocaleString('en-US', { minimumFractionDigits: 2 })}`;
		// n8n renders a hint as sanitised HTML: one line each, ended by <br>, and "<" written as text.
		expect(hint.message.split('<br>\n')).toEqual([
			`Payout run: 2 sent now (${kes(4000)}, fees ${kes(fee(0) + fee(2))}), 1 found already sent (${kes(700)}), 1 failed (${kes(2000)}), 0 refused, 1 pending.`,
			`Paid so far: 2 rows completed (${kes(1700)}, fees ${kes(fee(0) + fee(3))}), of 4 rows asked (${kes(6700)}).`,
			'To act on:',
			`Row 2 (${String(fails.key)}) failed: ${String(out[1].reason)}`,
			`Row 3 (${String(staysPending.key)}) pending`,
			'Failed: nobody was paid; run the same rows again with Options > Pay Again If Failed (it derives &lt;key>r2, then r3, and pays each failed row once more).',
			'Pending: do not pay again; look it up later with Payout: Reconcile (or Wait for Settlement).',
		]);
		// The failed payout's own next step says the same, not "with a new key".
		expect(String(out[1].nextStep)).toMatch(/Options > Pay Again If Failed/);
		expect(String(out[1].nextStep)).not.toMatch(/new key/);
	});

	it.each([1, 3])(
		'a run stopped by a 503 on a payout (Concurrency %i) lists that row under To act on as outcome unknown, and names the rows it did not reach (issue 66)',
		async (concurrency) => {
			// The first two payouts go through; the third is answered 503 and its look-up finds nothing.
			await sb.post('/sandbox/faults', {
				rules: [
					{ method: 'POST', pathPrefix: '/api/disbursements', latencyMs: 0, times: 2 },
					{ method: 'POST', pathPrefix: '/api/disbursements', status: 503, times: 1 },
				],
			});
			const rows = [600, 700, 800, 900, 1000, 1100].map((amount) => row(0, amount));
			const json: WorkflowJson = loadFixture('disbursement-create.json', {
				ITEMS: JSON.stringify(rows),
				ON_ERROR: 'stopWorkflow',
			});
			const node = json.nodes.find((n) => n.name === 'Little Pay');
			(node?.parameters as { options: Item }).options.concurrency = concurrency;
			const result = await runWorkflow(json, { credentials: sb.credentials });
			expect(result.error?.message).toMatch(/^Row 3: the outcome of the payout is unknown/);
			const description = String(result.error?.description);
			const sent = (await sb.received())
				.filter((r) => r.method === 'POST' && r.path.startsWith('/api/disbursements'))
				.map((r) => String((r.body as Item).key));
			// Row 3 is the one to look up before anything else is done about it.
			expect(description).toContain(
				`Row 3 (${String(rows[2].key)}) outcome unknown: the outcome of the payout is unknown (HTTP 503`,
			);
			// Every row this run sent a request for is accounted for, and every other row is named.
			const named = rows.filter((r) => description.includes(String(r.key)));
			const notSent = rows.filter((r) => !sent.includes(String(r.key)));
			for (const r of notSent) expect(description).toContain(String(r.key));
			expect(named.length).toBeGreaterThanOrEqual(notSent.length + 1);
			if (notSent.length > 0)
				expect(description).toContain(
					`Not reached, nothing sent for them: rows ${notSent.map((r) => `${rows.indexOf(r) + 1} (${String(r.key)})`).join(', ')}.`,
				);
			else expect(description).not.toMatch(/not reached/i);
		},
	);

	it('a run that stops after sending (a fault mid-run, On Error: Stop) still gives its summary as the error description', async () => {
		// The third row skips the node's limit check, so Little Pay refuses it after two were sent.
		const rows = [row(0, 500), row(0, 600), row(0, 5, { checkLimits: false }), row(0, 800)];
		const result = await run(rows);
		expect(result.error?.message).toMatch(/refused by its rules .* AMOUNT_OUT_OF_RANGE/);
		const lines = String(result.error?.description).split('<br>\n');
		expect(lines[0]).toMatch(/ The run stopped here\.$/);
		expect(lines.slice(1)).toEqual([
			expect.stringMatching(
				/^Payout run: 2 sent now \(KES 1,100\.00, fees KES [\d.]+\), 0 found already sent, 0 failed, 0 refused, 1 error, 2 pending, 1 not reached \(the run stopped\)\.$/,
			),
			'Paid so far: 0 rows completed, of 2 rows asked (KES 1,100.00).',
			`Not reached, nothing sent for them: row 4 (${String(rows[3].key)}).`,
			'To act on:',
			`Row 3 (${String(rows[2].key)}) error: Little Pay refused by its rules POST /api/disbursements (HTTP 422, AMOUNT_OUT_OF_RANGE)`,
			'Error: read it; if it says the outcome is unknown, look the key up with Payout: Reconcile before paying; else fix the row and run again.',
			'Running it again pays none of them twice: each row is looked up under its key first.',
		]);
		const posts = (await sb.received()).filter((r) => r.method === 'POST');
		expect(posts).toHaveLength(3);
	});

	it('a dry run shows no null reason and no missing field on a valid row', async () => {
		const result = await run([row(0, 500, { checkOnly: true }), row(0, 5, { checkOnly: true })]);
		const [valid, refused] = result.output('Little Pay').map((o) => o.json);
		expect(valid).toMatchObject({ valid: true, reason: '', field: '' });
		expect(refused).toMatchObject({ valid: false, field: 'Amount' });
		for (const item of [valid, refused])
			for (const value of Object.values(item)) expect(value).not.toBeUndefined();
	});
});

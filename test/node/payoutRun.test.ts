// A payout run as a bookkeeper runs payday (issue 43): every row checked before any is sent, the run's
// summary at a glance, paying again only what failed, and one key in flight once, through n8n-core's
// engine against the sandbox.
import type { WorkflowJson } from '../../testkit/engine';
import { loadFixture, runWorkflow } from '../../testkit/engine';
import { useNodeTestSandbox } from '../../testkit/nodeSandbox';
import { newKey } from '../../testkit/sandbox';

const sb = useNodeTestSandbox({ pinDelayMs: 50, longPollTimeoutMs: 400 });

type Item = Record<string, unknown>;
type Disbursement = { id: string; key: string; status: string; amount: number; to: string };

function workflow(items: Item[], options: { summaryOutput?: boolean; payAgain?: boolean } = {}) {
	const json: WorkflowJson = loadFixture('disbursement-create.json', {
		ITEMS: JSON.stringify(items),
		ON_ERROR: 'stopWorkflow',
	});
	const node = json.nodes.find((n) => n.name === 'Little Pay');
	const params = node?.parameters as { options: Record<string, unknown> };
	// Fixed values, as the panel stores them: the outputs a node has cannot depend on an item.
	if (options.summaryOutput) params.options.runSummaryOutput = true;
	if (options.payAgain) params.options.payAgainIfFailed = true;
	return json;
}

function run(
	items: Item[],
	options: { continueOnFail?: boolean; summaryOutput?: boolean; payAgain?: boolean } = {},
) {
	const json = workflow(items, options);
	const node = json.nodes.find((n) => n.name === 'Little Pay');
	if (node) node.onError = options.continueOnFail ? 'continueRegularOutput' : 'stopWorkflow';
	return runWorkflow(json, { credentials: sb.credentials });
}

const row = (n: number, overrides: Item = {}): Item => ({
	method: 'MPESA',
	amount: 100 + n,
	// Numbers ending in 0: the sandbox completes them.
	to: `2547123${String(n).padStart(4, '0')}0`.slice(0, 12),
	key: newKey(`pay${n}x`),
	...overrides,
});

async function ledger(): Promise<Disbursement[]> {
	return (await sb.get('/sandbox/ledger')).data.data.disbursements as Disbursement[];
}

/** A payroll of `count` rows with some rows made wrong the ways a sheet goes wrong. */
function payroll(count: number) {
	const rows = Array.from({ length: count }, (_, i) => row(i));
	rows[3] = { ...rows[3], to: '+254 712 34567' }; // a digit missing
	rows[8] = { ...rows[8], amount: 5 }; // under M-Pesa's minimum
	rows[9] = { ...rows[9], key: rows[8].key }; // a copied payout ID
	rows[12] = { ...rows[12], amount: '1,500' }; // a thousands comma
	return { rows, refusedRows: [4, 9, 10, 13] };
}

describe('A payout run is checked whole before anything is sent', () => {
	it('with On Error: Stop, one bad row means nothing is paid, and the error lists every refused row with its row number and key', async () => {
		const { rows, refusedRows } = payroll(15);
		const before = (await ledger()).length;
		const result = await run(rows);
		expect(result.error?.message).toBe('Nothing was paid: 4 of 15 rows are refused');
		// n8n's error panel renders the description as HTML: a plain line break would run the rows together.
		const lines = String(result.error?.description).split('<br>\n');
		expect(lines.slice(0, 4)).toEqual([
			`Row 4 (key ${String(rows[3].key)}): Destination Number must have 9 digits after the country code 254 (got 8). To fix: Check the number for missing or extra digits.`,
			`Row 9 (key ${String(rows[8].key)}): Amount 5 is outside the MPESA limits 10-150000. To fix: Split the payout into parts within the limits, each a row with its own payout ID (key), or pick another network.`,
			`Row 10 (key ${String(rows[9].key)}): Key "${String(rows[9].key)}" is also the key of row 9: Little Pay keeps one payout per key, so this row would be reported as that row's payout, and nobody paid. To fix: Give each row its own payout ID (a copied ID?); each part of a split payout needs an ID of its own.`,
			`Row 13 (key ${String(rows[12].key)}): Amount "1,500" has a thousands comma: write 1500. To fix: Remove the thousands separators: 1500.`,
		]);
		expect(result.error?.description).toContain('no payout of this run was sent');
		expect(refusedRows).toHaveLength(4);
		const sent = await sb.received();
		expect(sent.filter((r) => r.method === 'POST')).toEqual([]);
		expect(await ledger()).toHaveLength(before);
	});

	it('lists the first 20 refused rows and says how many more there are', async () => {
		const rows = Array.from({ length: 25 }, (_, i) => row(i, { amount: 1 }));
		const result = await run(rows);
		const lines = String(result.error?.description).split('<br>\n');
		expect(result.error?.message).toBe('Nothing was paid: 25 of 25 rows are refused');
		expect(lines[0]).toMatch(/^Row 1 \(key [^)]+\): Amount 1 is outside .*\. To fix: Split /);
		// One fix twenty times is not twenty paragraphs: later rows name the row that gives it.
		expect(lines[19]).toMatch(
			/^Row 20 \(key [^)]+\): Amount 1 is outside .*\. To fix: as for row 1\.$/,
		);
		expect(lines[20]).toBe('... and 5 more');
		expect((await sb.received()).filter((r) => r.method === 'POST')).toEqual([]);
	});

	it("refuses the rows past the credential's Spending Limits for the run's count and total, before any is paid", async () => {
		const rows = [row(1), row(2), row(3)];
		const result = await runWorkflow(workflow(rows), {
			credentials: {
				...sb.credentials,
				littlePayApiKeyApi: {
					...sb.credentials.littlePayApiKeyApi,
					maxCountPerExecution: 2,
				},
			},
		});
		expect(result.error?.message).toBe('Nothing was paid: 1 of 3 rows is refused');
		expect(result.error?.description).toMatch(/^Row 3 \(key [^)]+\): .*2/);
		expect((await sb.received()).filter((r) => r.method === 'POST')).toEqual([]);
	});

	it('with On Error: Continue, pays the valid rows, outputs the refused ones as error items with row and key, and sums the run up above the output and on the Run Summary output', async () => {
		const { rows, refusedRows } = payroll(15);
		const result = await run(rows, { continueOnFail: true, summaryOutput: true });
		expect(result.error).toBeUndefined();
		const out = result.output('Little Pay').map((o) => o.json);
		expect(out).toHaveLength(15);
		for (const n of refusedRows) {
			expect(out[n - 1]).toMatchObject({
				row: n,
				key: rows[n - 1].key,
				failureCode: 'invalid-input',
			});
			expect(String(out[n - 1].error)).toMatch(new RegExp(`^Row ${n}: `));
		}
		const paid = out.filter((o) => o.outcome === 'accepted');
		expect(paid).toHaveLength(11);
		const posts = (await sb.received()).filter((r) => r.method === 'POST');
		expect(posts).toHaveLength(11);
		const [summary] = result.output('Little Pay', 1).map((o) => o.json);
		const amounts = rows
			.filter((_, i) => !refusedRows.includes(i + 1))
			.reduce((sum, r) => sum + Number(r.amount), 0);
		const fees = paid.reduce((sum, o) => sum + Number(o.fee), 0);
		expect(summary).toMatchObject({
			summary: true,
			checkOnly: false,
			rows: 15,
			count: 11,
			alreadyExisted: 0,
			completed: 0,
			pending: 11,
			failed: 0,
			refused: 4,
			errors: 0,
			currency: 'KES',
			totalAmount: amounts,
			totalFees: fees,
		});
		expect(summary.rowsToActOn).toEqual(
			refusedRows.map((n) => ({
				row: n,
				key: rows[n - 1].key,
				outcome: 'refused',
				reason: expect.any(String),
			})),
		);
		const [hint] = result.hints('Little Pay');
		const kes = `KES ${amounts.toLocaleString('en-US', { minimumFractionDigits: 2 })}`;
		// One line each (n8n renders a hint as HTML): the figures, then each refused row with its reason.
		expect(hint.message.split('<br>\n')).toEqual([
			`Payout run: 11 sent now (${kes}, fees KES ${fees.toFixed(2)}), 0 found already sent, 0 failed, 4 refused, 11 pending.`,
			`Paid so far: 0 rows completed, of 11 rows asked (${kes}).`,
			'To act on:',
			...refusedRows.map(
				(n, i) =>
					`Row ${n} (${String(rows[n - 1].key)}) refused: ${String((summary.rowsToActOn as Item[])[i].reason)}`,
			),
			'Refused: nothing was sent for it; fix the row and run again.',
		]);

		// Run again: nothing is sent, and the summary says every row was found already sent.
		const again = await run(rows, { continueOnFail: true, summaryOutput: true });
		expect((await sb.received()).filter((r) => r.method === 'POST')).toEqual([]);
		expect(again.output('Little Pay', 1)[0].json).toMatchObject({
			count: 0,
			alreadyExisted: 11,
			refused: 4,
			totalAmount: 0,
		});
		expect(again.hints('Little Pay')[0].message).toMatch(
			// The payroll's page: what was found paid, with its amount, and what is paid so far.
			/^Payout run: 0 sent now, 11 found already sent \(KES 1,\d{3}\.00\), 0 failed, 4 refused, \d+ pending\.<br>\nPaid so far: \d+ rows? completed( \(KES [\d,.]+, fees KES [\d.]+\))?, of 11 rows asked \(KES 1,\d{3}\.00\)\.<br>\n/,
		);
	});
});

describe('Pay Again If Failed', () => {
	it('pays a failed row once more under <key>r2, leaves paid rows alone, and two re-runs at once pay it once', async () => {
		// A number ending in 1 fails in the sandbox (wallet limit); 0 completes.
		const failing = row(1, { to: '254712345671' });
		const paid = row(2);
		await run([failing, paid]);
		await sb.payoutSettled(String(failing.key));
		await sb.payoutSettled(String(paid.key));
		await sb.received();
		// The bookkeeper corrects the number and runs the same rows again, twice at once.
		const corrected = { ...failing, to: '254712345680' };
		const [first, second] = await Promise.all([
			run([corrected, paid], { payAgain: true }),
			run([corrected, paid], { payAgain: true }),
		]);
		expect(first.error).toBeUndefined();
		expect(second.error).toBeUndefined();
		const posts = (await sb.received()).filter((r) => r.method === 'POST');
		expect(posts.map((p) => (p.body as Item).key)).toEqual([`${String(failing.key)}r2`]);
		const rows = [first, second].map((r) => r.output('Little Pay')[0].json);
		expect(rows.map((r) => r.key)).toEqual([
			`${String(failing.key)}r2`,
			`${String(failing.key)}r2`,
		]);
		expect(rows.map((r) => r.alreadyExisted).sort()).toEqual([false, true]);
		expect(rows[0]).toMatchObject({ attempt: 2, failedBefore: [failing.key] });
		expect(first.output('Little Pay')[1].json).toMatchObject({
			key: paid.key,
			alreadyExisted: true,
			outcome: 'completed',
		});
		// A third run finds the second attempt and pays nobody.
		await run([corrected, paid], { payAgain: true });
		expect((await sb.received()).filter((r) => r.method === 'POST')).toEqual([]);
	});
});

describe('One key in flight once', () => {
	afterEach(async () => {
		await sb.post('/sandbox/settings', { acceptRepeatedPayoutKeys: false });
	});

	it('two identical runs started together pay each row once, even against a gateway that accepts a repeated key', async () => {
		await sb.post('/sandbox/settings', { acceptRepeatedPayoutKeys: true });
		const rows = Array.from({ length: 20 }, (_, i) => row(i, { concurrency: 5 }));
		const before = (await ledger()).length;
		const [a, b] = await Promise.all([run(rows), run(rows)]);
		expect(a.error).toBeUndefined();
		expect(b.error).toBeUndefined();
		const paidNow = (await ledger()).slice(before);
		expect(paidNow.map((d) => d.key).sort()).toEqual(rows.map((r) => String(r.key)).sort());
		const existed = [a, b].flatMap((r) =>
			r.output('Little Pay').filter((o) => o.json.alreadyExisted === true),
		);
		expect(existed).toHaveLength(20);
	});

	it('the sandbox does pay a repeated key twice when asked to, so the test above can fail', async () => {
		await sb.post('/sandbox/settings', { acceptRepeatedPayoutKeys: true });
		const key = newKey('twice');
		await sb.createPayout({ key, amount: 500, to: '254712345670' });
		await sb.createPayout({ key, amount: 500, to: '254712345670' });
		expect((await ledger()).filter((d) => d.key === key)).toHaveLength(2);
	});
});

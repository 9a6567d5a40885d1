// The sweeps, Payment: Reconcile and Disbursement: Reconcile, for payments and payouts whose callback may
// never come, run through n8n-core's engine against the sandbox: one read per row, nothing sent that could
// move money, one row out per row in (an unknown or bad row is an outcome, not the end of the sweep), the
// merchant's own fields carried through, and what changed since the merchant's own record.
import { loadFixture, runWorkflow } from '../../testkit/engine';
import { useNodeTestSandbox } from '../../testkit/nodeSandbox';
import type { NodeTestSandbox } from '../../testkit/nodeSandbox';
import { newKey, waitFor } from '../../testkit/sandbox';
import { contactHash } from '../../nodes/LittlePay/helpers/payerData';

const sb = useNodeTestSandbox({ pinDelayMs: 50, longPollTimeoutMs: 300 });

type Item = Record<string, unknown>;

function run(
	items: Item[],
	onStart?: (cancel: () => void) => void,
	{ fixture = 'payment-reconcile.json', onError = 'continueRegularOutput' } = {},
) {
	return runWorkflow(
		loadFixture(fixture, {
			ITEMS: JSON.stringify(items),
			ON_ERROR: onError,
		}),
		{ credentials: sb.credentials, onStart },
	);
}

/** A payout created in the sandbox to a number ending in `lastDigit` (0 pays, 1 fails, 3 never settles). */
async function payoutTo(lastDigit: number, amount = 1000): Promise<string> {
	const key = newKey('sweep');
	await sb.createPayout({ key, to: `25471234567${lastDigit}`, amount });
	if (lastDigit !== 3) await sb.payoutSettled(key);
	return key;
}

/** An intent paid by a number ending in `lastDigit` (0 pays, 1 fails, 3 never answers); none: no attempt. */
async function paymentOf(sandbox: NodeTestSandbox, lastDigit?: number) {
	const intent = await sandbox.createIntent({ amount: 1500 });
	if (lastDigit !== undefined) {
		await sandbox.post(`/pay/${intent.reference}/process`, {
			type: 'MPESA',
			payment: { mobile: `25471234567${lastDigit}` },
		});
		if (lastDigit !== 3)
			await waitFor('the attempt to settle', async () =>
				(await sandbox.status(intent.key)).status !== 'PENDING' ? true : undefined,
			);
	}
	return intent;
}

describe('Payment: Reconcile', () => {
	it('says where each open payment stands, what changed, and which are final, with one read each and nothing sent', async () => {
		const paid = await paymentOf(sb, 0);
		const failedForGood = await paymentOf(sb, 1);
		await sb.post(`/sandbox/payments/${failedForGood.reference}/expire`);
		const failedOnce = await paymentOf(sb, 2);
		const waiting = await paymentOf(sb, 3);
		const unpaid = await paymentOf(sb);
		await sb.received();
		const result = await run(
			[paid, failedForGood, failedOnce, waiting, unpaid].map((p) => ({ paymentId: p.key })),
		);
		expect(result.error).toBeUndefined();
		const out = result.output('Little Pay').map((o) => o.json);
		expect(
			out.map((o) => [o.key, o.status, o.event, o.final, o.payable ?? null, o.changed]),
		).toEqual([
			[paid.key, 'COMPLETED', 'payment.completed', true, false, true],
			[failedForGood.key, 'FAILED', 'payment.failed', true, false, true],
			// A failed try the payer can repeat is not a change to record: closing it would cancel an
			// order that may still be paid.
			[failedOnce.key, 'FAILED', null, false, true, false],
			[waiting.key, 'PENDING', null, false, true, false],
			[unpaid.key, 'PENDING', null, false, true, false],
		]);
		expect(out.map((o) => o.outcome)).toEqual([
			'completed',
			'failed',
			'pending',
			'pending',
			'pending',
		]);
		// What to act on leads the row: a person reads the first columns.
		expect(Object.keys(out[0]).slice(0, 4)).toEqual(['outcome', 'final', 'payable', 'nextStep']);
		expect(String(out[2].nextStep)).toMatch(/leave your record open/);
		expect(out[0]).toMatchObject({
			kind: 'payment',
			reference: paid.reference,
			amount: 1500,
			currency: 'KES',
			provider: 'MPESA',
			knownStatus: 'PENDING',
			providerReference: expect.stringMatching(/^MPESA-/),
		});
		expect(Date.parse(String(out[0].paidAt))).toBeGreaterThan(0);
		const sent = await sb.received();
		expect(sent.map((r) => r.method)).toEqual(['GET', 'GET', 'GET', 'GET', 'GET']);
		expect(sent.every((r) => r.path.startsWith('/api/payments-v2/'))).toBe(true);
	});

	it("answers every row of a sweep in order, an unknown reference and a bad value included, with the merchant's fields and only reads", async () => {
		const paid = await paymentOf(sb, 0);
		const failedOnce = await paymentOf(sb, 2);
		await sb.received();
		// Stop Workflow on error: the sweep must not need Continue On Fail to get past one bad row.
		const result = await run(
			[
				{ orderId: 'A-1', paymentId: paid.reference, status: 'PENDING' },
				{ orderId: 'A-2', paymentId: 'does-not-exist-123', status: 'PENDING' },
				{ orderId: 'A-3', paymentId: '', status: 'PENDING' },
				{ orderId: 'A-4', paymentId: failedOnce.reference, status: 'PENDING' },
			],
			undefined,
			{ onError: 'stopWorkflow' },
		);
		expect(result.error).toBeUndefined();
		const out = result.output('Little Pay').map((o) => o.json);
		expect(out.map((o) => [o.orderId, o.outcome, o.final])).toEqual([
			['A-1', 'completed', true],
			['A-2', 'not-found', false],
			['A-3', 'invalid-input', false],
			['A-4', 'pending', false],
		]);
		// Little Pay's status wins over the row's own column of the same name.
		expect(out[0]).toMatchObject({ status: 'COMPLETED', reference: paid.reference });
		expect(out[1]).toMatchObject({
			reference: 'does-not-exist-123',
			failureCode: 'not-found',
			row: 2,
		});
		expect(String(out[1].error)).toMatch(/does-not-exist-123/);
		expect(String(out[2].error)).toMatch(/Row 3: Reference or Key/);
		expect(out[3]).toMatchObject({ status: 'FAILED', payable: true, changed: false });
		const sent = await sb.received();
		// Three reads; the empty reference sent nothing.
		expect(sent.map((r) => `${r.method} ${r.path.split('/')[2]}`)).toEqual(
			Array(3).fill('GET payments-v2'),
		);
	});

	it("keeps the merchant's own row column on every outcome: a row Little Pay does not know is not renumbered", async () => {
		const paid = await paymentOf(sb, 0);
		// The sheet's own row numbers (its header is row 1), as a bookkeeper writes results back by them.
		const result = await run(
			[
				{ row: 2, orderId: 'B-1', paymentId: paid.reference },
				{ row: 7, orderId: 'B-2', paymentId: 'does-not-exist-456' },
				{ row: 9, orderId: 'B-3', paymentId: '' },
			],
			undefined,
			{ onError: 'stopWorkflow' },
		);
		const out = result.output('Little Pay').map((o) => o.json);
		expect(out.map((o) => [o.orderId, o.outcome, o.row])).toEqual([
			['B-1', 'completed', 2],
			['B-2', 'not-found', 7],
			['B-3', 'invalid-input', 9],
		]);
		// Without a row column of its own, a problem row still says where it sits in the input.
		const plain = await run([{ orderId: 'C-1', paymentId: 'does-not-exist-789' }], undefined, {
			onError: 'stopWorkflow',
		});
		expect(plain.output('Little Pay')[0].json).toMatchObject({ row: 1, itemIndex: 0 });
	});

	it('stops on an unknown reference when the merchant asks for errors', async () => {
		const paid = await paymentOf(sb, 0);
		const result = await run(
			[{ paymentId: paid.key }, { paymentId: 'does-not-exist-123', failOnRowProblem: true }],
			undefined,
			{ onError: 'stopWorkflow' },
		);
		expect(String(result.error?.message)).toMatch(/does-not-exist-123/);
	});

	it('leaves the input fields out when asked', async () => {
		const paid = await paymentOf(sb, 0);
		const result = await run([{ orderId: 'A-1', paymentId: paid.key, includeInputFields: false }]);
		const [row] = result.output('Little Pay').map((o) => o.json);
		expect(row.orderId).toBeUndefined();
		expect(row).toMatchObject({ outcome: 'completed', key: paid.key });
	});

	it('fails a bad reference on its own item and goes on with the others', async () => {
		const paid = await paymentOf(sb, 0);
		const result = await run([
			{ paymentId: 'noSuchOrder4' },
			{ paymentId: paid.key },
			{ paymentId: ' ' },
		]);
		expect(result.error).toBeUndefined();
		const out = result.output('Little Pay').map((o) => o.json);
		expect(out[0]).toMatchObject({ reference: 'noSuchOrder4', row: 1 });
		expect(String(out[0].error)).toMatch(/noSuchOrder4/);
		expect(out[1]).toMatchObject({ key: paid.key, status: 'COMPLETED', final: true });
		expect(String(out[2].error)).toMatch(/Reference or Key/);
	});

	it('stops when the execution is cancelled: no lookup starts after it', async () => {
		const intents = await Promise.all(Array.from({ length: 6 }, () => paymentOf(sb)));
		await sb.post('/sandbox/faults', {
			rules: [{ method: 'GET', pathPrefix: '/api/payments-v2/', latencyMs: 400 }],
		});
		await sb.received();
		let cancel: (() => void) | undefined;
		const running = run(
			intents.map((i) => ({ paymentId: i.key, concurrency: 1 })),
			(c) => (cancel = c),
		);
		await new Promise((resolve) => setTimeout(resolve, 500));
		cancel?.();
		const result = await running;
		expect(String(result.error?.message ?? '')).toMatch(/cancel/i);
		await new Promise((resolve) => setTimeout(resolve, 800));
		expect((await sb.received()).length).toBeLessThan(intents.length);
	});
});

describe('Disbursement: Reconcile', () => {
	it('says where each recorded payout stands, one row per row in order, with only reads', async () => {
		const paid = await payoutTo(0, 1250);
		const refused = await payoutTo(1);
		const unsettled = await payoutTo(3);
		await sb.received();
		const result = await run(
			[
				{ payoutId: 'po1', id: paid },
				{ payoutId: 'po2', id: 'noSuchPayout9' },
				{ payoutId: 'po3', id: refused },
				{ payoutId: 'po4', id: '  ' },
				{ payoutId: 'po5', id: unsettled },
			],
			undefined,
			{ fixture: 'disbursement-reconcile.json', onError: 'stopWorkflow' },
		);
		expect(result.error).toBeUndefined();
		const out = result.output('Little Pay').map((o) => o.json);
		expect(out.map((o) => [o.payoutId, o.outcome, o.final, o.key])).toEqual([
			['po1', 'completed', true, paid],
			['po2', 'not-found', false, 'noSuchPayout9'],
			['po3', 'failed', true, refused],
			['po4', 'invalid-input', false, null],
			['po5', 'pending', false, unsettled],
		]);
		expect(out[0]).toMatchObject({
			kind: 'payout',
			amount: 1250,
			currency: 'KES',
			method: 'MPESA',
		});
		expect(Number(out[0].fee)).toBeGreaterThan(0);
		expect(Date.parse(String(out[0].settledAt))).toBeGreaterThan(0);
		expect(out[2]).toMatchObject({ failureCode: 'recipient-limit' });
		expect(out[4].settledAt).toBeNull();
		const sent = await sb.received();
		// The failed payout's Pay Again attempt (<key>r2) is looked up too: Little Pay has none.
		expect(sent.map((r) => r.method)).toEqual(['GET', 'GET', 'GET', 'GET', 'GET']);
		expect(sent.map((r) => r.path)).toContain(`/api/disbursements/${refused}r2`);
		expect(sent.every((r) => r.path.startsWith('/api/disbursements/'))).toBe(true);
	});

	it('stops when the execution is cancelled: no lookup starts after it', async () => {
		const keys = await Promise.all(Array.from({ length: 6 }, () => payoutTo(3)));
		await sb.post('/sandbox/faults', {
			rules: [{ method: 'GET', pathPrefix: '/api/disbursements/', latencyMs: 400 }],
		});
		await sb.received();
		let cancel: (() => void) | undefined;
		const running = run(
			keys.map((id) => ({ id, concurrency: 1 })),
			(c) => (cancel = c),
			{ fixture: 'disbursement-reconcile.json' },
		);
		await new Promise((resolve) => setTimeout(resolve, 500));
		cancel?.();
		const result = await running;
		expect(String(result.error?.message ?? '')).toMatch(/cancel/i);
		await new Promise((resolve) => setTimeout(resolve, 800));
		expect((await sb.received()).length).toBeLessThan(keys.length);
	});
});

describe('Disbursement: Reconcile follows Pay Again attempts (editor review problem 3)', () => {
	/** A row's payouts as Pay Again If Failed makes them: its key, then <key>r2 ..., each settled. */
	async function attempts(lastDigits: number[], amount = 1000): Promise<string> {
		const key = newKey('again');
		for (const [index, lastDigit] of lastDigits.entries()) {
			const attemptKey = index === 0 ? key : `${key}r${index + 1}`;
			await sb.createPayout({ key: attemptKey, to: `25471234567${lastDigit}`, amount });
			await sb.payoutSettled(attemptKey);
		}
		return key;
	}

	it('reports the latest attempt by the row’s own key: paid as r3 is completed, failed twice is failed, and never “pay it under its own key”', async () => {
		const paidAsR3 = await attempts([1, 1, 0]);
		const failedTwice = await attempts([1, 1]);
		const paidFirst = await attempts([0]);
		await sb.received();
		const result = await run(
			[paidAsR3, failedTwice, paidFirst].map((id) => ({
				id,
				expectedAmount: 1000,
				expectedCurrency: 'KES',
				expectedMethod: 'MPESA',
			})),
			undefined,
			{ fixture: 'disbursement-reconcile.json' },
		);
		expect(result.error).toBeUndefined();
		const out = result.output('Little Pay').map((o) => o.json);
		expect(out.map((o) => [o.outcome, o.key, o.attempt ?? null, o.failedBefore ?? null])).toEqual([
			['completed', `${paidAsR3}r3`, 3, [paidAsR3, `${paidAsR3}r2`]],
			['failed', `${failedTwice}r2`, 2, [failedTwice]],
			['completed', paidFirst, null, null],
		]);
		for (const row of out) expect(String(row.nextStep)).not.toMatch(/new key|under its own key/);
		expect(String(out[1].nextStep)).toMatch(
			/run the same rows again with Options > Pay Again If Failed \(it derives <key>r2/,
		);
		// Reads only: the row's key and each attempt key up to the first Little Pay does not hold.
		const sent = await sb.received();
		expect(sent.every((r) => r.method === 'GET')).toBe(true);
		expect(sent).toHaveLength(3 + 3 + 1);
	});

	it('a derived key holding another amount is not this row’s attempt: the row reports its own failed payout', async () => {
		const key = newKey('clash');
		await sb.createPayout({ key, to: '254712345671', amount: 1000 });
		await sb.payoutSettled(key);
		// Another row whose own ID happens to be this row's key followed by r2.
		await sb.createPayout({ key: `${key}r2`, to: '254712345670', amount: 4200 });
		await sb.payoutSettled(`${key}r2`);
		const result = await run([{ id: key, expectedAmount: 1000 }], undefined, {
			fixture: 'disbursement-reconcile.json',
		});
		const [row] = result.output('Little Pay').map((o) => o.json);
		expect(row).toMatchObject({ outcome: 'failed', key, amount: 1000 });
		expect(row.attempt).toBeUndefined();
	});
});

describe('a record that is not the row’s is never reported paid (mismatch)', () => {
	it('Disbursement: Reconcile answers mismatch, with what differs, for a row carrying another row’s payout ID', async () => {
		// Row 150 was paid 1,000 to ...670; row 151 copied its payout ID but is owed 750 at ...674.
		const paidKey = await payoutTo(0, 1000);
		await sb.received();
		const result = await run(
			[
				{ id: paidKey, expectedAmount: 1000, expectedMethod: 'MPESA', expectedTo: '254712345670' },
				{ id: paidKey, expectedAmount: 750, expectedTo: '254712345674' },
				{ id: paidKey, expectedAmount: '1000', expectedTo: '0712345674' },
				// A masked number (as the books hold it) proves nothing by its visible digits: unverified.
				{ id: paidKey, expectedTo: '2547•••••670' },
			],
			undefined,
			{ fixture: 'disbursement-reconcile.json' },
		);
		expect(result.error).toBeUndefined();
		const out = result.output('Little Pay').map((o) => o.json);
		expect(out.map((o) => [o.outcome, o.final])).toEqual([
			['completed', true],
			['mismatch', false],
			['mismatch', false],
			['unverified', false],
		]);
		expect(out[1].mismatch).toEqual([
			'amount 1000 there, 750 here',
			// Masked by the credential's Payer Details like every output (red team #6).
			'number 2547•••••670 there, 2547•••••674 here',
		]);
		expect(out[1]).toMatchObject({ recordOutcome: 'completed', key: paidKey });
		expect(String(out[1].nextStep)).toMatch(
			/^Not this row's payout, whatever its status: do not mark the row paid/,
		);
		expect(out[2].mismatch).toEqual(['number 2547•••••670 there, 0712•••674 here']);
		expect((await sb.received()).every((r) => r.method === 'GET')).toBe(true);
	});

	it('Payment: Reconcile answers mismatch for a paid payment of another amount, and a row Little Pay does not know shows payable as unknown', async () => {
		const paid = await paymentOf(sb, 0);
		const result = await run([
			{ paymentId: paid.key, expectedAmount: 1500 },
			{ paymentId: paid.key, expectedAmount: 2500 },
			{ paymentId: 'doesnotexist123' },
		]);
		const out = result.output('Little Pay').map((o) => o.json);
		expect(out.map((o) => [o.outcome, o.final, o.payable])).toEqual([
			['completed', true, false],
			['mismatch', false, false],
			['not-found', false, null],
		]);
		expect(out[1].mismatch).toEqual(['amount 1500 there, 2500 here']);
	});
});

describe('Disbursement: Reconcile never says completed for another wallet (#12)', () => {
	/** The reconcile fixture with Expected Contact Hash mapped from the row too. */
	function reconcile(items: Item[], credentials = sb.credentials) {
		const workflow = loadFixture('disbursement-reconcile.json', {
			ITEMS: JSON.stringify(items),
			ON_ERROR: 'continueRegularOutput',
		});
		for (const node of workflow.nodes)
			if (node.name === 'Little Pay')
				node.parameters.expectedContactHash = "={{ $json.expectedContactHash ?? '' }}";
		return runWorkflow(workflow, { credentials });
	}

	async function paidTo(to: string, currency = 'KES', method = 'MPESA') {
		const key = newKey('wallet');
		await sb.createPayout({ key, to, amount: 1000, currency, method });
		await sb.payoutSettled(key);
		return key;
	}

	it('a masked expected number, a national one read in the wrong country and "0" never come out completed', async () => {
		// As in the red team's run: payouts really made to 254799999670 and 255712345670.
		const kenyan = await paidTo('254799999670');
		const tanzanian = await paidTo('255712345670', 'TZS');
		await sb.received();
		const result = await reconcile([
			{ id: kenyan, expectedTo: '2547•••••670' },
			{ id: tanzanian, expectedTo: '0712345670' },
			{ id: tanzanian, expectedTo: '0712345670', expectedCurrency: 'KES' },
			{ id: tanzanian, expectedTo: '0712345670', expectedCurrency: 'TZS' },
			{ id: kenyan, expectedTo: '0' },
			{ id: kenyan, expectedTo: '••••••••••••' },
			{ id: tanzanian, expectedTo: '0712345670', expectedMethod: 'TIGOPESA' },
		]);
		expect(result.error).toBeUndefined();
		const out = result.output('Little Pay').map((o) => o.json);
		expect(out.map((o) => o.outcome)).toEqual([
			'unverified',
			'unverified',
			'mismatch',
			'completed',
			'mismatch',
			'unverified',
			// Tigo Pesa serves Tanzania only: the national number is read there; the network differs.
			'mismatch',
		]);
		expect(out[0]).toMatchObject({ final: false, recordOutcome: 'completed' });
		expect(String(out[0].nextStep)).toBe(
			"Not proven this row's payout: do not mark the row paid until you have checked the number it went to (Little Pay's dashboard): the expected number is masked (5 of 12 digits hidden): only the visible digits could be compared, and they agree; map Expected Contact Hash (your record's contactHash) to check it in full",
		);
		expect(out[1].unverified).toEqual([
			'the expected number is written nationally (0...) and no country is known to read it in, so its country code could not be compared',
			"map Expected Contact Hash (your record's contactHash) to check it in full",
		]);
		// Numbers in the texts may come out masked (Payer Details): only their shape is asserted.
		expect(out[2].mismatch).toEqual([
			'currency TZS there, KES here',
			expect.stringMatching(/^number 2557\S+670 there, 07\S+670 here$/),
		]);
		expect(out[4].mismatch).toEqual([expect.stringMatching(/^number 2547\S+670 there, 0 here$/)]);
		expect(String(out[5].nextStep)).toMatch(/every digit is masked: nothing could be compared/);
		expect(out[6].mismatch).toEqual(['method MPESA there, TIGOPESA here']);
		expect((await sb.received()).every((r) => r.method === 'GET')).toBe(true);
	});

	it('an expected amount the row cannot hold is a bad row, named by what is wrong with it', async () => {
		const paid = await paidTo('254712345670');
		const result = await reconcile([
			{ id: paid, expectedAmount: '1,000' },
			{ id: paid, expectedAmount: '100.5', expectedCurrency: 'UGX' },
			{ id: paid, expectedAmount: '1000.00', expectedCurrency: 'KES' },
		]);
		const out = result.output('Little Pay').map((o) => o.json);
		expect(out.map((o) => [o.outcome, o.error ?? null])).toEqual([
			['invalid-input', 'Row 1: Expected Amount "1,000" has a thousands comma: write 1000'],
			['invalid-input', 'Row 2: Expected Amount "100.5" has 1 decimal: UGX has no decimals'],
			['completed', null],
		]);
	});

	it("with the credential's Matching Secret, Expected Contact Hash checks a masked number in full", async () => {
		const secret = 'm4tch-secret';
		const credentials = {
			...sb.credentials,
			littlePayApiKeyApi: { ...sb.credentials.littlePayApiKeyApi, matchingSecret: secret },
		};
		const paid = await paidTo('254712345670');
		const result = await reconcile(
			[
				// The books: the masked number and the hash Pay Out's output carried.
				{
					id: paid,
					expectedTo: '2547•••••670',
					expectedContactHash: contactHash('254712345670', secret),
				},
				// Another wallet with the same visible digits.
				{
					id: paid,
					expectedTo: '2547•••••670',
					expectedContactHash: contactHash('254799999670', secret),
				},
				{ id: paid, expectedContactHash: contactHash('254712345670', secret).toUpperCase() },
			],
			credentials,
		);
		const out = result.output('Little Pay').map((o) => o.json);
		expect(out.map((o) => o.outcome)).toEqual(['completed', 'mismatch', 'completed']);
		expect(out[1].mismatch).toHaveLength(1);
		expect(String(out[1].mismatch)).toMatch(/Expected Contact Hash does not match/);
		// Without the secret the hash cannot be checked: said so, never completed.
		const without = await reconcile([
			{
				id: paid,
				expectedTo: '2547•••••670',
				expectedContactHash: contactHash('254712345670', secret),
			},
		]);
		const [row] = without.output('Little Pay').map((o) => o.json);
		expect(row.outcome).toBe('unverified');
		expect(String(row.nextStep)).toMatch(/holds no Matching Secret/);
	});
});

describe('a Reconcile over many rows gives its counts first (issue 51 point 4)', () => {
	function withSummary(fixture: string, items: Item[]) {
		const json = loadFixture(fixture, {
			ITEMS: JSON.stringify(items),
			ON_ERROR: 'continueRegularOutput',
		});
		const node = json.nodes.find((n) => n.name === 'Little Pay');
		(node?.parameters as { options: Item }).options.runSummaryOutput = true;
		return runWorkflow(json, { credentials: sb.credentials });
	}

	it('Payout: Reconcile: the counts above the output and on the Summary output, with the rows to act on', async () => {
		const paid = await payoutTo(0, 1000);
		const failed = await payoutTo(1, 1000);
		const pending = await payoutTo(3, 1000);
		const rows = [
			...Array.from({ length: 5 }, () => ({ id: paid })),
			{ id: failed },
			{ id: pending },
			{ id: paid, expectedAmount: 750 },
			{ id: paid, expectedTo: '2547•••••670' },
			{ id: 'noSuchPayout9' },
		];
		await sb.received();
		const result = await withSummary('disbursement-reconcile.json', rows);
		expect(result.error).toBeUndefined();
		expect(result.output('Little Pay')).toHaveLength(10);
		const [summary] = result.output('Little Pay', 1).map((o) => o.json);
		expect(summary).toMatchObject({
			summary: true,
			rows: 10,
			completed: 5,
			pending: 1,
			failed: 1,
			mismatch: 1,
			unverified: 1,
			notFound: 1,
			invalidInput: 0,
			errors: 0,
			rowsToActOnNotListed: 0,
		});
		expect(
			(summary.rowsToActOn as Item[]).map((r) => [r.row, r.key, r.outcome, typeof r.nextStep]),
		).toEqual([
			[6, failed, 'failed', 'string'],
			[7, pending, 'pending', 'string'],
			[8, paid, 'mismatch', 'string'],
			[9, paid, 'unverified', 'string'],
			[10, 'noSuchPayout9', 'not-found', 'string'],
		]);
		const [hint] = result.hints('Little Pay');
		expect(hint).toMatchObject({ type: 'warning', location: 'outputPane' });
		// One row a line: n8n renders a hint as HTML, where a plain line break is a space.
		expect(hint.message.split('<br>\n')).toEqual([
			'Reconcile, 10 payouts: 5 completed, 1 pending, 1 failed, 1 mismatch, 1 unverified, 1 not found.',
			"To act on (each row's nextStep says what to do):",
			`Row 6 (${failed}) failed`,
			`Row 7 (${pending}) pending`,
			`Row 8 (${paid}) mismatch`,
			`Row 9 (${paid}) unverified`,
			'Row 10 (noSuchPayout9) not-found',
		]);
	});

	it('Payment: Reconcile shares the counts: the hint without the Summary output when it is off', async () => {
		const paid = await paymentOf(sb, 0);
		const result = await run([{ paymentId: paid.key }, { paymentId: 'doesnotexist123' }]);
		expect(result.error).toBeUndefined();
		expect(result.hints('Little Pay').map((h) => h.message)).toEqual([
			[
				'Reconcile, 2 payments: 1 completed, 0 pending, 0 failed, 0 mismatch, 0 unverified, 1 not found.',
				"To act on (each row's nextStep says what to do):",
				'Row 2 (doesnotexist123) not-found',
			].join('<br>\n'),
		]);
		expect(result.output('Little Pay', 1)).toEqual([]);
	});
});

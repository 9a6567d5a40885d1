// Disbursement: Create (payouts, keys, dry run), Get, Get Charges and Quote Fee, run as workflows through n8n-core's engine against the sandbox.
import { loadFixture, runWorkflow } from '../../testkit/engine';
import { useNodeTestSandbox } from '../../testkit/nodeSandbox';
import { newKey } from '../../testkit/sandbox';

const sb = useNodeTestSandbox({ pinDelayMs: 50, longPollTimeoutMs: 400 });

type Item = Record<string, unknown>;
type Disbursement = { id: string; key: string; status: string; amount: number; to: string };

function run(
	file: string,
	items: Item[],
	options: { continueOnFail?: boolean; executionId?: string } = {},
) {
	return runWorkflow(
		loadFixture(file, {
			ITEMS: JSON.stringify(items),
			ON_ERROR: options.continueOnFail ? 'continueRegularOutput' : 'stopWorkflow',
		}),
		{
			credentials: sb.credentials,
			executionId: options.executionId,
		},
	);
}

const payout = (overrides: Item = {}): Item => ({
	method: 'MPESA',
	amount: 500,
	to: '+254 712 345 670',
	key: newKey('payout'),
	...overrides,
});

async function ledgerDisbursements(): Promise<Disbursement[]> {
	return (await sb.get('/sandbox/ledger')).data.data.disbursements as Disbursement[];
}
describe('Disbursement: Create', () => {
	it('pays out to the normalised number: the output says accepted (not paid), with the fee read from the charges table', async () => {
		const item = payout({ amount: 500 });
		const result = await run('disbursement-create.json', [item]);
		expect(result.error).toBeUndefined();
		const [out] = result.output('Little Pay');
		expect(out.json).toEqual({
			id: expect.stringMatching(/^dsb_/),
			key: item.key,
			outcome: 'accepted',
			alreadyExisted: false,
			reason: null,
			amount: 500,
			currency: 'KES',
			fee: 7,
			method: 'MPESA',
			// The payee's number comes out masked (Payer Details: Masked); the request below carries it in full.
			to: '2547•••••670',
			settledAt: null,
			gatewayStatus: 'success',
			message: 'Disbursement accepted',
			gateway: 'sandbox',
		});
		expect(out.pairedItem).toEqual({ item: 0 });
		const sent = await sb.received();
		// The key comes from the data, so it is looked up first: an earlier run may have paid it.
		expect(sent.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
			'GET /api/disbursements/charges 200',
			`GET /api/disbursements/${String(item.key)} 404`,
			'POST /api/disbursements 200',
		]);
		expect(sent[2].body).toEqual({
			amount: 500,
			method: 'MPESA',
			currency: 'KES',
			key: item.key,
			details: { to: '254712345670', accountType: 'MOBILE' },
		});
		const [record] = (await ledgerDisbursements()).filter((d) => d.key === item.key);
		expect(record).toMatchObject({ id: out.json.id, amount: 500, to: '254712345670' });
	});

	it('normalises a national number with the Country (0712345670 in Kenya) and a currency typed in lower case', async () => {
		const result = await run('disbursement-create.json', [
			payout({ to: '0712345670', country: 'KE', amount: 1000, currency: ' kes ' }),
		]);
		expect(result.error).toBeUndefined();
		expect(result.output('Little Pay')[0].json).toMatchObject({
			to: '2547•••••670',
			fee: 13,
			currency: 'KES',
		});
		const post = (await sb.received()).find((r) => r.method === 'POST');
		expect(post?.body).toMatchObject({ details: { to: '254712345670' }, currency: 'KES' });
	});

	it('a row whose mapped Key is empty is refused before anything is sent: no key is made up for it', async () => {
		const result = await run('disbursement-create.json', [payout({ key: undefined })], {
			continueOnFail: true,
		});
		expect(result.output('Little Pay')[0].json).toEqual({
			error: 'Row 1: Key is empty, so running this workflow again could pay this row twice',
			description:
				"Map each row's own payout ID, e.g. {{ $json.payoutId }} (letters and digits), or set Payout Key to Generate a Key per Execution",
			// The error item names the row: its (empty) key, n8n's index and the 1-based row.
			key: null,
			itemIndex: 0,
			row: 1,
			failureCode: 'invalid-input',
			retry: 'no',
			nextStep: expect.any(String),
			gateway: 'sandbox',
		});
		expect(await sb.received()).toEqual([]);
	});

	it('a first run looks each key up once, ahead of its payout, and sends one create per payout; running it again sends no payout, in both key modes', async () => {
		const rows = Array.from({ length: 12 }, (_, i) => payout({ amount: 600 + i, concurrency: 10 }));
		await sb.received();
		const first = await run('disbursement-create.json', rows);
		expect(first.error).toBeUndefined();
		const sent = await sb.received();
		const order = sent.map((r) =>
			r.method === 'POST'
				? `create ${String((r.body as Item).key)}`
				: `lookup ${r.path.split('/')[3]}`,
		);
		// One lookup and one create per payout, and every key looked up before its payout is sent.
		for (const row of rows) {
			const lookup = order.indexOf(`lookup ${String(row.key)}`);
			const create = order.indexOf(`create ${String(row.key)}`);
			expect({ key: row.key, looked: lookup >= 0, before: lookup < create }).toEqual({
				key: row.key,
				looked: true,
				before: true,
			});
		}
		expect(order.filter((o) => o.startsWith('create '))).toHaveLength(12);
		expect(order.filter((o) => o.startsWith('lookup ') && o !== 'lookup charges')).toHaveLength(12);
		const again = await run('disbursement-create.json', rows);
		expect(again.output('Little Pay').every((o) => o.json.alreadyExisted === true)).toBe(true);
		expect((await sb.received()).filter((r) => r.method === 'POST')).toEqual([]);
		// Generated keys: Retry of a failed execution (mode retry) looks its keys up ahead too. The second
		// row is under M-Pesa's minimum and skips the node's limit check, so Little Pay refuses it after
		// the first row was paid: the run's error says so, and how to run it again safely.
		const generated = [
			payout({ key: '', amount: 640 }),
			payout({ key: '', amount: 5, checkLimits: false }),
		];
		const original = await run('disbursement-create.json', generated);
		expect(original.error?.message).toMatch(/refused by its rules .* AMOUNT_OUT_OF_RANGE/);
		expect(original.error?.description).toMatch(
			/Payout run: 1 sent now \(KES 640\.00, fees KES [\d.]+\), [^]*<br>\nRetry this execution from the Executions list: it reuses the keys it generated and pays none of them twice/,
		);
		expect((await sb.received()).filter((r) => r.method === 'POST')).toHaveLength(2);
		const retried = await runWorkflow(
			loadFixture('disbursement-create.json', {
				ITEMS: JSON.stringify(generated),
				ON_ERROR: 'stopWorkflow',
			}),
			{ credentials: sb.credentials, retryOf: original },
		);
		expect(retried.error?.message).toMatch(/refused by its rules .* AMOUNT_OUT_OF_RANGE/);
		const retrySent = await sb.received();
		// The paid row is found under its key; the refused one is sent again and refused again.
		expect(retrySent.filter((r) => r.method === 'POST')).toHaveLength(1);
		expect(
			retrySent.filter(
				(r) =>
					r.method === 'GET' &&
					r.path.startsWith('/api/disbursements/') &&
					!r.path.endsWith('/charges'),
			),
		).toHaveLength(2);
	});

	it('a payout whose key lookup fails is looked up again before its create, and is never sent blind', async () => {
		const flaky = payout({ amount: 650 });
		const down = payout({ amount: 660 });
		// The first three lookups of one key fail (its lookup ahead gives up), every lookup of the other.
		await sb.post('/sandbox/faults', {
			rules: [
				{
					method: 'GET',
					pathPrefix: `/api/disbursements/${String(flaky.key)}`,
					status: 503,
					times: 3,
				},
				{ method: 'GET', pathPrefix: `/api/disbursements/${String(down.key)}`, status: 503 },
			],
		});
		await sb.received();
		const result = await run('disbursement-create.json', [flaky, down], { continueOnFail: true });
		expect(result.error).toBeUndefined();
		const [paid, unknown] = result.output('Little Pay').map((o) => o.json);
		expect(paid).toMatchObject({ key: flaky.key, outcome: 'accepted' });
		expect(String(unknown.error)).toMatch(/outcome of the payout is unknown/);
		const posts = (await sb.received()).filter((r) => r.method === 'POST');
		expect(posts.map((r) => (r.body as Item).key)).toEqual([flaky.key]);
		expect((await ledgerDisbursements()).filter((d) => d.key === down.key)).toEqual([]);
	});

	it('running the same rows again pays nobody: each comes out alreadyExisted with its payout, one payout per key in the ledger', async () => {
		const items = [payout({ amount: 510 }), payout({ amount: 520, to: '0712345674' })];
		const first = await run('disbursement-create.json', items);
		expect(first.error).toBeUndefined();
		const again = await run('disbursement-create.json', items);
		expect(again.error).toBeUndefined();
		const firstOut = first.output('Little Pay').map((i) => i.json);
		const againOut = again.output('Little Pay').map((i) => i.json);
		expect(firstOut.map((o) => o.alreadyExisted ?? false)).toEqual([false, false]);
		expect(againOut.map((o) => [o.id, o.key, o.alreadyExisted])).toEqual(
			firstOut.map((o) => [o.id, o.key, true]),
		);
		const ledger = await ledgerDisbursements();
		for (const item of items) expect(ledger.filter((d) => d.key === item.key)).toHaveLength(1);
		// The second run found both by key before sending: it sent no payout at all.
		const sent = await sb.received();
		expect(sent.filter((r) => r.method === 'POST')).toHaveLength(2);
	});

	it('Generate a Key per Execution: the same item of the same execution reuses its key (one payout), a new execution makes a new one', async () => {
		const item = payout({ key: '', keySource: 'generated' });
		const first = await run('disbursement-create.json', [item], { executionId: 'disb-exec-1' });
		expect(first.error).toBeUndefined();
		const out = first.output('Little Pay')[0].json;
		expect(out.key).toMatch(/^[a-f0-9]{12}$/);
		const post = (await sb.received()).find((r) => r.method === 'POST');
		expect(post?.body).toMatchObject({ key: out.key });

		const again = await run('disbursement-create.json', [item], { executionId: 'disb-exec-1' });
		expect(again.error).toBeUndefined();
		expect(again.output('Little Pay')[0].json).toMatchObject({
			id: out.id,
			key: out.key,
			alreadyExisted: true,
		});
		expect((await ledgerDisbursements()).filter((d) => d.key === out.key)).toHaveLength(1);

		const otherExecution = await run('disbursement-create.json', [item], {
			executionId: 'disb-exec-2',
		});
		expect(otherExecution.output('Little Pay')[0].json.key).not.toBe(out.key);
	});

	it("refuses an amount outside the network's limits before sending the payout", async () => {
		const result = await run('disbursement-create.json', [payout({ amount: 5 })]);
		expect(result.error?.message).toBe('Row 1: Amount 5 is outside the MPESA limits 10-150000');
		expect(result.error?.description).toBe(
			'Split the payout into parts within the limits, each a row with its own payout ID (key), or pick another network',
		);
		const sent = await sb.received();
		expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /api/disbursements/charges']);

		const tooBig = await run('disbursement-create.json', [
			payout({ method: 'MTN', to: '+256712345670', amount: 600000, currency: 'UGX' }),
		]);
		expect(tooBig.error?.message).toBe('Row 1: Amount 600000 is outside the MTN limits 100-500000');
		expect((await sb.received()).filter((r) => r.method === 'POST')).toEqual([]);
	});

	it("with the limits check off sends no charges request and shows the fee from Little Pay's answer; the gateway refusal is a 422 NodeApiError", async () => {
		const ok = await run('disbursement-create.json', [payout({ checkLimits: false })]);
		expect(ok.error).toBeUndefined();
		expect(ok.output('Little Pay')[0].json).toMatchObject({ outcome: 'accepted', fee: 7 });
		expect((await sb.received()).map((r) => `${r.method} ${r.path}`)).not.toContain(
			'GET /api/disbursements/charges',
		);

		const refused = await run('disbursement-create.json', [
			payout({ checkLimits: false, amount: 5 }),
		]);
		expect(refused.error).toMatchObject({
			name: 'NodeApiError',
			httpCode: '422',
			errorResponse: { code: 'AMOUNT_OUT_OF_RANGE' },
		});
		expect(refused.error?.message).toMatch(
			/^Little Pay refused by its rules POST \/api\/disbursements/,
		);
	});

	it('with Concurrency 10 and 30 payouts keeps output order and pairedItem although they finish out of order, reading charges once', async () => {
		// The first payout is held 400 ms, the others 100 ms: with payouts in flight together it is not the first one created.
		await sb.post('/sandbox/faults', {
			rules: [
				{ method: 'POST', pathPrefix: '/api/disbursements', latencyMs: 400, times: 1 },
				{ method: 'POST', pathPrefix: '/api/disbursements', latencyMs: 100 },
			],
		});
		const items = Array.from({ length: 30 }, (_, i) =>
			payout({ to: `07123450${String(i).padStart(2, '0')}`, amount: 100 + i, concurrency: 10 }),
		);
		const result = await run('disbursement-create.json', items);
		expect(result.error).toBeUndefined();
		const output = result.output('Little Pay');
		expect(output).toHaveLength(30);
		output.forEach((o, i) => {
			expect(o.pairedItem).toEqual({ item: i });
			expect(o.json).toMatchObject({
				key: items[i].key,
				to: `2547•••••0${String(i).padStart(2, '0')}`,
				amount: 100 + i,
				fee: i === 0 ? 0 : 7,
				outcome: 'accepted',
			});
		});
		const created = (await ledgerDisbursements())
			.map((d) => d.key)
			.filter((k) => items.some((it) => it.key === k));
		expect(created).toHaveLength(30);
		expect(created.indexOf(String(items[0].key))).toBeGreaterThan(0);
		const sent = await sb.received();
		expect(sent.filter((r) => r.path === '/api/disbursements/charges')).toHaveLength(1);
		expect(sent.filter((r) => r.method === 'POST')).toHaveLength(30);
	});
});

describe('Disbursement: Create, Check Only (Dry Run)', () => {
	it('checks every row, sends nothing, and adds one summary: count, totals, fees, keys Little Pay already has, refused rows with reasons', async () => {
		// A payout that exists already under a key, and one whose key belongs to a different payout.
		const existing = payout({ amount: 700 });
		const taken = payout({ amount: 800 });
		for (const p of [existing, taken]) {
			await sb.createPayout({ key: String(p.key), amount: Number(p.amount), to: '254712345670' });
		}
		const before = (await ledgerDisbursements()).length;
		await sb.received();
		const dup = newKey('dup');
		const rows = [
			payout({ amount: 500, checkOnly: true }),
			payout({ amount: 1200, to: '0712345671' }),
			payout({ amount: 5 }),
			payout({ to: '+256712345670' }),
			payout({ key: undefined }),
			payout({ key: dup, amount: 300 }),
			payout({ key: dup, amount: 300 }),
			existing,
			{ ...taken, amount: 900 },
		];
		const result = await run('disbursement-create.json', rows);
		expect(result.error).toBeUndefined();
		const out = result.output('Little Pay');
		expect(out).toHaveLength(rows.length + 1);
		const perRow = out.slice(0, rows.length).map((o) => o.json);
		expect(perRow.map((r) => [r.valid, r.fee])).toEqual([
			[true, 7],
			[true, 23],
			[false, null],
			[false, null],
			[false, null],
			[true, 7],
			[false, null],
			[true, 13],
			// Refused by the run's check (its key holds another payout), as the real run would be.
			[false, null],
		]);
		// No red null and no "undefined" in n8n's table: a valid row's reason and field are empty text.
		expect(perRow[0]).toEqual({
			checkOnly: true,
			valid: true,
			reason: '',
			field: '',
			row: 1,
			key: rows[0].key,
			amount: 500,
			currency: 'KES',
			fee: 7,
			method: 'MPESA',
			to: '2547•••••670',
			gateway: 'sandbox',
		});
		expect(perRow[2].reason).toBe('Amount 5 is outside the MPESA limits 10-150000');
		expect(perRow[3].reason).toBe(
			'Destination Number does not start with a country code that MPESA serves (254 or 255)',
		);
		expect(perRow[3].to).toBe('+2567•••••670');
		// A refused row keeps its key as given, so the bookkeeper can find it.
		expect(perRow[3]).toMatchObject({ row: 4, key: rows[3].key, field: 'Destination Number' });
		expect(perRow[4].reason).toBe(
			'Key is empty, so running this workflow again could pay this row twice',
		);
		expect(perRow[6].reason).toBe(
			`Key "${dup}" is also the key of row 6: Little Pay keeps one payout per key, so this row would be reported as that row's payout, and nobody paid`,
		);
		expect(perRow[7]).toMatchObject({ valid: true, alreadyExisted: true });
		expect(perRow[8].reason).toBe(
			`Key "${String(taken.key)}" already belongs to a different payout (amount 800 there, 900 here)`,
		);
		const summary = out[rows.length];
		expect(summary.pairedItem).toEqual(rows.map((_, item) => ({ item })));
		const refusedRows = [2, 3, 4, 6, 8].map((item) => ({
			row: item + 1,
			key: perRow[item].key,
			field: perRow[item].field,
			reason: perRow[item].reason,
			amount: perRow[item].amount,
			to: perRow[item].to,
		}));
		expect(summary.json).toEqual({
			summary: true,
			checkOnly: true,
			rows: 9,
			count: 3,
			alreadyExisted: 1,
			// Found under its key and failed: none here (a dry run counts them failed, as the real run does).
			failed: 0,
			refused: 5,
			errors: 0,
			currency: 'KES',
			totalAmount: 500 + 1200 + 300,
			totalFees: 7 + 23 + 7,
			byCurrency: { KES: { count: 3, amount: 2000, fees: 37 } },
			// The payroll's page: what the valid rows ask, what would be sent, what is found paid already.
			payroll: {
				KES: {
					asked: { count: 4, amount: 2700, fees: 50 },
					sentNow: { count: 3, amount: 2000, fees: 37 },
					foundAlreadySent: { count: 1, amount: 700, fees: 13 },
					failed: { count: 0, amount: 0, fees: 0 },
				},
			},
			rowsToActOn: refusedRows.map(({ row, key, reason }) => ({
				row,
				key,
				outcome: 'refused',
				reason,
			})),
			rowsToActOnNotListed: 0,
			refusedRows,
			gateway: 'sandbox',
		});
		// The same figures, above the output: nobody has to page to the last item.
		expect(result.hints('Little Pay')).toEqual([
			expect.objectContaining({
				location: 'outputPane',
				// Each refused row with its own reason: the hint is the list of what to fix.
				message: [
					'Payout run: Check only, nothing sent: 3 would be paid (KES 2,000.00, fees KES 37.00), 1 found already sent (KES 700.00), 5 refused.',
					'To act on:',
					...refusedRows.map(
						({ row, key, reason }) =>
							`Row ${row}${key ? ` (${String(key)})` : ''} refused: ${String(reason)}`,
					),
					'Refused: nothing was sent for it; fix the row and run again.',
				].join('<br>\n'),
			}),
		]);
		const sent = await sb.received();
		expect(sent.filter((r) => r.method !== 'GET')).toEqual([]);
		expect(sent.filter((r) => r.path === '/api/disbursements/charges')).toHaveLength(1);
		expect((await ledgerDisbursements()).length).toBe(before);
	});
});

describe('Disbursement: Get', () => {
	it('reads a payout by ID or key in the payout vocabulary: pending, or completed with settledAt; Include Gateway Record adds it under raw', async () => {
		const key = newKey('get');
		const created = await sb.createPayout({ key, method: 'AIRTEL', to: '256712345670' });
		const id = String(created.id);
		// A number ending in 3 never settles in the sandbox.
		const pendingKey = newKey('getp');
		await sb.createPayout({ key: pendingKey, method: 'AIRTEL', to: '256712345673' });
		await sb.received();
		const early = await run('disbursement-get.json', [{ id: pendingKey }]);
		expect(early.output('Little Pay')[0].json).toMatchObject({
			key: pendingKey,
			outcome: 'pending',
			reason: null,
			settledAt: null,
			gatewayStatus: 'pending',
		});
		await sb.payoutSettled(id);
		await sb.received();
		const result = await run('disbursement-get.json', [{ id }, { id: key, includeRecord: true }]);
		expect(result.error).toBeUndefined();
		const [byId, byKey] = result.output('Little Pay');
		const lookups = (await sb.received()).map((r) => `${r.method} ${r.path}`);
		expect(lookups).toEqual([`GET /api/disbursements/${id}`, `GET /api/disbursements/${key}`]);
		const record = (await sb.get(`/api/disbursements/${id}`, sb.apiKeyHeaders)).data.data;
		expect(byId).toEqual({
			json: {
				id,
				key,
				outcome: 'completed',
				reason: null,
				amount: 1000,
				currency: 'KES',
				fee: 10,
				method: 'AIRTEL',
				to: '2567•••••670',
				settledAt: record.settledAt,
				gatewayStatus: 'success',
				message: 'Disbursement completed',
				gateway: 'sandbox',
			},
			pairedItem: { item: 0 },
		});
		// The gateway's record under raw, its payee's number masked like every output (Payer Details).
		expect(record.to).toBe('256712345670');
		expect(byKey).toEqual({
			json: { ...byId.json, raw: { ...record, to: '2567•••••670' } },
			pairedItem: { item: 1 },
		});
	});

	it('a failed payout says failed, with the reason and when it settled', async () => {
		const key = newKey('getf');
		await sb.createPayout({ key, to: '254712345672' });
		await sb.payoutSettled(key);
		const result = await run('disbursement-get.json', [{ id: key }]);
		expect(result.output('Little Pay')[0].json).toMatchObject({
			key,
			outcome: 'failed',
			reason: 'The recipient number is not registered for mobile money',
			gatewayStatus: 'failed',
			settledAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
		});
	});

	it('maps an unknown ID to a NodeApiError with the 404 hint', async () => {
		const result = await run('disbursement-get.json', [{ id: 'noSuchPayout1' }]);
		expect(result.error).toMatchObject({
			name: 'NodeApiError',
			httpCode: '404',
			description: 'No payment or payout with this reference or key exists for this merchant',
		});
		expect(result.error?.message).toMatch(/^Little Pay has nothing at GET .*noSuchPayout1/);
	});
});

describe('Disbursement: Get Charges', () => {
	it('returns the networks with their limits and the fee tiers', async () => {
		const result = await run('disbursement-get-charges.json', [{}]);
		expect(result.error).toBeUndefined();
		const [out] = result.output('Little Pay');
		expect(out.pairedItem).toEqual({ item: 0 });
		const networks = out.json.networks as Array<Record<string, unknown>>;
		expect(networks.map((n) => [n.id, n.minimumAmount, n.maximumAmount])).toEqual(
			expect.arrayContaining([
				['MPESA', 10, 150000],
				['AIRTEL', 10, 150000],
				['MTN', 100, 500000],
				['TIGOPESA', 1000, 3000000],
			]),
		);
		expect(out.json.charges).toEqual(
			expect.arrayContaining([
				expect.objectContaining({ networkId: 'MPESA', amount: 1000, charges: 13 }),
			]),
		);
		expect(await sb.received()).toEqual([
			expect.objectContaining({ method: 'GET', path: '/api/disbursements/charges', status: 200 }),
		]);
	});
});

describe('Disbursement: Quote Fee', () => {
	it('quotes fee and limits per item without paying, reading the charges table once', async () => {
		const result = await run('disbursement-quote-fee.json', [
			{ method: 'MPESA', amount: 1000 },
			{ method: 'MTN', amount: 50 },
			{ method: 'TIGOPESA', amount: 3500000 },
		]);
		expect(result.error).toBeUndefined();
		expect(result.output('Little Pay')).toEqual([
			{
				json: {
					method: 'MPESA',
					amount: 1000,
					minimumAmount: 10,
					maximumAmount: 150000,
					fee: 13,
					withinLimits: true,
					gateway: 'sandbox',
				},
				pairedItem: { item: 0 },
			},
			{
				json: {
					method: 'MTN',
					amount: 50,
					minimumAmount: 100,
					maximumAmount: 500000,
					fee: 5,
					withinLimits: false,
					gateway: 'sandbox',
				},
				pairedItem: { item: 1 },
			},
			{
				json: {
					method: 'TIGOPESA',
					amount: 3500000,
					minimumAmount: 1000,
					maximumAmount: 3000000,
					fee: null,
					withinLimits: false,
					gateway: 'sandbox',
				},
				pairedItem: { item: 2 },
			},
		]);
		expect((await sb.received()).map((r) => `${r.method} ${r.path}`)).toEqual([
			'GET /api/disbursements/charges',
		]);
	});
});

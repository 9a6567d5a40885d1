// Disbursement: Create, Get, Get Charges and Quote Fee, run as workflows through n8n-core's engine against the sandbox.
import { loadFixture, runWorkflow } from '../../scripts/engine';
import { useNodeTestSandbox } from '../harness/sandbox';
import { newKey } from '../sandbox/helpers';

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
	it('pays out to the normalised number and shows the fee read from the charges table', async () => {
		const item = payout({ amount: 500 });
		const result = await run('disbursement-create.json', [item]);
		expect(result.error).toBeUndefined();
		const [out] = result.output('Little Pay');
		expect(out.json).toEqual({
			id: expect.any(String),
			key: item.key,
			status: 'success',
			message: expect.anything(),
			method: 'MPESA',
			to: '254712345670',
			amount: 500,
			currency: 'KES',
			fee: 7,
		});
		expect(out.pairedItem).toEqual({ item: 0 });
		const sent = await sb.received();
		expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual([
			'GET /api/disbursements/charges',
			'POST /api/disbursements',
		]);
		expect(sent[1].body).toEqual({
			amount: 500,
			method: 'MPESA',
			currency: 'KES',
			key: item.key,
			details: { to: '254712345670', accountType: 'MOBILE' },
		});
		const [record] = (await ledgerDisbursements()).filter((d) => d.key === item.key);
		expect(record).toMatchObject({ id: out.json.id, amount: 500, to: '254712345670' });
	});

	it('normalises a national number with the Country (0712345670 in Kenya)', async () => {
		const result = await run('disbursement-create.json', [
			payout({ to: '0712345670', country: 'KE', amount: 1000 }),
		]);
		expect(result.error).toBeUndefined();
		expect(result.output('Little Pay')[0].json).toMatchObject({ to: '254712345670', fee: 13 });
		const post = (await sb.received()).find((r) => r.method === 'POST');
		expect(post?.body).toMatchObject({ details: { to: '254712345670' } });
	});

	it('generates a key when Key is empty, and the same item of the same execution reuses it: one payout', async () => {
		const item = payout({ key: '' });
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
		expect(result.error?.message).toBe('Item 0: Amount 5 is outside the MPESA limits 10-150000');
		expect(result.error?.description).toBe('Split the payout or pick another network');
		const sent = await sb.received();
		expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /api/disbursements/charges']);

		const tooBig = await run('disbursement-create.json', [
			payout({ method: 'MTN', to: '+256712345670', amount: 600000 }),
		]);
		expect(tooBig.error?.message).toBe(
			'Item 0: Amount 600000 is outside the MTN limits 100-500000',
		);
		expect((await sb.received()).filter((r) => r.method === 'POST')).toEqual([]);
	});

	it('with the limits check off sends no charges request and no fee; the gateway refusal is a 422 NodeApiError', async () => {
		const ok = await run('disbursement-create.json', [payout({ checkLimits: false })]);
		expect(ok.error).toBeUndefined();
		expect(ok.output('Little Pay')[0].json).not.toHaveProperty('fee');
		expect((await sb.received()).map((r) => r.path)).toEqual(['/api/disbursements']);

		const refused = await run('disbursement-create.json', [
			payout({ checkLimits: false, amount: 5 }),
		]);
		expect(refused.error).toMatchObject({
			name: 'NodeApiError',
			httpCode: '422',
			errorResponse: { code: 'AMOUNT_OUT_OF_RANGE' },
		});
		expect(refused.error?.message).toMatch(/^Little Pay: /);
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
				to: `2547123450${String(i).padStart(2, '0')}`,
				amount: 100 + i,
				fee: i === 0 ? 0 : 7,
				status: 'success',
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

describe('Disbursement: Get', () => {
	it('reads the same payout by ID and by key; Simplify picks id, key, status, amount, method and recipient', async () => {
		const key = newKey('get');
		const created = await sb.post(
			'/api/disbursements',
			{
				amount: 1000,
				method: 'AIRTEL',
				currency: 'KES',
				key,
				details: { to: '256712345670', accountType: 'MOBILE' },
			},
			sb.apiKeyHeaders,
		);
		const id = String(created.data.data.id);
		await sb.received();
		const result = await run('disbursement-get.json', [
			{ id },
			{ id: key },
			{ id: key, simplify: true },
		]);
		expect(result.error).toBeUndefined();
		const [byId, byKey, simple] = result.output('Little Pay');
		const record = (await sb.get(`/api/disbursements/${id}`, sb.apiKeyHeaders)).data.data;
		expect(byId).toEqual({ json: record, pairedItem: { item: 0 } });
		expect(byKey).toEqual({ json: record, pairedItem: { item: 1 } });
		expect(record).toMatchObject({ id, key, amount: 1000, method: 'AIRTEL', to: '256712345670' });
		expect(simple.json).toEqual({
			id,
			key,
			status: record.status,
			amount: 1000,
			method: 'AIRTEL',
			to: '256712345670',
		});
		expect(
			(await sb.received())
				.filter((r) => r.path.startsWith('/api/disbursements/'))
				.map((r) => r.path)
				.slice(0, 3),
		).toEqual([
			`/api/disbursements/${id}`,
			`/api/disbursements/${key}`,
			`/api/disbursements/${key}`,
		]);
	});

	it('maps an unknown ID to a NodeApiError with the 404 hint', async () => {
		const result = await run('disbursement-get.json', [{ id: 'noSuchPayout1' }]);
		expect(result.error).toMatchObject({
			name: 'NodeApiError',
			httpCode: '404',
			description: 'No payment or disbursement with this reference or key exists for this merchant',
		});
		expect(result.error?.message).toMatch(/^Little Pay: .*noSuchPayout1/);
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
				},
				pairedItem: { item: 2 },
			},
		]);
		expect((await sb.received()).map((r) => `${r.method} ${r.path}`)).toEqual([
			'GET /api/disbursements/charges',
		]);
	});
});

// Disbursements: charges table, network limits, duplicate keys, status by id or key, failure by last digit.
import axios from 'axios';
import { parsePayoutSettleMs } from '../../sandbox';
import { newKey, startTestSandbox, waitFor } from '../../testkit/sandbox';
import type { TestSandbox } from '../../testkit/sandbox';

describe('sandbox disbursements', () => {
	let t: TestSandbox;
	beforeAll(async () => {
		t = await startTestSandbox({ pinDelayMs: 80 });
	});
	afterAll(async () => {
		await t.sandbox.close();
	});

	const create = (body: Record<string, unknown>, headers = t.apiKeyHeaders) =>
		t.post('/api/disbursements', body, headers);
	const payout = (overrides: Record<string, unknown> = {}) => ({
		amount: 1000,
		method: 'MPESA',
		details: { to: '254712345670', accountType: 'MOBILE' },
		currency: 'KES',
		key: newKey('payout'),
		...overrides,
	});

	it('lists networks with a served logo, limits and tiered charges', async () => {
		const res = await t.get('/api/disbursements/charges', t.apiKeyHeaders);
		expect(res.status).toBe(200);
		const { networks, charges } = res.data.data;
		expect(networks.map((n: { id: string }) => n.id)).toEqual([
			'MPESA',
			'AIRTEL',
			'MTN',
			'TIGOPESA',
		]);
		for (const n of networks) {
			expect(n).toEqual({
				id: expect.any(String),
				name: expect.any(String),
				logo: expect.any(String),
				minimumAmount: expect.any(Number),
				maximumAmount: expect.any(Number),
			});
			expect(n.minimumAmount).toBeLessThan(n.maximumAmount);
			const logo = await axios.get(n.logo);
			expect(logo.headers['content-type']).toBe('image/svg+xml');
			expect(String(logo.data)).toContain('<svg');
			const tiers = charges.filter((c: { networkId: string }) => c.networkId === n.id);
			expect(tiers.length).toBeGreaterThan(1);
			expect(tiers[tiers.length - 1].amount).toBe(n.maximumAmount);
		}
		expect(charges).toContainEqual({ networkId: 'MPESA', amount: 1000, charges: 13 });
		expect((await t.get('/api/disbursements/charges')).status).toBe(401);
	});

	it('creates a payout ("success" = accepted), then it settles to success with one attempt', async () => {
		const body = payout({ amount: 1001 });
		const res = await create(body);
		expect(res.status).toBe(200);
		expect(res.data.data).toMatchObject({
			message: expect.any(String),
			id: expect.any(String),
			key: body.key,
			status: 'success',
			charges: 23,
		});
		const { id } = res.data.data;
		const early = await t.get(`/api/disbursements/${id}`, t.apiKeyHeaders);
		expect(early.data.data.status).toBe('pending');
		const record = await waitFor('settled', async () => {
			const r = await t.get(`/api/disbursements/${body.key}`, t.apiKeyHeaders);
			return r.data.data.status !== 'pending' ? r.data.data : undefined;
		});
		expect(record).toMatchObject({
			id,
			status: 'success',
			amount: 1001,
			key: body.key,
			method: 'MPESA',
		});
		expect(record.attempts).toEqual([
			{ id: expect.any(String), status: 'success', amount: 1001, key: body.key, method: 'MPESA' },
		]);
	});

	it.each([
		['1', /wallet limit/],
		['2', /not registered/],
	])('a destination ending in %s ends "failed" with a reason', async (digit, message) => {
		const body = payout({ details: { to: `25471234567${digit}`, accountType: 'MOBILE' } });
		await create(body);
		const record = await waitFor('settled', async () => {
			const r = await t.get(`/api/disbursements/${body.key}`, t.apiKeyHeaders);
			return r.data.data.status !== 'pending' ? r.data.data : undefined;
		});
		expect(record.status).toBe('failed');
		expect(record.message).toMatch(message);
		expect(record.attempts[0].status).toBe('failed');
	});

	it('a destination ending in 3 stays pending', async () => {
		const body = payout({ details: { to: '254712345673', accountType: 'MOBILE' } });
		await create(body);
		await new Promise((r) => setTimeout(r, 250));
		expect((await t.get(`/api/disbursements/${body.key}`, t.apiKeyHeaders)).data.data.status).toBe(
			'pending',
		);
	});

	it('enforces the network limits with 422 naming them', async () => {
		const low = await create(payout({ amount: 9 }));
		expect(low.status).toBe(422);
		expect(low.data.data).toMatchObject({
			code: 'AMOUNT_OUT_OF_RANGE',
			minimumAmount: 10,
			maximumAmount: 150000,
		});
		expect((await create(payout({ amount: 150001 }))).status).toBe(422);
		expect((await create(payout({ amount: 150000 }))).status).toBe(200);
		expect(
			(
				await create(
					payout({
						method: 'TIGOPESA',
						amount: 999,
						details: { to: '255712345670', accountType: 'MOBILE' },
					}),
				)
			).status,
		).toBe(422);
	});

	it('refuses a reused key with 409 carrying the existing id, and creates nothing new', async () => {
		const body = payout();
		const first = await create(body);
		const again = await create({ ...body, amount: 5000 });
		expect(again.status).toBe(409);
		expect(again.data.data).toMatchObject({ code: 'DUPLICATE_KEY', id: first.data.data.id });
		const ledger = await t.get('/sandbox/ledger');
		expect(
			ledger.data.data.disbursements.filter((d: { key: string }) => d.key === body.key),
		).toHaveLength(1);
	});

	it.each([
		['method', { method: 'VENMO' }, /method must be one of/],
		['details', { details: undefined }, /details is required/],
		['details.to', { details: { to: '+254712345670', accountType: 'MOBILE' } }, /details\.to/],
		[
			'details.accountType',
			{ details: { to: '254712345670', accountType: 'BANK' } },
			/details\.accountType/,
		],
		['currency', { currency: undefined }, /currency is required/],
		['amount', { amount: undefined }, /amount is required/],
	])('rejects a bad %s with 400', async (_f, overrides, message) => {
		const res = await create(payout(overrides));
		expect(res.status).toBe(400);
		expect(res.data.data.message).toMatch(message);
	});

	it('requires X-API-KEY on create and status, and answers 404 for unknown payouts', async () => {
		expect((await create(payout(), {})).status).toBe(401);
		expect((await t.get('/api/disbursements/whatever')).status).toBe(401);
		expect((await t.get('/api/disbursements/nosuch', t.apiKeyHeaders)).status).toBe(404);
	});

	it('a payout without key gets its id as key', async () => {
		const body = payout();
		delete (body as Record<string, unknown>).key;
		const res = await create(body);
		expect(res.data.data.key).toBe(res.data.data.id);
	});
});

describe('sandbox payout settling time (payoutSettleMs, SANDBOX_PAYOUT_SETTLE_MS)', () => {
	const payoutTo = (to: string) => ({
		amount: 1000,
		method: 'MPESA',
		details: { to, accountType: 'MOBILE' },
		currency: 'KES',
		key: newKey('settle'),
	});
	type Record = { status: string; createdAt: string; settledAt: string | null };
	const settledAfterMs = (r: Record) => Date.parse(String(r.settledAt)) - Date.parse(r.createdAt);

	it('a fixed time: the payout is still pending before it and settled after it, whatever pinDelayMs says', async () => {
		const t = await startTestSandbox({ pinDelayMs: 50, payoutSettleMs: 700 });
		try {
			const body = payoutTo('254712345670');
			await t.post('/api/disbursements', body, t.apiKeyHeaders);
			await new Promise((r) => setTimeout(r, 400));
			const early = (await t.get(`/api/disbursements/${body.key}`, t.apiKeyHeaders)).data.data;
			expect(early).toMatchObject({ status: 'pending', settledAt: null });
			const record = await waitFor('settled', async () => {
				const r = (await t.get(`/api/disbursements/${body.key}`, t.apiKeyHeaders)).data.data;
				return r.status !== 'pending' ? (r as Record) : undefined;
			});
			expect(record.status).toBe('success');
			expect(settledAfterMs(record)).toBeGreaterThanOrEqual(690);
			expect(settledAfterMs(record)).toBeLessThan(1200);
		} finally {
			await t.sandbox.close();
		}
	});

	it('a range: each payout draws its own time within it; a destination ending in 3 still never settles', async () => {
		const t = await startTestSandbox({ payoutSettleMs: { minMs: 200, maxMs: 900 } });
		try {
			const bodies = Array.from({ length: 12 }, (_, i) => payoutTo(`2547123456${10 + i * 2}`));
			for (const body of bodies) await t.post('/api/disbursements', body, t.apiKeyHeaders);
			const never = payoutTo('254712345673');
			await t.post('/api/disbursements', never, t.apiKeyHeaders);
			const records = await waitFor(
				'all settled',
				async () => {
					const all = await Promise.all(
						bodies.map(
							async (b) =>
								(await t.get(`/api/disbursements/${b.key}`, t.apiKeyHeaders)).data.data as Record,
						),
					);
					return all.every((r) => r.status !== 'pending') ? all : undefined;
				},
				5000,
			);
			const times = records.map(settledAfterMs);
			for (const ms of times) {
				expect(ms).toBeGreaterThanOrEqual(190);
				expect(ms).toBeLessThan(1400);
			}
			// Twelve uniform draws over 700 ms are not all within 50 ms of each other.
			expect(Math.max(...times) - Math.min(...times)).toBeGreaterThan(50);
			expect(
				(await t.get(`/api/disbursements/${never.key}`, t.apiKeyHeaders)).data.data.status,
			).toBe('pending');
		} finally {
			await t.sandbox.close();
		}
	});

	it('reads the CLI form "3000" or "1000-30000" and refuses anything else naming the variable', () => {
		expect(parsePayoutSettleMs('SANDBOX_PAYOUT_SETTLE_MS', '3000')).toBe(3000);
		expect(parsePayoutSettleMs('SANDBOX_PAYOUT_SETTLE_MS', '1000-30000')).toEqual({
			minMs: 1000,
			maxMs: 30000,
		});
		for (const bad of ['', 'soon', '-5', '30000-1000', '1.5s']) {
			expect(() => parsePayoutSettleMs('SANDBOX_PAYOUT_SETTLE_MS', bad)).toThrow(
				/SANDBOX_PAYOUT_SETTLE_MS/,
			);
		}
	});
});

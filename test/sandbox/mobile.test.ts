// Mobile money: the payer simulation by last digit, number checks, attempts, long polling and manual resolve.
import axios from 'axios';
import { startTestSandbox, waitFor } from '../../testkit/sandbox';
import type { TestSandbox } from '../../testkit/sandbox';

describe('sandbox mobile money', () => {
	let t: TestSandbox;
	beforeAll(async () => {
		t = await startTestSandbox({ pinDelayMs: 150, longPollTimeoutMs: 1500 });
	});
	afterAll(async () => {
		await t.sandbox.close();
	});

	const pay = (reference: string, mobile: string, type = 'MPESA', query = '') =>
		t.post(`/pay/${reference}/process${query}`, { type, payment: { mobile } });

	it('answers PENDING with the documented meta on submission', async () => {
		const { reference } = await t.createIntent({ amount: 1500.4, description: 'Tea' });
		const res = await pay(reference, '254712345670');
		expect(res.status).toBe(200);
		expect(res.data.data).toEqual({
			status: 'PENDING',
			message: expect.any(String),
			meta: {
				provider: 'MPESA',
				providerReference: expect.stringMatching(/^MPESA-/),
				stepUpUrl: null,
				accessToken: null,
				amount: 1500,
				currency: 'KES',
				description: 'Tea',
				reference,
			},
		});
		const record = await t.status(reference);
		expect(record.status).toBe('PENDING');
		expect(record.attempts).toEqual([
			{ reference: res.data.data.meta.providerReference, provider: 'MPESA', status: 'PENDING' },
		]);
	});

	it.each([
		['0', 'COMPLETED', /completed/i],
		['7', 'COMPLETED', /completed/i],
		['1', 'FAILED', /insufficient funds/i],
		['2', 'FAILED', /cancelled/i],
	])('a payer number ending in %s ends %s after the PIN delay', async (digit, status, message) => {
		const { reference, key } = await t.createIntent();
		const started = Date.now();
		await pay(reference, `25471234567${digit}`);
		const record = await waitFor('final status', async () => {
			const r = await t.status(key);
			return r.status !== 'PENDING' ? r : undefined;
		});
		expect(Date.now() - started).toBeGreaterThanOrEqual(140);
		expect(record.status).toBe(status);
		expect(record.message).toMatch(message);
		expect(record.attempts).toHaveLength(1);
		expect(record.attempts[0].status).toBe(status);
		expect(record.payment).toEqual({
			provider: 'MPESA',
			details: { mobile: `25471234567${digit}` },
		});
	});

	it('a payer number ending in 3 never answers and the payment fails when the intent expires', async () => {
		// One expiresAt minute lasts 480 ms in this sandbox.
		const short = await startTestSandbox({ minuteMs: 480 });
		try {
			const { reference } = await short.createIntent({ expiresAt: 1 });
			await short.post(`/pay/${reference}/process`, {
				type: 'MPESA',
				payment: { mobile: '254712345673' },
			});
			await new Promise((r) => setTimeout(r, 300));
			expect((await short.status(reference)).status).toBe('PENDING');
			const record = await waitFor('expiry', async () => {
				const r = await short.status(reference);
				return r.status !== 'PENDING' ? r : undefined;
			});
			expect(record.status).toBe('FAILED');
			expect(record.message).toMatch(/expired/);
		} finally {
			await short.sandbox.close();
		}
	});

	it.each([
		['+254712345670', /digits only/],
		['0712345670', /country code/],
		['25471234567', /9 digits after the country code/],
		['256712345670', /country code MPESA serves/],
	])('rejects the payer number %s with 400 naming payment.mobile', async (mobile, message) => {
		const { reference } = await t.createIntent();
		const res = await pay(reference, mobile);
		expect(res.status).toBe(400);
		expect(res.data.data.message).toMatch(/payment\.mobile/);
		expect(res.data.data.message).toMatch(message);
	});

	it('accepts each network only with its own country codes', async () => {
		for (const [type, mobile] of [
			['AIRTEL', '256712345670'],
			['MTN', '233241234560'],
			['TIGOPESA', '255712345670'],
		]) {
			const { reference } = await t.createIntent();
			const res = await pay(reference, mobile, type);
			expect(res.status).toBe(200);
			expect(res.data.data.meta.provider).toBe(type);
		}
		const { reference } = await t.createIntent();
		expect((await pay(reference, '254712345670', 'TIGOPESA')).status).toBe(400);
		expect((await pay(reference, '254712345670', 'PAYPAL')).data.data.message).toMatch(
			/type must be one of/,
		);
	});

	it('refuses a second attempt while one is waiting (422) and a payment of a paid intent (422)', async () => {
		const { reference } = await t.createIntent();
		await pay(reference, '254712345670');
		const again = await pay(reference, '254712345670');
		expect(again.status).toBe(422);
		expect(again.data.data.code).toBe('ATTEMPT_IN_PROGRESS');
		await waitFor('completion', async () =>
			(await t.status(reference)).status === 'COMPLETED' ? true : undefined,
		);
		const paid = await pay(reference, '254712345670');
		expect(paid.status).toBe(422);
		expect(paid.data.data.code).toBe('ALREADY_PAID');
	});

	it('lets the payer retry after a failure and records every attempt (by key all, by reference the latest)', async () => {
		const { reference, key } = await t.createIntent();
		await pay(reference, '254712345671');
		await waitFor('failure', async () =>
			(await t.status(reference)).status === 'FAILED' ? true : undefined,
		);
		await pay(reference, '254712345670');
		const byKey = await waitFor('completion', async () => {
			const r = await t.status(key);
			return r.status === 'COMPLETED' ? r : undefined;
		});
		expect(byKey.attempts.map((a: { status: string }) => a.status)).toEqual([
			'FAILED',
			'COMPLETED',
		]);
		const byReference = await t.status(reference);
		expect(byReference.attempts).toHaveLength(1);
		expect(byReference.attempts[0].status).toBe('COMPLETED');
	});

	it('answers 404 for processing an unknown intent', async () => {
		const res = await pay('no-such-reference', '254712345670');
		expect(res.status).toBe(404);
	});

	describe('long polling', () => {
		it('holds GET status until the payment completes, then answers the final record', async () => {
			const { reference, key } = await t.createIntent();
			const started = Date.now();
			const held = t.get(`/api/payments-v2/${key}?longPoll=true`, t.apiKeyHeaders);
			await new Promise((r) => setTimeout(r, 50));
			await pay(reference, '254712345670');
			const res = await held;
			expect(res.data.data.status).toBe('COMPLETED');
			// Woken by the change, not the 1500 ms timeout (which would have answered PENDING).
			expect(Date.now() - started).toBeGreaterThanOrEqual(150);
		});

		it('answers the current PENDING record when the long poll times out', async () => {
			const { reference } = await t.createIntent();
			await pay(reference, '254712345673');
			const started = Date.now();
			const res = await t.get(`/api/payments-v2/${reference}?longPoll=true`, t.apiKeyHeaders);
			expect(res.status).toBe(200);
			expect(res.data.data.status).toBe('PENDING');
			expect(Date.now() - started).toBeGreaterThanOrEqual(1450);
		});

		it('answers at once when the payment is already final', async () => {
			const { reference } = await t.createIntent();
			await pay(reference, '254712345672');
			await waitFor('failure', async () =>
				(await t.status(reference)).status === 'FAILED' ? true : undefined,
			);
			const started = Date.now();
			const res = await t.get(`/api/payments-v2/${reference}?longPoll=true`, t.apiKeyHeaders);
			expect(res.data.data.status).toBe('FAILED');
			expect(Date.now() - started).toBeLessThan(600);
		});

		it('holds POST process?longPoll=true and answers the final status with meta', async () => {
			const { reference } = await t.createIntent();
			const res = await pay(reference, '254712345670', 'MPESA', '?longPoll=true');
			expect(res.data.data.status).toBe('COMPLETED');
			expect(res.data.data.meta.reference).toBe(reference);
		});

		it('wakes many held connections at once and forgets clients that hang up', async () => {
			const { reference } = await t.createIntent();
			const held = Array.from({ length: 200 }, () =>
				t.get(`/api/payments-v2/${reference}?longPoll=true`, t.apiKeyHeaders),
			);
			const controller = new AbortController();
			const abandoned = axios
				.get(`${t.base}/api/payments-v2/${reference}?longPoll=true`, {
					headers: t.apiKeyHeaders,
					signal: controller.signal,
				})
				.catch((e: unknown) => e);
			await new Promise((r) => setTimeout(r, 100));
			expect((await t.get('/sandbox/stats')).data.data.heldLongPolls).toBe(201);
			controller.abort();
			await abandoned;
			await waitFor('the abandoned poll to be forgotten', async () =>
				(await t.get('/sandbox/stats')).data.data.heldLongPolls === 200 ? true : undefined,
			);
			await pay(reference, '254712345670');
			const answers = await Promise.all(held);
			expect(answers.every((r) => r.data.data.status === 'COMPLETED')).toBe(true);
			expect((await t.get('/sandbox/stats')).data.data.heldLongPolls).toBe(0);
		});
	});

	describe('manual resolve', () => {
		it('settles a waiting payment now and refuses when nothing waits', async () => {
			const { reference } = await t.createIntent();
			const none = await t.post(`/sandbox/payments/${reference}/resolve`, { status: 'COMPLETED' });
			expect(none.status).toBe(422);
			await pay(reference, '254712345673');
			const bad = await t.post(`/sandbox/payments/${reference}/resolve`, { status: 'DONE' });
			expect(bad.status).toBe(400);
			const res = await t.post(`/sandbox/payments/${reference}/resolve`, { status: 'FAILED' });
			expect(res.status).toBe(200);
			expect(res.data.data.status).toBe('FAILED');
			expect((await t.status(reference)).status).toBe('FAILED');
		});
	});
});

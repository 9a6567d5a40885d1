// Payment intents: creation, Basic auth, validation, duplicate keys, status lookups and expiry.
import axios from 'axios';

import { newKey, startTestSandbox, waitFor } from '../../testkit/sandbox';
import type { TestSandbox } from '../../testkit/sandbox';

describe('sandbox payment intents', () => {
	let t: TestSandbox;
	beforeAll(async () => {
		t = await startTestSandbox();
	});
	afterAll(async () => {
		await t.sandbox.close();
	});

	const payPath = () => `/api/payments/${t.sandbox.merchant.tokenId}/pay`;
	const body = (overrides: Record<string, unknown> = {}) => ({
		amount: 2500,
		description: 'Invoice 7',
		callbackUrl: 'http://127.0.0.1:9/cb',
		key: newKey(),
		payload: { billingAddress: { email: 'a@example.com' } },
		...overrides,
	});

	it('answers the merchant object on GET /sandbox/merchant, matching the handle', async () => {
		const res = await t.get('/sandbox/merchant');
		expect(res.status).toBe(200);
		expect(res.data.data).toEqual(t.sandbox.merchant);
		expect(t.sandbox.merchant.publicKeyPem).toContain('BEGIN PUBLIC KEY');
		expect(t.sandbox.merchant.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
	});

	it('creates an intent with reference, checkoutUrl and message in the {date, data} envelope', async () => {
		const res = await t.post(payPath(), body(), { Authorization: t.basic });
		expect(res.status).toBe(200);
		expect(Number.isNaN(Date.parse(res.data.date))).toBe(false);
		expect(res.data.data).toEqual({
			reference: expect.any(String),
			checkoutUrl: `${t.base}/checkout/${res.data.data.reference}`,
			message: expect.any(String),
		});
	});

	it('defaults currency to KES and echoes billing address and custom data in the status record', async () => {
		const key = newKey();
		const res = await t.post(
			payPath(),
			body({
				key,
				payload: {
					billingAddress: { firstName: 'Amina', country: 'KE', phoneNumber: '+254712345678' },
					customData: { orderId: 42, tags: ['a'] },
				},
			}),
			{ Authorization: t.basic },
		);
		const reference = res.data.data.reference;
		const record = await t.status(reference);
		expect(record).toMatchObject({
			reference,
			key,
			status: 'PENDING',
			amount: 2500,
			currency: 'KES',
			payment: { provider: null, details: null },
			attempts: [],
			payload: {
				billingAddress: {
					firstName: 'Amina',
					lastName: '',
					address1: '',
					locality: '',
					administrativeArea: '',
					postalCode: '',
					country: 'KE',
					email: '',
					phoneNumber: '+254712345678',
				},
				customData: { orderId: 42, tags: ['a'] },
			},
		});
		expect(await t.status(key)).toMatchObject({ reference, key });
	});

	it.each([
		['no Authorization header', {}, /Basic/],
		[
			'a wrong client secret',
			{ Authorization: `Basic ${Buffer.from('sandbox-client-id:nope').toString('base64')}` },
			/clientId or clientSecret/,
		],
		['an API key instead of Basic', { 'X-API-KEY': 'sandbox-api-key' }, /Basic/],
	])('refuses intent creation with %s (401)', async (_name, headers, message) => {
		const res = await t.post(payPath(), body(), headers as Record<string, string>);
		expect(res.status).toBe(401);
		expect(res.data.data.message).toMatch(message);
		expect(res.data.data.code).toBe('UNAUTHORIZED');
	});

	it('refuses a tokenId that is not the merchant one (401)', async () => {
		const res = await t.post('/api/payments/someoneelse/pay', body(), { Authorization: t.basic });
		expect(res.status).toBe(401);
		expect(res.data.data.message).toMatch(/tokenId/);
	});

	it.each([
		['amount', { amount: undefined }, /amount is required/],
		['amount', { amount: '100' }, /amount must be a number/],
		['amount', { amount: -5 }, /amount must be greater than 0/],
		['description', { description: undefined }, /description is required/],
		['callbackUrl', { callbackUrl: 'not a url' }, /callbackUrl must be an absolute/],
		['key', { key: 'order-1/2' }, /key must be alphanumeric/],
		['key', { key: undefined }, /key is required/],
		['currency', { currency: 'kes' }, /currency must be/],
		['expiresAt', { expiresAt: 0 }, /expiresAt/],
		[
			'billing contact',
			{ payload: { billingAddress: { firstName: 'A' } } },
			/email or payload\.billingAddress\.phoneNumber/,
		],
		[
			'billing field type',
			{ payload: { billingAddress: { email: 'a@b.c', postalCode: 100 } } },
			/postalCode must be a string/,
		],
	])('rejects a bad %s with 400 naming the field', async (_field, overrides, message) => {
		const res = await t.post(payPath(), body(overrides), { Authorization: t.basic });
		expect(res.status).toBe(400);
		expect(res.data.data.message).toMatch(message);
	});

	it('answers 400 for a body that is not JSON, without a stack trace', async () => {
		const res = await t.post(payPath(), Buffer.from('{"amount": 1,'), {
			Authorization: t.basic,
			'content-type': 'application/json',
		});
		expect(res.status).toBe(400);
		expect(res.data.data).toEqual({
			message: 'Request body is not valid JSON',
			code: 'INVALID_JSON',
		});
	});

	it('refuses a duplicate key with 409 naming the existing intent, and keeps one intent', async () => {
		const key = newKey();
		const first = await t.post(payPath(), body({ key }), { Authorization: t.basic });
		const second = await t.post(payPath(), body({ key, amount: 99 }), { Authorization: t.basic });
		expect(second.status).toBe(409);
		expect(second.data.data.code).toBe('DUPLICATE_KEY');
		expect(second.data.data.reference).toBe(first.data.data.reference);
		const ledger = await t.get('/sandbox/ledger');
		expect(ledger.data.data.intents.filter((i: { key: string }) => i.key === key)).toHaveLength(1);
	});

	it('requires X-API-KEY on status and answers 404 for unknown intents', async () => {
		const { reference } = await t.createIntent();
		expect((await t.get(`/api/payments-v2/${reference}`)).status).toBe(401);
		const wrong = await t.get(`/api/payments-v2/${reference}`, { 'X-API-KEY': 'wrong' });
		expect(wrong.status).toBe(401);
		expect(wrong.data.data.message).toMatch(/X-API-KEY/);
		const unknown = await t.get('/api/payments-v2/nosuchkey123', t.apiKeyHeaders);
		expect(unknown.status).toBe(404);
		expect(unknown.data.data.message).toContain('nosuchkey123');
	});

	it('answers 404 with a message for unknown routes', async () => {
		const res = await t.get('/api/nothing-here');
		expect(res.status).toBe(404);
		expect(res.data.data.message).toMatch(/No route/);
	});

	it('fails an unpaid intent at expiry and refuses to process it afterwards (422)', async () => {
		// One expiresAt minute lasts 240 ms in this sandbox.
		const short = await startTestSandbox({ minuteMs: 240 });
		try {
			const { reference } = await short.createIntent({ expiresAt: 1 });
			const record = await waitFor('expiry', async () => {
				const r = await short.status(reference);
				return r.status === 'FAILED' ? r : undefined;
			});
			expect(record.message).toMatch(/expired/);
			const res = await short.post(`/pay/${reference}/process`, {
				type: 'MPESA',
				payment: { mobile: '254712345670' },
			});
			expect(res.status).toBe(422);
			expect(res.data.data.code).toBe('INTENT_EXPIRED');
		} finally {
			await short.sandbox.close();
		}
	});

	it.each([
		['a Unix timestamp in milliseconds', Date.now()],
		['a Unix timestamp in seconds', Math.floor(Date.now() / 1000)],
		['negative', -5],
		['fractional', 1.5],
		['huge', 1e308],
		['more than 30 days', 43201],
		['a string', '30'],
	])(
		'refuses expiresAt given as %s with 400 naming the field, and stays healthy',
		async (_label, expiresAt) => {
			const res = await t.post(
				`/api/payments/${t.sandbox.merchant.tokenId}/pay`,
				{
					amount: 100,
					description: 'Expiry',
					callbackUrl: 'http://127.0.0.1:9/cb',
					key: newKey('exp'),
					expiresAt,
					payload: { billingAddress: { email: 'a@example.com' } },
				},
				{ Authorization: t.basic },
			);
			expect(res.status).toBe(400);
			expect(res.data.data.message).toBe(
				'expiresAt must be whole minutes from 1 to 43200 (30 days), counted from now',
			);
			expect((await t.get('/sandbox/ledger')).status).toBe(200);
			const ok = await t.createIntent({ expiresAt: 43200 });
			expect((await t.status(ok.reference)).status).toBe('PENDING');
		},
	);

	it('refuses a body nested too deep and a path with broken percent-encoding with 400, and stays healthy', async () => {
		const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
		const nested = await axios.post(
			`${t.base}/api/payments/${t.sandbox.merchant.tokenId}/pay`,
			deep,
			{
				headers: { Authorization: t.basic, 'content-type': 'application/json' },
				validateStatus: () => true,
			},
		);
		expect(nested.status).toBe(400);
		expect(nested.data.data.message).toMatch(/more than 64 levels deep/);
		const broken = await t.get('/api/payments-v2/%E0%A4%A', t.apiKeyHeaders);
		expect(broken.status).toBe(400);
		expect(broken.data.data.code).toBe('INVALID_PATH');
		expect((await t.get('/sandbox/ledger')).status).toBe(200);
	});
});

// Several merchants on one gateway: each finds only its own payments and payouts, keys are unique per
// merchant, every merchant's callbacks are signed with the one key, and the status record lists refunds.
import { verify } from 'node:crypto';
import { DEFAULT_CREDENTIALS, OTHER_MERCHANT_CREDENTIALS, startSandbox } from '../../sandbox';
import type { MerchantCredentials } from '../../sandbox';
import { newKey, startTestSandbox, waitFor } from '../../testkit/sandbox';
import type { Json, TestSandbox } from '../../testkit/sandbox';
import { startReceiver } from '../../testkit/sandboxHelpers';
import type { Delivery } from '../../testkit/sandboxHelpers';

function verifies(publicKeyPem: string, d: Pick<Delivery, 'headers' | 'body'>): boolean {
	return verify(
		'sha256',
		Buffer.from(`${String(d.headers['x-littlepay-timestamp'])}.${d.body}`),
		publicKeyPem,
		Buffer.from(String(d.headers['x-littlepay-signature']), 'base64'),
	);
}

const basicOf = (m: MerchantCredentials): string =>
	`Basic ${Buffer.from(`${m.clientId}:${m.clientSecret}`).toString('base64')}`;

describe('sandbox with several merchants', () => {
	let t: TestSandbox;
	let a: MerchantCredentials;
	let b: MerchantCredentials;
	beforeAll(async () => {
		t = await startTestSandbox({ pinDelayMs: 50 });
		a = t.sandbox.merchant;
		b = t.sandbox.merchant.otherMerchants[0];
	});
	afterAll(async () => {
		await t.sandbox.close();
	});

	const keyOf = (m: MerchantCredentials) => ({ 'X-API-KEY': m.apiKey });

	/** Creates an intent as merchant m (its Basic credentials and tokenId). */
	const createIntent = async (m: MerchantCredentials, overrides: Json = {}) => {
		const key = (overrides.key as string | undefined) ?? newKey();
		const res = await t.post(
			`/api/payments/${m.tokenId}/pay`,
			{
				amount: 1000,
				description: 'Order',
				callbackUrl: 'http://127.0.0.1:9/unused',
				key,
				payload: { billingAddress: { email: 'amina@example.com' } },
				...overrides,
			},
			{ Authorization: basicOf(m) },
		);
		expect(res.status).toBe(200);
		return { reference: res.data.data.reference as string, key };
	};

	/** An intent of merchant m paid by M-Pesa through the unauthenticated /pay path. */
	const paidIntent = async (m: MerchantCredentials, overrides: Json = {}) => {
		const intent = await createIntent(m, overrides);
		const res = await t.post(`/pay/${intent.reference}/process?longPoll=true`, {
			type: 'MPESA',
			payment: { mobile: '254712345670' },
		});
		expect(res.data.data.status).toBe('COMPLETED');
		return intent;
	};

	const status = (m: MerchantCredentials, referenceOrKey: string, query = '') =>
		t.get(`/api/payments-v2/${referenceOrKey}${query}`, keyOf(m));

	const payout = (m: MerchantCredentials, key: string, to = '254712345670') =>
		t.post(
			'/api/disbursements',
			{
				amount: 1000,
				method: 'MPESA',
				currency: 'KES',
				key,
				details: { to, accountType: 'MOBILE' },
			},
			keyOf(m),
		);

	it('keeps the default merchant and adds a second one with fixed documented credentials', async () => {
		const res = await t.get('/sandbox/merchant');
		expect(res.data.data).toEqual(t.sandbox.merchant);
		expect(res.data.data).toMatchObject(DEFAULT_CREDENTIALS);
		expect(res.data.data.otherMerchants).toEqual([
			{
				clientId: 'sandbox-client-id-2',
				clientSecret: 'sandbox-client-secret-2',
				tokenId: 'sandboxtoken02',
				apiKey: 'sandbox-api-key-2',
			},
		]);
		expect(OTHER_MERCHANT_CREDENTIALS).toEqual(res.data.data.otherMerchants[0]);
	});

	it("answers B's status and refund of A's intent 404, exactly as for an unknown one, by reference or key", async () => {
		const mine = await paidIntent(a);
		const unknown = newKey('nobody');
		for (const asked of [mine.reference, mine.key]) {
			const read = await status(b, asked);
			const polled = await status(b, asked, '?longPoll=true');
			const refund = await t.post(`/api/refund/${asked}`, { amount: 100 }, keyOf(b));
			const none = (await status(b, unknown)).data.data;
			const sameAsUnknown = {
				...none,
				message: none.message.replace(unknown, asked),
			};
			for (const res of [read, polled, refund]) {
				expect(res.status).toBe(404);
				expect(res.data.data).toEqual(sameAsUnknown);
				expect(res.data.data.code).toBe('NOT_FOUND');
			}
		}
		// B's refund attempts moved nothing; A still sees the whole payment, refundable.
		const own = await status(a, mine.reference);
		expect(own.status).toBe(200);
		expect(own.data.data).toMatchObject({
			reference: mine.reference,
			refundedAmount: 0,
			refunds: [],
		});
		expect((await t.post(`/api/refund/${mine.key}`, { amount: 1000 }, keyOf(a))).status).toBe(200);
	});

	it("refuses B's Basic credentials with A's tokenId (401): the path's token must be the caller's own", async () => {
		const res = await t.post(
			`/api/payments/${a.tokenId}/pay`,
			{
				amount: 10,
				description: 'x',
				callbackUrl: 'http://127.0.0.1:9/cb',
				key: newKey(),
				payload: { billingAddress: { email: 'a@example.com' } },
			},
			{ Authorization: basicOf(b) },
		);
		expect(res.status).toBe(401);
		expect(res.data.data.message).toMatch(/tokenId/);
	});

	it('lets two merchants each have an intent with the same key; a key repeats only within one merchant (409)', async () => {
		const key = newKey('ORDER');
		const ofA = await createIntent(a, { key, amount: 111 });
		const ofB = await createIntent(b, { key, amount: 222 });
		expect(ofB.reference).not.toBe(ofA.reference);
		expect((await status(a, key)).data.data).toMatchObject({
			reference: ofA.reference,
			amount: 111,
		});
		expect((await status(b, key)).data.data).toMatchObject({
			reference: ofB.reference,
			amount: 222,
		});
		const again = await t.post(
			`/api/payments/${b.tokenId}/pay`,
			{
				amount: 5,
				description: 'again',
				callbackUrl: 'http://127.0.0.1:9/cb',
				key,
				payload: { billingAddress: { email: 'a@example.com' } },
			},
			{ Authorization: basicOf(b) },
		);
		expect(again.status).toBe(409);
		expect(again.data.data).toMatchObject({ code: 'DUPLICATE_KEY', reference: ofB.reference });
		// A control endpoint has no merchant: a key two merchants use is refused, the reference is not.
		const ambiguous = await t.post(`/sandbox/payments/${key}/expire`);
		expect(ambiguous.status).toBe(409);
		expect(ambiguous.data.data.code).toBe('AMBIGUOUS_KEY');
		expect((await t.post(`/sandbox/payments/${ofB.reference}/expire`)).status).toBe(200);
		expect((await status(b, key)).data.data.status).toBe('FAILED');
		expect((await status(a, key)).data.data.status).toBe('PENDING');
	});

	it('keeps payouts per merchant: lookups by id or key, and duplicate keys, are the creator’s own', async () => {
		const key = newKey('payout');
		const ofA = await payout(a, key);
		expect(ofA.status).toBe(200);
		const idA = ofA.data.data.id as string;
		for (const asked of [idA, key]) {
			const res = await t.get(`/api/disbursements/${asked}`, keyOf(b));
			expect(res.status).toBe(404);
			expect(res.data.data).toEqual({
				code: 'NOT_FOUND',
				message: `No disbursement with id or key "${asked}"`,
			});
			expect((await t.get(`/api/disbursements/${asked}`, keyOf(a))).data.data.id).toBe(idA);
		}
		const ofB = await payout(b, key, '254712345671');
		expect(ofB.status).toBe(200);
		expect(ofB.data.data.id).not.toBe(idA);
		expect((await t.get(`/api/disbursements/${key}`, keyOf(b))).data.data).toMatchObject({
			id: ofB.data.data.id,
			to: '254712345671',
		});
		expect((await t.get(`/api/disbursements/${key}`, keyOf(a))).data.data.id).toBe(idA);
		const repeated = await payout(b, key);
		expect(repeated.status).toBe(409);
		expect(repeated.data.data).toMatchObject({ code: 'DUPLICATE_KEY', id: ofB.data.data.id });
		const ledger = (await t.get('/sandbox/ledger')).data.data.disbursements as Json[];
		expect(ledger.filter((d) => d.key === key).map((d) => [d.id, d.merchant])).toEqual([
			[idA, a.clientId],
			[ofB.data.data.id, b.clientId],
		]);
	});

	it("signs a callback about B's payment with the same one key as A's, as Little Pay does", async () => {
		const receiver = await startReceiver([200]);
		try {
			const ofA = await paidIntent(a, { callbackUrl: `${receiver.url}/a` });
			const ofB = await paidIntent(b, { callbackUrl: `${receiver.url}/b` });
			await waitFor('both callbacks', () => (receiver.deliveries.length >= 2 ? true : undefined));
			const byPath = new Map(receiver.deliveries.map((d) => [d.path, d]));
			const publicKeyPem = (await t.get('/sandbox/public-key')).data.data.publicKeyPem as string;
			expect(publicKeyPem).toBe(t.sandbox.merchant.publicKeyPem);
			const deliveryB = byPath.get('/b');
			const deliveryA = byPath.get('/a');
			expect(JSON.parse(deliveryA?.body ?? '{}')).toMatchObject({ reference: ofA.reference });
			expect(JSON.parse(deliveryB?.body ?? '{}')).toMatchObject({
				reference: ofB.reference,
				key: ofB.key,
				status: 'COMPLETED',
			});
			// The signature proves Little Pay sent it, not whose payment it is: B's verifies with A's key too.
			expect(verifies(publicKeyPem, deliveryA as Delivery)).toBe(true);
			expect(verifies(publicKeyPem, deliveryB as Delivery)).toBe(true);
			// Which is why the receiver asks with its own API key: only B's finds B's payment.
			expect((await status(a, ofB.reference)).status).toBe(404);
			expect((await status(b, ofB.reference)).data.data.status).toBe('COMPLETED');
		} finally {
			await receiver.close();
		}
	});

	it('lists each refund of a payment in its status record, matching the refund callback', async () => {
		const receiver = await startReceiver([200]);
		try {
			const { reference, key } = await paidIntent(b, { amount: 1000 });
			const refund = (body: Json) => t.post(`/api/refund/${key}`, body, keyOf(b));
			expect((await refund({ amount: 100, reason: 'damaged' })).data.data.status).toBe('COMPLETED');
			expect((await refund({ amount: 50, reason: 'please fail' })).data.data.status).toBe('FAILED');
			const pending = await refund({
				amount: 200,
				reason: 'pending return',
				callbackUrl: `${receiver.url}/refund`,
			});
			expect(pending.data.data.status).toBe('PENDING');
			const early = (await status(b, reference)).data.data;
			expect(early.refundedAmount).toBe(100);
			expect(early.refunds).toEqual([
				{ amount: 100, status: 'COMPLETED', reason: 'damaged', date: expect.any(String) },
				{ amount: 50, status: 'FAILED', reason: 'please fail', date: expect.any(String) },
				{ amount: 200, status: 'PENDING', reason: 'pending return', date: expect.any(String) },
			]);
			const callback = JSON.parse(
				(await waitFor('refund callback', () => receiver.deliveries[0])).body,
			);
			const settled = (await status(b, key)).data.data;
			expect(settled.refundedAmount).toBe(300);
			expect(settled.refunds[2]).toEqual({
				amount: callback.amount,
				status: callback.status,
				reason: callback.reason,
				date: callback.date,
			});
			expect(settled.refunds[2].status).toBe('COMPLETED');
			expect(Number.isNaN(Date.parse(settled.refunds[2].date))).toBe(false);
			// Another merchant's payment keeps its own (empty) list.
			const other = await paidIntent(a);
			expect((await status(a, other.reference)).data.data.refunds).toEqual([]);
		} finally {
			await receiver.close();
		}
	});
});

describe('sandbox merchants option', () => {
	it('takes a list of other merchants, each with its own credentials; [] leaves only the default one', async () => {
		const c = {
			clientId: 'shop-c',
			clientSecret: 'secret-c',
			tokenId: 'tokenc',
			apiKey: 'key-c',
		};
		const d = { clientId: 'shop-d', clientSecret: 'secret-d', tokenId: 'tokend', apiKey: 'key-d' };
		const t = await startTestSandbox({ otherMerchants: [c, d] });
		try {
			expect(t.sandbox.merchant.otherMerchants).toEqual([c, d]);
			const key = newKey('payout');
			expect(
				(
					await t.post(
						'/api/disbursements',
						{
							amount: 1000,
							method: 'MPESA',
							currency: 'KES',
							key,
							details: { to: '254712345670', accountType: 'MOBILE' },
						},
						{ 'X-API-KEY': d.apiKey },
					)
				).status,
			).toBe(200);
			expect((await t.get(`/api/disbursements/${key}`, { 'X-API-KEY': d.apiKey })).status).toBe(
				200,
			);
			expect((await t.get(`/api/disbursements/${key}`, { 'X-API-KEY': c.apiKey })).status).toBe(
				404,
			);
			expect(
				(
					await t.get(`/api/disbursements/${key}`, {
						'X-API-KEY': OTHER_MERCHANT_CREDENTIALS.apiKey,
					})
				).status,
			).toBe(401);
		} finally {
			await t.sandbox.close();
		}
		const alone = await startTestSandbox({ otherMerchants: [] });
		try {
			expect(alone.sandbox.merchant.otherMerchants).toEqual([]);
			expect(
				(await alone.get('/api/disbursements/charges', { 'X-API-KEY': 'sandbox-api-key-2' }))
					.status,
			).toBe(401);
			expect((await alone.get('/api/disbursements/charges', alone.apiKeyHeaders)).status).toBe(200);
		} finally {
			await alone.sandbox.close();
		}
	});

	it('refuses to start when two merchants share a clientId, tokenId or apiKey, or a field is empty', async () => {
		await expect(
			startSandbox({
				quiet: true,
				otherMerchants: [{ ...OTHER_MERCHANT_CREDENTIALS, apiKey: DEFAULT_CREDENTIALS.apiKey }],
			}),
		).rejects.toThrow(/two merchants have the apiKey/);
		await expect(
			startSandbox({ quiet: true, tokenId: OTHER_MERCHANT_CREDENTIALS.tokenId }),
		).rejects.toThrow(/two merchants have the tokenId/);
		await expect(
			startSandbox({
				quiet: true,
				otherMerchants: [{ ...OTHER_MERCHANT_CREDENTIALS, clientSecret: '' }],
			}),
		).rejects.toThrow(/merchant 2: clientSecret/);
	});
});

// Refunds: full and partial, never more than paid, only completed payments, outcome by `reason` keyword.
import { startTestSandbox, waitFor } from '../../testkit/sandbox';
import type { TestSandbox } from '../../testkit/sandbox';

describe('sandbox refunds', () => {
	let t: TestSandbox;
	beforeAll(async () => {
		t = await startTestSandbox({ pinDelayMs: 50 });
	});
	afterAll(async () => {
		await t.sandbox.close();
	});

	const paidIntent = async (amount = 1000) => {
		const intent = await t.createIntent({ amount });
		const res = await t.post(`/pay/${intent.reference}/process?longPoll=true`, {
			type: 'MPESA',
			payment: { mobile: '254712345670' },
		});
		expect(res.data.data.status).toBe('COMPLETED');
		return intent;
	};
	const refund = (key: string, body: unknown, headers = t.apiKeyHeaders) =>
		t.post(`/api/refund/${key}`, body, headers);

	it('requires X-API-KEY (401) and answers 404 for an unknown payment', async () => {
		const { key } = await paidIntent();
		expect((await refund(key, { amount: 1 }, {})).status).toBe(401);
		expect((await refund(key, { amount: 1 }, { 'X-API-KEY': 'nope' })).status).toBe(401);
		expect((await refund('unknownkey1', { amount: 1 })).status).toBe(404);
	});

	it('refunds in parts up to the paid amount, by reference or key, and refuses more with 422', async () => {
		const { reference, key } = await paidIntent(1000);
		const first = await refund(key, { amount: 400 });
		expect(first.status).toBe(200);
		expect(first.data.data).toMatchObject({ status: 'COMPLETED', message: expect.any(String) });
		expect((await refund(reference, { amount: 500 })).data.data.status).toBe('COMPLETED');
		const over = await refund(key, { amount: 101 });
		expect(over.status).toBe(422);
		expect(over.data.data).toMatchObject({ code: 'REFUND_EXCEEDS_PAID', refundable: 100 });
		expect(over.data.data.message).toMatch(/amount 101/);
		expect((await refund(key, { amount: 100 })).data.data.status).toBe('COMPLETED');
		const none = await refund(key, { amount: 1 });
		expect(none.status).toBe(422);
		expect(none.data.data.code).toBe('FULLY_REFUNDED');
		expect((await t.status(key)).refundedAmount).toBe(1000);
	});

	it('refunds the whole remaining amount when amount is left out', async () => {
		const { key } = await paidIntent(750);
		await refund(key, { amount: 250 });
		const rest = await refund(key, {});
		expect(rest.data.data).toMatchObject({ status: 'COMPLETED', amount: 500 });
	});

	it('refuses a refund of a payment that is not completed (422)', async () => {
		const { reference } = await t.createIntent();
		const res = await refund(reference, { amount: 10 });
		expect(res.status).toBe(422);
		expect(res.data.data.code).toBe('NOT_REFUNDABLE');
		await t.post(`/pay/${reference}/process?longPoll=true`, {
			type: 'MPESA',
			payment: { mobile: '254712345671' },
		});
		expect((await refund(reference, { amount: 10 })).data.data.code).toBe('NOT_REFUNDABLE');
	});

	it('validates the amount and callbackUrl with 400 naming the field', async () => {
		const { key } = await paidIntent();
		expect((await refund(key, { amount: 'ten' })).data.data.message).toMatch(
			/amount must be a number/,
		);
		expect((await refund(key, { amount: 0 })).status).toBe(400);
		const badUrl = await refund(key, { amount: 1, callbackUrl: 'ftp://x' });
		expect(badUrl.status).toBe(400);
		expect(badUrl.data.data.message).toMatch(/callbackUrl/);
	});

	it('answers FAILED when the reason contains "fail", and the amount stays refundable', async () => {
		const { key } = await paidIntent(300);
		const failed = await refund(key, { amount: 300, reason: 'please fail this one' });
		expect(failed.status).toBe(200);
		expect(failed.data.data.status).toBe('FAILED');
		expect((await refund(key, { amount: 300 })).data.data.status).toBe('COMPLETED');
	});

	it('answers PENDING when the reason contains "pending", reserving the amount until it settles', async () => {
		const { key } = await paidIntent(300);
		const pending = await refund(key, { amount: 200, reason: 'Pending bank reversal' });
		expect(pending.data.data.status).toBe('PENDING');
		expect((await refund(key, { amount: 150 })).status).toBe(422);
		const ledgerRefund = await waitFor('settled refund', async () => {
			const ledger = await t.get('/sandbox/ledger');
			const r = ledger.data.data.refunds.find((x: { id: string }) => x.id === pending.data.data.id);
			return r.status !== 'PENDING' ? r : undefined;
		});
		expect(ledgerRefund.status).toBe('COMPLETED');
		expect((await t.status(key)).refundedAmount).toBe(200);
	});

	it('a "pending fail" reason answers PENDING and later FAILED, releasing the amount', async () => {
		const { key } = await paidIntent(300);
		const pending = await refund(key, { amount: 300, reason: 'pending-fail' });
		expect(pending.data.data.status).toBe('PENDING');
		await waitFor('release', async () =>
			(await refund(key, { amount: 300 })).data.data.status === 'COMPLETED' ? true : undefined,
		);
		const ledger = await t.get('/sandbox/ledger');
		expect(
			ledger.data.data.refunds.find((x: { id: string }) => x.id === pending.data.data.id).status,
		).toBe('FAILED');
	});
});

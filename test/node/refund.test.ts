// Refund: Create, run as a workflow through n8n-core's engine against the sandbox.
import { loadFixture, runWorkflow } from '../../testkit/engine';
import { useNodeTestSandbox } from '../../testkit/nodeSandbox';

const sb = useNodeTestSandbox({ pinDelayMs: 50, longPollTimeoutMs: 400 });

type Item = Record<string, unknown>;

/** Runs Refund: Create; an item without `amount` is a full refund, with one a partial refund. */
function refund(items: Item[], continueOnFail = false) {
	return runWorkflow(
		loadFixture('refund-create.json', {
			ITEMS: JSON.stringify(items),
			ON_ERROR: continueOnFail ? 'continueRegularOutput' : 'stopWorkflow',
		}),
		{ credentials: sb.credentials },
	);
}

/** A COMPLETED M-Pesa payment of `amount`. */
async function paid(amount = 1500) {
	const intent = await sb.createIntent({ amount });
	await sb.post(`/pay/${intent.reference}/process`, {
		type: 'MPESA',
		payment: { mobile: '254712345670' },
	});
	const record = await sb.status(intent.key, '?longPoll=true');
	if (record.status !== 'COMPLETED') throw new Error(`payment is ${String(record.status)}`);
	await sb.received();
	return intent;
}

async function refundsOf(reference: string): Promise<Array<Record<string, unknown>>> {
	const ledger = await sb.get('/sandbox/ledger');
	return (ledger.data.data.refunds as Array<Record<string, unknown>>).filter(
		(r) => r.reference === reference,
	);
}

describe('Refund: Create', () => {
	it('refunds the full amount read from the payment record', async () => {
		const payment = await paid(1500);
		const result = await refund([{ paymentId: payment.reference }]);
		expect(result.error).toBeUndefined();
		expect(result.output('Little Pay')).toEqual([
			{
				json: {
					reference: payment.reference,
					key: payment.key,
					amount: 1500,
					currency: 'KES',
					status: 'COMPLETED',
					message: expect.any(String),
					reason: null,
					gateway: 'sandbox',
				},
				pairedItem: { item: 0 },
			},
		]);
		const sent = await sb.received();
		expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual([
			`GET /api/payments-v2/${payment.reference}`,
			`POST /api/refund/${payment.reference}`,
		]);
		expect(sent[1].body).toEqual({ amount: 1500 });
		expect((await sb.status(payment.key)).refundedAmount).toBe(1500);
	});

	it('refunds part of the amount with a reason, by key, and a second partial refund adds up; the output names the payment by reference and key whichever was given', async () => {
		const payment = await paid(1500);
		const result = await refund([
			{ paymentId: payment.key, amount: 500, reason: 'damaged item' },
			{ paymentId: payment.reference, amount: 1000 },
		]);
		expect(result.error).toBeUndefined();
		expect(
			result
				.output('Little Pay')
				.map((o) => [
					o.json.reference,
					o.json.key,
					o.json.amount,
					o.json.status,
					o.json.reason,
					o.pairedItem,
				]),
		).toEqual([
			[payment.reference, payment.key, 500, 'COMPLETED', 'damaged item', { item: 0 }],
			[payment.reference, payment.key, 1000, 'COMPLETED', null, { item: 1 }],
		]);
		const sent = await sb.received();
		// Each refund reads the status record first (a read), which names the payment in the output.
		expect(sent.map((r) => [r.method, r.path, r.body])).toEqual([
			['GET', `/api/payments-v2/${payment.key}`, null],
			['POST', `/api/refund/${payment.key}`, { amount: 500, reason: 'damaged item' }],
			['GET', `/api/payments-v2/${payment.reference}`, null],
			['POST', `/api/refund/${payment.reference}`, { amount: 1000 }],
		]);
		expect((await sb.status(payment.key)).refundedAmount).toBe(1500);
	});

	it('refunds what is still refundable when Full Amount follows a partial refund', async () => {
		const payment = await paid(1500);
		const partial = await refund([{ paymentId: payment.key, amount: 500 }]);
		expect(partial.error).toBeUndefined();
		const full = await refund([{ paymentId: payment.key }]);
		expect(full.error).toBeUndefined();
		expect(full.output('Little Pay')[0]?.json).toMatchObject({ amount: 1000, status: 'COMPLETED' });
		expect((await sb.status(payment.key)).refundedAmount).toBe(1500);
	});

	it('sends the callback URL with the refund and returns PENDING for a refund that settles later', async () => {
		const payment = await paid(1500);
		const result = await refund([
			{
				paymentId: payment.key,
				amount: 100,
				reason: 'pending',
				callbackUrl: 'http://127.0.0.1:9/refund?token=abc',
			},
		]);
		expect(result.error).toBeUndefined();
		expect(result.output('Little Pay')[0].json).toMatchObject({ amount: 100, status: 'PENDING' });
		const sent = (await sb.received()).find((r) => r.method === 'POST');
		expect(sent?.body).toEqual({
			amount: 100,
			reason: 'pending',
			callbackUrl: 'http://127.0.0.1:9/refund?token=abc',
		});
	});

	it('returns a FAILED refund as normal output, and nothing is refunded', async () => {
		const payment = await paid(1500);
		const result = await refund([{ paymentId: payment.key, amount: 300, reason: 'fail please' }]);
		expect(result.error).toBeUndefined();
		expect(result.output('Little Pay')[0]).toEqual({
			json: {
				reference: payment.reference,
				key: payment.key,
				amount: 300,
				currency: 'KES',
				status: 'FAILED',
				message: expect.any(String),
				reason: 'fail please',
				failureCode: 'refund-rejected',
				retry: 'no',
				nextStep: expect.stringContaining('Nothing was refunded'),
				gateway: 'sandbox',
			},
			pairedItem: { item: 0 },
		});
		expect((await sb.status(payment.key)).refundedAmount).toBe(0);
		expect(await refundsOf(payment.reference)).toEqual([
			expect.objectContaining({ status: 'FAILED', amount: 300 }),
		]);
	});

	it('maps a refund of an unknown reference to a NodeApiError naming the request, with the 404 hint', async () => {
		for (const item of [
			{ paymentId: 'noSuchPayment1' },
			{ paymentId: 'noSuchPayment1', amount: 100 },
		]) {
			const result = await refund([item]);
			expect(result.error).toMatchObject({
				name: 'NodeApiError',
				httpCode: '404',
				message:
					'Little Pay has nothing at GET /api/payments-v2/noSuchPayment1 (HTTP 404, NOT_FOUND)',
				description: 'No payment or payout with this reference or key exists for this merchant',
				context: { itemIndex: 0 },
			});
		}
	});

	it('maps a refund above the paid amount to a 422 NodeApiError and refunds nothing', async () => {
		const payment = await paid(1000);
		const result = await refund([{ paymentId: payment.key, amount: 1200 }]);
		expect(result.error).toMatchObject({
			name: 'NodeApiError',
			httpCode: '422',
			message: expect.stringMatching(/^Little Pay .* \(HTTP \d+/),
		});
		expect(result.error?.description).toContain('refund above the paid amount');
		expect((await sb.status(payment.key)).refundedAmount).toBe(0);
	});

	it('refuses a bad amount or callback URL before sending anything', async () => {
		const payment = await paid(1000);
		const result = await refund(
			[
				{ paymentId: payment.key, amount: -5 },
				{ paymentId: payment.key, amount: 100, callbackUrl: 'ftp://example.com/x' },
			],
			true,
		);
		expect(result.error).toBeUndefined();
		expect(result.output('Little Pay').map((o) => o.json.error)).toEqual([
			'Row 1: Amount must be a positive number (got -5)',
			'Row 2: Callback URL is not an http(s) URL (got "ftp://example.com/x")',
		]);
		expect(await sb.received()).toEqual([]);
	});

	it('never resends a refund whose answer was lost: the item fails saying the outcome is unknown, and exactly one refund exists', async () => {
		const payment = await paid(1500);
		await sb.post('/sandbox/faults', {
			rules: [{ method: 'POST', pathPrefix: '/api/refund/', drop: 'after', times: 1 }],
		});
		const result = await refund([{ paymentId: payment.key, amount: 200 }]);
		expect(result.error?.message).toMatch(/^Row 1: the outcome of the refund is unknown/);
		expect(result.error?.description).toContain('Check in the dashboard');
		expect((await sb.received()).filter((r) => r.method === 'POST')).toHaveLength(1);
		expect(await refundsOf(payment.reference)).toHaveLength(1);
		expect((await sb.status(payment.key)).refundedAmount).toBe(200);
	});
});

// Payment: Get Status and Wait for Completion, run as workflows through n8n-core's engine against the sandbox.
import { loadFixture, runWorkflow } from '../../testkit/engine';
import type { RunResult } from '../../testkit/engine';
import { useNodeTestSandbox } from '../../testkit/nodeSandbox';
import type { NodeTestSandbox } from '../../testkit/nodeSandbox';
import { waitFor } from '../../testkit/sandbox';

type Item = Record<string, unknown>;

/** Runs a fixture with the given items against a sandbox. */
function run(
	sb: NodeTestSandbox,
	file: string,
	items: Item[],
	onStart?: (cancel: () => void) => void,
): Promise<RunResult> {
	return runWorkflow(
		loadFixture(file, { ITEMS: JSON.stringify(items), ON_ERROR: 'stopWorkflow' }),
		{ credentials: sb.credentials, onStart },
	);
}

/** An intent with a mobile money attempt by a number ending in `lastDigit` (0 completes, 1 fails, 3 never answers). */
async function intentWithAttempt(sb: NodeTestSandbox, lastDigit: number) {
	const intent = await sb.createIntent({ amount: 1500 });
	const res = await sb.post(`/pay/${intent.reference}/process`, {
		type: 'MPESA',
		payment: { mobile: `25471234567${lastDigit}` },
	});
	if (res.status !== 200) throw new Error(`process: ${res.status}`);
	return intent;
}

/** Waits for the intent's attempt to fail, then expires the intent: it can no longer be paid. */
async function failedThenExpired(sb: NodeTestSandbox, reference: string): Promise<void> {
	await waitFor('the attempt to fail', async () =>
		(await sb.status(reference)).status === 'FAILED' ? true : undefined,
	);
	const expired = await sb.post(`/sandbox/payments/${reference}/expire`);
	if (expired.status !== 200) throw new Error(`expire: ${expired.status}`);
}

async function heldLongPolls(sb: NodeTestSandbox): Promise<number> {
	return Number((await sb.get('/sandbox/stats')).data.data.heldLongPolls);
}

describe('Payment', () => {
	const sb = useNodeTestSandbox({ pinDelayMs: 50, longPollTimeoutMs: 300 });

	describe('Get Status', () => {
		it('looks many payments up concurrently when asked, keeping output order and pairing', async () => {
			const intents = await Promise.all(Array.from({ length: 12 }, () => sb.createIntent()));
			// The first lookup is the slowest, so with overlapping requests it would finish last.
			await sb.post('/sandbox/faults', {
				rules: [
					{ method: 'GET', pathPrefix: `/api/payments-v2/${intents[0].key}`, latencyMs: 400 },
					{ method: 'GET', pathPrefix: '/api/payments-v2/', latencyMs: 50 },
				],
			});
			const result = await run(
				sb,
				'payment-get-status.json',
				intents.map((i) => ({ paymentId: i.key, concurrency: 5 })),
			);
			expect(result.error).toBeUndefined();
			const out = result.output('Little Pay');
			expect(out.map((o) => o.json.key)).toEqual(intents.map((i) => i.key));
			expect(out.map((o) => o.pairedItem)).toEqual(intents.map((_, item) => ({ item })));
		});

		it('decrypts the API key once for a run of many lookups and still authenticates every request', async () => {
			const intents = await Promise.all(Array.from({ length: 8 }, () => sb.createIntent()));
			const result = await run(
				sb,
				'payment-get-status.json',
				intents.map((i) => ({ paymentId: i.key, concurrency: 3 })),
			);
			expect(result.error).toBeUndefined();
			expect(result.output('Little Pay').map((o) => o.json.key)).toEqual(intents.map((i) => i.key));
			// n8n decrypts a credential on every read: once per run, not once per request.
			expect(result.decryptions).toEqual({ littlePayApiKeyApi: 1 });
			expect(result.requests.filter((r) => r.credential === 'littlePayApiKeyApi')).toHaveLength(8);
		});

		it('reads the same payment by reference and by key; Simplify returns what a merchant reconciles with: currency, order description, M-Pesa code, paid-at time', async () => {
			const intent = await intentWithAttempt(sb, 0);
			const record = await sb.status(intent.key, '?longPoll=true');
			await sb.received();
			const result = await run(sb, 'payment-get-status.json', [
				{ paymentId: intent.reference },
				{ paymentId: intent.key },
			]);
			expect(result.error).toBeUndefined();
			const attempts = record.attempts as Array<{ reference: string }>;
			const simplified = {
				reference: intent.reference,
				key: intent.key,
				status: 'COMPLETED',
				amount: 1500,
				currency: 'KES',
				description: record.description,
				providerReference: attempts[attempts.length - 1].reference,
				paidAt: record.completedAt,
				provider: 'MPESA',
				message: record.message,
				gateway: 'sandbox',
			};
			expect(simplified.providerReference).toMatch(/^MPESA-[0-9A-F]{10}$/);
			expect(Date.parse(String(simplified.paidAt))).toBeGreaterThan(0);
			expect(result.output('Little Pay')).toEqual([
				{ json: simplified, pairedItem: { item: 0 } },
				{ json: simplified, pairedItem: { item: 1 } },
			]);
			const sent = await sb.received();
			expect(sent.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
				`GET /api/payments-v2/${intent.reference} 200`,
				`GET /api/payments-v2/${intent.key} 200`,
			]);
			expect(result.requests.every((r) => r.credential === 'littlePayApiKeyApi')).toBe(true);
		});

		it('returns the full status record with Simplify off', async () => {
			const intent = await intentWithAttempt(sb, 1);
			await sb.status(intent.key, '?longPoll=true');
			const result = await run(sb, 'payment-get-status.json', [
				{ paymentId: intent.key, simplify: false },
			]);
			expect(result.error).toBeUndefined();
			const [out] = result.output('Little Pay');
			// The whole record, with the payer's details as Payer Details (default Masked) says.
			const record = await sb.status(intent.key);
			expect(record).toMatchObject({
				payment: { details: { mobile: '254712345671' } },
				payload: { billingAddress: { email: 'amina@example.com' } },
			});
			const payment = record.payment as Record<string, unknown>;
			const payload = record.payload as { billingAddress: Record<string, unknown> };
			expect(out.json).toEqual({
				...record,
				payment: { ...payment, details: { mobile: '2547•••••671' } },
				payload: {
					...payload,
					billingAddress: { ...payload.billingAddress, email: 'a•••@example.com' },
				},
				gateway: 'sandbox',
			});
			expect(out.json).toMatchObject({
				status: 'FAILED',
				currency: 'KES',
				payment: { provider: 'MPESA', details: { mobile: '2547•••••671' } },
				payload: { billingAddress: { email: 'a•••@example.com', firstName: 'Amina' } },
				attempts: [{ provider: 'MPESA', status: 'FAILED' }],
			});
		});

		it('holds one long poll when asked and returns the status it ends with', async () => {
			const intent = await intentWithAttempt(sb, 0);
			await sb.received();
			const result = await run(sb, 'payment-get-status.json', [
				{ paymentId: intent.key, longPoll: true },
			]);
			expect(result.error).toBeUndefined();
			expect(result.output('Little Pay')[0].json.status).toBe('COMPLETED');
			const [sent] = await sb.received();
			expect(sent).toMatchObject({ method: 'GET', path: `/api/payments-v2/${intent.key}` });
			expect((sent as unknown as { query: Record<string, string> }).query).toEqual({
				longPoll: 'true',
			});
		});

		it('maps an unknown reference to a NodeApiError naming the request, the status and the code, with the 404 hint', async () => {
			const result = await run(sb, 'payment-get-status.json', [{ paymentId: 'noSuchOrder1' }]);
			expect(result.error).toMatchObject({
				name: 'NodeApiError',
				httpCode: '404',
				message:
					'Little Pay has nothing at GET /api/payments-v2/noSuchOrder1 (HTTP 404, NOT_FOUND)',
				description: 'No payment or payout with this reference or key exists for this merchant',
			});
		});
	});

	describe('Wait for Completion', () => {
		it('wakes up when the held payment completes: one long poll, no timeout', async () => {
			const intent = await intentWithAttempt(sb, 3); // the payer never answers by itself
			await sb.received();
			const running = run(sb, 'payment-wait-for-completion.json', [
				{ paymentId: intent.reference, timeout: 30 },
			]);
			await waitFor('the node to hold a long poll', async () =>
				(await heldLongPolls(sb)) > 0 ? true : undefined,
			);
			const resolved = await sb.post(`/sandbox/payments/${intent.reference}/resolve`, {
				status: 'COMPLETED',
			});
			expect(resolved.status).toBe(200);
			const result = await running;
			expect(result.error).toBeUndefined();
			const polls = (await sb.received()).filter((r) => r.path.startsWith('/api/payments-v2/'));
			expect(polls).toHaveLength(1);
			const record = await sb.status(intent.reference);
			expect(result.output('Little Pay')[0]).toEqual({
				json: {
					reference: intent.reference,
					key: intent.key,
					status: 'COMPLETED',
					amount: 1500,
					currency: 'KES',
					description: record.description,
					providerReference: expect.stringMatching(/^MPESA-/),
					paidAt: record.completedAt,
					provider: 'MPESA',
					message: record.message,
					timedOut: false,
					requests: 1,
					gateway: 'sandbox',
				},
				pairedItem: { item: 0 },
			});
		});

		it('returns FAILED as output when the payer declines during the wait, with the full record when Simplify is off', async () => {
			const intent = await intentWithAttempt(sb, 1);
			// A failed attempt ends the payment only once the intent can no longer be paid.
			await failedThenExpired(sb, intent.reference);
			const result = await run(sb, 'payment-wait-for-completion.json', [
				{ paymentId: intent.key, timeout: 30, simplify: false },
			]);
			expect(result.error).toBeUndefined();
			const [out] = result.output('Little Pay');
			expect(out.json).toMatchObject({
				status: 'FAILED',
				key: intent.key,
				timedOut: false,
				requests: 1,
				message: 'Insufficient funds in the payer account',
			});
			expect(out.json.attempts).toEqual([
				expect.objectContaining({ provider: 'MPESA', status: 'FAILED' }),
			]);
		});

		it('keeps waiting after a failed attempt while the intent can be paid, and ends COMPLETED when the payer pays on the same intent', async () => {
			const intent = await intentWithAttempt(sb, 1);
			await waitFor('the attempt to fail', async () =>
				(await sb.status(intent.key)).status === 'FAILED' ? true : undefined,
			);
			const running = run(sb, 'payment-wait-for-completion.json', [
				{ paymentId: intent.key, timeout: 30 },
			]);
			// The payer tries again on the checkout page, with a number that pays.
			await new Promise((resolve) => setTimeout(resolve, 1500));
			const retried = await sb.post(`/pay/${intent.reference}/process`, {
				type: 'MPESA',
				payment: { mobile: '254712345670' },
			});
			expect(retried.status).toBe(200);
			const result = await running;
			expect(result.error).toBeUndefined();
			const [out] = result.output('Little Pay');
			expect(out.json).toMatchObject({ key: intent.key, status: 'COMPLETED', timedOut: false });
			expect(out.json.payable).toBeUndefined();
			const ledger = (await sb.status(intent.key)).attempts as Array<{ status: string }>;
			expect(ledger.map((a) => a.status)).toEqual(['FAILED', 'COMPLETED']);
		});

		it('ends a wait on a failed attempt at its timeout with FAILED, timedOut and payable: true', async () => {
			const intent = await intentWithAttempt(sb, 2);
			await waitFor('the attempt to fail', async () =>
				(await sb.status(intent.key)).status === 'FAILED' ? true : undefined,
			);
			const result = await run(sb, 'payment-wait-for-completion.json', [
				{ paymentId: intent.key, timeout: 2 },
			]);
			expect(result.error).toBeUndefined();
			expect(result.output('Little Pay')[0].json).toMatchObject({
				status: 'FAILED',
				message: 'The payer cancelled the payment request',
				payable: true,
				timedOut: true,
			});
		});

		it('answers at once for a payment that is already final', async () => {
			const intent = await intentWithAttempt(sb, 0);
			await sb.status(intent.key, '?longPoll=true');
			const result = await run(sb, 'payment-wait-for-completion.json', [
				{ paymentId: intent.key, timeout: 30 },
			]);
			expect(result.output('Little Pay')[0].json).toMatchObject({
				status: 'COMPLETED',
				timedOut: false,
				requests: 1,
			});
		});

		it('times out with timedOut true, the last status and a bounded number of requests', async () => {
			const intent = await intentWithAttempt(sb, 3);
			await sb.received();
			// The sandbox ends each long poll after 300 ms; over 2 s the node must not hammer it.
			const result = await run(sb, 'payment-wait-for-completion.json', [
				{ paymentId: intent.reference, timeout: 2 },
			]);
			expect(result.error).toBeUndefined();
			const out = result.output('Little Pay')[0].json;
			expect(out).toMatchObject({ reference: intent.reference, status: 'PENDING', timedOut: true });
			const polls = (await sb.received()).filter((r) => r.path.startsWith('/api/payments-v2/'));
			expect(out.requests).toBe(polls.length);
			expect(polls.length).toBeGreaterThanOrEqual(1);
			expect(polls.length).toBeLessThanOrEqual(3);
			expect(
				polls.every(
					(r) => (r as unknown as { query: Record<string, string> }).query.longPoll === 'true',
				),
			).toBe(true);
		});

		it('fails with the 404 hint when the payment does not exist instead of waiting', async () => {
			const result = await run(sb, 'payment-wait-for-completion.json', [
				{ paymentId: 'noSuchOrder2', timeout: 30 },
			]);
			expect(result.error).toMatchObject({
				name: 'NodeApiError',
				httpCode: '404',
				message:
					'Little Pay has nothing at GET /api/payments-v2/noSuchOrder2 (HTTP 404, NOT_FOUND)',
			});
			expect((await sb.received()).length).toBe(1);
		});
	});
});

describe('Payment: Wait for Completion cancelled', () => {
	// The gateway holds a long poll for 20 s and the node would wait 60 s: only cancellation ends this run early.
	const slow = useNodeTestSandbox({ pinDelayMs: 50, longPollTimeoutMs: 20000 });

	it('stops promptly when the execution is cancelled: the held request is hung up and no further request is sent', async () => {
		const intent = await intentWithAttempt(slow, 3);
		await slow.received();
		let cancel: (() => void) | undefined;
		const running = run(
			slow,
			'payment-wait-for-completion.json',
			[{ paymentId: intent.reference, timeout: 60 }],
			(c) => (cancel = c),
		);
		await waitFor('the node to hold a long poll', async () =>
			(await heldLongPolls(slow)) > 0 ? true : undefined,
		);
		cancel?.();
		const result = await running;
		expect(result.output('Little Pay')).toEqual([]);
		expect(result.error?.message).toMatch(/cancelled/i);
		// The node passed the cancel signal to its request, so the gateway no longer holds it.
		await waitFor(
			'the held long poll to be hung up',
			async () => ((await heldLongPolls(slow)) === 0 ? true : undefined),
			2000,
		);
		const polls = (await slow.received()).filter((r) => r.path.startsWith('/api/payments-v2/'));
		expect(polls).toHaveLength(1);
		expect((await slow.status(intent.key)).status).toBe('PENDING');
	}, 10000);
});

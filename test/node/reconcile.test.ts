// Payment: Reconcile, the sweep for payments whose callback may never come, run through n8n-core's
// engine against the sandbox: one read per payment, nothing sent that could move money, the
// trigger's vocabulary plus what changed since the merchant's own record.
import { loadFixture, runWorkflow } from '../../testkit/engine';
import { useNodeTestSandbox } from '../../testkit/nodeSandbox';
import type { NodeTestSandbox } from '../../testkit/nodeSandbox';
import { waitFor } from '../../testkit/sandbox';

const sb = useNodeTestSandbox({ pinDelayMs: 50, longPollTimeoutMs: 300 });

type Item = Record<string, unknown>;

function run(items: Item[], onStart?: (cancel: () => void) => void) {
	return runWorkflow(
		loadFixture('payment-reconcile.json', {
			ITEMS: JSON.stringify(items),
			ON_ERROR: 'continueRegularOutput',
		}),
		{ credentials: sb.credentials, onStart },
	);
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
			[paid.key, 'COMPLETED', 'payment.completed', true, null, true],
			[failedForGood.key, 'FAILED', 'payment.failed', true, false, true],
			[failedOnce.key, 'FAILED', null, false, true, true],
			[waiting.key, 'PENDING', null, false, null, false],
			[unpaid.key, 'PENDING', null, false, null, false],
		]);
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

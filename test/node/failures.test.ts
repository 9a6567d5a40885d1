// Every failure the node can observe carries a stable code, a retry rule and a next step: produced here
// against the sandbox (its last-digit rules, expiry and fault injection), and docs/failures.md's table is the
// code's table.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { FAILURES, failureOfText } from '../../nodes/LittlePay/helpers/failures';
import { loadFixture, runWorkflow } from '../../testkit/engine';
import { useNodeTestSandbox } from '../../testkit/nodeSandbox';
import { newKey, waitFor } from '../../testkit/sandbox';

const sb = useNodeTestSandbox({ pinDelayMs: 50, longPollTimeoutMs: 300 });

type Item = Record<string, unknown>;

function run(file: string, items: Item[], credentials = sb.credentials) {
	return runWorkflow(
		loadFixture(file, { ITEMS: JSON.stringify(items), ON_ERROR: 'continueRegularOutput' }),
		{ credentials },
	);
}

async function settled(key: string) {
	await waitFor('the attempt to settle', async () =>
		(await sb.status(key)).status !== 'PENDING' ? true : undefined,
	);
}

describe('failure codes', () => {
	it('payments: each way a payer fails has its code, from the gateway record', async () => {
		const cases: Array<[string, number | undefined, boolean]> = [
			['insufficient-funds', 1, false],
			['payer-cancelled', 2, false],
			['payer-no-answer', 3, true],
			['intent-expired', undefined, true],
		];
		const keys: string[] = [];
		for (const [, digit, expire] of cases) {
			const intent = await sb.createIntent({ amount: 1500 });
			if (digit !== undefined)
				await sb.post(`/pay/${intent.reference}/process`, {
					type: 'MPESA',
					payment: { mobile: `25471234567${digit}` },
				});
			if (digit !== undefined && digit !== 3) await settled(intent.key);
			if (expire) await sb.post(`/sandbox/payments/${intent.reference}/expire`);
			keys.push(intent.key);
		}
		const result = await run(
			'payment-reconcile.json',
			keys.map((paymentId) => ({ paymentId })),
		);
		const out = result.output('Little Pay').map((o) => o.json);
		expect(out.map((o) => o.failureCode)).toEqual(cases.map(([code]) => code));
		for (const o of out) {
			expect(o.status).toBe('FAILED');
			expect(o.retry).toBe(FAILURES[o.failureCode as keyof typeof FAILURES].retry);
			expect(o.nextStep).toEqual(expect.any(String));
			// The gateway's words stay beside the code.
			expect(o.message).toEqual(expect.any(String));
		}
	});

	it('payouts: a recipient that cannot be paid has its code', async () => {
		const rows = ['254712345671', '254712345672'].map((to, i) => ({
			method: 'MPESA',
			amount: 500 + i,
			to,
			key: newKey('fail'),
			wait: true,
			waitTimeout: 20,
		}));
		const result = await run('disbursement-create.json', rows);
		const out = result.output('Little Pay').map((o) => o.json);
		// A settled failure did not pay anyone: a new attempt (Pay Again If Failed), never "check first".
		expect(out.map((o) => [o.outcome, o.failureCode, o.retry])).toEqual([
			['failed', 'recipient-limit', 'new-attempt'],
			['failed', 'recipient-not-registered', 'no'],
		]);
		expect(out.map((o) => o.reason)).toEqual([expect.any(String), expect.any(String)]);
		expect(out[0].nextStep).toMatch(/^Nothing was paid: .*Options > Pay Again If Failed/);
		expect(out[1].nextStep).toMatch(
			/^Nothing was paid: the number is not registered for the network\. Correct the row's number or network, then run the same rows again with Options > Pay Again If Failed/,
		);
	});

	it('refunds: a reversal the network refuses, and a payment that cannot be refunded, have their codes', async () => {
		const intent = await sb.createIntent({ amount: 1500 });
		const unpaid = await run('refund-create.json', [{ paymentId: intent.reference }]);
		await sb.post(`/pay/${intent.reference}/process`, {
			type: 'MPESA',
			payment: { mobile: '254712345670' },
		});
		await settled(intent.key);
		// The sandbox refuses the reversal of a refund whose reason says "fail": a 2xx with status FAILED.
		const rejected = await run('refund-create.json', [
			{ paymentId: intent.reference, amount: 100, reason: 'fail on purpose' },
		]);
		const [unpaidItem] = unpaid.output('Little Pay').map((o) => o.json);
		const [rejectedItem] = rejected.output('Little Pay').map((o) => o.json);
		expect([unpaidItem.failureCode, unpaidItem.retry]).toEqual(['not-refundable', 'no']);
		expect(rejectedItem).toMatchObject({
			status: 'FAILED',
			failureCode: 'refund-rejected',
			retry: 'no',
			message: expect.stringContaining('reversal'),
		});
		expect(rejectedItem.nextStep).toMatch(/Nothing was refunded/);
	});

	it('errors: bad input, unknown records, refused credentials, rate limits and gateway errors have their codes', async () => {
		const badInput = await run('disbursement-create.json', [
			{ method: 'MPESA', amount: 500, to: '12', key: newKey('bad') },
		]);
		const notFound = await run('payment-get-status.json', [{ paymentId: 'noSuchOrder8' }]);
		const refused = await run('payment-get-status.json', [{ paymentId: 'noSuchOrder8' }], {
			...sb.credentials,
			littlePayApiKeyApi: { ...sb.credentials.littlePayApiKeyApi, apiKey: 'wrong' },
		});
		await sb.post('/sandbox/faults', {
			rules: [{ method: 'GET', pathPrefix: '/api/payments-v2/limited1', status: 429 }],
		});
		const limited = await run('payment-get-status.json', [{ paymentId: 'limited1' }]);
		await sb.post('/sandbox/faults', {
			rules: [{ method: 'GET', pathPrefix: '/api/payments-v2/broken1', status: 502 }],
		});
		const broken = await run('payment-get-status.json', [{ paymentId: 'broken1' }]);
		const codes = [badInput, notFound, refused, limited, broken].map(
			(r) => r.output('Little Pay')[0].json.failureCode,
		);
		expect(codes).toEqual([
			'invalid-input',
			'not-found',
			'credentials',
			'rate-limited',
			'gateway-error',
		]);
	});

	it('errors: a key used for another request, a business rule, and a lost answer have their codes', async () => {
		const existing = await sb.createIntent({ amount: 1500 });
		const otherRequest = await run('router-payment-intent.json', [
			{ amount: 700, key: existing.key, callbackUrl: 'http://127.0.0.1:9/callback' },
		]);
		await sb.post('/sandbox/faults', {
			rules: [{ method: 'GET', pathPrefix: '/api/payments-v2/ruled1', status: 422 }],
		});
		const ruled = await run('payment-get-status.json', [{ paymentId: 'ruled1' }]);
		const paid = await sb.createIntent({ amount: 1500 });
		await sb.post(`/pay/${paid.reference}/process`, {
			type: 'MPESA',
			payment: { mobile: '254712345670' },
		});
		await settled(paid.key);
		// The refund is made and its answer lost: a refund has no key, so it is never sent again.
		await sb.post('/sandbox/faults', {
			rules: [{ method: 'POST', pathPrefix: '/api/refund/', drop: 'after', times: 1 }],
		});
		const lost = await run('refund-create.json', [{ paymentId: paid.reference, amount: 100 }]);
		const items = [otherRequest, ruled, lost].map((r) => r.output('Little Pay')[0].json);
		expect(items.map((i) => [i.failureCode, i.retry])).toEqual([
			['duplicate-key', 'check-first'],
			['rule-refused', 'no'],
			['unknown-outcome', 'check-first'],
		]);
		for (const item of items) expect(item.nextStep).toEqual(expect.any(String));
	});

	it('a text no rule knows is unknown, never a success', () => {
		expect(failureOfText('Something new happened')).toBe('unknown');
		expect(failureOfText(undefined)).toBe('unknown');
		expect(FAILURES.unknown.retry).toBe('check-first');
	});

	it("the failure page's table (docs/failures.md) lists every code with its retry rule", () => {
		const page = readFileSync(join(__dirname, '..', '..', 'docs', 'failures.md'), 'utf8');
		for (const [code, { retry }] of Object.entries(FAILURES))
			expect(page).toMatch(new RegExp(`\\| \`${code}\` \\| \`${retry}\` \\|`));
	});
});

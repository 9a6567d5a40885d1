// The one accept-or-refuse decision on a callback, alone: signature first for payments (fail closed),
// signature or Refund Token for refunds, and the status API's agreement.
import { authorizeCallback } from '../../nodes/LittlePay/callbacks/authorize';
import { compareWithRecord } from '../../nodes/LittlePay/callbacks/confirm';
import type { CallbackProof } from '../../nodes/LittlePay/callbacks/authorize';
import type { ParsedCallback } from '../../nodes/LittlePay/callbacks/callbackEvent';
import { isNotARecord, readPaymentRecord } from '../../nodes/LittlePay/transport/records';
import type { PaymentRecord } from '../../nodes/LittlePay/transport/records';

const payment: ParsedCallback = {
	kind: 'payment',
	event: 'payment.completed',
	body: { reference: 'r1', status: 'COMPLETED' },
};
const refund: ParsedCallback = {
	kind: 'refund',
	event: 'refund.completed',
	body: { reference: 'r1', status: 'COMPLETED' },
};

function proof(overrides: Partial<CallbackProof> = {}): CallbackProof {
	return {
		verifySignatures: true,
		signed: true,
		checkSignature: () => ({ ok: true, timestamp: 1, verifiedKey: 'published' }),
		refundToken: '',
		givenToken: '',
		...overrides,
	};
}

describe('authorizeCallback', () => {
	it('accepts a payment callback only with a good signature, and says why it refuses', async () => {
		expect(await authorizeCallback(payment, proof())).toEqual({
			ok: true,
			verified: 'signature',
			verifiedKey: 'published',
		});
		expect(
			await authorizeCallback(
				payment,
				proof({
					signed: false,
					checkSignature: () => ({ ok: false, reason: 'missing-signature' }),
				}),
			),
		).toEqual({ ok: false, status: 401, reason: 'missing-signature' });
	});

	it('accepts an unsigned refund callback with the right token, refuses a wrong or missing one', async () => {
		const unsigned = { signed: false, refundToken: 's3cret-token-0123456' };
		expect(
			await authorizeCallback(refund, proof({ ...unsigned, givenToken: 's3cret-token-0123456' })),
		).toEqual({
			ok: true,
			verified: 'token',
		});
		for (const givenToken of ['wrong', '']) {
			expect(await authorizeCallback(refund, proof({ ...unsigned, givenToken }))).toEqual({
				ok: false,
				status: 401,
				reason: 'missing-or-wrong-token',
			});
		}
	});

	it('never takes a Refund Callback Token shorter than 16 characters as proof, even when it matches', async () => {
		for (const refundToken of ['s3cret-token', 'x', '123456789012345']) {
			expect(
				await authorizeCallback(
					refund,
					proof({ signed: false, refundToken, givenToken: refundToken }),
				),
			).toEqual({ ok: false, status: 401, reason: 'missing-or-wrong-token' });
		}
		const sixteen = '1234567890abcdef';
		expect(
			await authorizeCallback(
				refund,
				proof({ signed: false, refundToken: sixteen, givenToken: sixteen }),
			),
		).toEqual({ ok: true, verified: 'token' });
	});

	it('never calls the signature check when signatures are off, and then accepts unverified', async () => {
		const checkSignature = jest.fn(() => ({
			ok: true as const,
			timestamp: 1,
			verifiedKey: 'published' as const,
		}));
		const off = proof({ verifySignatures: false, checkSignature });
		expect(await authorizeCallback(payment, off)).toEqual({ ok: true, verified: 'none' });
		expect(await authorizeCallback(refund, { ...off, signed: false })).toEqual({
			ok: true,
			verified: 'none',
		});
		expect(checkSignature).not.toHaveBeenCalled();
	});

	it('answers 503 (deliver again later) when the key to check with could not be fetched', async () => {
		expect(
			await authorizeCallback(
				payment,
				proof({ checkSignature: async () => ({ ok: false, reason: 'public-key-unavailable' }) }),
			),
		).toEqual({ ok: false, status: 503, reason: 'public-key-unavailable' });
	});
});

describe('compareWithRecord', () => {
	// Records as the trigger gets them: read fail-closed from the status answer.
	const rec = (data: Record<string, unknown>): PaymentRecord => {
		const read = readPaymentRecord(data, 'r1');
		if (isNotARecord(read)) throw new Error(read.notARecord);
		return read;
	};
	const paid = rec({
		reference: 'r1',
		key: 'k1',
		status: 'COMPLETED',
		amount: 10,
		currency: 'KES',
	});
	const call = (kind: 'payment' | 'refund', body: Record<string, unknown>): ParsedCallback => ({
		kind,
		event: `${kind}.${String(body.status).toLowerCase()}` as ParsedCallback['event'],
		body: { reference: 'r1', ...body },
	});

	it("agrees with a payment callback only when status, amount, currency and key are the record's", () => {
		const agrees = (body: Record<string, unknown>, signed = false) =>
			compareWithRecord(call('payment', body), paid, signed).agrees;
		expect(agrees({ status: 'completed', amount: 10, currency: 'kes', key: 'k1' })).toBe(true);
		expect(agrees({ status: 'PENDING', amount: 10 })).toBe(false);
		expect(agrees({ status: 'COMPLETED', amount: 999999 })).toBe(false);
		expect(agrees({ status: 'COMPLETED', amount: 10, currency: 'USD' })).toBe(false);
		expect(agrees({ status: 'COMPLETED', key: 'k2' })).toBe(false);
		expect(
			compareWithRecord(call('payment', { status: 'COMPLETED' }), undefined, true).agrees,
		).toBe(false);
	});

	it('takes a field the record lacks from the body only when a signature vouches for it, else says null', () => {
		const bare = rec({ reference: 'r1', status: 'COMPLETED', amount: 10 });
		const body = { status: 'COMPLETED', amount: 10, currency: 'UGX' };
		expect(compareWithRecord(call('payment', body), bare, false)).toMatchObject({
			agrees: true,
			fields: { currency: null, amount: 10 },
		});
		expect(compareWithRecord(call('payment', body), bare, true)).toMatchObject({
			agrees: true,
			fields: { currency: 'UGX', amount: 10 },
		});
	});

	it('pins a payment by its reference and final status, whatever the date or the name it is called by', () => {
		const a = compareWithRecord(call('payment', { status: 'COMPLETED', date: '1' }), paid, false);
		const b = compareWithRecord(call('payment', { status: 'COMPLETED', date: '2' }), paid, false);
		expect(a).toMatchObject({ agrees: true, pinned: ['payment', 'r1', 'COMPLETED'] });
		expect(b).toEqual(a);
		const byKey = compareWithRecord(
			{
				...call('payment', { status: 'COMPLETED' }),
				body: { reference: 'k1', status: 'COMPLETED' },
			},
			paid,
			false,
		);
		expect(byKey.agrees).toBe(false);
	});

	it('confirms a refund only by the refund itself in the record, never by a total that covers it', () => {
		const refunded = (n: number) => rec({ ...paid.data, refundedAmount: n });
		expect(
			compareWithRecord(call('refund', { status: 'COMPLETED', amount: 5 }), refunded(5), false),
		).toMatchObject({ agrees: true, confirmed: false });
		const listed = rec({
			...paid.data,
			refundedAmount: 5,
			refunds: [{ amount: 5, status: 'COMPLETED', date: '2026-11-29T01:00:00Z' }],
		});
		expect(
			compareWithRecord(call('refund', { status: 'COMPLETED', amount: 5 }), listed, false),
		).toMatchObject({ agrees: true, confirmed: true });
		expect(
			compareWithRecord(call('refund', { status: 'COMPLETED', amount: 5 }), refunded(0), false)
				.agrees,
		).toBe(false);
		expect(
			compareWithRecord(call('refund', { status: 'COMPLETED', amount: 5 }), paid, false),
		).toMatchObject({ agrees: true, confirmed: false });
		expect(
			compareWithRecord(call('refund', { status: 'FAILED', amount: 5 }), refunded(5), false),
		).toMatchObject({ agrees: true, confirmed: false });
		expect(
			compareWithRecord(call('refund', { status: 'COMPLETED', amount: 50 }), refunded(50), false)
				.agrees,
		).toBe(false);
		expect(
			compareWithRecord(
				call('refund', { status: 'COMPLETED', amount: 5 }),
				rec({
					...refunded(5).data,
					status: 'PENDING',
				}),
				false,
			).agrees,
		).toBe(false);
	});
});

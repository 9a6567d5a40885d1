// The one accept-or-refuse decision on a callback, alone: signature first for payments (fail closed),
// signature or Refund Token for refunds, and the status API's agreement.
import { authorizeCallback, statusConfirms } from '../../nodes/LittlePay/callbacks/authorize';
import type { CallbackProof } from '../../nodes/LittlePay/callbacks/authorize';
import type { ParsedCallback } from '../../nodes/LittlePay/callbacks/callbackEvent';

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
		const unsigned = { signed: false, refundToken: 's3cret-token' };
		expect(
			await authorizeCallback(refund, proof({ ...unsigned, givenToken: 's3cret-token' })),
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

describe('statusConfirms', () => {
	it("agrees only when Little Pay's record says the callback's status (a refund: a completed payment)", () => {
		expect(statusConfirms(payment, { status: 'completed' })).toBe(true);
		expect(statusConfirms(payment, { status: 'PENDING' })).toBe(false);
		expect(statusConfirms(payment, undefined)).toBe(false);
		expect(statusConfirms(refund, { status: 'COMPLETED' })).toBe(true);
		expect(statusConfirms(refund, { status: 'FAILED' })).toBe(false);
	});
});

// When a payment ends for a wait: COMPLETED, or FAILED once the intent can no longer be paid.
import { intentExpiryMs, paymentState } from '../../nodes/LittlePay/helpers/paymentState';

const now = Date.parse('2026-11-25T12:00:00.000Z');
const past = '2026-11-25T11:59:59.000Z';
const future = '2026-11-25T12:30:00.000Z';

describe('paymentState', () => {
	it('COMPLETED is the end whatever the expiry says', () => {
		expect(paymentState({ status: 'COMPLETED', expiresAt: future }, now)).toBe('completed');
	});

	it('PENDING is payable, even past the expiry (the gateway settles the attempt in flight)', () => {
		expect(paymentState({ status: 'PENDING', expiresAt: past }, now)).toBe('payable');
	});

	it('FAILED is a failed attempt while the intent can be paid, and the end once it has expired', () => {
		expect(paymentState({ status: 'FAILED', expiresAt: future }, now)).toBe('payable');
		expect(paymentState({ status: 'FAILED', expiresAt: past }, now)).toBe('failed');
	});

	it("uses the node's own expiry when the record has none, and stays payable when neither knows it", () => {
		expect(paymentState({ status: 'FAILED' }, now, past)).toBe('failed');
		expect(paymentState({ status: 'FAILED' }, now, future)).toBe('payable');
		expect(paymentState({ status: 'FAILED' }, now)).toBe('payable');
		expect(paymentState({ status: 'FAILED', expiresAt: 'not a date' }, now, '')).toBe('payable');
	});

	it("prefers the record's expiry to the node's estimate", () => {
		expect(intentExpiryMs({ expiresAt: past }, future)).toBe(Date.parse(past));
		expect(intentExpiryMs({}, future)).toBe(Date.parse(future));
	});
});

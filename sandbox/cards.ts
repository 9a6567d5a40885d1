// Card validation for the 3-D Secure flow. Only last4 and brand are ever kept.
import { SandboxError, isObject } from './http';
import type { CardSession } from './types';

/** Test cards and what the sandbox does with them; any other valid card behaves as frictionless. */
export const TEST_CARDS: Record<string, CardSession['behaviour']> = {
	'4111111111111111': 'frictionless',
	'5200000000002151': 'challenge',
	'4000000000000010': 'enrollFail',
	'4000000000000002': 'decline',
};

/** Luhn checksum, so typos are caught like a real acquirer would. */
export function luhnValid(digits: string): boolean {
	let sum = 0;
	let double = false;
	for (let i = digits.length - 1; i >= 0; i--) {
		let d = digits.charCodeAt(i) - 48;
		if (double) {
			d *= 2;
			if (d > 9) d -= 9;
		}
		sum += d;
		double = !double;
	}
	return sum % 10 === 0;
}

/** Card brand from the number's prefix. */
export function brandOf(digits: string): string {
	if (digits.startsWith('4')) return 'VISA';
	if (/^(5[1-5]|2[2-7])/.test(digits)) return 'MASTERCARD';
	if (/^3[47]/.test(digits)) return 'AMEX';
	return 'CARD';
}

/** Validates the token request's payment object; returns what may be kept (never the number or CVV). */
export function validateCard(
	payment: unknown,
	now = new Date(),
): Pick<CardSession, 'last4' | 'brand' | 'behaviour'> {
	if (!isObject(payment))
		throw new SandboxError(
			400,
			'MISSING_FIELD',
			'payment is required (an object with cc_number, cc_cvv, cc_exp, cc_name)',
		);
	const number = payment.cc_number;
	if (typeof number !== 'string' || number === '')
		throw new SandboxError(400, 'MISSING_FIELD', 'payment.cc_number is required');
	const digits = number.replace(/[\s-]/g, '');
	if (!/^\d{12,19}$/.test(digits))
		throw new SandboxError(400, 'INVALID_FIELD', 'payment.cc_number must be 12-19 digits');
	if (!luhnValid(digits))
		throw new SandboxError(
			400,
			'INVALID_FIELD',
			'payment.cc_number fails the Luhn check (mistyped card number)',
		);
	const cvv = payment.cc_cvv;
	if (typeof cvv !== 'string' || cvv === '')
		throw new SandboxError(400, 'MISSING_FIELD', 'payment.cc_cvv is required');
	if (!/^\d{3,4}$/.test(cvv))
		throw new SandboxError(400, 'INVALID_FIELD', 'payment.cc_cvv must be 3 or 4 digits');
	const exp = payment.cc_exp;
	if (typeof exp !== 'string' || exp === '')
		throw new SandboxError(400, 'MISSING_FIELD', 'payment.cc_exp is required');
	const match = /^(0[1-9]|1[0-2])\/(\d{2})$/.exec(exp);
	if (!match)
		throw new SandboxError(400, 'INVALID_FIELD', 'payment.cc_exp must be MM/YY, e.g. 01/27');
	const month = Number(match[1]);
	const year = 2000 + Number(match[2]);
	// A card is valid through the last day of its expiry month.
	const endOfMonth = Date.UTC(year, month, 1);
	if (endOfMonth <= now.getTime())
		throw new SandboxError(400, 'INVALID_FIELD', 'payment.cc_exp is in the past (card expired)');
	const name = payment.cc_name;
	if (typeof name !== 'string' || name.trim() === '')
		throw new SandboxError(400, 'MISSING_FIELD', 'payment.cc_name is required');
	return {
		last4: digits.slice(-4),
		brand: brandOf(digits),
		behaviour: TEST_CARDS[digits] ?? 'frictionless',
	};
}

/** Masks card data anywhere in a logged body: numbers keep their last 4 digits, CVV and expiry are hidden. */
export function maskSecrets(value: unknown): unknown {
	if (Array.isArray(value)) return value.map(maskSecrets);
	if (!isObject(value)) return value;
	const out: Record<string, unknown> = {};
	for (const [k, v] of Object.entries(value)) {
		if (k === 'cc_number' && typeof v === 'string')
			out[k] = `************${v.replace(/\D/g, '').slice(-4)}`;
		else if (k === 'cc_cvv' || k === 'cc_exp' || /secret|password|apikey|jwt|accesstoken/i.test(k))
			out[k] = '***';
		else out[k] = maskSecrets(v);
	}
	return out;
}

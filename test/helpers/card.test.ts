// Card field checks: what is refused before anything is sent, and what may be shown.
import type { INode } from 'n8n-workflow';
import fc from 'fast-check';

import {
	cardBrand,
	maskCardNumber,
	passesLuhn,
	scrubCardValues,
	validateCard,
} from '../../nodes/LittlePay/helpers/card';

const node = {
	name: 'Little Pay',
	type: 'n8n-nodes-littlepay.littlePay',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
} as unknown as INode;
const NOV_2026 = new Date('2026-11-22T12:00:00Z');
const good = { number: '4111 1111 1111 1111', cvv: '737', expiry: '11/26', name: 'Amina Wanjiru' };

describe('validateCard', () => {
	it('accepts a valid card through the last day of its expiry month and strips spaces', () => {
		expect(validateCard(node, 0, good, NOV_2026)).toEqual({
			cc_number: '4111111111111111',
			cc_cvv: '737',
			cc_exp: '11/26',
			cc_name: 'Amina Wanjiru',
		});
	});

	it.each([
		['Card Number', { number: '4111111111111112' }],
		['Card Number', { number: '41111111111' }],
		['Card Number', { number: 'abcd' }],
		['CVV', { cvv: '12' }],
		['CVV', { cvv: '12345' }],
		['Expiry', { expiry: '10/26' }],
		['Expiry', { expiry: '2027-01' }],
		['Cardholder Name', { name: '' }],
	])('refuses a bad %s, naming the item and field', (field, change) => {
		expect(() => validateCard(node, 3, { ...good, ...change }, NOV_2026)).toThrow(
			`Row 4: ${field}`,
		);
	});

	it('never repeats the number, CVV or expiry in an error, for any input (fast-check, 10,000 cases)', () => {
		fc.assert(
			fc.property(
				fc.string({
					minLength: 12,
					maxLength: 19,
					unit: fc.constantFrom('0', '1', '2', '3', '4', '5', '6', '7', '8', '9', ' '),
				}),
				fc.string(),
				fc.string(),
				(number, cvv, expiry) => {
					try {
						validateCard(node, 0, { number, cvv, expiry, name: 'A' }, NOV_2026);
					} catch (error) {
						const text = `${(error as Error).message} ${String((error as { description?: unknown }).description)}`;
						const digits = number.replace(/\D/g, '');
						if (digits.length >= 12 && text.includes(digits)) return false;
					}
					return true;
				},
			),
			{ numRuns: 10000 },
		);
	});
});

describe('card display helpers', () => {
	it('checks Luhn digits, names the brand and masks all but the last four', () => {
		expect(passesLuhn('5200000000002151')).toBe(true);
		expect(passesLuhn('5200000000002152')).toBe(false);
		expect(cardBrand('5200000000002151')).toBe('MASTERCARD');
		expect(maskCardNumber('5200000000002151')).toBe('************2151');
	});

	it('scrubs card numbers in any writing from gateway messages but keeps short numbers', () => {
		expect(scrubCardValues('card 4111 1111 1111 1111 declined for order 12345')).toBe(
			'card •••• 1111 declined for order 12345',
		);
		expect(scrubCardValues('bad cc_number 5200000000002151')).toBe('bad cc_number •••• 2151');
		// Security review L1: dots, and the CVV and expiry named as such.
		expect(scrubCardValues('cc_number 4111.1111.1111.1111 / cc_cvv 737 / cc_exp 01/39')).toBe(
			'cc_number •••• 1111 / cc_cvv ••• / cc_exp ••/••',
		);
		// A 13-digit timestamp or a key's digits fail Luhn: left as they are.
		expect(scrubCardValues('got 1795766331036')).toBe('got 1795766331036');
		// One time in ms in ten passes Luhn (this one failed a test by the clock): no 13-digit card starts with 1.
		expect(scrubCardValues('got 1795797375882')).toBe('got 1795797375882');
		// A 13-digit Visa is still hidden.
		expect(scrubCardValues('card 4222222222222 declined')).toBe('card •••• 2222 declined');
	});

	it('scrubs the exact card values a run handled, however the gateway writes them back', () => {
		const card = { number: '4111111111111111', cvv: '737', expiry: '01/39' };
		expect(scrubCardValues('4111/1111/1111/1111 cvv=737 valid 1/2039 and 39-01', card)).toBe(
			'••• cvv=••• valid ••• and •••',
		);
	});
});

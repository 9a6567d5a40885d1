// Whether a payout went to the expected wallet, attacked with numbers the reviews did not list: any
// masking of a number, any other wallet, national numbers with and without a country, in any formatting.
// A masked digit is never a match, a national number without a country never equals an international
// one, and a number is the same wallet only when the country code and every digit agree.
import fc from 'fast-check';

import { compareNumbers, sameNumber } from '../../nodes/LittlePay/helpers/validation';

const CODES = ['254', '255', '256', '233', '250'];
const COUNTRY_OF = { '254': 'KE', '255': 'TZ', '256': 'UG', '233': 'GH', '250': 'RW' } as const;

const wallet = fc.record({
	code: fc.constantFrom(...CODES),
	national: fc.stringMatching(/^[1-9]\d{8}$/),
});
/** Positions to hide, as a book or Little Pay masks them: at least one. */
const hidden = fc.uniqueArray(fc.integer({ min: 0, max: 11 }), { minLength: 1, maxLength: 12 });
const formatted = (digits: string, style: number) =>
	[
		digits,
		`+${digits}`,
		`+${digits.slice(0, 3)} ${digits.slice(3, 6)} ${digits.slice(6, 9)} ${digits.slice(9)}`,
		`00${digits}`,
		`(${digits.slice(0, 3)}) ${digits.slice(3)}`,
	][style % 5];

describe('numbers under attack', () => {
	it('a masked number is never the same wallet, whichever digits are hidden and whatever the other number', () => {
		fc.assert(
			fc.property(wallet, wallet, hidden, fc.constantFrom('•', '*', 'X', 'x'), (a, b, at, mask) => {
				const full = a.code + a.national;
				const masked = [...full].map((d, i) => (at.includes(i) ? mask : d)).join('');
				const other = b.code + b.national;
				for (const country of [undefined, 'KE', 'TZ']) {
					expect(sameNumber(masked, full, country)).toBe(false);
					expect(sameNumber(masked, other, country)).toBe(false);
					expect(compareNumbers(masked, full, country).verdict).toBe('unverified');
				}
			}),
			{ numRuns: 500, seed: 20261127 },
		);
	});

	it('a national number equals an international one only when read in that country', () => {
		fc.assert(
			fc.property(wallet, fc.constantFrom(...CODES), (a, readIn) => {
				const national = `0${a.national}`;
				const international = a.code + a.national;
				expect(sameNumber(national, international)).toBe(false);
				expect(compareNumbers(national, international).verdict).toBe('unverified');
				expect(
					sameNumber(national, international, COUNTRY_OF[readIn as keyof typeof COUNTRY_OF]),
				).toBe(readIn === a.code);
			}),
			{ numRuns: 500, seed: 20261127 },
		);
	});

	it('the same wallet in any formatting is the same; any other wallet is different', () => {
		fc.assert(
			fc.property(wallet, wallet, fc.nat(), fc.nat(), (a, b, s1, s2) => {
				const x = a.code + a.national;
				const y = b.code + b.national;
				expect(sameNumber(formatted(x, s1), formatted(x, s2))).toBe(true);
				if (x !== y)
					expect(compareNumbers(formatted(x, s1), formatted(y, s2)).verdict).toBe('different');
			}),
			{ numRuns: 500, seed: 20261127 },
		);
	});

	it('short or empty numbers name nobody', () => {
		fc.assert(
			fc.property(fc.stringMatching(/^0?\d{0,7}$/), wallet, (short, b) => {
				expect(sameNumber(short, b.code + b.national)).toBe(false);
				expect(sameNumber(short, short)).toBe(false);
			}),
			{ numRuns: 300, seed: 20261127 },
		);
	});
});

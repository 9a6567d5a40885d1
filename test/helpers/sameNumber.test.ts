// sameNumber and compareNumbers: whether a reconciled payout went to the row's own payee. The country
// code and the whole national number are compared; a national number is read in the country given (the
// row's currency or network), and with none it never equals an international number; a masked digit is
// never a match, so numbers whose visible digits agree are unverified, not the same wallet.
import { compareNumbers, sameNumber } from '../../nodes/LittlePay/helpers/validation';

describe('sameNumber', () => {
	it.each([
		['254712345670', '254712345670', undefined, true],
		['+254 712 345 670', '254712345670', undefined, true],
		['00254712345670', '254712345670', undefined, true],
		['0712345670', '254712345670', 'KE', true],
		['0712345670', '255712345670', 'TZ', true],
		['0712345670', '0712345670', undefined, true],
		// #12: the country is compared.
		['0712345670', '255712345670', 'KE', false],
		['0712345670', '255712345670', undefined, false],
		['0712345670', '256712345670', undefined, false],
		['0712345670', '254712345670', undefined, false],
		// #12: "0" and a few digits name nobody.
		['0', '254712345670', undefined, false],
		['0', '0', undefined, false],
		['670', '254712345670', undefined, false],
		['', '254712345670', undefined, false],
		// #12: a masked digit never matches.
		['2547•••••670', '254711111670', undefined, false],
		['2547•••••670', '254712345670', undefined, false],
		['••••••••••••', '255000000000', undefined, false],
		['07XX XXX 670', '254712345670', 'KE', false],
		['254712345670', '254712345674', undefined, false],
		['2547•••••670', '254712345674', undefined, false],
		['0712345674', '254712345670', 'KE', false],
		['712345670', '254712345670', undefined, false],
		['255712345670', '254712345670', undefined, false],
	])('%s and %s (country %s): %s', (a, b, country, same) => {
		expect(sameNumber(a, b, country)).toBe(same);
		expect(sameNumber(b, a, country)).toBe(same);
	});
});

describe('compareNumbers says what could not be compared', () => {
	it.each([
		[
			'2547•••••670',
			'254711111670',
			undefined,
			'unverified',
			/expected number is masked \(5 of 12 digits hidden\)/,
		],
		[
			'••••••••••••',
			'255000000000',
			undefined,
			'unverified',
			/every digit is masked: nothing could be compared/,
		],
		[
			'0712345670',
			'255712345670',
			undefined,
			'unverified',
			/written nationally \(0\.\.\.\) and no country is known/,
		],
		['0712345670', '255712345670', 'KE', 'different', undefined],
		['0712345671', '255712345670', undefined, 'different', undefined],
		['2547•••••671', '254712345670', undefined, 'different', undefined],
		['2557•••••670', '254712345670', undefined, 'different', undefined],
		['0', '254712345670', undefined, 'different', undefined],
		['254712345670', '+254 712 345 670', undefined, 'same', undefined],
	])('%s against %s (country %s): %s', (expected, actual, country, verdict, reason) => {
		const match = compareNumbers(expected, actual, country);
		expect(match.verdict).toBe(verdict);
		if (reason) expect('reason' in match ? match.reason : '').toMatch(reason);
		// No reason repeats a payer's digits: it goes into outputs as it is.
		if ('reason' in match) expect(match.reason).not.toMatch(/\d{3}/);
	});
});

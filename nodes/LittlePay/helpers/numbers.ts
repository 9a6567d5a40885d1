import { countryOfCode } from './lists';

// Whether the number a payout went to is the number a merchant's row expects: the country code and
// the whole national number, never a masked digit taken as a match.

/** What comparing the number a record was paid to with the number expected of it shows. */
export type NumberMatch =
	| { verdict: 'same' | 'different' }
	/** Nothing visible differs, but the numbers could not be compared in full: `reason` says why. */
	| { verdict: 'unverified'; reason: string };

// Digits a book or Little Pay shows masked (2547•••••670, 07XX XXX 670).
const MASKED = /[•*xX]/;

interface ReadNumber {
	/** Digits with the country code, or the national digits after the 0 when no country is known. */
	digits: string;
	national: boolean;
	masked: boolean;
}

/** A number as written (+254 712..., 0712..., 00254..., masked), read in `callingCode`'s country if national. */
function readNumber(text: string, callingCode: string | undefined): ReadNumber | undefined {
	let digits = text.replace(/[\s()+.-]/g, '').replace(/^00/, '');
	if (!/^[\d•*xX]+$/.test(digits)) return undefined;
	let national = false;
	if (digits.startsWith('0')) {
		digits = digits.slice(1);
		national = true;
		if (callingCode !== undefined) {
			digits = callingCode + digits;
			national = false;
		}
	}
	// A wallet number has 9 digits after the country code: "0" or a few visible digits name nobody.
	if (digits.length < 9 || digits.length > 15) return undefined;
	return { digits, national, masked: MASKED.test(digits) };
}

/**
 * Compares the number a payout went to with the number expected of it: the country code and the whole
 * national number. A national number (0712...) is read in `country` (KE, the row's or currency's
 * country); with no country known it never equals an international number, since 0712345670 is a
 * different wallet in Kenya and in Tanzania. A masked digit (•, *, X) is never taken as a match:
 * numbers whose visible digits agree are `unverified`, with what could not be compared.
 */
export function compareNumbers(expected: string, actual: string, country?: string): NumberMatch {
	const callingCode = countryOfCode(country)?.callingCode;
	const a = readNumber(expected, callingCode);
	const b = readNumber(actual, callingCode);
	if (!a || !b) return { verdict: 'different' };
	let x = a.digits;
	let y = b.digits;
	const nationalOnly = a.national !== b.national;
	// Without a country the national number can only be held against the other's last digits.
	if (nationalOnly) {
		if (a.national) y = y.slice(-x.length);
		else x = x.slice(-y.length);
	}
	if (x.length !== y.length) return { verdict: 'different' };
	let hidden = 0;
	for (let i = 0; i < x.length; i++) {
		if (MASKED.test(x[i]) || MASKED.test(y[i])) hidden++;
		else if (x[i] !== y[i]) return { verdict: 'different' };
	}
	if (nationalOnly)
		return {
			verdict: 'unverified',
			reason: `${a.national ? 'the expected number' : 'the number on the record'} is written nationally (0...) and no country is known to read it in, so its country code could not be compared`,
		};
	if (hidden === x.length)
		return { verdict: 'unverified', reason: 'every digit is masked: nothing could be compared' };
	if (hidden > 0) {
		const which =
			a.masked && b.masked
				? 'both numbers are'
				: a.masked
					? 'the expected number is'
					: 'the number on the record is';
		return {
			verdict: 'unverified',
			reason: `${which} masked (${hidden} of ${x.length} digits hidden): only the visible digits could be compared, and they agree`,
		};
	}
	return { verdict: 'same' };
}

/**
 * Whether two mobile numbers are proven the same wallet: the country code and every digit compared
 * (a leading "+", "00" or spaces ignored; a national number read in `country` when it is given). A
 * masked digit, or a national number with no country to read it in, proves nothing: false.
 */
export function sameNumber(a: string, b: string, country?: string): boolean {
	return compareNumbers(a, b, country).verdict === 'same';
}

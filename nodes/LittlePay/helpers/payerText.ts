import { holdsCardValue, scrubCardValues } from './card';
import type { CardValues } from './card';
import { COUNTRIES } from './lists';

// The masks, and a payer's number, e-mail or surname found in free text in any writing (payerData.ts).

/**
 * What the package puts in its outputs about payers and payees, set once on the API key credential:
 * `full` (as Little Pay gives it), `masked` (numbers as 2547•••••670, e-mails as a•••@example.com,
 * names to the first name, surname, street and postal code left out) or `omitted` (all of these left
 * out). Data minimisation at the source: what a step never outputs, n8n never stores.
 */
export type PayerDetails = 'full' | 'masked' | 'omitted';

const MASK = '•';
export const HIDDEN = '•••';

// Already masked, by this package or by Little Pay (2547•••••670, 07XX XXX 670): masking again would
// hide the digits it kept (2••••••••670), so a masked value is left as it is.
export const ALREADY_MASKED = /[•*]|[Xx]{2}/;

/** A phone number with its middle digits hidden: the first four and the last three stay (2547•••••670). */
export function maskNumber(value: string, lastDigits = false): string {
	if (ALREADY_MASKED.test(value)) return value;
	const digits = value.replace(/\D/g, '').length;
	if (digits === 0) return value;
	const keepStart = lastDigits ? 0 : digits >= 10 ? 4 : Math.max(0, digits - 6);
	const keepEnd = Math.min(3, digits);
	let seen = 0;
	return value.replace(/\d/g, (digit) => {
		seen++;
		return seen <= keepStart || seen > digits - keepEnd ? digit : MASK;
	});
}

/** An e-mail address with all but the first letter of its name hidden (a•••@example.com). */
export function maskEmail(value: string): string {
	if (value.includes(MASK)) return value;
	const at = value.lastIndexOf('@');
	if (at < 1) return HIDDEN;
	return `${value[0]}${MASK}${MASK}${MASK}${value.slice(at)}`;
}
/** A name cut to the first name ("Amina Wanjiru Otieno" -> "Amina"). */
export function firstNameOf(value: string): string {
	return value.trim().split(/\s+/)[0] ?? '';
}

// A phone number in free text, however it is written: "+254 712 345 678", "+254-712-345-678",
// "(0712) 345678", "0712-345-678", "0712.345.678", "254  712 345 678", "+254 (712) 345 678", and with
// "+" between groups as a form-encoded space ("254+712+345+678"): 9 to 15 digits with spaces (one or
// two), dashes, dots, pluses or brackets between them, standing alone. Percent-encoded writings
// ("%2B254%20712...") are read decoded (percentDecoded, before any of this). Whether it is a phone
// number is decided by phoneLike: not a range of amounts ("100-500000"), a decimal ("2500000.00"), a
// Unix timestamp (1795766331), a date and time ("2026-11-27 15:53") nor digits inside a reference or
// a key ("ref-254712345670").
const SEPARATOR = String.raw`(?:[ ]{1,2}|[ ]?[-.+][ ]?|[ ]?\([ ]?|[ ]?\)[ -]?)`;
const NUMBER_IN_TEXT = new RegExp(
	String.raw`(?<![\w.+-])(?:\+[ ]?)?\(?\d(?:${SEPARATOR}?\d){8,14}(?![\w-]|[.,:]\d)`,
	'g',
);
const EMAIL_IN_TEXT = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;

/**
 * Whether nine digits without a 0 or a country code are a Kenyan mobile number whose leading 0 a
 * spreadsheet dropped: starting 7 written in one run, in threes (712 345 670, 712.345.670), with a
 * bracket, or in any grouping when they are the whole value (a column holding "712 345670"); starting
 * 1 (011x, 010x) only in one run. Inside a text a range ("700-250000") is not one.
 */
function bareMobile(written: string, whole = false): boolean {
	const digits = written.replace(/\D/g, '');
	if (digits.length !== 9) return false;
	if (/^\d{9}$/.test(written)) return /^[17]/.test(digits);
	if (!/^7/.test(digits)) return false;
	return whole || /^\(/.test(written) || /^\d{3}(\D{1,3})\d{3}\1\d{3}$/.test(written);
}

/**
 * Whether digits found in free text are a phone number: written with "+" or a bracket, starting as a
 * national number (0) or an African country code (2), or nine digits a sheet left without their 0
 * (bareMobile). A decimal ("2500000.50") or a fraction ("0.1234567891") is a quantity, never a number.
 */
function phoneLike(match: string, whole = false): boolean {
	if (/^\d+\.\d{1,2}$/.test(match) || /^0\./.test(match)) return false;
	const digits = match.replace(/\D/g, '');
	if (/^[+(]/.test(match) || /^[02]/.test(digits)) return true;
	return bareMobile(match, whole);
}

// The calling codes of the countries the package pays in (254 Kenya, 255 Tanzania, 256 Uganda, 250
// Rwanda, 233 Ghana): "254" and nine digits is a wallet number wherever it stands.
const CALLING_CODES = COUNTRIES.map((country) => country.callingCode).join('|');
const PLAUSIBLE_PHONE = new RegExp(`^(?:0[1-9]\\d{8}|(?:${CALLING_CODES})\\d{9})$`);

/**
 * Whether a number written alone is a payer's phone number whatever field holds it (an identifier, a
 * merchant's column called anything): a national number (0 and nine digits), a calling code of the
 * package's countries and nine digits, nine digits a sheet left without their 0 (bareMobile), or 9 to
 * 15 digits written with "+" or "00" (E.164 as people type it; "000123..." is a zero-padded key).
 * Narrower than the free-text finder, so a key made of digits ("20261127-0001") is not taken for one.
 */
export function plausiblePhone(written: string, whole = false): boolean {
	const digits = written.replace(/\D/g, '');
	if (/^\s*\+/.test(written)) return digits.length >= 9 && digits.length <= 15;
	if (/^\s*00[1-9]/.test(written)) return digits.length >= 11 && digits.length <= 17;
	return PLAUSIBLE_PHONE.test(digits) || bareMobile(written.trim(), whole);
}

/**
 * Whether a number value (a number column of a sheet, any field but an amount) is a phone number:
 * 254712345678, 712345678. Never a fraction: a number with decimals is a quantity.
 */
export function phoneLikeNumber(value: number): boolean {
	if (!Number.isSafeInteger(value) || value <= 0) return false;
	const digits = String(value);
	return (digits.length === 9 && /^[17]/.test(digits)) || /^2\d{9,14}$/.test(digits);
}

/** The phone numbers written alone in a text, as plausiblePhone reads them. */
export function phoneNumbersIn(text: string): string[] {
	const whole = text.trim();
	return [...text.matchAll(NUMBER_IN_TEXT)]
		.map(([match]) => match)
		.filter((match) => plausiblePhone(match, match === whole));
}

/**
 * Text with its percent escapes decoded (%2B254%20712 reads +254 712), as often as they nest (%252B),
 * at most three times. A writing the finders would miss encoded is found decoded.
 */
export function percentDecoded(text: string): string {
	let out = text;
	for (let round = 0; round < 3 && /%[0-9A-Fa-f]{2}/.test(out); round++)
		out = out.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
			try {
				return decodeURIComponent(run);
			} catch {
				// Not UTF-8 (a lone %E2): each escape as the byte it names.
				return run.replace(/%([0-9A-Fa-f]{2})/g, (_escape, hex: string) =>
					String.fromCharCode(parseInt(hex, 16)),
				);
			}
		});
	return out;
}

/** The digits two writings of one number share (0712345670 and +254 712 345 670 are one number). */
function sameNumberKey(text: string): string {
	return text.replace(/\D/g, '').slice(-9);
}
/** What one pass of the exit knows: the setting, and the values of this output it must find in text. */
export interface Pass {
	mode: PayerDetails;
	/** Numbers to their last three digits (an AI tool's answer). */
	lastDigits: boolean;
	cards: CardValues[];
	/** Numbers held in number fields (their last nine digits): found in every text in any writing. */
	knownNumbers: Set<string>;
	/** Surnames (and, omitted, first names) held in name fields, in lower case: found in every text. */
	knownNames: Set<string>;
}

// A run of digits in any writing (spaces, brackets, dots, slashes, dashes, pluses between them),
// checked against the known numbers by its digits: one pattern for every output, however many numbers
// a payroll holds, where a pattern per number would be compiled for each row. Glued to letters too: a
// number the row holds is the payer's inside a key ("INV-254712345670", "ORD254712345670") as well.
const DIGIT_SPAN = /[+(]?\d(?:[ ()./+-]{0,3}\d){8,}/g;
const WORD = /[\p{L}][\p{L}'-]*/gu;

/** Whether a run of digits holds a known number (the last nine digits of one, anywhere in it). */
export function holdsKnown(span: string, known: Set<string>): boolean {
	const digits = span.replace(/\D/g, '');
	for (let at = 0; at + 9 <= digits.length; at++)
		if (known.has(digits.slice(at, at + 9))) return true;
	return false;
}
/** Text without the card values of the run nor any that look like one. */
export function scrubCards(text: string, pass: Pass): string {
	return pass.cards.reduce((out, card) => scrubCardValues(out, card), scrubCardValues(text));
}

/** Whether a value (text or a JSON number) holds a card value of the run or one that looks like one. */
export function holdsCard(value: string | number, pass: Pass): boolean {
	return holdsCardValue(value) || pass.cards.some((card) => holdsCardValue(value, card));
}

/**
 * Free text (a message, a reason, an error, a user's column) with card values, numbers, e-mail
 * addresses and surnames masked or left out. Two different numbers that mask alike in one text stay
 * told apart: the second reads "2547•••••670 (another number)", since printing the same mask twice
 * would say they are one number. Numbers the output or its input row holds are found in any writing;
 * other numbers standing alone by the free-text finder, or, in a `value` (a key, a reference, a token
 * a row is matched on), only when plausiblePhone: "20261127-0001" is a key there, not a number.
 */
export function protectText(text: string, pass: Pass, reading: 'text' | 'value' = 'text'): string {
	const carded = scrubCards(text, pass);
	if (pass.mode === 'full') return carded;
	const masks = new Map<string, string[]>();
	const numberOut = (match: string): string => {
		if (pass.mode === 'omitted') return HIDDEN;
		const masked = maskNumber(match, pass.lastDigits);
		const same = sameNumberKey(match);
		// Masks that show the same digits look alike, however they are written.
		const shown = masked.replace(/[^\d•]/g, '');
		const numbers = masks.get(shown) ?? [];
		if (!numbers.includes(same)) numbers.push(same);
		masks.set(shown, numbers);
		const nth = numbers.indexOf(same);
		return nth === 0 ? masked : `${masked} (another number${nth > 1 ? `, ${nth + 1}` : ''})`;
	};
	let out = carded.replace(EMAIL_IN_TEXT, (email) =>
		pass.mode === 'masked' ? maskEmail(email) : HIDDEN,
	);
	if (pass.knownNumbers.size > 0)
		out = out.replace(DIGIT_SPAN, (span) =>
			holdsKnown(span, pass.knownNumbers) ? numberOut(span) : span,
		);
	if (pass.knownNames.size > 0)
		out = out.replace(WORD, (word) => (pass.knownNames.has(word.toLowerCase()) ? HIDDEN : word));
	const isPhone = reading === 'text' ? phoneLike : plausiblePhone;
	const whole = out.trim();
	return out.replace(NUMBER_IN_TEXT, (match) =>
		isPhone(match, match === whole) ? numberOut(match) : match,
	);
}

import { scrubCardValues } from './card';
import type { CardValues } from './card';

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
// "(0712) 345678", "0712-345-678", "254  712 345 678", "+254 (712) 345 678": 9 to 15 digits with
// spaces (one or two), dashes or brackets between them, standing alone. Whether it is a phone number
// is decided by phoneLike: not a range of amounts ("100-500000"), a Unix timestamp (1795766331), a
// date and time ("2026-11-27 15:53") nor digits inside a reference or a key ("ref-254712345670").
const SEPARATOR = String.raw`(?:[ ]{1,2}|[ ]?-[ ]?|[ ]?\([ ]?|[ ]?\)[ -]?)`;
const NUMBER_IN_TEXT = new RegExp(
	String.raw`(?<![\w.+-])(?:\+[ ]?)?\(?\d(?:${SEPARATOR}?\d){8,14}(?![\w-]|[.,:]\d)`,
	'g',
);
const EMAIL_IN_TEXT = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;

/**
 * Whether digits found in text are a phone number: written with "+" or a bracket, starting as a
 * national number (0) or an African country code (2), or nine digits alone starting 7 or 1 (a
 * Kenyan mobile number whose leading 0 a spreadsheet dropped: 712345678).
 */
function phoneLike(match: string): boolean {
	const digits = match.replace(/\D/g, '');
	if (match.includes('+') || match.startsWith('(') || /^[02]/.test(digits)) return true;
	return /^\d{9}$/.test(match) && /^[17]/.test(match);
}
/** Whether a number value (a number column of a sheet) is a phone number: 254712345678, 712345678. */
export function phoneLikeNumber(value: number): boolean {
	if (!Number.isSafeInteger(value) || value <= 0) return false;
	const digits = String(value);
	return (digits.length === 9 && /^[17]/.test(digits)) || /^2\d{9,14}$/.test(digits);
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

// A run of digits in any writing (spaces, brackets, dots, slashes, dashes between them), checked
// against the known numbers by its digits: one pattern for every output, however many numbers a
// payroll holds, where a pattern per number would be compiled for each row.
const DIGIT_SPAN = /(?<![A-Za-z0-9])[+(]?\d(?:[ ()./-]{0,3}\d){8,}(?![A-Za-z0-9])/g;
const WORD = /[\p{L}][\p{L}'-]*/gu;

/** Whether a run of digits holds a known number (the last nine digits of one, anywhere in it). */
function holdsKnown(span: string, known: Set<string>): boolean {
	const digits = span.replace(/\D/g, '');
	for (let at = 0; at + 9 <= digits.length; at++)
		if (known.has(digits.slice(at, at + 9))) return true;
	return false;
}
/** Text without the card values of the run nor any that look like one. */
export function scrubCards(text: string, pass: Pass): string {
	return pass.cards.reduce((out, card) => scrubCardValues(out, card), scrubCardValues(text));
}

/**
 * Free text (a message, a reason, an error, a user's column) with card values, numbers, e-mail
 * addresses and surnames masked or left out. Two different numbers that mask alike in one text stay
 * told apart: the second reads "2547•••••670 (another number)", since printing the same mask twice
 * would say they are one number.
 */
export function protectText(text: string, pass: Pass): string {
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
	return out.replace(NUMBER_IN_TEXT, (match) => (phoneLike(match) ? numberOut(match) : match));
}

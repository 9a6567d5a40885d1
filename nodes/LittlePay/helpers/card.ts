import type { INode } from 'n8n-workflow';
import { invalidInput } from '../errors';

/** Card details as Little Pay's token endpoint takes them. */
export interface CardDetails {
	cc_number: string;
	cc_cvv: string;
	cc_exp: string;
	cc_name: string;
}

/** Whether a digit string passes the Luhn check every card number carries. */
export function passesLuhn(digits: string): boolean {
	let sum = 0;
	for (let i = 0; i < digits.length; i++) {
		let digit = Number(digits[digits.length - 1 - i]);
		if (i % 2 === 1) {
			digit *= 2;
			if (digit > 9) digit -= 9;
		}
		sum += digit;
	}
	return digits.length > 0 && sum % 10 === 0;
}

/** The card brand guessed from the number's prefix, for masked display only. */
export function cardBrand(digits: string): string {
	if (/^4/.test(digits)) return 'VISA';
	if (/^(5[1-5]|2[2-7])/.test(digits)) return 'MASTERCARD';
	if (/^3[47]/.test(digits)) return 'AMEX';
	return 'CARD';
}

/** A card number reduced to what may be shown: brand and last four digits. */
export function maskCardNumber(digits: string): string {
	return `${'*'.repeat(Math.max(0, digits.length - 4))}${digits.slice(-4)}`;
}

/**
 * Checks card fields before anything is sent. Errors name the field and never repeat the number,
 * the CVV or the expiry, because error messages end up in execution logs.
 */
export function validateCard(
	node: INode,
	itemIndex: number,
	input: { number: unknown; cvv: unknown; expiry: unknown; name: unknown },
	now = new Date(),
): CardDetails {
	const digits = String(input.number ?? '').replace(/[\s-]/g, '');
	if (!/^\d{12,19}$/.test(digits) || !passesLuhn(digits)) {
		invalidInput(
			node,
			itemIndex,
			'Card Number',
			'is not a valid card number (12-19 digits with a correct check digit)',
			'Check the number the payer typed; it is not repeated here',
		);
	}
	const cvv = String(input.cvv ?? '').trim();
	if (!/^\d{3,4}$/.test(cvv)) {
		invalidInput(
			node,
			itemIndex,
			'CVV',
			'must be 3 or 4 digits',
			'Use the security code from the back of the card (4 digits on the front for Amex)',
		);
	}
	const expiry = String(input.expiry ?? '').trim();
	const match = /^(0[1-9]|1[0-2])\s*\/\s*(\d{2})$/.exec(expiry);
	if (!match)
		invalidInput(
			node,
			itemIndex,
			'Expiry',
			'must be MM/YY',
			'Enter the expiry as printed on the card, e.g. 01/27',
		);
	const month = Number(match[1]);
	const year = 2000 + Number(match[2]);
	// A card is valid through the last day of its expiry month.
	if (
		year < now.getUTCFullYear() ||
		(year === now.getUTCFullYear() && month < now.getUTCMonth() + 1)
	) {
		invalidInput(
			node,
			itemIndex,
			'Expiry',
			'is in the past',
			'Ask the payer for a card that has not expired',
		);
	}
	const name = String(input.name ?? '').trim();
	if (name === '')
		invalidInput(
			node,
			itemIndex,
			'Cardholder Name',
			'is required',
			'Enter the name as printed on the card',
		);
	return { cc_number: digits, cc_cvv: cvv, cc_exp: `${match[1]}/${match[2]}`, cc_name: name };
}

/** The card values a node run handled, as typed, so anything that repeats them can be scrubbed. */
export interface CardValues {
	number?: string;
	cvv?: string;
	expiry?: string;
}

/** The node parameters that hold card values (Card: Send Card). */
export const CARD_PARAMETERS = { number: 'cardNumber', cvv: 'cvv', expiry: 'expiry' } as const;

// A card number in any writing: 13 to 19 digits that pass Luhn, each pair of digits at most three
// separators apart (spaces, dashes, dots, slashes, underscores: "4111 - 1111") and grouped as cards are
// written (writtenAsCard), not glued to letters or digits (a key such as "INV20261127000012" stays). Phone numbers have at most 15 digits, a 13-digit
// one is rare.
const CARD_NUMBER_IN_TEXT = /(?<![A-Za-z0-9])\d(?:[ ._/-]{0,3}\d){12,18}(?![A-Za-z0-9])/g;
// A CVV or an expiry named as such: "cvv 737", "cc_cvv: 737", "CVC=1234", "exp 01/39", "expiry 1/2039".
const CVV_IN_TEXT = /\b(cvv2?|cvc2?|cc_cvv|security[ _]code)(\W{0,3})\d{3,4}\b/gi;
const EXPIRY_IN_TEXT =
	/\b(exp|expiry|expires|expiration|cc_exp|valid[ _]thru)(\W{0,3})\d{1,2}\s*[/.-]\s*\d{2,4}\b/gi;

const HIDDEN = '•••';

/** A pattern for one digit string written with any separators between its digits. */
function digitsWithSeparators(digits: string): string {
	return digits.split('').join('[^A-Za-z0-9]{0,3}');
}

/**
 * Patterns for the exact values a run handled: the number in any separator form and wherever it sits
 * (glued into a token too), the CVV standing alone (not a digit group of a key: "ORDER737" stays), the
 * expiry as month and year, not the middle of a longer date ("2026-11-27" is not the expiry 11/27) nor
 * of a word or a reference's groups ("3fab01-39cd" is not the expiry 01/39).
 */
function knownCardPatterns(card: CardValues): RegExp[] {
	const found: RegExp[] = [];
	const number = (card.number ?? '').replace(/\D/g, '');
	if (number.length >= 12) found.push(new RegExp(digitsWithSeparators(number), 'g'));
	const cvv = (card.cvv ?? '').trim();
	if (/^\d{3,4}$/.test(cvv)) found.push(new RegExp(`(?<![A-Za-z0-9])${cvv}(?![A-Za-z0-9])`, 'g'));
	const expiry = /^(\d{1,2})\s*\/\s*(\d{2})$/.exec((card.expiry ?? '').trim());
	if (expiry) {
		const month = String(Number(expiry[1]));
		// Not a piece of a word either: a reference such as 3fab01-39cd (a UUID's groups) is not 01/39.
		const alone = (pattern: string) =>
			`(?<![A-Za-z0-9])(?<!\\d[/.-])${pattern}(?![A-Za-z0-9])(?![/.-]\\d)`;
		found.push(
			new RegExp(
				`${alone(`0?${month}\\s*[/.-]\\s*(?:20)?${expiry[2]}`)}|${alone(`(?:20)?${expiry[2]}\\s*[/.-]\\s*0?${month}`)}`,
				'g',
			),
		);
	}
	return found;
}

/**
 * Whether digits are grouped as card numbers are written: in one run, in fours (the last group
 * shorter), or as Amex and Diners print them (4-6-5, 4-6-4). A reference's groups are not: a UUID's
 * "9827-200100000015" is 16 digits that may pass Luhn, and a card run chains on that reference.
 */
function writtenAsCard(match: string): boolean {
	const groups = match.split(/[ ._/-]+/).map((group) => group.length);
	if (groups.length === 1) return true;
	const last = groups[groups.length - 1];
	if (groups.slice(0, -1).every((length) => length === 4) && last >= 1 && last <= 4) return true;
	return groups.length === 3 && groups[0] === 4 && groups[1] === 6 && (last === 5 || last === 4);
}

/**
 * Text with card values removed, whatever the Payer Details setting: any 13-19 digit run however it
 * is separated (down to its last four), a CVV or expiry named as such, and the exact number, CVV and
 * expiry the run handled wherever they show (a gateway that echoes the request).
 */
export function scrubCardValues(text: string, card: CardValues = {}): string {
	let out = text;
	for (const pattern of knownCardPatterns(card)) out = out.replace(pattern, HIDDEN);
	return out
		.replace(CARD_NUMBER_IN_TEXT, (match) => {
			if (!writtenAsCard(match)) return match;
			const digits = match.replace(/\D/g, '');
			// Every card number passes Luhn (it is checked before sending); one key or number in ten does
			// too. A 13-digit card is a Visa or a Maestro (4, 5 or 6 first), never 1 as a time in ms is.
			if (digits.length === 13 && !/^[456]/.test(digits)) return match;
			return passesLuhn(digits) ? `•••• ${digits.slice(-4)}` : match;
		})
		.replace(CVV_IN_TEXT, (_match, name: string, gap: string) => `${name}${gap}${HIDDEN}`)
		.replace(EXPIRY_IN_TEXT, (_match, name: string, gap: string) => `${name}${gap}••/••`);
}

/**
 * Whether a value holds a card value: the run's number (in any writing, glued into a token too), its
 * CVV or expiry standing alone, any other Luhn-valid 13-19 digit run, a CVV or expiry named as such.
 * A JSON number is read as its digits: a gateway that sends the number or the CVV back as a number.
 */
export function holdsCardValue(value: string | number, card: CardValues = {}): boolean {
	if (typeof value === 'number') {
		if (!Number.isInteger(value)) return false;
		// Past 2^53 a number's digits are no longer the ones sent; its exact integer is still read.
		value = BigInt(value).toString();
	}
	return scrubCardValues(value, card) !== value;
}

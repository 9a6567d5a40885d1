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

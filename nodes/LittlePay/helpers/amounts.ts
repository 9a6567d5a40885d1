import { decimalsOf } from './lists';

// Money as the node counts it: an amount is read only from plain decimal digits ("1500", "12.5"),
// never from the other notations JavaScript's Number() also reads ("0x3E8" is 1000, "1e3" is 1000,
// " " is 0), and it is added and compared in integer minor units (cents), so ten payouts of 100.10
// total exactly 1001.

/** The most digits an amount may have before its point: its minor units stay exact integers. */
const MAX_WHOLE_DIGITS = 12;

/** An amount read from plain digits: its value, its digits as written, and how many decimals it has. */
export interface PlainAmount {
	value: number;
	/** The amount without sign, leading zeros or trailing decimal zeros ("12.500" -> "12.5"). */
	digits: string;
	decimals: number;
}

/** What is wrong with a value that is not a plain decimal amount: the problem, and how to write it. */
export interface AmountProblem {
	problem: string;
	fix: string;
}

const FIX = 'Write the amount in plain digits with a point for decimals, e.g. 1500 or 1500.50';

function plain(whole: string, fraction: string): PlainAmount {
	const w = whole.replace(/^0+(?=\d)/, '') || '0';
	const f = fraction.replace(/0+$/, '');
	const digits = f === '' ? w : `${w}.${f}`;
	return { value: Number(digits), digits, decimals: f.length };
}

/** A number's digits as a person would write them: 1e21 stays 1e+21, 1e-7 becomes 0.0000001. */
function numberText(value: number): string {
	const text = String(value);
	const small = /^(\d)(?:\.(\d+))?e-(\d+)$/.exec(text);
	if (!small) return text;
	return `0.${'0'.repeat(Number(small[3]) - 1)}${small[1]}${small[2] ?? ''}`;
}

const TEXT_FIX = 'Enter the number alone (1500) and pick the currency in Currency';

/** What a text that is not plain digits is: the problem of that value, said of that value. */
function notationProblem(text: string, shown: string): AmountProblem | undefined {
	if (/^[+-]?0x[0-9a-f]+$/i.test(text)) {
		const decimal = Number.parseInt(text.replace(/^[+-]?0x/i, ''), 16);
		return {
			problem: `${shown} is written in hexadecimal (it would be ${decimal}): an amount is decimal digits`,
			fix: `Write ${decimal} if that is the amount; something turned it into hexadecimal on the way`,
		};
	}
	if (/^[+-]?0[ob][0-7]+$/i.test(text))
		return { problem: `${shown} is written in octal or binary notation`, fix: FIX };
	if (/^[+-]?(\d+\.?\d*|\.\d+)e[+-]?\d+$/i.test(text)) {
		const value = Math.abs(Number(text));
		const written = value < 10 ** MAX_WHOLE_DIGITS ? `: write ${numberText(value)}` : '';
		return {
			problem: `${shown} is in exponent notation${written}`,
			fix: 'Write the amount out in plain digits; a spreadsheet shows 1E+21 when a number is too long for its column',
		};
	}
	if (/^[+-]?(infinity|inf|∞)$/i.test(text))
		return { problem: `${shown} is not an amount (infinite)`, fix: FIX };
	if (/^\d{1,3}([,\s'_]\d{3})+(\.\d+)?$/.test(text)) {
		const written = text.replace(/[,\s'_]/g, '');
		const comma = text.includes(',') ? 'comma' : 'separator';
		return {
			problem: `${shown} has a thousands ${comma}: write ${written}`,
			fix: `Remove the thousands separators: ${written}`,
		};
	}
	if (/^\d{1,3}(\.\d{3})+,\d+$/.test(text) || /^\d+,\d{1,2}$/.test(text)) {
		const written = text.replace(/\./g, '').replace(',', '.');
		return {
			problem: `${shown} has a decimal comma: write ${written}`,
			fix: 'Write decimals with a point (1500.50) and no thousands separators',
		};
	}
	const compact = text.replace(/\s/g, '');
	if (/^\d+(\.\d+)?$/.test(compact))
		return { problem: `${shown} has spaces between its digits: write ${compact}`, fix: FIX };
	if (/\d/.test(text) && /[a-z$€£¥]/i.test(text))
		return { problem: `${shown} has text beside the number: enter only the number`, fix: TEXT_FIX };
	return undefined;
}

/**
 * Reads an amount written in plain decimal digits (a number, or text an expression gave: "1500",
 * "12.500", " 1500 "); any other notation, a sign, zero or more than 12 digits before the point is
 * refused with what is wrong with that value. The value is not yet checked against a currency.
 */
export function readPlainAmount(value: unknown): PlainAmount | AmountProblem {
	if (typeof value === 'number') {
		if (Number.isNaN(value)) return { problem: 'is not a number (got NaN)', fix: FIX };
		if (!Number.isFinite(value))
			return { problem: `is not an amount (got ${String(value)})`, fix: FIX };
		if (Object.is(value, -0) || value < 0)
			return {
				problem: `must be a positive number (got ${Object.is(value, -0) ? '-0' : String(value)})`,
				fix: 'Enter the amount without a minus sign, e.g. 1500',
			};
		const text = numberText(value);
		if (/e\+/.test(text) || value >= 10 ** MAX_WHOLE_DIGITS)
			return {
				problem: `${text} is too large for an amount (at most ${MAX_WHOLE_DIGITS} digits before the point)`,
				fix: 'Check the amount: a spreadsheet or an expression may have multiplied it',
			};
		const [whole, fraction = ''] = text.split('.');
		return plain(whole, fraction);
	}
	if (typeof value !== 'string')
		return {
			problem: `must be a positive number (got ${value === undefined ? 'nothing' : JSON.stringify(value)})`,
			fix: FIX,
		};
	const text = value.trim();
	const shown = JSON.stringify(value);
	if (text === '') return { problem: `is empty (got ${shown})`, fix: FIX };
	const match = /^\+?(\d*)(?:\.(\d*))?$/.exec(text);
	if (!match || (match[1] === '' && (match[2] ?? '') === '')) {
		if (/^-\s*[\d.]/.test(text) && Number.isFinite(Number(text)))
			return {
				problem: `must be a positive number (got ${shown})`,
				fix: 'Enter the amount without a minus sign, e.g. 1500',
			};
		return (
			notationProblem(text, shown) ?? {
				problem: `must be a positive number (got ${shown})`,
				fix: FIX,
			}
		);
	}
	const whole = match[1].replace(/^0+(?=\d)/, '');
	if (whole.length > MAX_WHOLE_DIGITS)
		return {
			problem: `${shown} is too large for an amount (at most ${MAX_WHOLE_DIGITS} digits before the point)`,
			fix: 'Check the amount: a spreadsheet or an expression may have multiplied it',
		};
	return plain(match[1], match[2] ?? '');
}

/** Whether a read went wrong. */
export function isAmountProblem(read: PlainAmount | AmountProblem): read is AmountProblem {
	return (read as AmountProblem).problem !== undefined;
}

/**
 * What is wrong with an amount's decimals for a currency ("has 3 decimals: KES takes at most 2"),
 * if anything: a payout of KES 150.123456 is not what anybody is paid.
 */
export function decimalsProblem(
	amount: PlainAmount,
	currency: string,
	shown: string,
): AmountProblem | undefined {
	const allowed = decimalsOf(currency);
	if (amount.decimals <= allowed) return undefined;
	const rounded = Number(amount.digits).toFixed(allowed);
	const rule =
		allowed === 0 ? `${currency} has no decimals` : `${currency} takes at most ${allowed}`;
	const many = amount.decimals > 6 ? ' (a calculation left a rounding error?)' : '';
	return {
		problem: `${shown} has ${amount.decimals} decimal${amount.decimals === 1 ? '' : 's'}: ${rule}${many}`,
		fix: `Round the amount to ${allowed === 0 ? `whole ${currency}` : `${allowed} decimals`}, e.g. ${rounded}, in your data or with an expression such as {{ $json.amount.toFixed(${allowed}) }}`,
	};
}

/** An amount in integer minor units of its currency (KES 100.10 -> 10010), rounding a sum's float error away. */
export function toMinorUnits(amount: number, currency: string): number {
	return Math.round(amount * 10 ** decimalsOf(currency));
}

/** An amount in minor units back in the main unit (10010 KES -> 100.1). */
export function fromMinorUnits(minor: number, currency: string): number {
	return minor / 10 ** decimalsOf(currency);
}

/** An amount as a refusal says it: "KES 1,001.5", in the currency's decimals at most. */
export function formatMoney(amount: number, currency: string): string {
	return `${currency} ${amount.toLocaleString('en-US', { maximumFractionDigits: decimalsOf(currency) })}`;
}

// Every refusal message of Pay Out, Collect and Refund, held against the value that triggered it: the
// message says what is wrong with that value ("1,500" has a thousands comma), never only a rule the value
// meets ("must be a positive number" for 1,500). One row per message: the value, and the exact message.
import { InvalidValue } from '../../nodes/LittlePay/errors';
import { checkRefundable } from '../../nodes/LittlePay/money/limitSets';
import { LIMITS } from '../../nodes/LittlePay/money/limits';
import type { Checked } from '../../nodes/LittlePay/money/limits';
import type { MoneyMove } from '../../nodes/LittlePay/money/moves';
import {
	normalizeMobileNumber,
	requireText,
	validateAmount,
	validateCurrency,
	validateCurrencyFor,
	validateKey,
	validateNetwork,
	validateUrl,
} from '../../nodes/LittlePay/helpers/validation';
import type { INode } from 'n8n-workflow';

/** The message an item refused with this value shows after "Row N: ", or the value when it passes. */
function message(result: unknown): unknown {
	return result instanceof InvalidValue ? `${result.field} ${result.problem}` : result;
}

describe('Amount: the message names what is wrong with the value given', () => {
	it.each<[unknown, string | undefined, unknown]>([
		['1,500', 'KES', 'Amount "1,500" has a thousands comma: write 1500'],
		['1,500.50', 'KES', 'Amount "1,500.50" has a thousands comma: write 1500.50'],
		[' 1 000', 'KES', 'Amount " 1 000" has a thousands separator: write 1000'],
		["1'000", 'KES', 'Amount "1\'000" has a thousands separator: write 1000'],
		['1500,50', 'KES', 'Amount "1500,50" has a decimal comma: write 1500.50'],
		['1.500,50', 'KES', 'Amount "1.500,50" has a decimal comma: write 1500.50'],
		['15 00', 'KES', 'Amount "15 00" has spaces between its digits: write 1500'],
		[
			'0x3E8',
			'KES',
			'Amount "0x3E8" is written in hexadecimal (it would be 1000): an amount is decimal digits',
		],
		['0b101', 'KES', 'Amount "0b101" is written in octal or binary notation'],
		['1e3', 'KES', 'Amount "1e3" is in exponent notation: write 1000'],
		['1.5E+3', 'KES', 'Amount "1.5E+3" is in exponent notation: write 1500'],
		['1e21', 'KES', 'Amount "1e21" is in exponent notation'],
		[1e21, 'KES', 'Amount 1e+21 is too large for an amount (at most 12 digits before the point)'],
		[
			'1234567890123',
			'KES',
			'Amount "1234567890123" is too large for an amount (at most 12 digits before the point)',
		],
		['Infinity', 'KES', 'Amount "Infinity" is not an amount (infinite)'],
		[Infinity, 'KES', 'Amount is not an amount (got Infinity)'],
		[NaN, 'KES', 'Amount is not a number (got NaN)'],
		['-0', 'KES', 'Amount must be a positive number (got "-0")'],
		[-0, 'KES', 'Amount must be a positive number (got -0)'],
		[-5, 'KES', 'Amount must be a positive number (got -5)'],
		['-5', 'KES', 'Amount must be a positive number (got "-5")'],
		['twelve', 'KES', 'Amount must be a positive number (got "twelve")'],
		['KES 1500', 'KES', 'Amount "KES 1500" has text beside the number: enter only the number'],
		['1500 KES', 'KES', 'Amount "1500 KES" has text beside the number: enter only the number'],
		['$1500', 'KES', 'Amount "$1500" has text beside the number: enter only the number'],
		['', 'KES', 'Amount is empty (got "")'],
		[undefined, 'KES', 'Amount must be a positive number (got nothing)'],
		[true, 'KES', 'Amount must be a positive number (got true)'],
		[0, 'KES', "Amount is 0 (the field's default): enter the amount"],
		['0.00', 'KES', 'Amount is 0 (got "0.00"): enter the amount'],
		[150.123456, 'KES', 'Amount 150.123456 has 6 decimals: KES takes at most 2'],
		[
			0.1 + 0.2,
			'KES',
			'Amount 0.30000000000000004 has 17 decimals: KES takes at most 2 (a calculation left a rounding error?)',
		],
		['100.5', 'UGX', 'Amount "100.5" has 1 decimal: UGX has no decimals'],
		[150.5, 'RWF', 'Amount 150.5 has 1 decimal: RWF has no decimals'],
		['100.505', undefined, 'Amount "100.505" has 3 decimals: an amount takes at most 2'],
		// What passes, as the value says.
		['12.500', 'KES', 12.5],
		['1000.00', 'UGX', 1000],
		[' 1500 ', 'KES', 1500],
		['+100', 'KES', 100],
		['.5', 'KES', 0.5],
		[1500, 'TZS', 1500],
		[999999999999.99, 'KES', 999999999999.99],
	])('%p in %s', (value, currency, expected) => {
		expect(message(validateAmount(value, 'Amount', currency))).toEqual(expected);
	});

	it('every fix says how to write the value, in one sentence', () => {
		const fix = (value: unknown, currency?: string) =>
			(validateAmount(value, 'Amount', currency) as InvalidValue).fix;
		expect(fix('0x3E8')).toBe(
			'Write 1000 if that is the amount; something turned it into hexadecimal on the way',
		);
		expect(fix('1,500')).toBe('Remove the thousands separators: 1500');
		expect(fix(150.123456, 'KES')).toBe(
			'Round the amount to 2 decimals, e.g. 150.12, in your data or with an expression such as {{ $json.amount.toFixed(2) }}',
		);
		expect(fix('100.5', 'UGX')).toBe(
			'Round the amount to whole UGX, e.g. 101, in your data or with an expression such as {{ $json.amount.toFixed(0) }}',
		);
		expect(fix('KES 1500')).toBe('Enter the number alone (1500) and pick the currency in Currency');
	});
});

describe('Currency, network and number: the message names the value and what is wrong with it', () => {
	it.each<[string, () => unknown, unknown]>([
		[
			'a currency code of 4 letters',
			() => validateCurrency('KESH'),
			'Currency is not a three-letter currency code (got "KESH")',
		],
		['a currency in lower case passes', () => validateCurrency(' ugx '), 'UGX'],
		[
			'an unknown network',
			() => validateNetwork('SAFARICOM'),
			'Network is not one of MPESA, AIRTEL, MTN, TIGOPESA (got "SAFARICOM")',
		],
		[
			'UGX to a Kenyan M-Pesa number',
			() => validateCurrencyFor('UGX', '254712345670', 'MPESA'),
			"Currency UGX is not the currency of the Destination Number's wallet: a Kenyan number (254) on MPESA holds KES",
		],
		[
			'KES to a Tanzanian M-Pesa number',
			() => validateCurrencyFor('KES', '255712345670', 'MPESA'),
			"Currency KES is not the currency of the Destination Number's wallet: a Tanzanian number (255) on MPESA holds TZS",
		],
		[
			'USD to a Ghanaian MTN payer',
			() => validateCurrencyFor('USD', '233241234560', 'MTN', 'Currency', 'Mobile Number'),
			"Currency USD is not the currency of the Mobile Number's wallet: a Ghanaian number (233) on MTN holds GHS",
		],
		[
			'RWF to a Rwandan MTN number passes',
			() => validateCurrencyFor('RWF', '250712345670', 'MTN'),
			'RWF',
		],
		[
			'letters in a number',
			() => normalizeMobileNumber('call me', 'MPESA', 'KE'),
			'Mobile Number is not a phone number (got "call me")',
		],
		[
			'a Ugandan number on M-Pesa',
			() => normalizeMobileNumber('+256712345670', 'MPESA', 'KE'),
			'Mobile Number does not start with a country code that MPESA serves (254 or 255)',
		],
		[
			'a national number read in Ghana, on Tigo Pesa',
			() => normalizeMobileNumber('0241234560', 'TIGOPESA', 'GH'),
			'Mobile Number is read as a Ghanaian number (Country GH), and TIGOPESA serves only Tanzania',
		],
		[
			'a national number in an unsupported Country',
			() => normalizeMobileNumber('0712345670', 'MPESA', 'NG'),
			'Country is not supported (got NG)',
		],
		[
			'a digit missing',
			() => normalizeMobileNumber('+254 712 34567', 'MPESA', 'KE'),
			'Mobile Number must have 9 digits after the country code 254 (got 8)',
		],
		[
			'a national number read in Tanzania passes',
			() => normalizeMobileNumber('0712345670', 'MPESA', 'TZ'),
			'255712345670',
		],
	])('%s', (_name, check, expected) => {
		expect(message(check())).toEqual(expected);
	});
});

describe('Key, text and URL fields say what this value has wrong', () => {
	it.each<[string, unknown]>([
		['order-1/2', 'Key must contain only letters and digits: "order-1/2" has "-", "/"'],
		['pay out!', 'Key must contain only letters and digits: "pay out!" has a space, "!"'],
		['a'.repeat(65), 'Key is 65 characters long: at most 64'],
		['order12345', 'order12345'],
	])('Key %p', (value, expected) => {
		expect(message(validateKey(String(value)))).toEqual(expected);
	});
	it('Description and Callback URL', () => {
		expect(message(requireText('  ', 'Description'))).toBe('Description is required');
		expect(message(validateUrl('ftp://example.com', 'Callback URL'))).toBe(
			'Callback URL is not an http(s) URL (got "ftp://example.com")',
		);
	});
});

describe('Spending limits and refunds: the message gives the amounts as they are, in minor units', () => {
	const node = { name: 'Little Pay' } as INode;
	const move = (amount: number, extra: Partial<MoneyMove> = {}): MoneyMove => ({
		kind: 'payout',
		amount,
		currency: 'KES',
		network: 'MPESA',
		recipient: '254712345670',
		...extra,
	});
	const refusal = (
		name: string,
		value: number | string[],
		checked: Checked,
	): string | undefined => {
		const limit = LIMITS.find((l) => l.name === name);
		let said: string | undefined;
		limit?.check(value, checked, (reason) => {
			said = reason;
			throw new Error(reason);
		});
		return said;
	};
	const checked = (
		amount: number,
		total = 0,
		count = 0,
		extra: Partial<MoneyMove> = {},
	): Checked => ({
		move: move(amount, extra),
		spent: {
			execution: { count, totals: { KES: total } },
			session: { count, totals: { KES: total } },
		},
		on: "this node's Spending Limits",
		word: 'payout',
	});
	const safely = (run: () => string | undefined) => {
		try {
			return run();
		} catch (error) {
			return (error as Error).message;
		}
	};

	it.each<[string, number | string[], Checked, string | undefined]>([
		[
			'maxAmount',
			1500,
			checked(1500.01),
			"KES 1,500.01 is above the maximum of KES 1,500 per payout (set on this node's Spending Limits)",
		],
		['maxAmount', 1500, checked(1500), undefined],
		// Nine payouts of 100.10 added as floats: 900.9000000000001.
		['maxTotalPerExecution', 1001, checked(100.1, 100.1 * 9), undefined],
		[
			'maxTotalPerExecution',
			1001,
			checked(100.11, 100.1 * 9),
			"KES 100.11 would bring the total of this execution to KES 1,001.01, above the maximum of KES 1,001 (set on this node's Spending Limits; KES 900.9 already moved)",
		],
		[
			'maxCountPerExecution',
			2,
			checked(100, 0, 2),
			"This would be money move 3 in this execution; at most 2 are allowed (set on this node's Spending Limits)",
		],
		[
			'allowedCurrencies',
			['KES'],
			checked(100, 0, 0, { currency: 'UGX' }),
			"UGX is not an allowed currency for this payout (allowed by this node's Spending Limits: KES)",
		],
		[
			'allowedNetworks',
			['MPESA'],
			checked(100, 0, 0, { network: 'AIRTEL' }),
			"AIRTEL is not an allowed network for this payout (allowed by this node's Spending Limits: MPESA)",
		],
		[
			'allowedRecipients',
			['2547123456*'],
			checked(100, 0, 0, { recipient: '254799999670' }),
			"254799999670 is not on the list of recipients this payout may go to (set on this node's Spending Limits)",
		],
	])('%s %p', (name, value, given, expected) => {
		expect(safely(() => refusal(name, value, given))).toEqual(expected);
	});

	it('a refund of what is left after float refunds is allowed; a cent more is refused with the amount left', () => {
		const refund = (amount: number, refundable: number) =>
			safely(() => {
				checkRefundable(node, 0, move(amount, { kind: 'refund', paymentId: 'pay1', refundable }));
				return undefined;
			});
		// 1000 paid, 999.9 refunded: 0.10000000000002274 left as floats.
		expect(refund(0.1, 1000 - 999.9)).toBeUndefined();
		expect(refund(0.11, 1000 - 999.9)).toBe(
			'Row 1: KES 0.11 is more than the KES 0.1 still refundable on payment pay1 (paid less already refunded)',
		);
	});
});

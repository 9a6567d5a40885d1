// Validators under fuzzing: every value either passes and comes back normalised, or fails its item
// with a clear error naming the item and field and saying how to fix it; card numbers never appear in
// an error. Moved from bench/reliability.ts, which keeps the fault runs and their figures.
import fc from 'fast-check';
import { NodeOperationError } from 'n8n-workflow';
import type { INode } from 'n8n-workflow';

import { atItem, invalidInput } from '../../nodes/LittlePay/errors';
import {
	cardBrand,
	maskCardNumber,
	passesLuhn,
	validateCard,
} from '../../nodes/LittlePay/helpers/card';
import {
	NETWORK_COUNTRY_CODES,
	normalizeMobileNumber,
	requireText,
	validateAmount,
	validateKey,
	validateUrl,
} from '../../nodes/LittlePay/helpers/validation';
import type { MobileNetwork } from '../../nodes/LittlePay/helpers/validation';
import { deterministicKey } from '../../nodes/LittlePay/money/keys';

const FUZZ_CASES = 2000;

const NODE = {
	id: 'fuzz',
	name: 'Little Pay',
	type: 'n8n-nodes-littlepay.littlePay',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
} as INode;

/**
 * Checks a validator on FUZZ_CASES values: each returns what `verify` accepts, or throws a clear
 * NodeOperationError naming the item and one of `fields` with a description that says how to fix it.
 */
function fuzz<T>(
	name: string,
	arbitrary: fc.Arbitrary<T>,
	call: (value: T, itemIndex: number) => unknown,
	fields: string[],
	verify: (value: T, returned: unknown) => boolean = () => true,
	errorOk: (value: T, error: NodeOperationError) => boolean = () => true,
): void {
	const failures: string[] = [];
	const check = () =>
		fc.assert(
			fc.property(arbitrary, fc.nat(999), (value, itemIndex) => {
				try {
					const returned = call(value, itemIndex);
					if (!verify(value, returned))
						failures.push(`returned ${JSON.stringify(returned)} for ${JSON.stringify(value)}`);
				} catch (error) {
					const clear =
						error instanceof NodeOperationError &&
						fields.some((f) => error.message.startsWith(`Row ${itemIndex + 1}: ${f} `)) &&
						typeof error.description === 'string' &&
						error.description !== '' &&
						errorOk(value, error);
					if (!clear)
						failures.push(
							`${error instanceof Error ? `${error.name}: ${error.message}` : String(error)} for ${JSON.stringify(value)}`,
						);
				}
			}),
			{ numRuns: FUZZ_CASES, seed: 20261122 },
		);
	it(`${name}: no bad case in ${FUZZ_CASES} values`, () => {
		check();
		expect(failures.slice(0, 3)).toEqual([]);
	});
}

describe('validators under fuzzing (from bench/reliability.ts: checks that assert, not time)', () => {
	const anyValue = fc.oneof(
		fc.jsonValue(),
		fc.constant(undefined),
		fc.double(),
		fc.string(),
		fc.constantFrom('1e3', ' 12 ', '0x10', 'Infinity', '-0', 'NaN', '', '  '),
	);
	const anyText = fc.oneof(
		fc.string(),
		fc.string({ unit: 'binary' }),
		fc.stringMatching(/^[A-Za-z0-9]{0,70}$/),
	);
	const phone = fc.oneof(
		fc.stringMatching(/^[+]?[0-9 ().-]{0,20}$/),
		fc.string(),
		fc.constantFrom('+254 712 345 678', '0712345678', '254712345678', '+256712345678'),
	);
	const networks: MobileNetwork[] = ['MPESA', 'AIRTEL', 'MTN', 'TIGOPESA'];
	const country = fc.oneof(fc.constantFrom('KE', 'TZ', 'UG', 'GH', 'RW'), fc.string());
	const digitsOnly = (s: unknown) => typeof s === 'string' && /^\d{12}$/.test(s);

	fuzz(
		'validateAmount',
		anyValue,
		(v, i) => atItem(NODE, i, () => validateAmount(v)),
		['Amount'],
		(_, r) => typeof r === 'number' && Number.isFinite(r) && r > 0,
	);
	// Only plain decimal digits pass, read as written, with at most the currency's decimals.
	fuzz(
		'validateAmount_in_a_currency',
		fc.record({
			value: fc.oneof(
				anyValue,
				fc.stringMatching(/^[ +-]?[0-9.,eEx ]{0,10}$/),
				fc.double({ min: 0, max: 1e6, noNaN: true }),
			),
			currency: fc.constantFrom('KES', 'UGX', 'TZS', 'RWF', 'GHS'),
		}),
		(v, i) => atItem(NODE, i, () => validateAmount(v.value, 'Amount', v.currency)),
		['Amount'],
		(v, r) => {
			if (typeof r !== 'number' || !(r > 0)) return false;
			const decimals = (String(r).split('.')[1] ?? '').length;
			if (decimals > (['UGX', 'RWF'].includes(v.currency) ? 0 : 2)) return false;
			if (typeof v.value === 'number') return r === v.value;
			return (
				typeof v.value === 'string' &&
				/^\+?(\d+\.?\d*|\.\d+)$/.test(v.value.trim()) &&
				r === Number(v.value)
			);
		},
	);
	fuzz(
		'validateKey',
		anyText,
		(v, i) => atItem(NODE, i, () => validateKey(v)),
		['Key'],
		(v, r) => r === v && /^[A-Za-z0-9]{1,64}$/.test(v),
	);
	fuzz(
		'validateUrl',
		fc.oneof(anyText, fc.webUrl()),
		(v, i) => atItem(NODE, i, () => validateUrl(v, 'Callback URL')),
		['Callback URL'],
		(v) => /^https?:$/.test(new URL(v).protocol),
	);
	fuzz(
		'requireText',
		anyValue,
		(v, i) => atItem(NODE, i, () => requireText(v, 'Description')),
		['Description'],
		(_, r) => typeof r === 'string' && r !== '' && r === r.trim(),
	);
	fuzz(
		'normalizeMobileNumber',
		fc.record({ raw: phone, network: fc.constantFrom(...networks), country }),
		(v, i) => atItem(NODE, i, () => normalizeMobileNumber(v.raw, v.network, v.country)),
		['Mobile Number', 'Country'],
		(v, r) =>
			digitsOnly(r) && NETWORK_COUNTRY_CODES[v.network].some((c) => String(r).startsWith(c)),
	);
	// The network reaches the validator from the node's Network parameter, which an expression can set to anything.
	fuzz(
		'normalizeMobileNumber_any_network',
		fc.record({
			raw: phone,
			network: fc.oneof(
				fc.constantFrom(...networks),
				fc.constantFrom('mpesa', 'Mpesa', 'MPESA ', 'toString', '__proto__'),
				fc.string(),
			),
			country,
		}),
		(v, i) =>
			atItem(NODE, i, () => normalizeMobileNumber(v.raw, v.network as MobileNetwork, v.country)),
		['Mobile Number', 'Country', 'Network'],
		(v, r) => digitsOnly(r),
	);
	const cardNumber = fc.oneof(
		fc.stringMatching(/^[0-9 -]{0,24}$/),
		fc.constantFrom(
			'4111111111111111',
			'4111 1111 1111 1111',
			'5200000000002151',
			'4111111111111112',
		),
		anyValue,
	);
	const card = fc.record({
		number: cardNumber,
		cvv: fc.oneof(fc.stringMatching(/^\s?[0-9]{0,5}\s?$/), anyValue),
		expiry: fc.oneof(
			fc.stringMatching(/^[0-9]{1,2} ?\/ ?[0-9]{1,3}$/),
			fc.constantFrom('01/39', '12/25', '13/30', '00/30'),
			anyValue,
		),
		name: fc.oneof(fc.constant('Amina Wanjiru'), anyValue),
	});
	fuzz(
		'validateCard',
		card,
		(v, i) => validateCard(NODE, i, v, new Date('2026-11-22T00:00:00Z')),
		['Card Number', 'CVV', 'Expiry', 'Cardholder Name'],
		(_, r) => {
			const d = r as { cc_number: string; cc_cvv: string; cc_exp: string };
			return (
				/^\d{12,19}$/.test(d.cc_number) &&
				passesLuhn(d.cc_number) &&
				/^\d{3,4}$/.test(d.cc_cvv) &&
				/^(0[1-9]|1[0-2])\/\d{2}$/.test(d.cc_exp)
			);
		},
		// Errors end up in execution logs: they must not repeat a card number.
		(v, error) => {
			const digits = String(v.number ?? '').replace(/\D/g, '');
			return (
				digits.length < 12 ||
				!`${error.message} ${error.description ?? ''}`.replace(/\D/g, '').includes(digits)
			);
		},
	);
	fuzz(
		'passesLuhn',
		fc.oneof(fc.stringMatching(/^[0-9]{0,25}$/), fc.string()),
		(v) => passesLuhn(v),
		[],
		(_, r) => typeof r === 'boolean',
	);
	fuzz(
		'cardBrand',
		fc.string(),
		(v) => cardBrand(v),
		[],
		(_, r) => ['VISA', 'MASTERCARD', 'AMEX', 'CARD'].includes(String(r)),
	);
	fuzz(
		'maskCardNumber',
		fc.stringMatching(/^[0-9]{0,19}$/),
		(v) => maskCardNumber(v),
		[],
		(v, r) =>
			typeof r === 'string' && r.length === v.length && r.replace(/\*/g, '') === v.slice(-4),
	);
	fuzz(
		'deterministicKey',
		fc.tuple(fc.string(), fc.string(), fc.nat(), fc.nat(), fc.string()),
		([t, n, r, i, o]) => deterministicKey(t, n, r, i, o),
		[],
		(_, r) => /^[0-9a-f]{12}$/.test(String(r)) && validateKey(String(r)) === r,
	);
	fuzz(
		'invalidInput',
		fc.tuple(fc.string(), fc.string(), fc.string()),
		([field, problem, fix], i) => invalidInput(NODE, i, 'Field', `${field}${problem}`, fix || 'x'),
		['Field'],
		() => false,
	);
});

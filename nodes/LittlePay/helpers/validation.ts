import { invalid, InvalidValue } from '../errors';
import { decimalsProblem, isAmountProblem, readPlainAmount } from './amounts';
import { COUNTRIES, countryOfCallingCode } from './lists';

// Pure checks of one value: each returns the value normalised, or what is wrong with it (errors.ts
// `invalid`: the field, the problem and the fix); the item scope (item.ts) fails the item with it.

/** The billing address fields Little Pay takes in an intent's payload and sends back in its callbacks. */
export const BILLING_ADDRESS_FIELDS = [
	'firstName',
	'lastName',
	'address1',
	'locality',
	'administrativeArea',
	'postalCode',
	'country',
	'email',
	'phoneNumber',
] as const;

/** The billing address fields an intent's Options offer (the phone number has a field of its own). */
export const BILLING_OPTION_NAMES = BILLING_ADDRESS_FIELDS.filter((name) => name !== 'phoneNumber');

export type MobileNetwork = 'MPESA' | 'AIRTEL' | 'MTN' | 'TIGOPESA';

/** Country calling codes each network operates in (Little Pay wants digits with the country code). */
export const NETWORK_COUNTRY_CODES: Record<MobileNetwork, string[]> = {
	MPESA: ['254', '255'],
	AIRTEL: ['254', '255', '256'],
	MTN: ['256', '233', '250'],
	TIGOPESA: ['255'],
};

/** Checks a mobile money network (as an expression may give it: any case, spaces) and returns Little Pay's name. */
export function validateNetwork(value: unknown, field = 'Network'): MobileNetwork | InvalidValue {
	const network = String(value ?? '')
		.trim()
		.toUpperCase();
	if (!Object.prototype.hasOwnProperty.call(NETWORK_COUNTRY_CODES, network)) {
		return invalid(
			field,
			`is not one of ${Object.keys(NETWORK_COUNTRY_CODES).join(', ')} (got ${JSON.stringify(value)})`,
			'Pick the network from the list, or map a value such as MPESA',
		);
	}
	return network as MobileNetwork;
}

/** Calling code by ISO country, for numbers typed in national form (0712...). */
export const COUNTRY_CALLING_CODES: Record<string, string> = {
	KE: '254',
	TZ: '255',
	UG: '256',
	GH: '233',
	RW: '250',
};

/** The longest expiry the node sends: 30 days, in minutes (the sandbox refuses longer ones too). */
export const MAX_EXPIRES_IN_MINUTES = 43200;

/** Checks an intent expiry: whole minutes from 1 to 30 days (Little Pay counts expiresAt in minutes). */
export function validateExpiresIn(value: unknown): number | InvalidValue {
	const minutes = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (
		typeof minutes !== 'number' ||
		!Number.isInteger(minutes) ||
		minutes < 1 ||
		minutes > MAX_EXPIRES_IN_MINUTES
	) {
		return invalid(
			'Expires In (Minutes)',
			`must be whole minutes from 1 to ${MAX_EXPIRES_IN_MINUTES} (got ${String(value)})`,
			'Little Pay counts expiresAt in minutes from now, not as a timestamp: e.g. 30 for half an hour, 1440 for a day',
		);
	}
	return minutes;
}

/**
 * Checks an amount written in plain decimal digits ("1500", "12.500" is 12.5) and returns it; any other
 * notation ("0x3E8", "1e3", "1,500") is refused saying what is wrong with that value. With a currency,
 * the amount has at most its decimals (KES 2, UGX none); without one, at most 2.
 */
export function validateAmount(
	value: unknown,
	field = 'Amount',
	currency?: string,
): number | InvalidValue {
	// 0 is the Amount field's default: the field was left as it came, not given a wrong amount.
	if (value === 0 && !Object.is(value, -0) && field === 'Amount') {
		return invalid(
			field,
			"is 0 (the field's default): enter the amount",
			"Enter the amount in the currency's main unit, e.g. 1500 for KES 1,500 (not cents), or map it from your data",
		);
	}
	const read = readPlainAmount(value);
	if (isAmountProblem(read)) return invalid(field, read.problem, read.fix);
	const shown = typeof value === 'string' ? JSON.stringify(value) : read.digits;
	if (read.value === 0)
		return invalid(
			field,
			`is 0 (got ${JSON.stringify(value)}): enter the amount`,
			"Enter the amount in the currency's main unit, e.g. 1500 for KES 1,500",
		);
	const decimals = decimalsProblem(read, currency ?? 'KES', shown);
	if (decimals) {
		if (currency !== undefined) return invalid(field, decimals.problem, decimals.fix);
		return invalid(
			field,
			`${shown} has ${read.decimals} decimals: an amount takes at most 2`,
			decimals.fix,
		);
	}
	return read.value;
}

/**
 * Checks that a currency is the one a wallet holds: the currency of the number's country (a Kenyan
 * number on M-Pesa is paid in KES; UGX to it is refused before anything is sent).
 */
export function validateCurrencyFor(
	currency: string,
	number: string,
	network: string,
	field = 'Currency',
	numberField = 'Destination Number',
): string | InvalidValue {
	const country = COUNTRIES.find((c) => number.startsWith(c.callingCode));
	if (!country) {
		return invalid(
			numberField,
			'is not a number of a country Little Pay serves',
			'Type it with its country code, e.g. 254712345678',
		);
	}
	if (currency === country.currency) return currency;
	return invalid(
		field,
		`${currency} is not the currency of the ${numberField}'s wallet: a ${country.adjective} number (${country.callingCode}) on ${network} holds ${country.currency}`,
		`Pick ${country.currency}, or check the number and the network if this one is for another country`,
	);
}

/** Checks a merchant key: alphanumeric only, as Little Pay requires. */
export function validateKey(
	value: string,
	field = 'Key',
	fix = 'Use 8-12 letters and digits, e.g. order12345, or leave it empty to generate one',
): string | InvalidValue {
	// Say what this key has that Little Pay refuses: the characters themselves, or its length.
	const others = [...new Set(value.replace(/[A-Za-z0-9]/g, ''))];
	if (others.length > 0) {
		const named = others.map((c) => (/\s/.test(c) ? 'a space' : `"${c}"`));
		return invalid(
			field,
			`must contain only letters and digits: ${JSON.stringify(value)} has ${named.slice(0, 5).join(', ')}${named.length > 5 ? ', ...' : ''}`,
			fix,
		);
	}
	if (value.length === 0 || value.length > 64) {
		return invalid(
			field,
			value.length === 0 ? 'is empty' : `is ${value.length} characters long: at most 64`,
			fix,
		);
	}
	return value;
}

/**
 * Whether a value can name one payment or payout in a path: letters, digits and `_ . : -`, with at
 * least one letter or digit. `.` and `..` would address another path than the record's own.
 */
export function namesOneRecord(value: string): boolean {
	return /^[A-Za-z0-9_.:-]+$/.test(value) && /[A-Za-z0-9]/.test(value);
}

/** Checks a reference, key or id that a request names a payment or payout by. */
export function validateRecordId(value: string, field: string): string | InvalidValue {
	if (namesOneRecord(value)) return value;
	return invalid(
		field,
		`cannot name a payment or payout: ${JSON.stringify(value)} must be letters and digits (and _ . : -)`,
		'Map the reference, key or id a Little Pay node returned, e.g. {{ $json.reference }}',
	);
}

/** Checks a currency code (an expression may give "kes") and returns it upper-case. */
export function validateCurrency(value: unknown): string | InvalidValue {
	const code = String(value ?? '')
		.trim()
		.toUpperCase();
	if (!/^[A-Z]{3}$/.test(code)) {
		return invalid(
			'Currency',
			`is not a three-letter currency code (got ${JSON.stringify(value)})`,
			'Pick the currency from the list, or map a code such as KES',
		);
	}
	return code;
}

/** Checks an http(s) URL. */
export function validateUrl(value: string, field: string): string | InvalidValue {
	let url: URL | undefined;
	try {
		url = new URL(value);
	} catch {
		url = undefined;
	}
	if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
		return invalid(
			field,
			`is not an http(s) URL (got ${JSON.stringify(value)})`,
			'Enter a full address such as https://example.com/callback',
		);
	}
	return value;
}

/** Checks a required non-empty text field. */
export function requireText(value: unknown, field: string): string | InvalidValue {
	if (typeof value !== 'string' || value.trim() === '') {
		return invalid(field, 'is required', `Enter a value for ${field}`);
	}
	return value.trim();
}

/**
 * Normalises a payer or payee number to Little Pay's form (country code + 9 digits, no +) and
 * refuses numbers that cannot belong to the network's countries, before any money moves.
 */
export function normalizeMobileNumber(
	raw: unknown,
	network: unknown,
	country: string,
	field = 'Mobile Number',
): string | InvalidValue {
	const valid = validateNetwork(network);
	if (valid instanceof InvalidValue) return valid;
	const countryCodes = NETWORK_COUNTRY_CODES[valid];
	const trimmed = String(raw ?? '').trim();
	if (!/^\+?[\d\s().-]+$/.test(trimmed)) {
		return invalid(
			field,
			`is not a phone number (got ${JSON.stringify(raw)})`,
			'Type it as +254712345678, 254712345678 or 0712345678',
		);
	}
	let digits = trimmed.replace(/\D/g, '');
	if (digits.startsWith('0')) {
		const code = COUNTRY_CALLING_CODES[country];
		if (!code)
			return invalid('Country', `is not supported (got ${country})`, 'Pick the payer country');
		digits = code + digits.slice(1);
		// A national number is read in the Country field's country: say so, it is what is wrong.
		const read = countryOfCallingCode(code);
		if (read && !countryCodes.includes(code)) {
			const served = countryCodes.map((c) => countryOfCallingCode(c)?.name ?? c);
			return invalid(
				field,
				`is read as a ${read.adjective} number (Country ${country}), and ${valid} serves only ${served.slice(0, -1).join(', ')}${served.length > 1 ? ' and ' : ''}${served[served.length - 1]}`,
				"Set Country to the number's own country, or type it with its country code (+254...)",
			);
		}
	}
	const code = countryCodes.find((c) => digits.startsWith(c));
	if (!code) {
		return invalid(
			field,
			`does not start with a country code that ${network} serves (${countryCodes.slice(0, -1).join(', ')}${countryCodes.length > 1 ? ' or ' : ''}${countryCodes[countryCodes.length - 1]})`,
			`Check the number, or pick the network this number belongs to`,
		);
	}
	if (digits.length !== code.length + 9) {
		return invalid(
			field,
			`must have 9 digits after the country code ${code} (got ${digits.length - code.length})`,
			'Check the number for missing or extra digits',
		);
	}
	return digits;
}

// Whether a payout went to the expected wallet is helpers/numbers.ts; Pay Out's duplicate check reads it here.
export { compareNumbers, sameNumber } from './numbers';
export type { NumberMatch } from './numbers';

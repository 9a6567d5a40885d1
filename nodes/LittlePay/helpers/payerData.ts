import { createHmac } from 'node:crypto';

/**
 * What the package puts in its outputs about payers and payees, set once on the API key credential:
 * `full` (as Little Pay gives it), `masked` (numbers as 2547•••••670, e-mails as a•••@example.com,
 * names to the first name, street and postal code left out) or `omitted` (all of these left out).
 * Data minimisation at the source: what a step never outputs, n8n never stores.
 */
export type PayerDetails = 'full' | 'masked' | 'omitted';

/** What a credential saved before the setting existed reads as: n8n fills a missing field with its default. */
export const DEFAULT_PAYER_DETAILS: PayerDetails = 'masked';

const MASK = '•';

/** The setting from a credential's value; anything else (unset, an old credential) is the default. */
export function payerDetailsOf(value: unknown): PayerDetails {
	return value === 'full' || value === 'omitted' || value === 'masked'
		? value
		: DEFAULT_PAYER_DETAILS;
}

/** A phone number with its middle digits hidden: the first four and the last three stay (2547•••••670). */
export function maskNumber(value: string): string {
	const digits = value.replace(/\D/g, '').length;
	if (digits === 0) return value;
	const keepStart = digits >= 10 ? 4 : Math.max(0, digits - 6);
	const keepEnd = Math.min(3, digits);
	let seen = 0;
	return value.replace(/\d/g, (digit) => {
		seen++;
		return seen <= keepStart || seen > digits - keepEnd ? digit : MASK;
	});
}

/** An e-mail address with all but the first letter of its name hidden (a•••@example.com). */
export function maskEmail(value: string): string {
	const at = value.lastIndexOf('@');
	if (at < 1) return `${MASK}${MASK}${MASK}`;
	return `${value[0]}${MASK}${MASK}${MASK}${value.slice(at)}`;
}

/** A name cut to the first name ("Amina Wanjiru Otieno" -> "Amina"). */
export function firstNameOf(value: string): string {
	return value.trim().split(/\s+/)[0] ?? '';
}

// Numbers of 9 to 15 digits (an optional "+", single spaces between groups) standing alone in free
// text that start as a phone number does (+, a national 0, or an African country code's 2), and e-mail
// addresses: what a message or a reason could repeat of a payer. Not a range of amounts
// ("100-500000"), a Unix timestamp (1795766331) nor digits inside a reference or a key.
const NUMBER_IN_TEXT = /(?<![\w.+-])(?:\+\d|[02])(?:[ ]?\d){8,14}(?![\w-])/g;
const EMAIL_IN_TEXT = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;

/** Free text (an error, a reason) with the numbers and e-mail addresses in it masked or left out. */
export function protectText(text: string, mode: PayerDetails): string {
	if (mode === 'full') return text;
	const hidden = `${MASK}${MASK}${MASK}`;
	return text
		.replace(EMAIL_IN_TEXT, (email) => (mode === 'masked' ? maskEmail(email) : hidden))
		.replace(NUMBER_IN_TEXT, (number) => (mode === 'masked' ? maskNumber(number) : hidden));
}

/** Fields that hold a payer's or payee's number, wherever they sit in an output. */
const NUMBER_FIELDS = new Set([
	'to',
	'expectedTo',
	'mobile',
	'phoneNumber',
	'phone',
	'msisdn',
	'recipient',
]);
/** Fields that hold an e-mail address. */
const EMAIL_FIELDS = new Set(['email']);
/** Fields a masked output keeps only as the first name. */
const FIRST_NAME_FIELDS = new Set(['firstName', 'cc_name', 'cardholderName']);
/** Fields that identify a person beyond the first name and the town: left out unless full. */
const IDENTIFYING_FIELDS = new Set(['lastName', 'address1', 'address2', 'postalCode']);
/** Free-text fields that may repeat a number or an e-mail address (messages, reasons, errors). */
const TEXT_FIELDS = new Set([
	'error',
	'description',
	'message',
	'reason',
	'nextStep',
	'likelyCause',
	'whatToDo',
]);

function protectField(name: string, value: unknown, mode: PayerDetails): unknown {
	if (typeof value !== 'string' || value === '') return protect(value, mode);
	if (NUMBER_FIELDS.has(name)) return mode === 'masked' ? maskNumber(value) : null;
	if (EMAIL_FIELDS.has(name)) return mode === 'masked' ? maskEmail(value) : null;
	if (FIRST_NAME_FIELDS.has(name)) return mode === 'masked' ? firstNameOf(value) : null;
	if (IDENTIFYING_FIELDS.has(name)) return null;
	if (TEXT_FIELDS.has(name)) return protectText(value, mode);
	return value;
}

function protect(value: unknown, mode: PayerDetails): unknown {
	if (Array.isArray(value)) return value.map((entry) => protect(entry, mode));
	if (typeof value !== 'object' || value === null) return value;
	const out: Record<string, unknown> = {};
	for (const [name, field] of Object.entries(value)) out[name] = protectField(name, field, mode);
	return out;
}

/**
 * An output with every field that carries a payer's or payee's number, name, e-mail or address
 * treated as `mode` says, at any depth (a status record's payload.billingAddress, a payout's
 * details.to, a callback's raw body), and numbers and e-mails inside messages and errors too.
 * Keys, references, amounts and statuses are never touched. A copy; the input is left as it is.
 */
export function protectPayerData<T>(value: T, mode: PayerDetails): T {
	return mode === 'full' ? value : (protect(value, mode) as T);
}

/** The one value a payer or payee is matched on: a number's digits, or an e-mail in lower case. */
export function contactKey(contact: string): string {
	const text = contact.trim();
	return text.includes('@') ? text.toLowerCase() : text.replace(/\D/g, '');
}

/**
 * The keyed hash a workflow matches a payer or payee on without the number: hex HMAC-SHA256 of
 * contactKey(contact) with the credential's secret. The same number gives the same hash in every
 * output, with or without "+"; without the secret nobody can turn it back into the number.
 */
export function contactHash(contact: string, secret: string): string {
	return createHmac('sha256', secret).update(contactKey(contact)).digest('hex');
}

function textAt(value: unknown, ...path: string[]): string | undefined {
	let at: unknown = value;
	for (const step of path) {
		if (typeof at !== 'object' || at === null) return undefined;
		at = (at as Record<string, unknown>)[step];
	}
	return typeof at === 'string' && at.trim() !== '' ? at : undefined;
}

/**
 * The payer's or payee's contact an output row is about, before it is masked: a payout's `to`, a
 * prompt's `mobile`, a billing address's phone number, else its e-mail.
 */
export function contactOf(row: Record<string, unknown>): string | undefined {
	return (
		textAt(row, 'to') ??
		textAt(row, 'mobile') ??
		textAt(row, 'billingAddress', 'phoneNumber') ??
		textAt(row, 'payload', 'billingAddress', 'phoneNumber') ??
		textAt(row, 'payment', 'details', 'mobile') ??
		textAt(row, 'billingAddress', 'email') ??
		textAt(row, 'payload', 'billingAddress', 'email')
	);
}

/** The credential's setting as outputs use it: the mode, and the secret of contactHash ('' = none). */
export interface PayerSettings {
	mode: PayerDetails;
	secret: string;
}

/**
 * One output row as it leaves the package: `contactHash` (when the credential holds a secret and the
 * row is about a payer or payee), then every payer detail treated as the setting says.
 */
export function protectRow(
	row: Record<string, unknown>,
	settings: PayerSettings,
): Record<string, unknown> {
	const contact = settings.secret !== '' ? contactOf(row) : undefined;
	const out = protectPayerData(row, settings.mode);
	if (contact !== undefined) out.contactHash = contactHash(contact, settings.secret);
	return out;
}

import { createHmac } from 'node:crypto';

import type { CardValues } from './card';
import {
	ALREADY_MASKED,
	HIDDEN,
	firstNameOf,
	maskEmail,
	maskNumber,
	phoneLikeNumber,
	protectText,
	scrubCards,
} from './payerText';
import type { Pass, PayerDetails } from './payerText';

// The Payer Details setting: what each output field gets (protectOutput), and the keyed contact hash.

export type { PayerDetails } from './payerText';

/** What a credential saved before the setting existed reads as: n8n fills a missing field with its default. */
export const DEFAULT_PAYER_DETAILS: PayerDetails = 'masked';

/** The setting from a credential's value; anything else (unset, an old credential) is the default. */
export function payerDetailsOf(value: unknown): PayerDetails {
	return value === 'full' || value === 'omitted' || value === 'masked'
		? value
		: DEFAULT_PAYER_DETAILS;
}

/** The credential's setting as outputs use it: the mode, and the secret of contactHash ('' = none). */
export interface PayerSettings {
	mode: PayerDetails;
	secret: string;
	/** A number shows only its last three digits (•••••••••670): an AI tool's answers. */
	lastDigits?: boolean;
}

/**
 * The setting an AI tool's answer leaves with: at least Masked, and numbers to their last three
 * digits, as the payment world asks of an agent's answers (the model, its logs and the chat user).
 */
export function toolAnswerSettings(settings: PayerSettings): PayerSettings {
	return {
		...settings,
		mode: settings.mode === 'omitted' ? 'omitted' : 'masked',
		lastDigits: true,
	};
}

/** How a field is treated, from its name (case, spaces and underscores aside). */
type FieldKind = 'number' | 'email' | 'name' | 'identifying' | 'identifier' | 'quantity' | 'text';

const NUMBER_NAMES =
	/^(to|expectedto|recipient|tel|telephone|cell|cellphone)$|phone|mobile|msisdn|whatsapp/;
const EMAIL_NAMES = /email|^mail$/;
// A person's name: masked to the first name. A plain `name` is a person's (a sheet's Name column, the
// card's name) except a network's in the charges table.
const NAME_NAMES =
	/^(name|firstname|givenname|fullname|ccname|cardholder|cardholdername|holdername|payername|payeename|customername|recipientname|accountname|accountholder|contactname|employeename|beneficiaryname)$/;
const IDENTIFYING_NAMES =
	/^(lastname|surname|familyname|middlename|othernames|secondname|address|address1|address2|addressline1|addressline2|street|streetaddress|postalcode|postcode|zip|zipcode|nationalid|idnumber|passportnumber)$/;
// Values that identify a record, not a person, and are matched on as they are: never changed.
const IDENTIFIER_NAMES =
	/^(id|key|reference|ref|contacthash|token|jwt)$|(Id|Key|Reference|Hash|Token)$/;
// Numbers that count money, time or rows: a number field there is never a phone number.
const QUANTITY_NAMES =
	/amount|fee|total|^count|count$|charge|balance|seconds?$|minutes?$|hours?$|index$|^row$|attempt|timestamp|time$|limit|^min|^max|size$|version/;

function kindOf(name: string | undefined, parent: string | undefined): FieldKind {
	if (name === undefined) return 'text';
	const plain = name.toLowerCase().replace(/[^a-z0-9]/g, '');
	if (IDENTIFYING_NAMES.test(plain)) return 'identifying';
	if (NUMBER_NAMES.test(plain)) return 'number';
	if (EMAIL_NAMES.test(plain)) return 'email';
	if (NAME_NAMES.test(plain) && !(plain === 'name' && parent === 'networks')) return 'name';
	if (IDENTIFIER_NAMES.test(name) || IDENTIFIER_NAMES.test(plain)) return 'identifier';
	if (QUANTITY_NAMES.test(plain) || /At$/.test(name)) return 'quantity';
	return 'text';
}

// What n8n-core stores of an error is `{...error, message, stack}`: every own field. These describe
// the node and the error's kind, not the payer, and n8n reads them back (the node's name, the level).
const ERROR_FIELDS_KEPT = new Set([
	'node',
	'name',
	'level',
	'tags',
	'timestamp',
	'functionality',
	'httpCode',
	'lineNumber',
	'shouldReport',
	'failure',
]);

/** Numbers and names of an output (and of the input row it answers), to be found in its texts. */
function collectKnown(
	value: unknown,
	mode: PayerDetails,
	numbers: Set<string>,
	names: Set<string>,
	name?: string,
	parent?: string,
	seen = new Set<unknown>(),
): void {
	if (typeof value === 'object' && value !== null) {
		if (seen.has(value)) return;
		seen.add(value);
		const entries = Array.isArray(value)
			? value.map((entry) => [name, entry] as const)
			: Object.entries(value).filter(
					([field]) => !(value instanceof Error && ERROR_FIELDS_KEPT.has(field)),
				);
		for (const [field, entry] of entries)
			collectKnown(entry, mode, numbers, names, field, Array.isArray(value) ? parent : name, seen);
		return;
	}
	if (typeof value !== 'string' && typeof value !== 'number') return;
	const kind = kindOf(name, parent);
	const text = String(value);
	if (kind === 'number' && !ALREADY_MASKED.test(text)) {
		const digits = text.replace(/\D/g, '');
		if (digits.length >= 9) numbers.add(digits.slice(-9));
	}
	if (kind === 'name' || kind === 'identifying') {
		if (!/^[\p{L}' .-]+$/u.test(text)) return;
		const words = text.trim().split(/\s+/);
		// Masked keeps the first name of a name field; a surname field is left out whole.
		const hidden = kind === 'name' && mode === 'masked' ? words.slice(1) : words;
		for (const word of hidden) if (word.length >= 3) names.add(word);
	}
}

function newPass(
	mode: PayerDetails,
	cards: CardValues[],
	sources: unknown[],
	lastDigits = false,
): Pass {
	const knownNumbers = new Set<string>();
	const names = new Set<string>();
	if (mode !== 'full')
		for (const source of sources) collectKnown(source, mode, knownNumbers, names);
	const knownNames = new Set([...names].map((name) => name.toLowerCase()));
	return { mode, lastDigits, cards, knownNumbers, knownNames };
}

function protectString(value: string, kind: FieldKind, pass: Pass): unknown {
	if (kind === 'identifier') return value;
	if (pass.mode === 'full' || value === '') return protectText(value, pass);
	switch (kind) {
		case 'number':
			if (!/\d/.test(value)) return protectText(value, pass);
			return pass.mode === 'masked' ? maskNumber(scrubCards(value, pass), pass.lastDigits) : null;
		case 'email':
			if (!value.includes('@')) return protectText(value, pass);
			return pass.mode === 'masked' ? maskEmail(value) : null;
		case 'name':
			return pass.mode === 'masked' ? firstNameOf(protectText(value, pass)) : null;
		case 'identifying':
			return null;
		default:
			return protectText(value, pass);
	}
}

function protectNumber(value: number, kind: FieldKind, pass: Pass): unknown {
	if (pass.mode === 'full' || kind === 'identifier' || kind === 'quantity') return value;
	if (kind === 'identifying') return null;
	if (kind !== 'number' && !phoneLikeNumber(value)) return value;
	if (pass.mode === 'omitted') return kind === 'number' ? null : HIDDEN;
	return maskNumber(String(value), pass.lastDigits);
}

function protectValue(
	name: string | undefined,
	value: unknown,
	pass: Pass,
	parent?: string,
): unknown {
	const kind = kindOf(name, parent);
	if (typeof value === 'string') return protectString(value, kind, pass);
	if (typeof value === 'number') return protectNumber(value, kind, pass);
	// Strings inside arrays are treated as their field's: `mismatch: ["number … there, … here"]`.
	if (Array.isArray(value)) return value.map((entry) => protectValue(name, entry, pass, parent));
	if (typeof value !== 'object' || value === null) return value;
	const out: Record<string, unknown> = {};
	for (const [field, entry] of Object.entries(value))
		out[field] = protectValue(field, entry, pass, name);
	return out;
}

/** An error protected where it stands (n8n needs the same instance): every field, the stack, the cause. */
function protectError(error: Error, pass: Pass, seen = new Set<Error>()): Error {
	if (seen.has(error)) return error;
	seen.add(error);
	const fields = error as unknown as Record<string, unknown>;
	for (const field of Object.keys(error)) {
		if (!ERROR_FIELDS_KEPT.has(field)) fields[field] = protectValue(field, fields[field], pass);
	}
	error.message = protectText(error.message, pass);
	// The stack's first line is the message as it was when the error was made.
	if (typeof error.stack === 'string') error.stack = protectText(error.stack, pass);
	if (error.cause instanceof Error) protectError(error.cause, pass, seen);
	else if (error.cause !== undefined) error.cause = protectValue('cause', error.cause, pass);
	return error;
}

/** What an output is, besides itself, for the exit: the input row it answers, the card values of its run. */
export interface OutputContext {
	/** The input item this output answers: its numbers and surnames are found in the output's texts. */
	input?: unknown;
	/** The card values the node run handled: removed wherever they show, whatever the setting. */
	cards?: CardValues[];
	/** Whether the output is a row about a payer or payee, which gets contactHash with a Matching Secret. */
	row?: boolean;
}

/**
 * The one function everything the package outputs passes through: an item, an error (changed where
 * it stands, every field n8n stores: message, description, messages, errorResponse, stack, cause), an
 * execution hint, a paused item or a tool's answer. Payer and payee numbers (in any writing, as text
 * or as a number value, at any depth, inside arrays), e-mails, names and addresses are treated as the
 * setting says; card numbers, CVVs and expiries are removed whatever the setting. Keys, references,
 * amounts and statuses are never touched; masking a masked value leaves it as it is. A copy, except
 * for an error; the input is left as it is.
 */
export function protectOutput<T>(
	value: T,
	settings: PayerSettings,
	context: OutputContext = {},
): T {
	const pass = newPass(
		settings.mode,
		context.cards ?? [],
		[value, context.input],
		settings.lastDigits,
	);
	if (value instanceof Error) return protectError(value, pass) as T;
	const out = protectValue(undefined, value, pass);
	if (context.row && settings.secret !== '' && typeof value === 'object' && value !== null) {
		const contact = contactOf(value as Record<string, unknown>);
		if (contact !== undefined)
			(out as Record<string, unknown>).contactHash = contactHash(contact, settings.secret);
	}
	return out as T;
}

/**
 * One row as it leaves a webhook (the trigger, a resumed pause): protectOutput with contactHash, as
 * the action node's exit (flows/output.ts) does for its rows.
 */
export function protectRow(
	row: Record<string, unknown>,
	settings: PayerSettings,
): Record<string, unknown> {
	return protectOutput(row, settings, { row: true });
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
	// A number column (a sheet's) is a contact as much as its text.
	if (typeof at === 'number' && Number.isSafeInteger(at)) return String(at);
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

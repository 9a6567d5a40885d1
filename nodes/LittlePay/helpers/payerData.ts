import { createHmac } from 'node:crypto';

import type { CardValues } from './card';
import { ERROR_FIELDS_KEPT, kindOf, newPass } from './payerFields';
import type { FieldKind } from './payerFields';
import {
	HIDDEN,
	firstNameOf,
	holdsCard,
	holdsKnown,
	maskEmail,
	maskNumber,
	percentDecoded,
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

/**
 * A string as it leaves. A percent-encoded one (%2B254%20712..., a link's query) is read decoded
 * too: when something there must be hidden, it leaves decoded with it hidden (an encoded writing
 * would otherwise slip past every finder); otherwise it leaves as it came.
 */
function protectString(value: string, kind: FieldKind, pass: Pass): unknown {
	const decoded = percentDecoded(value);
	if (decoded !== value) {
		const out = protectDecoded(decoded, kind, pass);
		if (out !== decoded) return out;
	}
	return protectDecoded(value, kind, pass);
}

function protectDecoded(value: string, kind: FieldKind, pass: Pass): unknown {
	// A card value is never kept in part in a key, a token or a reference: the value goes whole.
	// Free text keeps its words around it (•••• 1111).
	if (kind !== 'text' && holdsCard(value, pass)) return HIDDEN;
	if (pass.mode === 'full' || value === '') return scrubCards(value, pass);
	switch (kind) {
		case 'number':
			if (!/\d/.test(value)) return protectText(value, pass);
			return pass.mode === 'masked' ? maskNumber(value, pass.lastDigits) : null;
		case 'email':
			if (!value.includes('@')) return protectText(value, pass);
			return pass.mode === 'masked' ? maskEmail(value) : null;
		case 'name':
			return pass.mode === 'masked' ? firstNameOf(protectText(value, pass)) : null;
		case 'identifying':
			return null;
		case 'identifier':
			return protectText(value, pass, 'value');
		default:
			return protectText(value, pass);
	}
}

/**
 * A number as it leaves. A card value (the run's number or CVV sent back as a number, any Luhn-valid
 * 13-19 digits) is hidden in every field and setting. An amount is kept. Elsewhere, whatever the
 * field is called, a phone field's number, a phone-like number (phoneLikeNumber) or one holding a
 * number the row holds is masked; a fraction never is.
 */
function protectNumber(value: number, kind: FieldKind, pass: Pass): unknown {
	if (holdsCard(value, pass)) return HIDDEN;
	if (pass.mode === 'full' || kind === 'amount') return value;
	if (kind === 'identifying') return null;
	const known = Number.isSafeInteger(value) && holdsKnown(String(value), pass.knownNumbers);
	if (kind !== 'number' && !phoneLikeNumber(value) && !known) return value;
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

/**
 * A field n8n reads back from an error (the node, its parameters) without a card number in it: the
 * same value when none is there, else a copy with each string or number holding one hidden. Only the
 * card number counts here (the run's or any Luhn-valid one): a CVV's three digits would hide an HTTP
 * code or a line number.
 */
function withoutCardNumbers(value: unknown, pass: Pass, seen = new Set<unknown>()): unknown {
	const numbers: Pass = { ...pass, cards: pass.cards.map((card) => ({ number: card.number })) };
	if (typeof value === 'string')
		return holdsCard(value, numbers) || holdsCard(percentDecoded(value), numbers) ? HIDDEN : value;
	if (typeof value === 'number') return holdsCard(value, numbers) ? HIDDEN : value;
	if (typeof value !== 'object' || value === null || seen.has(value)) return value;
	seen.add(value);
	let changed = false;
	const entries = Object.entries(value).map(([field, entry]) => {
		const out = withoutCardNumbers(entry, pass, seen);
		changed ||= out !== entry;
		return [field, out] as const;
	});
	if (!changed) return value;
	return Array.isArray(value) ? entries.map(([, entry]) => entry) : Object.fromEntries(entries);
}

/** An error protected where it stands (n8n needs the same instance): every field, the stack, the cause. */
function protectError(error: Error, pass: Pass, seen = new Set<Error>()): Error {
	if (seen.has(error)) return error;
	seen.add(error);
	const fields = error as unknown as Record<string, unknown>;
	for (const field of Object.keys(error)) {
		fields[field] = ERROR_FIELDS_KEPT.has(field)
			? withoutCardNumbers(fields[field], pass)
			: protectValue(field, fields[field], pass);
	}
	error.message = String(protectString(error.message, 'text', pass));
	// The stack's first line is the message as it was when the error was made.
	if (typeof error.stack === 'string')
		error.stack = String(protectString(error.stack, 'text', pass));
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

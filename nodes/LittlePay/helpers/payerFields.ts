import type { CardValues } from './card';
import { ALREADY_MASKED, percentDecoded, phoneLikeNumber, phoneNumbersIn } from './payerText';
import type { Pass, PayerDetails } from './payerText';

// What the exit knows of an output before it protects it (payerData.ts): what each field is, and the
// payer numbers and names the output and its input row hold, to be found in every value.

/**
 * How a field is treated. Two things never depend on its name. Card values are removed from every
 * value whatever the field and the setting (a key, a token or a reference that holds one is hidden
 * whole). A payer's number is masked wherever it stands: a number the output or the input row it
 * answers holds (collectKnown), in any writing and inside keys too, and any number written alone that
 * plausiblePhone accepts, whatever the column is called, since a merchant's row can name a column
 * anything. What a name adds is only what a declared field is: a phone, e-mail or name field masked
 * whole, a surname or address field left out, an identifier whose other digits are kept as they are
 * (it is matched on), an amount the package's outputs declare, which is money, never a phone number.
 */
export type FieldKind =
	| 'number'
	| 'email'
	| 'name'
	| 'identifying'
	| 'identifier'
	| 'amount'
	| 'text';

const NUMBER_NAMES =
	/^(to|expectedto|recipient|tel|telephone|cell|cellphone)$|phone|mobile|msisdn|whatsapp/;
const EMAIL_NAMES = /email|^mail$/;
// A person's name: masked to the first name. A plain `name` is a person's (a sheet's Name column, the
// card's name) except a network's in the charges table.
const NAME_NAMES =
	/^(name|firstname|givenname|fullname|ccname|cardholder|cardholdername|holdername|payername|payeename|customername|recipientname|accountname|accountholder|contactname|employeename|beneficiaryname)$/;
const IDENTIFYING_NAMES =
	/^(lastname|surname|familyname|middlename|othernames|secondname|address|address1|address2|addressline1|addressline2|street|streetaddress|postalcode|postcode|zip|zipcode|nationalid|idnumber|passportnumber)$/;
// Values that identify a record, not a person, and are matched on as they are: a payer's number or
// e-mail in them is masked all the same, and a card value hides them whole.
const IDENTIFIER_NAMES =
	/^(id|key|reference|ref|contacthash|token|jwt)$|(Id|Key|Reference|Hash|Token)$/;
// The amounts the package's outputs (and the Little Pay records they carry) declare, by their exact
// names: a number there is money, never a phone number, however large (a UGX payroll's 712345678). A
// merchant's column merely named like one ("amountRef", "account", "totalRef") is not one of them.
const AMOUNT_NAMES =
	/^(amount|fee|fees|charge|charges|total|totalamount|totalfees|refundedamount|minimumamount|maximumamount|balance)$/;

/** What a field is, from its name (case, spaces and underscores aside); `parent` is its object's. */
export function kindOf(name: string | undefined, parent: string | undefined): FieldKind {
	if (name === undefined) return 'text';
	const plain = name.toLowerCase().replace(/[^a-z0-9]/g, '');
	if (IDENTIFYING_NAMES.test(plain)) return 'identifying';
	if (NUMBER_NAMES.test(plain)) return 'number';
	if (EMAIL_NAMES.test(plain)) return 'email';
	if (NAME_NAMES.test(plain) && !(plain === 'name' && parent === 'networks')) return 'name';
	if (IDENTIFIER_NAMES.test(name) || IDENTIFIER_NAMES.test(plain)) return 'identifier';
	if (AMOUNT_NAMES.test(plain)) return 'amount';
	return 'text';
}

// What n8n-core stores of an error is `{...error, message, stack}`: every own field. These describe
// the node and the error's kind, not the payer, and n8n reads them back (the node's name, the level).
export const ERROR_FIELDS_KEPT = new Set([
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

/**
 * The payer numbers and names of an output and of the input row it answers, to be found in every
 * value. A merchant's row is open-ended, any column may hold a number whatever it is called, so every
 * string and number is read, not only phone fields: a phone field gives its digits (nine or more),
 * any other field the numbers written alone in it that plausiblePhone accepts (decoded if
 * percent-encoded), a number value when phoneLikeNumber. An amount's number (AMOUNT_NAMES) is money
 * and a fraction is never a phone; digits inside a key ("INV-2026...") are not read as a number.
 */
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
	const kind = kindOf(name, parent);
	if (typeof value === 'number') {
		if (kind === 'amount' || !Number.isSafeInteger(value)) return;
		const digits = String(Math.abs(value));
		if (kind === 'number' ? digits.length >= 9 : phoneLikeNumber(value))
			numbers.add(digits.slice(-9));
		return;
	}
	if (typeof value !== 'string') return;
	const text = percentDecoded(value);
	if (kind === 'number' && !ALREADY_MASKED.test(text)) {
		const digits = text.replace(/\D/g, '');
		if (digits.length >= 9) numbers.add(digits.slice(-9));
	}
	for (const found of phoneNumbersIn(text)) numbers.add(found.replace(/\D/g, '').slice(-9));
	if (kind === 'name' || kind === 'identifying') {
		if (!/^[\p{L}' .-]+$/u.test(text)) return;
		const words = text.trim().split(/\s+/);
		// Masked keeps the first name of a name field; a surname field is left out whole.
		const hidden = kind === 'name' && mode === 'masked' ? words.slice(1) : words;
		for (const word of hidden) if (word.length >= 3) names.add(word);
	}
}

/** One pass of the exit over an output: the setting, the run's cards, what its sources hold. */
export function newPass(
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

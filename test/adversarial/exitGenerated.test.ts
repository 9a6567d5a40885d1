// The exit under generated attack (the red team's findings (a) and (b) on the landed exit): field names,
// writings and places are generated, never listed, so the next writing is not the one a pattern list
// forgot. Card values the run handled leave no output whatever the field or the setting; a payer's
// number leaves no Masked or Omitted output whatever the column it sits in, the writing or the text
// around it; keys, references and amounts a row is matched on come out exactly as they went in.
import fc from 'fast-check';

import { protectOutput } from '../../nodes/LittlePay/helpers/payerData';
import type { OutputContext, PayerDetails } from '../../nodes/LittlePay/helpers/payerData';

const SEED = 20261127;
const RUNS = 400;

// Field names of every kind the old exit read from the name, generated: identifiers (a word and Id,
// Key, Reference, Token...), names that read like quantities (amount, account, count... with a word),
// the amounts the package's outputs declare (a number there is an amount), neutral column names (any
// word that names no person, contact or record), and phone fields.
const word = fc.stringMatching(/^[a-z]{2,7}$/);
const capital = word.map((text) => `${text[0].toUpperCase()}${text.slice(1)}`);
const NOT_NEUTRAL =
	/to|tel|cell|phone|mobile|msisdn|whatsapp|mail|name|holder|address|street|zip|post|surname|id|key|ref|token|hash|jwt|amount|fee|total|charge|balance|recipient/i;
const NAMES = {
	identifier: fc.oneof(
		fc.constantFrom('id', 'key', 'reference', 'ref', 'token', 'jwt', 'contactHash'),
		fc
			.tuple(word, fc.constantFrom('Id', 'Key', 'Reference', 'Token', 'Hash'))
			.map(([head, tail]) => `${head}${tail}`),
	),
	amountLike: fc
		.tuple(
			fc.constantFrom('amount', 'total', 'fee', 'count', 'account', 'balance', 'limit', 'row'),
			fc.constantFrom('Ref', 'No', 'Code', 'Paid', 'Due', 'Text', '2', ' Col', 'At', 'Seconds'),
		)
		.map(([head, tail]) => `${head}${tail}`),
	amount: fc.constantFrom('amount', 'fee', 'total', 'balance', 'totalAmount', 'refundedAmount'),
	neutral: fc
		.oneof(
			word,
			fc.tuple(word, capital).map(([head, tail]) => `${head}${tail}`),
			fc.constant('Column A'),
		)
		.filter((name) => !NOT_NEUTRAL.test(name)),
	phone: fc.constantFrom('phone', 'mobile', 'to', 'msisdn', 'payerPhone', 'whatsappNumber'),
};
type NameClass = keyof typeof NAMES;
const nameOf = (...classes: NameClass[]) =>
	fc.oneof(...classes.map((nameClass) => NAMES[nameClass]));

// What a row is matched on and must come out exactly as it went in, whatever its column is called.
const MUST_SURVIVE: unknown[] = [
	'PAY-0001',
	'ORDER123',
	'6f1c2a9e-4b7d-4e3a-9c5b-8d2e7f0a1b3c',
	'LP-7f3e9a2b-payout',
	1500,
	1500.5,
	27551,
	'2026-11-27T08:00:00.000Z',
];

const MODES: PayerDetails[] = ['full', 'masked', 'omitted'];
const PROTECTING: PayerDetails[] = ['masked', 'omitted'];

type Shape = 'flat' | 'nested' | 'array' | 'paToken' | 'error';
const SHAPES: Shape[] = ['flat', 'nested', 'array', 'paToken', 'error'];

interface Placed {
	/** What goes to the exit. */
	value: unknown;
	/** Where the must-survive fields sit in it. */
	path: Array<string | number>;
}

/**
 * The attack value in a field `name` of an output of the given shape, beside the must-survive fields
 * (`keep`): flat, nested, inside an array, in a gateway's paToken, or in an error (its message,
 * description, messages and errorResponse, as n8n stores them).
 */
function place(shape: Shape, name: string, attack: unknown, keep: Record<string, unknown>): Placed {
	const inner = { [name]: attack, ...keep };
	switch (shape) {
		case 'flat':
			return { value: inner, path: [] };
		case 'nested':
			return { value: { outcome: 'found', record: inner }, path: ['record'] };
		case 'array':
			return { value: { rows: [inner, { [name]: [attack] }] }, path: ['rows', 0] };
		case 'paToken':
			return { value: { message: null, paToken: inner }, path: ['paToken'] };
		case 'error': {
			const error = new Error(`Little Pay refused ${String(attack)}`);
			Object.assign(error, {
				description: `Check ${String(attack)} and try again`,
				messages: [`400 - ${JSON.stringify({ [name]: attack })}`],
				errorResponse: { message: `refused: ${String(attack)}`, details: inner },
				httpCode: '400',
			});
			return { value: error, path: ['errorResponse', 'details'] };
		}
	}
}

/** What n8n keeps of an output: the JSON of an item, or `{...error, message, stack}` of an error. */
function stored(value: unknown): string {
	if (value instanceof Error)
		return JSON.stringify({ ...value, message: value.message, stack: value.stack });
	return JSON.stringify(value);
}

/** Text with its percent escapes decoded, as often as they nest (%252B is %2B is +). */
function decoded(text: string): string {
	let out = text;
	for (let i = 0; i < 3; i++)
		out = out.replace(/%([0-9A-Fa-f]{2})/g, (_m, hex: string) =>
			String.fromCharCode(parseInt(hex, 16)),
		);
	return out;
}

/** Digits in any writing: anything but a digit, a letter or a mask between them. */
function inAnyWriting(digits: string): RegExp {
	return new RegExp(digits.split('').join('(?:[^0-9A-Za-z•*]|%[0-9A-Fa-f]{2}){0,3}'));
}
const alone = (digits: string) => new RegExp(`(?<![0-9A-Za-z])${digits}(?![0-9A-Za-z])`);

function at(value: unknown, path: Array<string | number>): Record<string, unknown> {
	let here: unknown = value;
	for (const step of path) here = (here as Record<string | number, unknown>)[step];
	return here as Record<string, unknown>;
}

/** The must-survive values under generated column names of every kind but a contact's. */
const keepFields = fc
	.uniqueArray(nameOf('identifier', 'amountLike', 'amount', 'neutral'), {
		minLength: MUST_SURVIVE.length,
		maxLength: MUST_SURVIVE.length,
	})
	.map((names) => Object.fromEntries(names.map((name, i) => [name, MUST_SURVIVE[i]])));

/** Runs one case through the exit and returns what n8n would store, checking the must-survive values. */
function through(
	shape: Shape,
	name: string,
	attack: unknown,
	keep: Record<string, unknown>,
	mode: PayerDetails,
	context: OutputContext = {},
): string {
	const others = Object.fromEntries(Object.entries(keep).filter(([field]) => field !== name));
	const placed = place(shape, name, attack, others);
	const out = protectOutput(placed.value, { mode, secret: '' }, context);
	const kept = at(out, placed.path);
	for (const [field, value] of Object.entries(others))
		expect([field, kept[field]]).toEqual([field, value]);
	return stored(out);
}

// Card values.

/** The check digit that makes `body` pass Luhn. */
function luhnComplete(body: string): string {
	let sum = 0;
	for (let i = 0; i < body.length; i++) {
		let digit = Number(body[body.length - 1 - i]);
		if (i % 2 === 0) {
			digit *= 2;
			if (digit > 9) digit -= 9;
		}
		sum += digit;
	}
	return `${body}${(10 - (sum % 10)) % 10}`;
}

/** A Luhn-valid card number of a real brand's length: Visa 13/16/19, Mastercard 16, Amex 15. */
const panArb = fc
	.oneof(
		fc.stringMatching(/^4\d{14}$/),
		fc.stringMatching(/^5[1-5]\d{13}$/),
		fc.stringMatching(/^3[47]\d{12}$/),
		fc.stringMatching(/^4\d{11}$/),
		fc.stringMatching(/^4\d{17}$/),
	)
	.map(luhnComplete);
const cardArb = fc.record({
	number: panArb,
	// No leading 0 (a JSON number would drop it), never an amount a row keeps, and not the error's
	// HTTP code (400), which is n8n's own field and stays: the same three digits, not the CVV.
	cvv: fc
		.integer({ min: 100, max: 999 })
		.filter((cvv) => cvv !== 400)
		.map(String),
	expiry: fc
		.record({ month: fc.integer({ min: 1, max: 12 }), year: fc.integer({ min: 27, max: 39 }) })
		.map(({ month, year }) => `${String(month).padStart(2, '0')}/${year}`),
});
type Card = { number: string; cvv: string; expiry: string };

const SEPARATORS = ['', ' ', '  ', '-', '.', ' - ', '_', '%20'];
const grouped = (digits: string, separator: string) =>
	(digits.match(/.{1,4}/g) ?? []).join(separator);

/** A card value as a gateway might send it back: alone, separated, in a token, in text, encoded, a number. */
const cardWritingArb = (card: Card) =>
	fc.oneof(
		fc.constantFrom(...SEPARATORS).map((separator) => grouped(card.number, separator)),
		fc.constant(`${card.number}|${card.cvv}|${card.expiry}`),
		fc.constant(`tok_${card.number}`),
		fc.constant(`ref${card.number}`),
		fc.constant(encodeURIComponent(`${grouped(card.number, ' ')}|${card.cvv}`)),
		fc.constant(
			`cc_number=${card.number}&cc_cvv=${card.cvv}&cc_exp=${encodeURIComponent(card.expiry)}`,
		),
		fc.constant(`card ${grouped(card.number, ' ')} (cvv ${card.cvv}, exp ${card.expiry}) declined`),
		fc.constant(card.cvv),
		fc.constant(card.expiry),
		// JSON numbers: the number (exact below 2^53) and the CVV.
		fc.constant(card.number.length <= 16 ? Number(card.number) : card.number),
		fc.constant(Number(card.cvv)),
	);

function cardLeaks(text: string, card: Card): string[] {
	const [month, year] = card.expiry.split('/');
	const found: string[] = [];
	for (const seen of [text, decoded(text)]) {
		if (inAnyWriting(card.number).test(seen)) found.push('number');
		if (alone(card.cvv).test(seen)) found.push('cvv');
		if (
			new RegExp(`(?<![0-9A-Za-z])0?${Number(month)}\\s*/\\s*(?:20)?${year}(?![0-9A-Za-z])`).test(
				seen,
			)
		)
			found.push('expiry');
	}
	return [...new Set(found)];
}

describe("the red team's cases, as found", () => {
	const card = { number: '4111111111111111', cvv: '737', expiry: '01/39' };
	it.each(MODES)('a gateway repeating the card in paToken (Payer Details %s)', (mode) => {
		const out = protectOutput(
			{
				reference: 'PAY-0001',
				referenceId: '4111111111111111',
				token: '4111111111111111|737|01/39',
				paToken: { referenceId: 4111111111111111, cvv: 737 },
			},
			{ mode, secret: '' },
			{ cards: [card] },
		);
		expect(out).toEqual({
			reference: 'PAY-0001',
			referenceId: '•••',
			token: '•••',
			paToken: { referenceId: '•••', cvv: '•••' },
		});
	});

	it("a Reconcile row copying the merchant's columns back (account, customerId, amountRef)", () => {
		const input = {
			key: 'PAY-0001',
			account: '0712.345.670',
			customerId: 254712345670,
			amountRef: '%2B254712345670',
			amount: 1500,
		};
		const out = protectOutput(
			{ ...input, outcome: 'found', note: 'paid (0712) 345670' },
			{ mode: 'masked', secret: '' },
			{ input, row: true },
		);
		expect(out).toEqual({
			key: 'PAY-0001',
			account: '0712.•••.670',
			customerId: '2547•••••670',
			amountRef: '+2547•••••670',
			amount: 1500,
			outcome: 'found',
			note: 'paid (0712) •••670',
		});
	});
});

describe('card values the run handled leave no output, whatever the field, the writing or the setting', () => {
	it.each(['identifier', 'amountLike', 'amount', 'neutral'] as NameClass[])(
		'in fields named like %s: as strings, numbers, separated, inside tokens, url-encoded',
		(nameClass) => {
			fc.assert(
				fc.property(
					cardArb.chain((card) => fc.tuple(fc.constant(card), cardWritingArb(card))),
					nameOf(nameClass),
					fc.constantFrom(...SHAPES),
					fc.constantFrom(...MODES),
					keepFields,
					([card, writing], name, shape, mode, keep) => {
						const text = through(shape, name, writing, keep, mode, { cards: [card] });
						expect(cardLeaks(text, card)).toEqual([]);
					},
				),
				{ numRuns: RUNS, seed: SEED },
			);
		},
	);

	it('a card the run did not send (a gateway echoing another card): any Luhn-valid 13-19 digits, string or number', () => {
		fc.assert(
			fc.property(
				panArb,
				fc.constantFrom(...SEPARATORS),
				fc.boolean(),
				nameOf('identifier', 'amountLike', 'neutral'),
				fc.constantFrom(...SHAPES),
				fc.constantFrom(...MODES),
				keepFields,
				(pan, separator, asNumber, name, shape, mode, keep) => {
					const attack = asNumber && pan.length <= 16 ? Number(pan) : grouped(pan, separator);
					const text = through(shape, name, attack, keep, mode, { cards: [] });
					expect([text, decoded(text)].some((seen) => inAnyWriting(pan).test(seen))).toBe(false);
				},
			),
			{ numRuns: RUNS, seed: SEED },
		);
	});
});

// Payer numbers.

const COUNTRY_CODES = ['254', '255', '256', '250'];
const phoneArb = fc.record({
	code: fc.constantFrom(...COUNTRY_CODES),
	// A mobile number's national digits after the 0: 7 and eight more.
	national: fc.stringMatching(/^7\d{8}$/),
});
type Phone = { code: string; national: string };

/**
 * A writing of the number: its form (with the country code, "+", "%2B", "00", national with 0, or the
 * nine digits a sheet leaves), its grouping (none, in threes, split, brackets), the separator between
 * groups (spaces, dashes, dots, "+" as a form-encoded space, %20) and whether it is url-encoded.
 */
const writingArb = (phone: Phone) =>
	fc
		.record({
			form: fc.constantFrom('international', 'plus', 'encodedPlus', 'double0', 'national', 'bare'),
			grouping: fc.constantFrom('none', 'threes', 'split', 'brackets'),
			separator: fc.constantFrom(' ', '  ', '-', '.', ' - ', '+', '%20'),
			encode: fc.constantFrom('none', 'none', 'uri', 'twice'),
		})
		.map(({ form, grouping, separator, encode }) => {
			const national = form === 'national' ? `0${phone.national}` : phone.national;
			const head = national.length - 6;
			const [a, b, c] = [national.slice(0, head), national.slice(head, -3), national.slice(-3)];
			const prefix = {
				international: '',
				plus: '+',
				encodedPlus: '%2B',
				double0: '00',
				national: '',
				bare: '',
			}[form];
			const code = form === 'national' || form === 'bare' ? '' : phone.code;
			// "+" between groups (a form-encoded space) never after a "+" prefix.
			const gap = separator === '+' && prefix !== '' ? ' ' : separator;
			const lead = code === '' ? prefix : `${prefix}${code}${grouping === 'none' ? '' : gap}`;
			const text = {
				none: `${lead}${national}`,
				threes: `${lead}${[a, b, c].join(gap)}`,
				split: `${lead}${a}${gap}${b}${c}`,
				brackets: `${code === '' ? prefix : `${prefix}${code} `}(${a}) ${b}${gap}${c}`,
			}[grouping];
			const encoded =
				encode === 'uri'
					? encodeURIComponent(text)
					: encode === 'twice'
						? encodeURIComponent(encodeURIComponent(text))
						: text;
			// Nine digits split unevenly ("712 345670") are a number as a column's whole value; among
			// words they read as a range or two quantities (payerText.ts bareMobile).
			return { text: encoded, onlyAlone: form === 'bare' && grouping === 'split' };
		});

/** The number among words as a message, a query string, a link or a JSON echo carries it. */
const inTextArb = ({ text: writing, onlyAlone }: { text: string; onlyAlone: boolean }) =>
	onlyAlone
		? fc.constant(writing)
		: fc.constantFrom(
				writing,
				`Recipient ${writing} is not registered for M-Pesa`,
				`sent to ${writing}.`,
				`callback?to=${writing}&amount=1500`,
				`tel:${writing}`,
				`[${writing}]`,
				`{"to":"${writing}"}`,
				`row 7: ${writing}\nrow 8: PAY-0001`,
			);

function phoneLeaks(text: string, phone: Phone): boolean {
	return [text, decoded(text)].some((seen) => inAnyWriting(phone.national).test(seen));
}

describe("a payer's number leaves no Masked or Omitted output, whatever its column, writing or text", () => {
	it.each(['identifier', 'amountLike', 'amount', 'neutral', 'phone'] as NameClass[])(
		'free text in fields named like %s: messages, descriptions, error answers, in any writing',
		(nameClass) => {
			fc.assert(
				fc.property(
					phoneArb.chain((phone) =>
						fc.tuple(
							fc.constant(phone),
							writingArb(phone).chain((writing) => inTextArb(writing)),
						),
					),
					nameOf(nameClass),
					fc.constantFrom(...SHAPES),
					fc.constantFrom(...PROTECTING),
					keepFields,
					([phone, text], name, shape, mode, keep) => {
						expect(phoneLeaks(through(shape, name, text, keep, mode), phone)).toBe(false);
					},
				),
				{ numRuns: RUNS, seed: SEED },
			);
		},
	);

	it.each(['identifier', 'amountLike', 'neutral'] as NameClass[])(
		'a number value (a sheet column) in fields named like %s',
		(nameClass) => {
			fc.assert(
				fc.property(
					phoneArb,
					fc.boolean(),
					nameOf(nameClass),
					fc.constantFrom(...SHAPES),
					fc.constantFrom(...PROTECTING),
					keepFields,
					(phone, international, name, shape, mode, keep) => {
						const value = Number(international ? `${phone.code}${phone.national}` : phone.national);
						expect(phoneLeaks(through(shape, name, value, keep, mode), phone)).toBe(false);
					},
				),
				{ numRuns: RUNS, seed: SEED },
			);
		},
	);

	it("the merchant's columns: a number the input row holds under any name, copied back or written otherwise in the output", () => {
		fc.assert(
			fc.property(
				phoneArb.chain((phone) =>
					fc.tuple(
						fc.constant(phone),
						writingArb(phone).map(({ text }) => text),
						writingArb(phone).map(({ text }) => text),
					),
				),
				nameOf('identifier', 'amountLike', 'neutral'),
				nameOf('identifier', 'amountLike', 'neutral'),
				fc.constantFrom('copied', 'glued', 'number'),
				fc.constantFrom(...SHAPES),
				fc.constantFrom(...PROTECTING),
				keepFields,
				([phone, inInput, inOutput], column, name, how, shape, mode, keep) => {
					// The input row: the merchant's column holds the number; the output row copies it back,
					// or holds it in another writing, inside a key of the merchant's, or as a number.
					const input = { [column]: inInput, merchantKey: 'PAY-0001' };
					const attack =
						how === 'copied'
							? inInput
							: how === 'glued'
								? `INV-${phone.code}${phone.national}`
								: Number(`${phone.code}${phone.national}`);
					const text = through(shape, name, attack, keep, mode, { input });
					expect(phoneLeaks(text, phone)).toBe(false);
					// The column copied back beside it is protected too.
					const row = protectOutput(
						{ ...input, [name]: inOutput, outcome: 'found' },
						{ mode, secret: '' },
						{ input },
					);
					expect(phoneLeaks(JSON.stringify(row), phone)).toBe(false);
					expect(row.merchantKey).toBe('PAY-0001');
				},
			),
			{ numRuns: RUNS, seed: SEED },
		);
	});
});

describe('what a row is matched on comes out as it went in', () => {
	it('keys, references, amounts and dates under any name, in every setting, with or without an input row', () => {
		fc.assert(
			fc.property(
				keepFields,
				fc.constantFrom(...SHAPES),
				fc.constantFrom(...MODES),
				cardArb,
				(keep, shape, mode, card) => {
					const text = through(shape, 'status', 'COMPLETED', keep, mode, {
						input: keep,
						cards: [card],
					});
					for (const value of MUST_SURVIVE) expect(text).toContain(JSON.stringify(value));
				},
			),
			{ numRuns: RUNS, seed: SEED },
		);
	});
});

describe('references a card run chains on survive its card values (the CI clone caught one)', () => {
	// A card run hands each step's reference to the next by expression: a reference the exit mangled
	// (a UUID group "…ab01-39cd…" read as the expiry 01/39) sent the next step to a path that names nothing.
	const card = { number: '4111111111111111', cvv: '737', expiry: '01/39' };
	const settings = { mode: 'masked' as PayerDetails, secret: '' };

	it('keeps a UUID whose groups hold the expiry or the CVV digits', () => {
		for (const reference of [
			'3fab01-39cd-4e5f-8a9b-0c1d2e3f4a5b',
			'1b9d6bcd-bbfd-4b2d-9b5d-a39-01dfbbd4bed',
			'c0a80139-7370-4b2d-8737-ab8dfbbd4bed',
		])
			expect(protectOutput({ reference }, settings, { cards: [card] })).toEqual({ reference });
	});

	it('keeps every generated UUID, and still removes the expiry written alone', () => {
		fc.assert(
			fc.property(fc.uuid(), (reference) => {
				const out = protectOutput({ reference, note: `exp ${card.expiry}` }, settings, {
					cards: [card],
				});
				expect(out.reference).toBe(reference);
				expect(JSON.stringify(out)).not.toContain(card.expiry);
			}),
			{ numRuns: 3000 },
		);
	});
});

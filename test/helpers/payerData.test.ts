// Payer details at the source (issue 45, point 4): what the package's outputs say of payers and payees.
import {
	contactHash,
	contactOf,
	payerDetailsOf,
	protectOutput,
	protectRow,
} from '../../nodes/LittlePay/helpers/payerData';
import type { PayerDetails } from '../../nodes/LittlePay/helpers/payerData';
import { createHmac } from 'node:crypto';

const protectPayerData = <T>(value: T, mode: PayerDetails): T =>
	protectOutput(value, { mode, secret: '' });
const protectText = (text: string, mode: PayerDetails): string => protectPayerData(text, mode);
const maskNumber = (value: string) => protectPayerData({ to: value }, 'masked').to;
const maskEmail = (value: string) => protectPayerData({ email: value }, 'masked').email;
const firstNameOf = (value: string) => protectPayerData({ firstName: value }, 'masked').firstName;

describe('masking one value', () => {
	it('numbers keep their first four and last three digits', () => {
		expect(maskNumber('254712345670')).toBe('2547•••••670');
		expect(maskNumber('+254712345670')).toBe('+2547•••••670');
		expect(maskNumber('0712345670')).toBe('0712•••670');
		expect(maskNumber('12345')).toBe('••345');
	});
	it('e-mails keep the first letter and the domain; names the first name', () => {
		expect(maskEmail('amina.otieno@example.com')).toBe('a•••@example.com');
		// Not an e-mail: treated as text.
		expect(maskEmail('not-an-email')).toBe('not-an-email');
		expect(firstNameOf('Amina Wanjiru Otieno')).toBe('Amina');
	});
	it('a credential without the setting (saved before it existed) reads as masked', () => {
		expect(payerDetailsOf(undefined)).toBe('masked');
		expect(payerDetailsOf('')).toBe('masked');
		expect(payerDetailsOf('full')).toBe('full');
		expect(payerDetailsOf('omitted')).toBe('omitted');
	});
});

const statusRecord = {
	reference: 'ref-254712345670',
	key: 'order1001',
	amount: 1500,
	status: 'COMPLETED',
	payment: { provider: 'MPESA', details: { mobile: '254712345670' } },
	payload: {
		billingAddress: {
			firstName: 'Amina Wanjiru',
			lastName: 'Otieno',
			address1: '12 Moi Avenue',
			locality: 'Nairobi',
			postalCode: '00100',
			country: 'KE',
			email: 'amina@example.com',
			phoneNumber: '+254712345670',
		},
	},
	message: 'Paid by 254712345670 (amina@example.com)',
};

describe('protectPayerData', () => {
	it('masked: numbers, e-mails and names masked at any depth, street and postal code left out', () => {
		expect(protectPayerData(statusRecord, 'masked')).toEqual({
			// The payer's number is the payer's inside a reference too (the red team's (b)): a key made of
			// it would carry it whole into every stored run. A key without it is untouched.
			reference: 'ref-2547•••••670',
			key: 'order1001',
			amount: 1500,
			status: 'COMPLETED',
			payment: { provider: 'MPESA', details: { mobile: '2547•••••670' } },
			payload: {
				billingAddress: {
					firstName: 'Amina',
					lastName: null,
					address1: null,
					locality: 'Nairobi',
					postalCode: null,
					country: 'KE',
					email: 'a•••@example.com',
					phoneNumber: '+2547•••••670',
				},
			},
			message: 'Paid by 2547•••••670 (a•••@example.com)',
		});
	});
	it('omitted: none of them at all; keys, references, amounts and statuses untouched', () => {
		const out = protectPayerData(statusRecord, 'omitted');
		expect(out.payload.billingAddress).toEqual({
			firstName: null,
			lastName: null,
			address1: null,
			locality: 'Nairobi',
			postalCode: null,
			country: 'KE',
			email: null,
			phoneNumber: null,
		});
		expect(out.payment.details.mobile).toBeNull();
		expect(out.message).toBe('Paid by ••• (•••)');
		expect([out.reference, out.key, out.amount, out.status]).toEqual([
			'ref-•••',
			'order1001',
			1500,
			'COMPLETED',
		]);
	});
	it('full: the same values, and the input is never changed', () => {
		expect(protectPayerData(statusRecord, 'full')).toEqual(statusRecord);
		protectPayerData(statusRecord, 'masked');
		expect(statusRecord.payload.billingAddress.phoneNumber).toBe('+254712345670');
	});
	it('payout rows and arrays of them: `to` masked, as in a dry run summary', () => {
		expect(
			protectPayerData({ to: '254712345673', refusedRows: [{ to: '+256712345670' }] }, 'masked'),
		).toEqual({ to: '2547•••••673', refusedRows: [{ to: '+2567•••••670' }] });
	});
	it('text: a statement line and a duplicate-check error lose the numbers, keep the rest', () => {
		expect(protectText('payout po1004 to 254712345673: KES 1,700', 'masked')).toBe(
			'payout po1004 to 2547•••••673: KES 1,700',
		);
		expect(
			protectText(
				'Key "po1004" already belongs to a different payout (to 254712345670 there, 254712345671 here)',
				'masked',
			),
		).toBe(
			'Key "po1004" already belongs to a different payout (to 2547•••••670 there, 2547•••••671 here)',
		);
		expect(protectText('at most until 2026-11-27T08:00:00.000Z', 'masked')).toBe(
			'at most until 2026-11-27T08:00:00.000Z',
		);
		for (const text of [
			'Amount 600000 is outside the MTN limits 100-500000',
			'must be whole minutes from 1 to 43200 (got 1795766331036)',
			'Key "ref-254712345670" exists',
		])
			expect(protectText(text, 'masked')).toBe(text);
		expect(protectText('got +254 712 345 670 and 0712345670', 'masked')).toBe(
			'got +254 7•• ••• 670 and 0712•••670',
		);
	});
});

describe('contactHash: matching a payer without the number', () => {
	it('is HMAC-SHA256 (hex) of the digits, with or without "+", or of the e-mail in lower case', () => {
		const expected = createHmac('sha256', 's3cret').update('254712345670').digest('hex');
		expect(contactHash('+254712345670', 's3cret')).toBe(expected);
		expect(contactHash('254712345670', 's3cret')).toBe(expected);
		expect(contactHash('254712345670', 'other')).not.toBe(expected);
		expect(contactHash(' Amina@Example.com ', 's3cret')).toBe(
			createHmac('sha256', 's3cret').update('amina@example.com').digest('hex'),
		);
	});
	it("protectRow adds it from the row's own contact before masking, only with a secret", () => {
		const row = {
			reference: 'r1',
			billingAddress: { phoneNumber: '+254712345670', email: 'a@b.co' },
		};
		expect(contactOf(row)).toBe('+254712345670');
		const out = protectRow(row, { mode: 'masked', secret: 's3cret' });
		expect(out.contactHash).toBe(contactHash('254712345670', 's3cret'));
		expect(out.billingAddress).toEqual({ phoneNumber: '+2547•••••670', email: 'a•••@b.co' });
		expect(protectRow(row, { mode: 'masked', secret: '' })).not.toHaveProperty('contactHash');
		// A payout matches on its `to`: the same hash as the payer's callback.
		expect(protectRow({ to: '254712345670' }, { mode: 'omitted', secret: 's3cret' })).toEqual({
			to: null,
			contactHash: out.contactHash,
		});
	});
});

// The red team's findings on the exit (issue 49 point 3, issue 50 point 4): #6, #9, #11, #22, and the
// editor review's surname in Reconcile's echo of the row.
describe('protectOutput: the one exit', () => {
	const masked = { mode: 'masked' as const, secret: '' };

	it.each([
		['to +254-712-345-678 here', 'to +254-7••-•••-678 here'],
		['to (0712) 345678 here', 'to (0712) •••678 here'],
		['call 0712-345-678', 'call 0712-•••-678'],
		['to 254  712 345 678', 'to 254  7•• ••• 678'],
		['to +254 (712) 345 678', 'to +254 (7••) ••• 678'],
		['to 712345678', 'to 712•••678'],
		['to 254 712 345 678.', 'to 254 7•• ••• 678.'],
	])('finds a number written as %j (#11)', (text, expected) => {
		expect(protectOutput(text, masked)).toBe(expected);
	});

	it('leaves dates, times, ranges and timestamps alone', () => {
		for (const text of [
			'at 2026-11-27 15:53:06',
			'limits 100-500000',
			'got 1795766331036',
			'2026-11-27T08:00:00.000Z',
		])
			expect(protectOutput(text, masked)).toBe(text);
	});

	it('masks a number value (a number column) and strings inside arrays (#6, #9)', () => {
		expect(
			protectOutput(
				{
					to: 254798765430,
					refusedRows: [{ row: 2, amount: 'twelve', to: 254798765430 }],
					phone: 712345678,
					mismatch: ['number 254799999670 there, 254712345670 here'],
					amount: 254712345670,
				},
				masked,
			),
		).toEqual({
			to: '2547•••••430',
			refusedRows: [{ row: 2, amount: 'twelve', to: '2547•••••430' }],
			phone: '712•••678',
			mismatch: ['number 2547•••••670 there, 2547•••••670 (another number) here'],
			// An amount is never a phone number.
			amount: 254712345670,
		});
		expect(protectOutput({ to: 254798765430 }, { mode: 'omitted', secret: '' })).toEqual({
			to: null,
		});
	});

	it('masking is idempotent: a masked value or text stays as it is (#22)', () => {
		const once = protectOutput(
			{
				expectedTo: '254712345670',
				nextStep: 'number 254799999670 there, 254712345670 here',
				email: 'amina@example.com',
			},
			masked,
		);
		expect(protectOutput(once, masked)).toEqual(once);
		// The echo of an expectedTo the books already hold masked.
		expect(protectOutput({ expectedTo: '2547•••••670' }, masked)).toEqual({
			expectedTo: '2547•••••670',
		});
		expect(protectOutput({ to: '07XX XXX 670' }, masked)).toEqual({ to: '07XX XXX 670' });
	});

	it('two different numbers that mask alike are told apart; one number in two writings is not', () => {
		expect(protectOutput('254799999670 there, 254712345670 here, 254711111670 too', masked)).toBe(
			'2547•••••670 there, 2547•••••670 (another number) here, 2547•••••670 (another number, 3) too',
		);
		expect(protectOutput('+254 712 345 670 and 0712345670', masked)).toBe(
			'+254 7•• ••• 670 and 0712•••670',
		);
	});

	it('names: a Name column keeps the first name, a surname field goes, and both leave every text', () => {
		const row = {
			name: 'Achieng Macharia',
			lastName: 'Otieno',
			note: 'Macharia asked; Otieno too',
			networks: [{ id: 'AIRTEL', name: 'Airtel Money' }],
		};
		expect(protectOutput(row, masked)).toEqual({
			name: 'Achieng',
			lastName: null,
			note: '••• asked; ••• too',
			networks: [{ id: 'AIRTEL', name: 'Airtel Money' }],
		});
		// The surname of the input row the output answers is found in the output's texts too.
		expect(
			protectOutput({ nextStep: 'Paid Achieng Macharia' }, masked, { input: { name: row.name } }),
		).toEqual({ nextStep: 'Paid Achieng •••' });
	});

	it('a number in any writing is found when the output or its input names it (dots too)', () => {
		expect(
			protectOutput({ to: '254712345670', message: 'sent to 254.712.345.670' }, masked).message,
		).toBe('sent to 254.7••.•••.670');
	});

	it('an error is protected where it stands: message, stack, description, messages, errorResponse, cause', () => {
		const cause = new Error('Recipient 254798765430 is not registered');
		const error = new Error('Little Pay: Recipient 254798765430 is not registered', { cause });
		Object.assign(error, {
			description: 'Check 254798765430',
			messages: ['Recipient 254798765430 (JOHN KAMAU MWANGI) is not registered'],
			errorResponse: {
				message: 'Recipient 254798765430 (JOHN KAMAU MWANGI)',
				details: { to: '254798765430', name: 'JOHN KAMAU MWANGI' },
			},
			node: { name: 'Little Pay Payroll' },
		});
		expect(protectOutput(error, masked)).toBe(error);
		const stored = JSON.stringify({ ...error, message: error.message, stack: error.stack });
		expect(stored).not.toMatch(/254798765430|KAMAU|MWANGI/);
		expect(stored).toContain('2547•••••430');
		expect(String(cause.stack)).not.toContain('254798765430');
		// The node's own name is n8n's, never a payer's.
		expect((error as unknown as { node: { name: string } }).node.name).toBe('Little Pay Payroll');
	});

	it('card values leave every text whatever the setting: any separators, the CVV, the expiry', () => {
		const card = { number: '4111 1111 1111 1111', cvv: '737', expiry: '01/39' };
		const echo = 'cc_number 4111.1111.1111.1111 / cc_cvv 737 / cc_exp 01/39 / 4111-1111-1111-1111';
		for (const mode of ['full', 'masked', 'omitted'] as const) {
			const out = protectOutput(
				{ message: echo, raw: '737 01/2039' },
				{ mode, secret: '' },
				{
					cards: [card],
				},
			);
			expect(JSON.stringify(out)).not.toMatch(/4111.?1111.?1111.?1111|737|01\/39|01\/2039/);
		}
		// Without knowing the card: any Luhn-valid 13-19 digit run, a named CVV and expiry.
		expect(protectOutput('card 5200_0000_0000_2151 cvc: 123 expiry 1/2039', masked)).toBe(
			'card •••• 2151 cvc: ••• expiry ••/••',
		);
	});
});

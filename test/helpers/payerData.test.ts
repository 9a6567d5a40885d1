// Payer details at the source (issue 45, point 4): what the package's outputs say of payers and payees.
import {
	contactHash,
	contactOf,
	firstNameOf,
	maskEmail,
	maskNumber,
	payerDetailsOf,
	protectPayerData,
	protectRow,
	protectText,
} from '../../nodes/LittlePay/helpers/payerData';
import { createHmac } from 'node:crypto';

describe('masking one value', () => {
	it('numbers keep their first four and last three digits', () => {
		expect(maskNumber('254712345670')).toBe('2547•••••670');
		expect(maskNumber('+254712345670')).toBe('+2547•••••670');
		expect(maskNumber('0712345670')).toBe('0712•••670');
		expect(maskNumber('12345')).toBe('••345');
	});
	it('e-mails keep the first letter and the domain; names the first name', () => {
		expect(maskEmail('amina.otieno@example.com')).toBe('a•••@example.com');
		expect(maskEmail('not-an-email')).toBe('•••');
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
			reference: 'ref-254712345670',
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
			'ref-254712345670',
			'order1001',
			1500,
			'COMPLETED',
		]);
	});
	it('full: the same object, and the input is never changed', () => {
		expect(protectPayerData(statusRecord, 'full')).toBe(statusRecord);
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

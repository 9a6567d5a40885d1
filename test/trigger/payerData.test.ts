// Payer details at the source, in the trigger (issue 45, point 4): a callback item says of the payer what
// the API key credential's Payer Details allows, carries contactHash with a Matching Secret, and has no
// second copy of the body unless Options > Include Raw Body asks for one.
import { createHmac, generateKeyPairSync, sign } from 'node:crypto';

import { callWebhook, newTriggerState } from '../../testkit/webhookContext';
import type { FakeRequest } from '../../testkit/webhookContext';

const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const publicKey = keys.publicKey.export({ type: 'spki', format: 'pem' }).toString();

const billingAddress = {
	firstName: 'Amina Wanjiru',
	lastName: 'Otieno',
	address1: '12 Moi Avenue',
	locality: 'Nairobi',
	administrativeArea: 'Nairobi',
	postalCode: '00100',
	country: 'KE',
	email: 'amina@example.com',
	phoneNumber: '+254712345670',
};

let seq = 0;
function paid(): FakeRequest {
	const raw = JSON.stringify({
		reference: `LP-PD-${++seq}`,
		status: 'COMPLETED',
		payload: { billingAddress },
		amount: 1500,
		key: `order${seq}`,
		currency: 'KES',
		provider: 'MPESA',
		date: new Date().toISOString(),
	});
	const timestamp = String(Math.floor(Date.now() / 1000));
	return {
		headers: {
			'x-littlepay-timestamp': timestamp,
			'x-littlepay-signature': sign(
				'sha256',
				Buffer.from(`${timestamp}.${raw}`),
				keys.privateKey,
			).toString('base64'),
		},
		rawBody: Buffer.from(raw),
	};
}

async function itemWith(credential: Record<string, string> | undefined, options = {}) {
	const state = newTriggerState();
	if (credential) state.credential = { baseUrl: 'http://127.0.0.1:4010', ...credential };
	// The item as the signature layer builds it; the account confirmation has its own tests.
	const call = await callWebhook(
		state,
		{ confirmWithStatusApi: false, options: { publicKey, ...options } },
		paid(),
	);
	expect(call.started).toBe(true);
	return call.result.workflowData![0][0].json;
}

describe("the trigger's item and the credential's Payer Details", () => {
	it('masked (the default, also for a credential saved before the setting): first name, masked number and e-mail, no street', async () => {
		const credentials: Array<Record<string, string> | undefined> = [
			undefined,
			{},
			{ payerDetails: 'masked' },
		];
		for (const credential of credentials) {
			const item = await itemWith(credential);
			expect(item.billingAddress).toEqual({
				firstName: 'Amina',
				lastName: null,
				address1: null,
				locality: 'Nairobi',
				administrativeArea: 'Nairobi',
				postalCode: null,
				country: 'KE',
				email: 'a•••@example.com',
				phoneNumber: '+2547•••••670',
			});
			expect(item).not.toHaveProperty('raw');
			expect(JSON.stringify(item)).not.toMatch(/254712345670|amina@|Otieno|Moi Avenue/);
		}
	});

	it('omitted: no number, e-mail, name or street at all; full: as Little Pay sent them', async () => {
		const omitted = await itemWith({ payerDetails: 'omitted' });
		expect(omitted.billingAddress).toMatchObject({
			firstName: null,
			lastName: null,
			email: null,
			phoneNumber: null,
			address1: null,
			country: 'KE',
		});
		const full = await itemWith({ payerDetails: 'full' });
		expect(full.billingAddress).toEqual(billingAddress);
	});

	it('Include Raw Body brings the copy of the body back, masked like the rest', async () => {
		const item = await itemWith({}, { includeRawBody: true });
		expect(item.raw).toMatchObject({
			payload: { billingAddress: { phoneNumber: '+2547•••••670', email: 'a•••@example.com' } },
		});
		expect(JSON.stringify(item.raw)).not.toContain('254712345670');
	});

	it("a Matching Secret adds contactHash, the HMAC-SHA256 of the number's digits", async () => {
		const item = await itemWith({ matchingSecret: 'k3y-for-matching' });
		expect(item.contactHash).toBe(
			createHmac('sha256', 'k3y-for-matching').update('254712345670').digest('hex'),
		);
		expect((await itemWith({})).contactHash).toBeUndefined();
	});
});

// Cards with 3-D Secure: token, device data collection page, enrolment by test card, step-up page, process.
import axios from 'axios';
import { deviceInformation, startTestSandbox } from '../../testkit/sandbox';
import type { TestSandbox } from '../../testkit/sandbox';
import { form, formHeaders } from '../../testkit/sandboxHelpers';

describe('sandbox card payments (3-D Secure)', () => {
	let t: TestSandbox;
	beforeAll(async () => {
		t = await startTestSandbox();
	});
	afterAll(async () => {
		await t.sandbox.close();
	});

	const card = (cc_number: string, overrides: Record<string, string> = {}) => ({
		type: 'CARDS',
		payment: { cc_number, cc_cvv: '000', cc_exp: '01/39', cc_name: 'Amina Otieno', ...overrides },
	});
	const startCard = async (number: string, intentOverrides: Record<string, unknown> = {}) => {
		const intent = await t.createIntent(intentOverrides);
		const token = await t.post(`/pay/${intent.reference}/cspaToken`, card(number));
		expect(token.status).toBe(200);
		const enrolment = await t.post(`/pay/${intent.reference}/enroll`, { deviceInformation });
		expect(enrolment.status).toBe(200);
		return { ...intent, token: token.data.data, enrolment: enrolment.data.data };
	};
	const processCard = (reference: string) => t.post(`/pay/${reference}/process`, { type: 'CARDS' });

	it('returns a paToken whose collection page posts profile.completed to its parent', async () => {
		const { reference } = await t.createIntent();
		const res = await t.post(`/pay/${reference}/cspaToken`, card('4111 1111 1111 1111'));
		expect(res.data.data).toEqual({
			reference,
			message: expect.any(String),
			paToken: {
				accessToken: expect.any(String),
				deviceDataCollectionUrl: `${t.base}/sandbox/3ds/collect`,
				referenceId: expect.any(String),
				token: expect.any(String),
			},
		});
		expect(JSON.stringify(res.data)).not.toContain('4111');
		const page = await axios.post(
			res.data.data.paToken.deviceDataCollectionUrl,
			form({ JWT: res.data.data.paToken.accessToken }),
			{
				headers: formHeaders,
			},
		);
		expect(page.headers['content-type']).toMatch(/text\/html/);
		const html = String(page.data);
		expect(html).toContain('window.parent.postMessage');
		const literal = /postMessage\(("(?:[^"\\]|\\.)*")/.exec(html)?.[1] ?? '""';
		expect(JSON.parse(JSON.parse(literal))).toEqual({
			MessageType: 'profile.completed',
			'Session Id': res.data.data.paToken.referenceId,
			Status: true,
		});
		const unknown = await axios.post(`${t.base}/sandbox/3ds/collect`, form({ JWT: 'forged' }), {
			headers: formHeaders,
		});
		expect(String(unknown.data)).toContain('\\"Status\\":false');
	});

	it.each([
		['cc_number', { cc_number: '4111111111111112' }, /Luhn/],
		['cc_number', { cc_number: '41111' }, /12-19 digits/],
		['cc_exp', { cc_exp: '13/30' }, /MM\/YY/],
		['cc_exp', { cc_exp: '01/20' }, /expired/],
		['cc_cvv', { cc_cvv: '12' }, /3 or 4 digits/],
		['cc_name', { cc_name: '' }, /cc_name is required/],
	])('rejects a bad %s with 400 and never echoes the number', async (_f, overrides, message) => {
		const { reference } = await t.createIntent();
		const res = await t.post(
			`/pay/${reference}/cspaToken`,
			card((overrides as Record<string, string>).cc_number ?? '4111111111111111', overrides),
		);
		expect(res.status).toBe(400);
		expect(res.data.data.message).toMatch(message);
		expect(JSON.stringify(res.data)).not.toMatch(/4111111111111112|41111\b/);
	});

	it('4111111111111111 enrols frictionless (MAKE_PAYMENT) and completes with a signed-off record', async () => {
		const { reference, key, enrolment } = await startCard('4111111111111111');
		expect(enrolment).toEqual({ action: 'MAKE_PAYMENT' });
		const res = await processCard(reference);
		expect(res.data.data).toEqual({
			status: 'COMPLETED',
			message: expect.any(String),
			provider: 'CARDS',
			providerReference: expect.any(String),
			amount: 1500,
			currency: 'KES',
			reference,
		});
		const record = await t.status(key);
		expect(record).toMatchObject({
			status: 'COMPLETED',
			payment: { provider: 'CARDS', details: { last4: '1111', brand: 'VISA' } },
		});
		const ledger = JSON.stringify((await t.get('/sandbox/ledger')).data);
		expect(ledger).not.toContain('4111111111111111');
	});

	it('4000000000000010 enrolment answers FAILED and the payment fails', async () => {
		const { reference, enrolment } = await startCard('4000000000000010');
		expect(enrolment).toEqual({ action: 'FAILED' });
		expect((await processCard(reference)).data.data.status).toBe('FAILED');
	});

	it('4000000000000002 is declined at process with the reason in message', async () => {
		const { reference, enrolment } = await startCard('4000000000000002');
		expect(enrolment.action).toBe('MAKE_PAYMENT');
		const res = await processCard(reference);
		expect(res.status).toBe(200);
		expect(res.data.data.status).toBe('FAILED');
		expect(res.data.data.message).toMatch(/declined/);
	});

	it('5200000000002151 needs step-up; approving it completes the payment and redirects when asked', async () => {
		const { reference, enrolment } = await startCard('5200000000002151', {
			metadata: { authenticationRedirectUrl: 'http://127.0.0.1:9/after-3ds' },
		});
		expect(enrolment).toEqual({
			action: 'AUTHENTICATE',
			accessToken: expect.any(String),
			stepUpUrl: `${t.base}/sandbox/3ds/step-up`,
		});
		const page = await axios.post(
			enrolment.stepUpUrl,
			form({ JWT: enrolment.accessToken, MD: reference }),
			{ headers: formHeaders },
		);
		expect(String(page.data)).toContain('Approve');
		expect(String(page.data)).toContain('ending 2151');
		const decided = await axios.post(
			`${t.base}/sandbox/3ds/step-up/decide`,
			form({ JWT: enrolment.accessToken, MD: reference, decision: 'approve' }),
			{ headers: formHeaders, maxRedirects: 0, validateStatus: () => true },
		);
		// A page that tells the opener (MAKE_PAYMENT) and then goes on to the redirect URL.
		expect(decided.status).toBe(200);
		expect(String(decided.data)).toContain(
			JSON.stringify(`http://127.0.0.1:9/after-3ds?reference=${reference}&authentication=approved`),
		);
		expect(String(decided.data)).toContain('"action":"MAKE_PAYMENT","authentication":"approved"');
		expect((await processCard(reference)).data.data.status).toBe('COMPLETED');
	});

	it('a challenge that is declined, skipped, or posted without MD fails the payment', async () => {
		const declined = await startCard('5200000000002151');
		await axios.post(
			`${t.base}/sandbox/3ds/step-up/decide`,
			form({ JWT: declined.enrolment.accessToken, MD: declined.reference, decision: 'decline' }),
			{ headers: formHeaders },
		);
		expect((await processCard(declined.reference)).data.data.message).toMatch(
			/declined by the cardholder/,
		);

		const skipped = await startCard('5200000000002151');
		expect((await processCard(skipped.reference)).data.data).toMatchObject({
			status: 'FAILED',
			message: expect.stringMatching(/not completed/),
		});

		const noMd = await startCard('5200000000002151');
		const page = await axios.post(
			noMd.enrolment.stepUpUrl,
			form({ JWT: noMd.enrolment.accessToken }),
			{ headers: formHeaders },
		);
		expect(String(page.data)).toContain('failed');
		expect((await processCard(noMd.reference)).data.data).toMatchObject({
			status: 'FAILED',
			message: expect.stringMatching(/MD/),
		});
	});

	it('enroll and process refuse to run before the earlier steps (422), and enroll validates deviceInformation', async () => {
		const { reference } = await t.createIntent();
		expect((await t.post(`/pay/${reference}/enroll`, { deviceInformation })).data.data.code).toBe(
			'NO_CARD',
		);
		await t.post(`/pay/${reference}/cspaToken`, card('4111111111111111'));
		const bad = await t.post(`/pay/${reference}/enroll`, {
			deviceInformation: { ...deviceInformation, httpBrowserColorDepth: 'deep' },
		});
		expect(bad.status).toBe(400);
		expect(bad.data.data.message).toMatch(/httpBrowserColorDepth/);
		expect((await processCard(reference)).data.data.code).toBe('NOT_ENROLLED');
		expect((await t.post(`/pay/${reference}/enroll`, {})).data.data.message).toMatch(
			/deviceInformation is required/,
		);
	});
});

// What Little Pay's own browser SDK relies on, over real HTTP: CORS on every answer, a long-polling
// card process held until 3-D Secure settles, links built from the host the request came to, and
// expiry timers that hold for 30 days.
import axios from 'axios';
import { generateKeyPairSync } from 'node:crypto';

import { CallbackSender } from '../../sandbox/callbacks';
import { Gateway } from '../../sandbox/gateway';
import { deviceInformation, newKey, startTestSandbox } from '../../testkit/sandbox';
import type { TestSandbox } from '../../testkit/sandbox';
import { form, formHeaders } from '../../testkit/sandboxHelpers';

const card = (cc_number: string) => ({
	type: 'CARDS',
	payment: { cc_number, cc_cvv: '123', cc_exp: '01/39', cc_name: 'Amina Otieno' },
});

describe("the sandbox for Little Pay's browser SDK", () => {
	let t: TestSandbox;
	beforeAll(async () => {
		t = await startTestSandbox({ longPollTimeoutMs: 3000 });
	});
	afterAll(async () => {
		await t.sandbox.close();
	});

	it('answers CORS preflights with 204 and the methods and headers the SDK sends', async () => {
		const res = await axios.request({
			method: 'OPTIONS',
			url: `${t.base}/pay/some-reference/process?longPoll=true`,
			headers: {
				Origin: 'http://shop.example',
				'Access-Control-Request-Method': 'POST',
				'Access-Control-Request-Headers': 'content-type,x-api-key,authorization',
			},
			validateStatus: () => true,
		});
		expect(res.status).toBe(204);
		expect(res.headers['access-control-allow-origin']).toBe('*');
		expect(res.headers['access-control-allow-methods']).toBe('GET, POST, OPTIONS');
		for (const header of ['Authorization', 'Content-Type', 'X-API-KEY']) {
			expect(res.headers['access-control-allow-headers']).toContain(header);
		}
	});

	it('lets any origin read every answer, errors included', async () => {
		const ok = await t.createIntent();
		const answers = [
			await t.get(`/api/payments-v2/${ok.reference}`, t.apiKeyHeaders),
			await t.get('/api/payments-v2/nothing-here', t.apiKeyHeaders),
			await t.get(`/api/payments-v2/${ok.reference}`),
			await t.post(`/pay/${ok.reference}/process`, { type: 'NOPE' }),
		];
		expect(answers.map((a) => a.status)).toEqual([200, 404, 401, 400]);
		for (const a of answers) expect(a.headers['access-control-allow-origin']).toBe('*');
	});

	it('builds checkout, device data and step-up links from the host the request came to', async () => {
		const viaProxy = { Host: 'pay.shop.example:8443', 'X-Forwarded-Proto': 'https' };
		const created = await t.post(
			`/api/payments/${t.sandbox.merchant.tokenId}/pay`,
			{
				amount: 100,
				description: 'Proxy',
				callbackUrl: 'http://127.0.0.1:9/cb',
				key: newKey('proxy'),
				payload: { billingAddress: { email: 'a@example.com' } },
			},
			{ Authorization: t.basic, ...viaProxy },
		);
		const { reference, checkoutUrl } = created.data.data;
		expect(checkoutUrl).toBe(`https://pay.shop.example:8443/checkout/${reference}`);
		const token = await t.post(`/pay/${reference}/cspaToken`, card('5200000000002151'), viaProxy);
		expect(token.data.data.paToken.deviceDataCollectionUrl).toBe(
			'https://pay.shop.example:8443/sandbox/3ds/collect',
		);
		const enrolment = await t.post(`/pay/${reference}/enroll`, { deviceInformation }, viaProxy);
		expect(enrolment.data.data.stepUpUrl).toBe('https://pay.shop.example:8443/sandbox/3ds/step-up');
	});

	describe('a long-polling card process sent before 3-D Secure has settled (the SDK default)', () => {
		const started = async (number: string) => {
			const intent = await t.createIntent();
			await t.post(`/pay/${intent.reference}/cspaToken`, card(number));
			const processing = t.post(`/pay/${intent.reference}/process?longPoll=true`, {
				type: 'CARDS',
			});
			// The process request is in and held before enrolment starts.
			await new Promise((r) => setTimeout(r, 200));
			return { reference: intent.reference, processing };
		};

		it('is held, then COMPLETED after a frictionless enrolment', async () => {
			const { reference, processing } = await started('4111111111111111');
			const before = Date.now();
			await new Promise((r) => setTimeout(r, 300));
			await t.post(`/pay/${reference}/enroll`, { deviceInformation });
			const res = await processing;
			expect(Date.now() - before).toBeGreaterThanOrEqual(300);
			expect(res.status).toBe(200);
			expect(res.data.data).toMatchObject({ status: 'COMPLETED', provider: 'CARDS', reference });
		});

		it.each([
			['approve', 'COMPLETED'],
			['decline', 'FAILED'],
		])(
			'is held through a step-up, then answered when the cardholder chooses %s: %s',
			async (decision, status) => {
				const { reference, processing } = await started('5200000000002151');
				const enrolment = (await t.post(`/pay/${reference}/enroll`, { deviceInformation })).data
					.data;
				expect(enrolment.action).toBe('AUTHENTICATE');
				await new Promise((r) => setTimeout(r, 200));
				await axios.post(
					`${t.base}/sandbox/3ds/step-up/decide`,
					form({ JWT: enrolment.accessToken, MD: reference, decision }),
					{ headers: formHeaders },
				);
				const res = await processing;
				expect(res.data.data).toMatchObject({ status, provider: 'CARDS', reference });
				expect((await t.status(reference)).status).toBe(status);
			},
		);

		it('answers PENDING at the long-poll timeout and consumes nothing: a later process completes', async () => {
			const { reference, processing } = await started('4111111111111111');
			const res = await processing;
			expect(res.data.data).toMatchObject({ status: 'PENDING', provider: 'CARDS' });
			await t.post(`/pay/${reference}/enroll`, { deviceInformation });
			const again = await t.post(`/pay/${reference}/process`, { type: 'CARDS' });
			expect(again.data.data.status).toBe('COMPLETED');
		});

		it('without longPoll is answered at once, as before (422 before enrolment)', async () => {
			const intent = await t.createIntent();
			await t.post(`/pay/${intent.reference}/cspaToken`, card('4111111111111111'));
			const res = await t.post(`/pay/${intent.reference}/process`, { type: 'CARDS' });
			expect(res.status).toBe(422);
			expect(res.data.data.code).toBe('NOT_ENROLLED');
		});
	});
});

describe('intent expiry timers', () => {
	afterEach(() => {
		jest.useRealTimers();
	});

	it('a 40-day expiry does not fire at 24.8 days (the longest single timer) but at 40 days', () => {
		jest.useFakeTimers();
		const callbacks = new CallbackSender({
			privateKey: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey,
			retryDelaysMs: [],
			timeoutMs: 1000,
			allowRemote: false,
			log: () => undefined,
		});
		// The 30-day limit is on the request; the timer itself must hold any length.
		const gateway = new Gateway({ pinDelayMs: 10, callbacks, minuteMs: 60_000 * (40 / 30) });
		const intent = gateway.createIntent('sandbox-client-id', {
			amount: 100,
			description: 'Forty days',
			callbackUrl: 'http://127.0.0.1:9/cb',
			key: 'fortydays1',
			expiresAt: 43200,
			payload: { billingAddress: { email: 'a@example.com' } },
		});
		const day = 24 * 3600_000;
		jest.advanceTimersByTime(25 * day);
		expect(intent.status).toBe('PENDING');
		jest.advanceTimersByTime(14 * day);
		expect(intent.status).toBe('PENDING');
		jest.advanceTimersByTime(1 * day + 1000);
		expect(intent.status).toBe('FAILED');
		expect(intent.message).toMatch(/expired/);
		gateway.close();
		callbacks.close();
	});
});

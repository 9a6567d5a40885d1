// Hosted checkout: a person pays by mobile money or card on the sandbox page and is sent to returnUrl.
import axios from 'axios';
import { startTestSandbox, waitFor } from '../../testkit/sandbox';
import type { TestSandbox } from '../../testkit/sandbox';

const formHeaders = { 'content-type': 'application/x-www-form-urlencoded' };

describe('sandbox hosted checkout', () => {
	let t: TestSandbox;
	beforeAll(async () => {
		t = await startTestSandbox({ pinDelayMs: 80 });
	});
	afterAll(async () => {
		await t.sandbox.close();
	});

	const postForm = (url: string, fields: Record<string, string>) =>
		axios.post(url, new URLSearchParams(fields).toString(), {
			headers: formHeaders,
			maxRedirects: 0,
			validateStatus: () => true,
		});

	it('its pages take card data, so no other site may frame or sniff them (issue 50, point 3)', async () => {
		const { checkoutUrl, reference } = await t.createIntent({ amount: 990 });
		const page = await axios.get(checkoutUrl);
		expect(page.headers['x-frame-options']).toBe('DENY');
		expect(page.headers['x-content-type-options']).toBe('nosniff');
		expect(page.headers['cache-control']).toBe('no-store');
		const stepUp = await postForm(`${t.base}/checkout/${reference}/card`, {
			cc_number: '5200000000002151',
			cc_exp: '01/39',
			cc_cvv: '737',
			cc_name: 'Amina Wanjiru',
		});
		expect(String(stepUp.data)).toContain('3-D Secure');
		expect(stepUp.headers['x-frame-options']).toBe('DENY');
	});

	it('serves a page offering mobile money and card', async () => {
		const { checkoutUrl } = await t.createIntent({ amount: 990, description: 'Concert ticket' });
		const page = await axios.get(checkoutUrl);
		expect(page.headers['content-type']).toMatch(/text\/html/);
		expect(String(page.data)).toContain('Pay 990 KES');
		expect(String(page.data)).toContain('Pay by mobile money');
		expect(String(page.data)).toContain('Pay by card');
	});

	it('pays by mobile money, shows a waiting page, then redirects to returnUrl', async () => {
		const { reference, checkoutUrl } = await t.createIntent({
			returnUrl: 'http://127.0.0.1:9/thanks?order=7',
		});
		const submitted = await postForm(`${checkoutUrl}/mobile`, {
			type: 'MPESA',
			mobile: '+254 712 345 670',
		});
		expect(submitted.status).toBe(303);
		const waiting = await axios.get(checkoutUrl, { maxRedirects: 0, validateStatus: () => true });
		expect(String(waiting.data)).toContain('Check your phone');
		const done = await waitFor('redirect', async () => {
			const r = await axios.get(checkoutUrl, { maxRedirects: 0, validateStatus: () => true });
			return r.status === 303 ? r : undefined;
		});
		expect(done.headers.location).toBe(
			`http://127.0.0.1:9/thanks?order=7&reference=${reference}&status=COMPLETED`,
		);
	});

	it('shows the problem on the page for a bad number and keeps the intent payable', async () => {
		const { reference, checkoutUrl } = await t.createIntent();
		const res = await postForm(`${checkoutUrl}/mobile`, { type: 'MPESA', mobile: '12' });
		expect(res.status).toBe(400);
		expect(String(res.data)).toContain('payment.mobile');
		expect((await t.status(reference)).attempts).toHaveLength(0);
	});

	it('pays by a challenge card with approve on the page', async () => {
		const { reference, checkoutUrl } = await t.createIntent();
		const challenge = await postForm(`${checkoutUrl}/card`, {
			cc_number: '5200000000002151',
			cc_exp: '01/39',
			cc_cvv: '000',
			cc_name: 'Amina',
		});
		expect(String(challenge.data)).toContain('Approve');
		expect(String(challenge.data)).not.toContain('5200000000002151');
		const approved = await postForm(`${checkoutUrl}/step-up`, { decision: 'approve' });
		expect(approved.status).toBe(303);
		expect((await t.status(reference)).status).toBe('COMPLETED');
		const final = await axios.get(checkoutUrl);
		expect(String(final.data)).toContain('Payment completed');
	});

	it('a declined card shows the reason and lets the person try again', async () => {
		const { reference, checkoutUrl } = await t.createIntent();
		await postForm(`${checkoutUrl}/card`, {
			cc_number: '4000000000000002',
			cc_exp: '01/39',
			cc_cvv: '000',
			cc_name: 'Amina',
		});
		expect((await t.status(reference)).status).toBe('FAILED');
		const page = await axios.get(checkoutUrl);
		expect(String(page.data)).toContain('declined');
		expect(String(page.data)).toContain('Pay by card');
	});
});

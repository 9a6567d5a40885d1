// A merchant page on one loopback origin pays against the sandbox on another, in Debian's Chromium,
// through cross-origin fetch calls shaped like Little Pay's browser SDK (process with longPoll, sent
// before enrolment for cards; the step-up in a frame that posts MAKE_PAYMENT to the page).
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';

import { startTestSandbox } from '../../testkit/sandbox';
import type { TestSandbox } from '../../testkit/sandbox';

jest.setTimeout(60000);

// The merchant's page: the calls Little Pay's SDK makes, against the gateway at `window.gateway`.
const SHOP_PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Shop</title></head><body>
<iframe name="stepup" title="3-D Secure" width="400" height="400"></iframe>
<script>
window.messages = [];
window.addEventListener('message', function (event) { window.messages.push(event.data); });
async function call(path, body) {
	const res = await fetch(window.gateway + path, {
		method: 'POST',
		headers: { 'Content-Type': 'application/json' },
		body: JSON.stringify(body),
	});
	return { status: res.status, body: await res.json() };
}
window.payMobile = function (reference, mobile) {
	return call('/pay/' + reference + '/process?longPoll=true', { type: 'MPESA', payment: { mobile: mobile } });
};
window.startCard = async function (reference, number) {
	await call('/pay/' + reference + '/cspaToken', {
		type: 'CARDS',
		payment: { cc_number: number, cc_cvv: '123', cc_exp: '01/39', cc_name: 'Amina Otieno' },
	});
	// The SDK's default order: process with longPoll first, then enrolment.
	window.processing = call('/pay/' + reference + '/process?longPoll=true', { type: 'CARDS' });
	const enrolment = await call('/pay/' + reference + '/enroll', {
		deviceInformation: {
			httpBrowserColorDepth: screen.colorDepth,
			httpBrowserJavaEnabled: false,
			httpBrowserJavaScriptEnabled: true,
			httpBrowserLanguage: navigator.language,
			httpBrowserScreenHeight: screen.height,
			httpBrowserScreenWidth: screen.width,
			httpBrowserTimeDifference: new Date().getTimezoneOffset(),
		},
	});
	const data = enrolment.body.data;
	if (data.action === 'AUTHENTICATE') {
		const form = document.createElement('form');
		form.method = 'POST';
		form.action = data.stepUpUrl;
		form.target = 'stepup';
		for (const [name, value] of [['JWT', data.accessToken], ['MD', reference]]) {
			const input = document.createElement('input');
			input.type = 'hidden';
			input.name = name;
			input.value = value;
			form.appendChild(input);
		}
		document.body.appendChild(form);
		form.submit();
	}
	return data.action;
};
</script></body></html>`;

describe('a page on another origin pays against the sandbox in Chromium', () => {
	let t: TestSandbox;
	let shop: Server;
	let shopUrl: string;
	let browser: Browser;
	let page: Page;

	beforeAll(async () => {
		t = await startTestSandbox({ pinDelayMs: 300, longPollTimeoutMs: 20000 });
		shop = createServer((_req, res) => {
			res.writeHead(200, { 'content-type': 'text/html' });
			res.end(SHOP_PAGE);
		});
		await new Promise<void>((r) => shop.listen(0, '127.0.0.1', () => r()));
		// localhost vs 127.0.0.1 and another port: a different origin from the sandbox.
		shopUrl = `http://localhost:${(shop.address() as AddressInfo).port}/`;
		browser = await chromium.launch({
			executablePath: '/usr/bin/chromium',
			args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
		});
	});

	afterAll(async () => {
		await browser?.close();
		await new Promise((r) => shop?.close(r));
		await t?.sandbox.close();
	});

	beforeEach(async () => {
		page = await browser.newPage();
		await page.goto(shopUrl);
		await page.evaluate((gateway) => {
			(window as unknown as { gateway: string }).gateway = gateway;
		}, t.base);
	});

	afterEach(async () => {
		await page.close();
	});

	it('mobile money: the long-polling process answers COMPLETED once the payer approves', async () => {
		const { reference } = await t.createIntent();
		const result = await page.evaluate(
			([ref]) =>
				(window as unknown as { payMobile(r: string, m: string): Promise<unknown> }).payMobile(
					ref,
					'254712345670',
				),
			[reference],
		);
		expect(result).toMatchObject({ status: 200, body: { data: { status: 'COMPLETED' } } });
	});

	it('card, frictionless: process sent before enrolment completes once enrolled', async () => {
		const { reference } = await t.createIntent();
		const action = await page.evaluate(
			([ref]) =>
				(window as unknown as { startCard(r: string, n: string): Promise<string> }).startCard(
					ref,
					'4111111111111111',
				),
			[reference],
		);
		expect(action).toBe('MAKE_PAYMENT');
		const result = await page.evaluate(
			() => (window as unknown as { processing: unknown }).processing,
		);
		expect(result).toMatchObject({ status: 200, body: { data: { status: 'COMPLETED' } } });
	});

	it('card with step-up: the frame posts MAKE_PAYMENT to the page and the held process completes', async () => {
		const { reference } = await t.createIntent();
		const action = await page.evaluate(
			([ref]) =>
				(window as unknown as { startCard(r: string, n: string): Promise<string> }).startCard(
					ref,
					'5200000000002151',
				),
			[reference],
		);
		expect(action).toBe('AUTHENTICATE');
		// The cardholder approves inside the step-up frame.
		await page
			.frameLocator('iframe[name="stepup"]')
			.locator('button[value="approve"]')
			.evaluate((button) => (button as HTMLButtonElement).click());
		const result = await page.evaluate(
			() => (window as unknown as { processing: unknown }).processing,
		);
		expect(result).toMatchObject({ status: 200, body: { data: { status: 'COMPLETED' } } });
		await page.waitForFunction(() =>
			(window as unknown as { messages: Array<{ action?: string }> }).messages.some(
				(m) => m && m.action === 'MAKE_PAYMENT',
			),
		);
		const messages = await page.evaluate(
			() => (window as unknown as { messages: unknown[] }).messages,
		);
		expect(messages).toContainEqual({ action: 'MAKE_PAYMENT', authentication: 'approved' });
	});
});

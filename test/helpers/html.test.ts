// The page builders: escaped output, and the device data collection page driven by a real browser
// against the sandbox's collection page (Debian Chromium through playwright-core).
import axios from 'axios';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';

import {
	buildDeviceDataCollectionPage,
	buildStepUpPage,
	COLLECTION_ORIGINS,
} from '../../nodes/LittlePay/helpers/html';
import { startTestSandbox } from '../../testkit/sandbox';
import type { TestSandbox } from '../../testkit/sandbox';

describe('page builders', () => {
	it('escapes every value so a hostile reference cannot inject markup or script', () => {
		const hostile = '"><script>alert(1)</script>';
		const page = buildDeviceDataCollectionPage({
			deviceDataCollectionUrl: 'https://x.test/c?a=1&b=2',
			accessToken: hostile,
			messageOrigin: '</script><script>alert(2)',
			reference: hostile,
			continueUrl: 'https://shop.test/next',
			timeoutMs: 10000,
		});
		expect(page).not.toContain('<script>alert');
		expect(page).toContain('action="https://x.test/c?a=1&amp;b=2"');
		expect(page).toContain('\\u003c/script>');
		const stepUp = buildStepUpPage({
			stepUpUrl: 'https://bank.test/step-up',
			accessToken: 'jwt',
			reference: hostile,
			inIframe: true,
		});
		expect(stepUp).not.toContain('<script>alert');
		expect(stepUp).toContain('target="littlepay-step-up"');
		expect(stepUp).toContain('name="MD" value="&quot;&gt;&lt;script&gt;');
	});
});

describe('device data collection page in a browser', () => {
	let sb: TestSandbox;
	let browser: Browser;
	let server: Server;
	let pageHtml = '';
	// n8n serves HTML from Respond to Webhook under this CSP (n8n-core's getHtmlSandboxCSP).
	let pageCsp: string | undefined;
	const continued: Array<Record<string, string>> = [];
	let serverUrl = '';

	beforeAll(async () => {
		sb = await startTestSandbox();
		server = createServer((req, res) => {
			if (req.method === 'POST' && req.url === '/continue') {
				let body = '';
				req.on('data', (chunk: Buffer) => (body += chunk.toString()));
				req.on('end', () => {
					continued.push(Object.fromEntries(new URLSearchParams(body)));
					res.end('continued');
				});
				return;
			}
			res.setHeader('Content-Type', 'text/html');
			if (pageCsp) res.setHeader('Content-Security-Policy', pageCsp);
			res.end(pageHtml);
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		serverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
		browser = await chromium.launch({
			executablePath: '/usr/bin/chromium',
			args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
		});
	}, 60000);

	afterAll(async () => {
		await browser?.close();
		await new Promise((resolve) => server?.close(resolve));
		await sb?.sandbox.close();
	});

	async function cardToken(): Promise<{ reference: string; paToken: Record<string, string> }> {
		const { reference } = await sb.createIntent();
		const res = await axios.post(`${sb.base}/pay/${reference}/cspaToken`, {
			type: 'CARDS',
			payment: { cc_number: '4111111111111111', cc_cvv: '737', cc_exp: '01/39', cc_name: 'Amina' },
		});
		return { reference, paToken: res.data.data.paToken };
	}

	async function openAndContinue(
		messageOrigin: string,
		timeoutMs: number,
		csp?: string,
	): Promise<Record<string, string>> {
		pageCsp = csp;
		const { reference, paToken } = await cardToken();
		pageHtml = buildDeviceDataCollectionPage({
			deviceDataCollectionUrl: paToken.deviceDataCollectionUrl,
			accessToken: paToken.accessToken,
			messageOrigin,
			reference,
			continueUrl: `${serverUrl}/continue`,
			timeoutMs,
		});
		const before = continued.length;
		const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
		try {
			await page.goto(`${serverUrl}/pay`);
			await page.waitForURL(`${serverUrl}/continue`, { timeout: 15000 });
		} finally {
			await page.close();
		}
		expect(continued).toHaveLength(before + 1);
		return {
			...continued[continued.length - 1],
			expectedReference: reference,
			expectedSession: paToken.referenceId,
		};
	}

	it('posts the session id and the browser fields on once the collection page reports profile.completed', async () => {
		const posted = await openAndContinue(new URL(sb.base).origin, 10000);
		expect(posted).toMatchObject({
			reference: posted.expectedReference,
			sessionId: posted.expectedSession,
			deviceDataCollected: 'true',
			httpBrowserJavaScriptEnabled: 'true',
		});
		expect(Number(posted.httpBrowserScreenWidth)).toBeGreaterThan(0);
		expect(Number(posted.httpBrowserColorDepth)).toBeGreaterThan(0);
	});

	it('ignores the message from any other origin and goes on without it after the timeout', async () => {
		const posted = await openAndContinue(COLLECTION_ORIGINS.production, 1500);
		expect(posted).toMatchObject({
			reference: posted.expectedReference,
			sessionId: '',
			deviceDataCollected: 'false',
		});
	});

	it('still sees the collection message when n8n serves the page in its CSP sandbox (opaque origin)', async () => {
		const { getHtmlSandboxCSP } = await import('n8n-core');
		const posted = await openAndContinue(new URL(sb.base).origin, 10000, getHtmlSandboxCSP());
		expect(posted).toMatchObject({
			sessionId: posted.expectedSession,
			deviceDataCollected: 'true',
		});
	});
});

// A merchant's first hour in the real n8n 2.x editor (issue 21), in Chromium: find the node by the
// words merchants type, fill every operation from the fields its panel shows, read the unit of every
// amount without hovering, and find how to test the trigger. Saves one screenshot per operation
// under .artifacts/screenshots/ (docs/screenshots/, shown in the README, with UPDATE_SCREENSHOTS=1).
// `npm test` builds dist/ before this runs.
import { generateKeyPairSync, sign } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

import axios from 'axios';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';

import { OPERATIONS } from '../../nodes/LittlePay/actions/registry';
import { N8nApi, OWNER, screenshotDir, startN8n } from '../../testkit/n8n';
import type { N8nServer } from '../../testkit/n8n';
import { createSandboxIntent, sandboxCredentials, waitFor } from '../../testkit/n8nRuns';
import { chain, manualTriggerNode, rowsNode } from '../../testkit/workflowParts';
import { startSandbox } from '../../sandbox';
import type { SandboxHandle } from '../../sandbox';

jest.setTimeout(600000);

const SHOTS = screenshotDir();

interface Panel {
	resource: string;
	operation: string;
	/** Parameters the node is created with, beyond resource and operation. */
	parameters?: Record<string, unknown>;
	/** Labels of the fields a user must fill: each must be on the panel, not in a collection. */
	required: string[];
	/** Labels of the money fields: each must show its unit under the field, without hovering. */
	money?: string[];
}

// The unit every money field shows in its hint.
const UNIT = /not cents/;

const PANELS: Panel[] = [
	{
		resource: 'paymentIntent',
		operation: 'create',
		required: [
			'Amount',
			'Currency',
			'Description',
			'Payer Email',
			'Payer Phone Number',
			'Callback URL',
		],
		money: ['Amount'],
	},
	{
		resource: 'mobileMoney',
		operation: 'collect',
		required: ['Amount', 'Currency', 'Description', 'Network', 'Mobile Number', 'Callback URL'],
		money: ['Amount'],
	},
	{
		resource: 'mobileMoney',
		operation: 'requestPayment',
		required: ['Intent Reference', 'Network', 'Mobile Number'],
	},
	{ resource: 'payment', operation: 'getStatus', required: ['Reference or Key'] },
	{
		resource: 'payment',
		operation: 'reconcile',
		required: ['Reference or Key', 'Status You Recorded'],
	},
	{ resource: 'disbursement', operation: 'reconcile', required: ['ID or Key'] },
	{
		resource: 'payment',
		operation: 'waitForCompletion',
		required: ['Reference or Key', 'How to Wait'],
	},
	{
		resource: 'refund',
		operation: 'create',
		parameters: { refundType: 'partial' },
		required: ['Reference or Key', 'Refund', 'Amount'],
		money: ['Amount'],
	},
	{
		resource: 'card',
		operation: 'getDeviceDataCollectionToken',
		required: ['Intent Reference', 'Card Number', 'CVV', 'Expiry (MM/YY)', 'Cardholder Name'],
	},
	{
		resource: 'card',
		operation: 'buildDeviceDataCollectionPage',
		required: ['Intent Reference', 'Device Data Collection URL', 'Access Token', 'Continue URL'],
	},
	{ resource: 'card', operation: 'checkEnrolment', required: ['Intent Reference'] },
	{
		resource: 'card',
		operation: 'buildStepUpPage',
		required: ['Intent Reference', 'Step-Up URL', 'Access Token'],
	},
	{ resource: 'card', operation: 'processPayment', required: ['Intent Reference'] },
	{
		resource: 'disbursement',
		operation: 'create',
		required: ['Amount', 'Currency', 'Network', 'Destination Number', 'Payout Key', 'Key'],
		money: ['Amount'],
	},
	{ resource: 'disbursement', operation: 'get', required: ['ID or Key'] },
	{
		resource: 'disbursement',
		operation: 'waitForSettlement',
		required: ['ID or Key', 'Timeout (Seconds)'],
	},
	{ resource: 'disbursement', operation: 'getCharges', required: [] },
	{
		resource: 'disbursement',
		operation: 'quoteFee',
		required: ['Network', 'Amount'],
		money: ['Amount'],
	},
];

const nodeName = (panel: Panel) => `${panel.resource} ${panel.operation}`;

// One n8n and one browser for the whole file. Its own n8n, not the run's shared one: the third hour counts on
// n8n filling in the only credential of a type there is, so no other file's credentials may be there.
let n8n: N8nServer;
let browser: Browser;

beforeAll(async () => {
	mkdirSync(SHOTS, { recursive: true });
	n8n = await startN8n();
	await new N8nApi(n8n.url).setupOwner();
	browser = await chromium.launch({
		executablePath: '/usr/bin/chromium',
		args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
	});
});

afterAll(async () => {
	await browser?.close();
	await n8n?.stop();
});

/**
 * Waits until the element's text has stopped changing (the same for 300 ms, read every 100 ms): the editor has
 * drawn what it shows, parameters, hints and notices. Its own signal, not a fixed sleep.
 */
async function settled(page: Page, selector = '[data-test-id="ndv"]'): Promise<void> {
	await page.waitForSelector(selector);
	let last = '';
	let same = 0;
	const deadline = Date.now() + 15000;
	while (same < 3 && Date.now() < deadline) {
		await new Promise((r) => setTimeout(r, 100));
		const now = await page
			.locator(selector)
			.first()
			.innerText()
			.catch(() => '');
		same = now === last && now !== '' ? same + 1 : 0;
		last = now;
	}
}

/** Waits until the page's finite CSS transitions and animations have ended (a list fading in): the browser's own signal. */
async function animationsDone(page: Page): Promise<void> {
	await page.evaluate(async () => {
		const finite = document
			.getAnimations()
			.filter((a) => a.effect?.getComputedTiming().iterations !== Infinity);
		await Promise.all(finite.map((a) => a.finished.catch(() => undefined)));
	});
}

/** A new page of the file's browser, signed in as the owner. */
async function signedInPage(): Promise<Page> {
	const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
	await page.goto(`${n8n.url}/signin`);
	await page.fill('input[name="emailOrLdapLoginId"]', OWNER.email);
	await page.fill('input[name="password"]', OWNER.password);
	await page.click('[data-test-id="form-submit-button"]');
	await page.waitForURL(/\/home/);
	return page;
}

// A label's text is followed by the Fixed / Expression switch n8n shows beside it.
const firstLine = (text: string) => text.split('\n')[0].trim();

describe("a merchant's first hour in the n8n editor", () => {
	let api: N8nApi;
	let credentialIds: string[] = [];
	let page: Page;
	let workflowId: string;
	let schemaWorkflowId: string;
	let triggerSchemaWorkflowId: string;
	const consoleErrors: string[] = [];

	beforeAll(async () => {
		api = new N8nApi(n8n.url);
		await api.setupOwner();
		// Panels only: the credentials point at a closed loopback port and are never used.
		const basicId = await api.createCredential('Little Pay (Client ID)', 'littlePayBasicApi', {
			clientId: 'client',
			clientSecret: 'secret',
			tokenId: 'token',
			baseUrl: 'http://127.0.0.1:9',
		});
		const apiKeyId = await api.createCredential('Little Pay (API key)', 'littlePayApiKeyApi', {
			apiKey: 'key',
			baseUrl: 'http://127.0.0.1:9',
			disbursementBaseUrl: '',
		});
		credentialIds = [basicId, apiKeyId];
		const nodes: Array<Record<string, unknown>> = PANELS.map((panel, i) => ({
			name: nodeName(panel),
			type: 'n8n-nodes-littlepay.littlePay',
			typeVersion: 1,
			position: [(i % 4) * 260, Math.floor(i / 4) * 220],
			parameters: {
				resource: panel.resource,
				operation: panel.operation,
				...panel.parameters,
			},
			credentials: {
				littlePayApiKeyApi: { id: apiKeyId, name: 'Little Pay (API key)' },
				...((panel.resource === 'paymentIntent' || panel.operation === 'collect') && {
					littlePayBasicApi: { id: basicId, name: 'Little Pay (Client ID)' },
				}),
			},
		}));
		// The same node as an AI tool (what n8n offers its AI Agent and MCP Server Trigger), on a payout.
		nodes.push({
			name: 'Pay out as a tool',
			type: 'n8n-nodes-littlepay.littlePayTool',
			typeVersion: 1,
			position: [1040, 0],
			parameters: { resource: 'disbursement', operation: 'create' },
			credentials: { littlePayApiKeyApi: { id: apiKeyId, name: 'Little Pay (API key)' } },
		});
		nodes.push({
			name: 'Dry run',
			type: 'n8n-nodes-littlepay.littlePay',
			typeVersion: 1,
			position: [1040, 220],
			parameters: { resource: 'disbursement', operation: 'create', checkOnly: true },
			credentials: { littlePayApiKeyApi: { id: apiKeyId, name: 'Little Pay (API key)' } },
		});
		// A payday run whose summary goes to a second output (Options > Output Run Summary).
		nodes.push({
			name: 'Payday',
			type: 'n8n-nodes-littlepay.littlePay',
			typeVersion: 1,
			position: [1040, 440],
			parameters: {
				resource: 'disbursement',
				operation: 'create',
				options: { runSummaryOutput: true },
			},
			credentials: { littlePayApiKeyApi: { id: apiKeyId, name: 'Little Pay (API key)' } },
		});
		nodes.push({
			name: 'Little Pay Trigger',
			type: 'n8n-nodes-littlepay.littlePayTrigger',
			typeVersion: 2,
			position: [0, 1000],
			parameters: {},
			webhookId: '5b0e2a57-6a51-4c1b-9d7e-0c1b8e2f4a10',
		});
		workflowId = (await api.createWorkflow({ name: 'Every panel', nodes, connections: {} })).id;
		// A payout with a node after it: that node's input panel previews the payout's output schema.
		schemaWorkflowId = (
			await api.createWorkflow({
				name: 'Schema preview',
				nodes: [
					{
						name: 'Start',
						type: 'n8n-nodes-base.manualTrigger',
						typeVersion: 1,
						position: [0, 0],
						parameters: {},
					},
					{
						name: 'Pay Out',
						type: 'n8n-nodes-littlepay.littlePay',
						typeVersion: 1,
						position: [260, 0],
						parameters: { resource: 'disbursement', operation: 'create' },
						credentials: { littlePayApiKeyApi: { id: apiKeyId, name: 'Little Pay (API key)' } },
					},
					{
						name: 'After the Payout',
						type: 'n8n-nodes-base.noOp',
						typeVersion: 1,
						position: [520, 0],
						parameters: {},
					},
				],
				connections: {
					Start: { main: [[{ node: 'Pay Out', type: 'main', index: 0 }]] },
					'Pay Out': { main: [[{ node: 'After the Payout', type: 'main', index: 0 }]] },
				},
			})
		).id;

		// A trigger with a node after it: the editor asks n8n for the trigger's schema at its version.
		triggerSchemaWorkflowId = (
			await api.createWorkflow({
				name: 'Trigger schema',
				nodes: [
					{
						name: 'Little Pay Trigger',
						type: 'n8n-nodes-littlepay.littlePayTrigger',
						typeVersion: 2,
						position: [0, 0],
						parameters: {},
						webhookId: '0d6c3f7e-2b1a-4c5d-8e9f-1a2b3c4d5e6f',
					},
					{
						name: 'After the Callback',
						type: 'n8n-nodes-base.noOp',
						typeVersion: 1,
						position: [260, 0],
						parameters: {},
					},
				],
				connections: {
					'Little Pay Trigger': {
						main: [[{ node: 'After the Callback', type: 'main', index: 0 }]],
					},
				},
			})
		).id;

		page = await signedInPage();
		// Counted from here on: the sign-in page's own 401 probe is n8n's, before anyone logs in.
		page.on('console', (message) => {
			if (message.type() === 'error') consoleErrors.push(message.text());
		});
		page.on('pageerror', (error) => consoleErrors.push(error.message));
	});

	// The third hour's set-up has only the demo's credentials: these go with the first hour's panels.
	afterAll(async () => {
		await page?.close();
		for (const id of credentialIds) await api.http.delete(`/rest/credentials/${id}`);
	});

	/** The node creator's results for the words, each with the description shown under its name. */
	async function searchNodeCreator(
		words: string,
	): Promise<Array<{ name: string; description: string }>> {
		await page.locator('[data-test-id="node-creator"] input').first().fill(words);
		// The results of these words, not of the words before: the list has stopped changing.
		await settled(page, '[data-test-id="node-creator"]');
		await page.waitForFunction(() =>
			[...document.querySelectorAll('[data-test-id="node-creator-item-name"]')].some(
				(e) => e.textContent?.trim() === 'Little Pay',
			),
		);
		return await page.$$eval('[data-test-id="node-creator-item-name"]', (els) =>
			els.map((e) => {
				// The row around the name: the closest ancestor that also holds a description.
				let row: Element | null = e;
				while (row && !row.querySelector('[data-test-id="node-creator-item-description"]'))
					row = row.parentElement;
				return {
					name: e.textContent?.trim() ?? '',
					description:
						row
							?.querySelector('[data-test-id="node-creator-item-description"]')
							?.textContent?.trim() ?? '',
				};
			}),
		);
	}

	// n8n lists both nodes as one entry described by the trigger's description: it says what both do.
	const BOTH =
		/^Collect mobile money and card payments, refund, pay out, and start workflows on Little Pay's callbacks$/;

	it.each([
		'mpesa',
		'payout',
		'pay out',
		'mobile money',
		'reconcile',
		'reconcile payouts',
		'settlement',
		'payout status',
		'pending payout',
		'pending',
		'payment callback',
	])(
		'finds Little Pay first in the node creator by "%s", described by what it does for that search',
		async (words) => {
			// One new workflow with its node creator open for every search: each search replaces the words.
			const creatorOpen =
				page.url().includes('/workflow/new') &&
				(await page.locator('[data-test-id="node-creator"] input').first().isVisible());
			if (!creatorOpen) {
				await page.goto(`${n8n.url}/workflow/new`);
				await page.click('[data-test-id="node-creator-plus-button"]');
			}
			const results = await searchNodeCreator(words);
			// The first suggestion, not an unrelated node.
			expect(results[0].name).toBe('Little Pay');
			expect(results[0].description).toMatch(BOTH);
			await page.screenshot({ path: join(SHOTS, `search-${words.replace(/\W+/g, '-')}.png`) });
		},
	);

	it('"What happens next?" finds the same entry by a payout\'s words, with the same description', async () => {
		await page.goto(`${n8n.url}/workflow/${schemaWorkflowId}`);
		await page.waitForSelector('[data-test-id="canvas-node"]');
		await page.click('[data-test-id="node-creator-plus-button"]');
		await page.getByText('What happens next?').first().waitFor();
		const results = await searchNodeCreator('pending payout');
		expect(results[0]).toEqual({ name: 'Little Pay', description: expect.stringMatching(BOTH) });
		await page.screenshot({ path: join(SHOTS, 'search-next-pending-payout.png') });
	});

	/** Opens a node's panel on the saved workflow and returns its visible field labels. */
	async function openPanel(name: string): Promise<string[]> {
		if (!page.url().endsWith(`/workflow/${workflowId}`)) {
			await page.goto(`${n8n.url}/workflow/${workflowId}`);
			await page.waitForSelector('[data-test-id="canvas-node"]');
		}
		await page.locator(`[data-test-id="canvas-node"][data-node-name="${name}"]`).dblclick();
		await settled(page);
		return (
			await page
				.locator('[data-test-id="ndv"] [data-test-id="input-label"]')
				.filter({ visible: true })
				.allInnerTexts()
		).map(firstLine);
	}

	async function closePanel(): Promise<void> {
		await page.locator('[data-test-id="ndv-close-button"]').click();
		await page.waitForSelector('[data-test-id="ndv"]', { state: 'detached' });
	}

	/** Opens the open panel's Spending Limits "Add Limit" list and returns the limits it offers. */
	async function spendingLimitChoices(): Promise<string[]> {
		await page
			.locator('[data-test-id="ndv"] [data-test-id="parameter-item"]')
			.filter({ has: page.locator('label[for="spendingLimits"]') })
			.locator('[data-test-id="collection-parameter-add"]')
			.click();
		const options = page
			.locator('[data-test-id="collection-parameter-option"]')
			.filter({ visible: true });
		await options.first().waitFor();
		return (await options.allInnerTexts()).map(firstLine);
	}

	/** The text under a field (its hint), read from the visible parameter item with that label. */
	async function fieldText(label: string): Promise<string> {
		const item = page
			.locator('[data-test-id="ndv"] [data-test-id="parameter-item"]')
			.filter({ visible: true })
			.filter({ has: page.locator('[data-test-id="input-label"]', { hasText: label }) })
			.first();
		return await item.innerText();
	}

	it.each(PANELS.map((panel) => [nodeName(panel), panel] as const))(
		'%s: the fields to fill are on the panel, amounts show their unit, no console error',
		async (name, panel) => {
			const errorsBefore = consoleErrors.length;
			const labels = await openPanel(name);
			for (const field of panel.required) expect(labels).toContain(field);
			for (const field of panel.money ?? []) expect(await fieldText(field)).toMatch(UNIT);
			await page.screenshot({ path: join(SHOTS, `${panel.resource}-${panel.operation}.png`) });
			await closePanel();
			expect(consoleErrors.slice(errorsBefore)).toEqual([]);
		},
	);

	it('Pay Out offers Pay Again If Failed among its Options, and with Output Run Summary on the canvas shows a Summary output', async () => {
		const errorsBefore = consoleErrors.length;
		const labels = await openPanel('Payday');
		expect(labels).toContain('Output Run Summary');
		await page
			.locator('[data-test-id="ndv"] [data-test-id="parameter-item"]')
			.filter({ has: page.locator('label[for="options"]') })
			.locator('[data-test-id="collection-parameter-add"]')
			.click();
		const options = page
			.locator('[data-test-id="collection-parameter-option"]')
			.filter({ visible: true });
		await options.first().waitFor();
		expect((await options.allInnerTexts()).map(firstLine)).toEqual([
			'Check Limits and Fee First',
			'Concurrency',
			'Pay Again If Failed',
		]);
		await animationsDone(page); // the list fades in
		await page.screenshot({ path: join(SHOTS, 'disbursement-create-options.png') });
		await page.keyboard.press('Escape');
		await closePanel();
		const payday = page.locator('[data-test-id="canvas-node"][data-node-name="Payday"]');
		await payday.scrollIntoViewIfNeeded();
		await expect(
			page.locator('[data-test-id="canvas"]').getByText('Summary', { exact: true }).count(),
		).resolves.toBeGreaterThan(0);
		const box = await payday.boundingBox();
		if (box)
			await page.screenshot({
				path: join(SHOTS, 'disbursement-create-run-summary-output.png'),
				clip: { x: Math.max(0, box.x - 60), y: Math.max(0, box.y - 60), width: 420, height: 260 },
			});
		expect(consoleErrors.slice(errorsBefore)).toEqual([]);
	});

	it('as an AI tool, a payout says in the panel that it moves no money until allowed, beside its limits per call, execution and chat session', async () => {
		const errorsBefore = consoleErrors.length;
		const labels = await openPanel('Pay out as a tool');
		expect(labels).toEqual(
			expect.arrayContaining(['Allow Money Moves as a Tool', 'Spending Limits']),
		);
		const panel = await page.locator('[data-test-id="ndv"]').innerText();
		expect(panel).toMatch(/As a tool this operation moves no money/);
		await page.screenshot({ path: join(SHOTS, 'tool-disbursement-create.png') });
		// The limits a payout tool can be given, per call, per execution and per chat session.
		expect(await spendingLimitChoices()).toEqual([
			'Allowed Currencies',
			'Allowed Networks',
			'Allowed Recipients',
			'Max Amount',
			'Max Count per Chat Session',
			'Max Count per Day',
			'Max Count per Execution',
			'Max Total per Chat Session',
			'Max Total per Day',
			'Max Total per Execution',
			'Max Total per Recipient per Day',
		]);
		await animationsDone(page); // the list fades in
		await page.screenshot({ path: join(SHOTS, 'tool-spending-limits.png') });
		await page.keyboard.press('Escape');
		await closePanel();
		expect(consoleErrors.slice(errorsBefore)).toEqual([]);
	});

	it('in a workflow, a payout offers its limits per call and execution, and none per chat session (a tool-only notion)', async () => {
		await openPanel('disbursement create');
		expect(await spendingLimitChoices()).toEqual([
			'Allowed Currencies',
			'Allowed Networks',
			'Allowed Recipients',
			'Max Amount',
			'Max Count per Day',
			'Max Count per Execution',
			'Max Total per Day',
			'Max Total per Execution',
			'Max Total per Recipient per Day',
		]);
		await page.keyboard.press('Escape');
		await closePanel();
	});

	it('going live: a plain-http Callback URL and a pasted Public Key are said in the panel (issue 45)', async () => {
		const api = new N8nApi(n8n.url);
		await api.setupOwner();
		const { id } = await api.createWorkflow({
			name: 'Going live',
			nodes: [
				{
					name: 'Collect',
					type: 'n8n-nodes-littlepay.littlePay',
					typeVersion: 1,
					position: [0, 0],
					parameters: {
						resource: 'mobileMoney',
						operation: 'collect',
						callbackUrl: 'http://127.0.0.1:5678/webhook/x/littlepay',
					},
				},
				{
					name: 'Pasted Key',
					type: 'n8n-nodes-littlepay.littlePayTrigger',
					typeVersion: 2,
					position: [0, 300],
					parameters: {
						options: {
							publicKey: '-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkq\n-----END PUBLIC KEY-----',
						},
					},
					webhookId: '9c2f1e0a-3b4d-4e5f-8a9b-0c1d2e3f4a5b',
				},
				{
					name: 'Unconfirmed',
					type: 'n8n-nodes-littlepay.littlePayTrigger',
					typeVersion: 2,
					position: [0, 600],
					parameters: { confirmWithStatusApi: false },
					webhookId: '4e7a1c2b-5d6f-4a8b-9c0d-1e2f3a4b5c6d',
				},
			],
			connections: {},
		});
		await page.goto(`${n8n.url}/workflow/${id}`);
		await page.waitForSelector('[data-test-id="canvas-node"]');
		const ndv = page.locator('[data-test-id="ndv"]');
		await page.locator('[data-test-id="canvas-node"][data-node-name="Collect"]').dblclick();
		await settled(page);
		expect(await ndv.innerText()).toMatch(/This Callback URL is plain http/);
		await ndv.getByText('This Callback URL is plain http').scrollIntoViewIfNeeded();
		await page.screenshot({ path: join(SHOTS, 'mobileMoney-collect-local-callback.png') });
		await closePanel();
		await page.locator('[data-test-id="canvas-node"][data-node-name="Pasted Key"]').dblclick();
		await settled(page);
		expect(await ndv.innerText()).toMatch(/Options > Public Key is set/);
		await page.screenshot({ path: join(SHOTS, 'trigger-pasted-key.png') });
		await closePanel();
		// The account confirmation turned off: the notice says what another merchant can then do.
		await page.locator('[data-test-id="canvas-node"][data-node-name="Unconfirmed"]').dblclick();
		await settled(page);
		expect(await ndv.innerText()).toMatch(
			/Confirm With Status API is OFF: another Little Pay merchant can pay a KES 10 payment/,
		);
		await page.screenshot({ path: join(SHOTS, 'trigger-unconfirmed.png') });
		await closePanel();
	});

	it('Create returns at once and says how to wait; Collect explains only its own pause', async () => {
		await openPanel('paymentIntent create');
		const create = await page.locator('[data-test-id="ndv"]').innerText();
		expect(create).toMatch(/Create returns at once with the checkout link/);
		expect(create).not.toMatch(/Pause Until Little Pay Calls Back/);
		expect(await fieldText('Key')).toMatch(/order number/);
		await closePanel();
		await openPanel('mobileMoney collect');
		await page.locator('[data-test-id="parameter-input-waitForPayment"]').click();
		await page.getByRole('option', { name: /Pause Until Little Pay Calls Back/ }).click();
		await page.getByText('After the PIN prompt is sent the execution pauses').first().waitFor();
		const collect = await page.locator('[data-test-id="ndv"]').innerText();
		expect(collect).toMatch(/After the PIN prompt is sent the execution pauses/);
		expect(collect).not.toMatch(/\$execution\.resumeUrl/);
		await page.screenshot({ path: join(SHOTS, 'mobileMoney-collect-pause.png') });
		await closePanel();
	});

	it('every node says in words on the canvas what it does, without being cut off: each operation, a dry run and the trigger', async () => {
		await page.goto(`${n8n.url}/workflow/${workflowId}`);
		await settled(page, '[data-test-id="canvas"]');
		/** The subtitle under a node on the canvas (else every text under it), and whether it is cut off. */
		const subtitleOf = async (name: string, subtitle: string) =>
			await page
				.locator(`[data-test-id="canvas-node"][data-node-name="${name}"]`)
				.locator('xpath=..')
				.evaluate((wrapper, wanted) => {
					const leaves = [...wrapper.querySelectorAll('*')].filter(
						(e) => e.children.length === 0 && (e.textContent ?? '').trim() !== '',
					) as HTMLElement[];
					const line = leaves.find((e) => (e.textContent ?? '').trim() === wanted);
					if (!line)
						return { text: leaves.map((e) => e.textContent?.trim()).join(' | '), cut: false };
					const box = (line.closest('[class*="subtitle"]') as HTMLElement | null) ?? line;
					return { text: wanted, cut: box.scrollWidth > box.clientWidth + 1 };
				}, subtitle);
		const expected = [
			...PANELS.map((panel) => [
				nodeName(panel),
				OPERATIONS.find((o) => o.id === `${panel.resource}:${panel.operation}`)!.run.meta.subtitle,
			]),
			['Little Pay Trigger', 'Any Event'],
			['Dry run', 'Check Only · Payout'],
		];
		const seen = [];
		for (const [name, subtitle] of expected)
			seen.push({ name, ...(await subtitleOf(name, subtitle)) });
		expect(seen).toEqual(expected.map(([name, text]) => ({ name, text, cut: false })));
		await page.screenshot({ path: join(SHOTS, 'canvas-subtitles.png') });
	});

	it('Payout Key is a choice, not a value: it offers no expression, and its warning is the first words of the option', async () => {
		await openPanel('disbursement create');
		const keySource = page
			.locator('[data-test-id="ndv"] [data-test-id="parameter-item"]')
			.filter({ visible: true })
			.filter({ has: page.locator('[data-test-id="input-label"]', { hasText: 'Payout Key' }) })
			.first();
		await keySource.hover();
		expect(await keySource.innerText()).not.toMatch(/Expression/);
		await keySource.locator('input').first().click();
		const option = page.getByText('Generate a Key per Execution').last();
		await option.waitFor();
		await animationsDone(page);
		expect(await option.locator('xpath=..').innerText()).toMatch(
			/Generate a Key per Execution\s+Running the workflow again pays every row again/,
		);
		await page.keyboard.press('Escape');
		await closePanel();
	});

	it("a tool's Description ends in a short placeholder for the limits, not in JavaScript", async () => {
		await openPanel('Pay out as a tool');
		const description = await fieldText('Description');
		expect(description).toMatch(/Amounts are in the currency's main unit/);
		expect(description).toMatch(/\{\{ \$parameter\.limitsInForce \}\}/);
		expect(description).not.toMatch(/=>|const |parts\.push/);
		await closePanel();
	});

	it("the node after a payout previews the payout's fields before any run, from the schema the package ships", async () => {
		const schemas: Array<{ url: string; status: number }> = [];
		const onResponse = (response: { url: () => string; status: () => number }) => {
			if (response.url().includes('/schemas/'))
				schemas.push({ url: response.url(), status: response.status() });
		};
		page.on('response', onResponse);
		try {
			await page.goto(`${n8n.url}/workflow/${schemaWorkflowId}`);
			await page.waitForSelector('[data-test-id="canvas-node"]');
			await page
				.locator('[data-test-id="canvas-node"][data-node-name="After the Payout"]')
				.dblclick();
			await page.waitForSelector('[data-test-id="ndv"]');
			const input = page.locator('[data-test-id="ndv-input-panel"]');
			await input.getByText('failureCode').first().waitFor({ timeout: 20000 });
			const text = await input.innerText();
			for (const field of ['outcome', 'amount', 'fee', 'alreadyExisted'])
				expect(text).toContain(field);
			await page.screenshot({ path: join(SHOTS, 'schema-preview-pay-out.png') });
			await closePanel();
		} finally {
			page.off('response', onResponse);
		}
		expect(schemas).toContainEqual({
			url: expect.stringMatching(
				/\/schemas\/n8n-nodes-littlepay\.littlePay\/1\.0\.0\/disbursement\/create\.json$/,
			),
			status: 200,
		});
		expect(schemas.filter((s) => s.status !== 200)).toEqual([]);
	});

	it("the node after the trigger gets the trigger's schema where the editor asks for it, without a 404", async () => {
		const schemas: Array<{ url: string; status: number }> = [];
		const onResponse = (response: { url: () => string; status: () => number }) => {
			if (response.url().includes('/schemas/'))
				schemas.push({ url: response.url(), status: response.status() });
		};
		page.on('response', onResponse);
		try {
			await page.goto(`${n8n.url}/workflow/${triggerSchemaWorkflowId}`);
			await page.waitForSelector('[data-test-id="canvas-node"]');
			const asked = page.waitForResponse((r) => r.url().includes('/schemas/'), { timeout: 30000 });
			await page
				.locator('[data-test-id="canvas-node"][data-node-name="After the Callback"]')
				.dblclick();
			await asked;
			await settled(page);
			await page.screenshot({ path: join(SHOTS, 'schema-after-trigger.png') });
			await closePanel();
		} finally {
			page.off('response', onResponse);
		}
		expect(schemas).toContainEqual({
			url: expect.stringMatching(
				/\/schemas\/n8n-nodes-littlepay\.littlePayTrigger\/2\.0\.0\.json$/,
			),
			status: 200,
		});
		expect(schemas.filter((s) => s.status !== 200)).toEqual([]);
	});

	it('the trigger says how to produce a test event and where its Production URL is', async () => {
		const errorsBefore = consoleErrors.length;
		await openPanel('Little Pay Trigger');
		const ndv = page.locator('[data-test-id="ndv"]');
		expect(await ndv.innerText()).toMatch(
			/Make Little Pay call this trigger: pay a payment whose Callback URL is its URL/,
		);
		expect(await ndv.innerText()).toMatch(/open Webhook URLs at the top of this panel/);
		await page.getByText('When will this node trigger my flow?').click();
		await settled(page);
		const help = await ndv.innerText();
		expect(help).toMatch(/Execute step/);
		expect(help).toMatch(/Test URL/);
		expect(help).toMatch(/0712345670/);
		// Public Key and Timestamp Tolerance wait in Options; the credential sits above its switch.
		const labels = (
			await ndv.locator('[data-test-id="input-label"]').filter({ visible: true }).allInnerTexts()
		).map(firstLine);
		expect(labels).not.toContain('Public Key');
		expect(labels).not.toContain('Timestamp Tolerance (Seconds)');
		expect(labels[0]).toBe('Confirm With Status API');
		// On by default, and its hint says why a signature alone is not enough.
		expect(await ndv.innerText()).toMatch(
			/Little Pay signs every merchant's callbacks with one key, so a signature proves Little Pay sent it, not that the payment is yours/,
		);
		await page.screenshot({ path: join(SHOTS, 'trigger.png') });
		await closePanel();
		expect(consoleErrors.slice(errorsBefore)).toEqual([]);
	});
});

// A merchant's third hour (issue 39), in the demo's set-up: the sandbox and exactly the credentials
// `npm start` makes (one Client ID and Secret, one API key, both on the sandbox), in a new workflow.
describe("a merchant's third hour in the demo's editor", () => {
	let sandbox: SandboxHandle;
	let page: Page;
	let api: N8nApi;
	let apiKeyId: string;

	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0, quiet: true, pinDelayMs: 500 });
		api = new N8nApi(n8n.url);
		await api.setupOwner();
		({ apiKeyId } = await sandboxCredentials(api, sandbox, 'Little Pay sandbox'));
		page = await signedInPage();
	});

	afterAll(async () => {
		await page?.close();
		await sandbox?.close();
	});

	/** Adds a Little Pay node to a new workflow from the node creator, as a merchant does, by the words of its action. */
	async function addFromNodeCreator(action: string): Promise<void> {
		await page.goto(`${n8n.url}/workflow/new`);
		await page.click(
			'[data-test-id="node-creator-plus-button"], [data-test-id="canvas-plus-button"]',
		);
		await page.locator('[data-test-id="node-creator"] input').first().fill('little pay');
		await page.getByText('Little Pay', { exact: true }).first().click();
		const creator = page.locator('[data-test-id="node-creator"]');
		// In a new workflow the list opens on the triggers; the actions are one click further.
		if (!action.startsWith('On '))
			await creator
				.getByText(/^Actions/)
				.first()
				.click();
		await creator.getByText(action, { exact: true }).first().click();
		await settled(page);
	}

	/** The values of the open panel's inputs: a selected credential's name is one. */
	async function inputValues(): Promise<string[]> {
		return await page
			.locator('[data-test-id="ndv"] input')
			.evaluateAll((inputs) => inputs.map((i) => (i as HTMLInputElement).value));
	}

	it('the action list opens with Mobile Money, and says which of Get Charges and Quote Fee prices one payout', async () => {
		await page.goto(`${n8n.url}/workflow/new`);
		await page.click(
			'[data-test-id="node-creator-plus-button"], [data-test-id="canvas-plus-button"]',
		);
		await page.locator('[data-test-id="node-creator"] input').first().fill('little pay');
		await page.getByText('Little Pay', { exact: true }).first().click();
		const creator = page.locator('[data-test-id="node-creator"]');
		await creator
			.getByText(/^Actions/)
			.first()
			.click();
		await creator.getByText('Quote the fee of one payout').first().waitFor();
		const text = await creator.innerText();
		const actions = text.slice(text.search(/Actions/));
		// The first action group is Mobile Money; the card steps come after the payments.
		expect(actions.search(/mobile money/i)).toBeLessThan(actions.search(/card/i));
		expect(actions).toContain('Get the charges table of every network');
		await page.screenshot({ path: join(SHOTS, 'actions.png') });
	});

	it('a new Payment Intent: Create says before the run that it needs the second credential n8n leaves empty', async () => {
		await addFromNodeCreator('Create a payment intent');
		const ndv = page.locator('[data-test-id="ndv"]');
		expect(await ndv.innerText()).toMatch(
			/This step needs two credentials: the API key one and "Little Pay \(Client ID and Secret\) API"/,
		);
		// n8n 2.41 filled in one of the two (the panel's notice names the other).
		const values = await inputValues();
		const selected = ['Little Pay sandbox (API key)', 'Little Pay sandbox (Basic)'].filter((name) =>
			values.includes(name),
		);
		expect(selected).toHaveLength(1);
		await page.screenshot({ path: join(SHOTS, 'paymentIntent-create-new.png') });
	});

	it("a new trigger, executed, gets the sandbox's signed callback as a test event with nothing pasted; a forged one ends the test with the reason", async () => {
		await addFromNodeCreator('On any event');
		const ndv = page.locator('[data-test-id="ndv"]');
		// n8n selected the one API key credential there is: the sandbox's.
		expect(await inputValues()).toContain('Little Pay sandbox (API key)');
		expect(await ndv.innerText()).toMatch(
			/Keep it on: off, anyone who learns this URL can send a made-up 'paid' callback/,
		);
		await page.locator('[title="Click to display webhook URLs"]').click();
		const testUrl = (await ndv.innerText()).match(/http:\/\/\S*\/webhook-test\/\S*/)?.[0];
		expect(testUrl).toMatch(/\/littlepay$/);

		await page.locator('[data-test-id="node-execute-button"]').first().click();
		await ndv.getByText('Listening for test event').waitFor();
		const reference = await createSandboxIntent(sandbox, {
			amount: 300,
			description: 'Test event',
			key: 'testevent01',
			callbackUrl: testUrl!,
		});
		await axios.post(`${sandbox.baseUrl}/pay/${reference}/process`, {
			type: 'MPESA',
			payment: { mobile: '254712345670' },
		});
		await ndv.getByText('payment.completed').first().waitFor({ timeout: 30000 });
		expect(await ndv.innerText()).toContain(reference);
		await page.screenshot({ path: join(SHOTS, 'trigger-test-event.png') });
		// The sandbox's delivery log: the callback was answered 2xx, not 401.
		const log = await axios.get(`${sandbox.baseUrl}/sandbox/callbacks`);
		const deliveries = (log.data.data.callbacks as Array<{ body: string; status?: number }>).filter(
			(d) => d.body.includes(reference),
		);
		expect(deliveries.map((d) => d.status)).toEqual([200]);

		// A forged "paid" callback to the same Test URL: refused 401, and the panel says why.
		await page.locator('[data-test-id="node-execute-button"]').first().click();
		await ndv.getByText('Listening for test event').waitFor();
		const forger = generateKeyPairSync('rsa', { modulusLength: 2048 });
		const raw = JSON.stringify({
			reference: 'LP-FORGED-1',
			status: 'COMPLETED',
			amount: 99000,
			key: 'forged01',
			currency: 'KES',
			provider: 'MPESA',
			date: new Date().toISOString(),
		});
		const timestamp = String(Math.floor(Date.now() / 1000));
		const signature = sign('sha256', Buffer.from(`${timestamp}.${raw}`), forger.privateKey);
		const answer = await axios.post(testUrl!, raw, {
			headers: {
				'content-type': 'application/json',
				'x-littlepay-timestamp': timestamp,
				'x-littlepay-signature': signature.toString('base64'),
			},
			validateStatus: () => true,
		});
		expect(answer.status).toBe(401);
		await ndv
			.getByText(
				'Refused a callback (bad-signature): the caller was answered 401 and nothing after this trigger ran',
			)
			.first()
			.waitFor({ timeout: 30000 });
		expect(await ndv.innerText()).toMatch(/Keep Verify Signatures on/);
		await page.screenshot({ path: join(SHOTS, 'trigger-refused.png') });
	});

	/** A Pay Out (or Reconcile) node on the sandbox's API key credential. */
	const payoutNode = (name: string, x: number, parameters: Record<string, unknown>) => ({
		name,
		type: 'n8n-nodes-littlepay.littlePay',
		typeVersion: 1,
		position: [x, 0],
		parameters: { resource: 'disbursement', ...parameters },
		credentials: {
			littlePayApiKeyApi: { id: apiKeyId, name: 'Little Pay sandbox (API key)' },
		},
	});
	const PAY_OUT = {
		operation: 'create',
		amount: '={{ $json.amount }}',
		currency: 'KES',
		method: 'MPESA',
		to: '={{ $json.to }}',
		country: 'KE',
		key: '={{ $json.key }}',
	};
	/** Runs a saved workflow from the editor's Execute Workflow button and opens one node's panel. */
	async function executeAndOpen(workflowId: string, node: string, expectText: string) {
		await page.goto(`${n8n.url}/workflow/${workflowId}`);
		await page.waitForSelector('[data-test-id="canvas-node"]');
		await page.locator('[data-test-id="execute-workflow-button"]').first().click();
		await waitFor('the run to end', async () => {
			const [run] = await api.executions(workflowId);
			return run && !['new', 'running'].includes(run.status) ? run : undefined;
		});
		await page.locator(`[data-test-id="canvas-node"][data-node-name="${node}"]`).dblclick();
		const ndv = page.locator('[data-test-id="ndv"]');
		await ndv.getByText(expectText).first().waitFor({ timeout: 60000 });
		return ndv;
	}

	it('a payroll with two bad rows, run from the editor, pays nobody and lists each refused row on its own line with its fix', async () => {
		const rows = [
			{ key: 'dec001', to: '254712000001', amount: 1500 },
			{ key: 'dec002', to: '254712000002', amount: '1,500' },
			{ key: 'dec003', to: '25471200003', amount: 2000 },
			{ key: 'dec004', to: '254712000004', amount: 2500 },
		];
		const { id } = await api.createWorkflow({
			name: 'December payroll',
			nodes: [
				manualTriggerNode,
				rowsNode('Payroll', [220, 0], rows),
				payoutNode('Pay Out', 440, PAY_OUT),
			],
			connections: chain('Start', 'Payroll', 'Pay Out'),
		});
		const ndv = await executeAndOpen(id, 'Pay Out', 'Nothing was paid: 2 of 4 rows are refused');
		const lines = (await ndv.innerText()).split('\n').map((line) => line.trim());
		// One refused row a line, each with its own fix: the error panel renders the description as HTML.
		expect(lines).toContainEqual(
			expect.stringMatching(/^Row 2 \(key dec002\): Amount "1,500" has a thousands comma/),
		);
		expect(lines).toContainEqual(
			expect.stringMatching(/^Row 3 \(key dec003\): Destination Number must have 9 digits/),
		);
		expect(lines.filter((line) => /^Row \d/.test(line))).toHaveLength(2);
		await page.screenshot({ path: join(SHOTS, 'disbursement-create-refused-run.png') });
		const ledger = await axios.get(`${sandbox.baseUrl}/sandbox/ledger`);
		const keys = (ledger.data.data.disbursements as Array<{ key: string }>).map((d) => d.key);
		expect(keys.filter((key) => key.startsWith('dec'))).toEqual([]);
	});

	it('Reconcile run from the editor shows its counts and the rows to act on above the output, by row and key', async () => {
		const paid = [
			{ row: 2, key: 'jan001', to: '254712000001', amount: 1500 },
			{ row: 5, key: 'jan004', to: '254712000004', amount: 2500 },
		];
		const records = [...paid, { row: 9, key: 'jan404', to: '254712000009', amount: 100 }];
		const { id } = await api.createWorkflow({
			name: 'January books',
			nodes: [
				manualTriggerNode,
				rowsNode('Payroll', [220, 0], paid),
				payoutNode('Pay Out', 440, PAY_OUT),
				rowsNode('Records', [660, 0], records),
				payoutNode('Reconcile', 880, {
					operation: 'reconcile',
					disbursementId: '={{ $json.key }}',
					expectedAmount: '={{ $json.amount }}',
					expectedCurrency: 'KES',
				}),
			],
			connections: chain('Start', 'Payroll', 'Pay Out', 'Records', 'Reconcile'),
		});
		const ndv = await executeAndOpen(id, 'Reconcile', 'Reconcile, 3 payouts:');
		const text = await ndv.innerText();
		expect(text).toMatch(
			/Reconcile, 3 payouts: \d completed, \d pending, 0 failed, 0 mismatch, 0 unverified, 1 not found/,
		);
		expect(text).toContain('Row 3 (jan404) not-found');
		await page.screenshot({ path: join(SHOTS, 'disbursement-reconcile-run.png') });
	});
});

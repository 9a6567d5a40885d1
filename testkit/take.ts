// The verification take (issue 46): one run, no cuts, of the package at work in a real n8n 2.41.1 in Debian's
// Chromium against the sandbox, with a caption on screen for each step. `npm run demo:take` records it
// (scripts/take.ts: Chromium's screencast frames, encoded by Debian's ffmpeg); test/e2e/take.e2e.test.ts runs
// the same steps without recording and asserts each one succeeded. Every step's success is read from n8n's
// REST API or the sandbox's ledger, not only from what the page shows.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import axios from 'axios';
import { parse as parseFlatted } from 'flatted';
import { chromium } from 'playwright-core';
import type { Browser, CDPSession } from 'playwright-core';

import { startSandbox } from '../sandbox';
import type { SandboxHandle } from '../sandbox';
import { fakeModel } from './fakeModel';
import type { Json } from './fakeModel';
import { N8nApi, OWNER, startN8n } from './n8n';
import type { N8nServer } from './n8n';
import { loadExample, waitFor } from './n8nRuns';
import { agentWorkflow, chain, littlePayToolNode, manualTriggerNode } from './workflowParts';

export interface TakeStep {
	step: string;
	caption: string;
	/** Seconds since the take started (the first frame). */
	start: number;
	end: number;
	ok: boolean;
	/** What proved the step (or why it failed). */
	detail: string;
}

export interface TakeResult {
	steps: TakeStep[];
	totalSeconds: number;
	/** Key frames written, by name. */
	keyFrames: string[];
	/** The screencast frames and their times (record only). */
	frames: Array<{ file: string; at: number }>;
}

export interface TakeOptions {
	/** Where frames, key frames and the step log go. */
	outDir: string;
	/** Record Chromium's screencast frames (the video); off in the test. */
	record: boolean;
	/** Also copy the handful of key frames in DOC_FRAMES to this folder (docs/screenshots for the script). */
	keyFrameDir?: string;
	/** Pause after each step so a viewer can read the result (ms); 0 in the test. */
	dwellMs?: number;
	log?: (line: string) => void;
}

const VIEWPORT = { width: 1280, height: 800 };
/** The key frames copied to docs/screenshots (the rest stay beside the video). */
const DOC_FRAMES = [
	'2-credential-api-key',
	'3-collect-completed',
	'4-trigger-fired',
	'6-payout-dry-run',
	'6-payout-paid',
	'7-agent-refused',
];

/**
 * The caption overlay: a fixed bar at the bottom of every page, its text kept in sessionStorage so it
 * survives the editor's navigations.
 */
const CAPTION_SCRIPT = `(() => {
	const draw = () => {
		const text = sessionStorage.getItem('take-caption') || '';
		let bar = document.getElementById('take-caption');
		if (!bar) {
			if (!document.body) return;
			bar = document.createElement('div');
			bar.id = 'take-caption';
			bar.style.cssText = 'position:fixed;left:0;right:0;bottom:0;z-index:2147483647;' +
				'background:rgba(20,20,30,0.88);color:#fff;font:600 20px/1.35 sans-serif;' +
				'padding:12px 24px;pointer-events:none;white-space:pre-line;text-align:center';
			document.body.appendChild(bar);
		}
		bar.textContent = text;
		bar.style.display = text ? 'block' : 'none';
	};
	window.__takeCaption = (text) => { sessionStorage.setItem('take-caption', text); draw(); };
	document.addEventListener('DOMContentLoaded', draw);
	setInterval(draw, 500);
})();`;

export async function runTake(options: TakeOptions): Promise<TakeResult> {
	const log = options.log ?? (() => undefined);
	const dwell = options.dwellMs ?? 0;
	rmSync(options.outDir, { recursive: true, force: true });
	const framesDir = join(options.outDir, 'frames');
	mkdirSync(framesDir, { recursive: true });
	if (options.keyFrameDir) mkdirSync(options.keyFrameDir, { recursive: true });

	const steps: TakeStep[] = [];
	const frames: Array<{ file: string; at: number }> = [];
	const keyFrames: string[] = [];
	let sandbox: SandboxHandle | undefined;
	let n8n: N8nServer | undefined;
	let browser: Browser | undefined;
	let model: Awaited<ReturnType<typeof fakeModel>> | undefined;
	let cdp: CDPSession | undefined;
	let t0 = 0;
	const now = () => (Date.now() - t0) / 1000;

	try {
		// Before the take: the sandbox, the scripted model, and n8n with the package installed from the
		// npm-pack tarball as the Community Nodes panel installs it (see the first caption).
		sandbox = await startSandbox({ port: 0, pinDelayMs: 300, quiet: true });
		const m = sandbox.merchant;
		model = await fakeModel({
			'Pay Baraka 5000': [{ name: 'pay_out', args: { amount: 5000, to: '254712345680' } }],
		});
		// Its own n8n, not the e2e run's shared one (testkit/sharedN8n.ts): the take is the demo from a fresh n8n.
		n8n = await startN8n();
		const api = new N8nApi(n8n.url);
		await api.setupOwner();
		log(`n8n ${n8n.url}, sandbox ${m.baseUrl}`);

		browser = await chromium.launch({
			executablePath: '/usr/bin/chromium',
			args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
		});
		const context = await browser.newContext({ viewport: VIEWPORT });
		await context.addInitScript(CAPTION_SCRIPT);
		const page = await context.newPage();

		t0 = Date.now();
		if (options.record) {
			cdp = await context.newCDPSession(page);
			let n = 0;
			cdp.on('Page.screencastFrame', (frame) => {
				const file = `frame-${String(++n).padStart(5, '0')}.jpg`;
				writeFileSync(join(framesDir, file), Buffer.from(frame.data, 'base64'));
				frames.push({ file, at: now() });
				void cdp?.send('Page.screencastFrameAck', { sessionId: frame.sessionId }).catch(() => {});
			});
			await cdp.send('Page.startScreencast', {
				format: 'jpeg',
				quality: 80,
				maxWidth: VIEWPORT.width,
				maxHeight: VIEWPORT.height,
			});
		}

		const caption = async (text: string) => {
			await page
				.evaluate(
					(t) => (window as unknown as { __takeCaption?: (s: string) => void }).__takeCaption?.(t),
					text,
				)
				.catch(() => undefined);
		};

		const keyFrame = async (name: string) => {
			const file = `take-${name}.png`;
			await caption(current);
			await page.waitForTimeout(300);
			await page.screenshot({ path: join(options.outDir, file) });
			if (options.keyFrameDir && DOC_FRAMES.includes(name))
				await page.screenshot({ path: join(options.keyFrameDir, file) });
			keyFrames.push(file);
		};

		let current = '';
		/** Runs one step under its caption; a failed step is recorded and the take goes on. */
		const step = async (name: string, text: string, body: () => Promise<string>) => {
			current = text;
			await caption(text);
			const start = now();
			log(`[${start.toFixed(1)} s] ${name}: ${text.split('\n')[0]}`);
			let ok = false;
			let detail = '';
			try {
				detail = await body();
				ok = true;
			} catch (error) {
				detail = (error as Error).message.split('\n').slice(0, 3).join(' ');
				await page
					.screenshot({ path: join(options.outDir, `failed-${name}.png`) })
					.catch(() => undefined);
			}
			if (dwell) await page.waitForTimeout(dwell);
			const end = now();
			steps.push({ step: name, caption: text, start, end, ok, detail });
			log(`[${end.toFixed(1)} s] ${name} ${ok ? 'ok' : 'FAILED'}: ${detail}`);
		};

		/** The newest execution of a workflow once it has finished. */
		const finished = async (workflowId: string, known: Set<string>) =>
			await waitFor(
				'the execution to finish',
				async () =>
					(await api.executions(workflowId)).find(
						(e) => !known.has(e.id) && !['running', 'new', 'waiting'].includes(e.status),
					),
				120000,
			);

		/** What a node of an execution output, its first branch's items. */
		const outputOf = async (executionId: string, node: string): Promise<Json[]> => {
			const full = await api.execution(executionId);
			const data = parseFlatted(String(full.data)) as {
				resultData: {
					runData: Record<string, Array<{ data?: { main?: Array<Array<{ json: Json }>> } }>>;
				};
			};
			const runs = data.resultData.runData[node] ?? [];
			return (runs[runs.length - 1]?.data?.main?.[0] ?? []).map((i) => i.json);
		};

		const openWorkflow = async (id: string) => {
			await page.goto(`${n8n!.url}/workflow/${id}`);
			await page.waitForSelector('[data-test-id="canvas-node"]');
			await caption(current);
		};

		/** Clicks the editor's Execute workflow button and waits for n8n to record the run. */
		const executeInEditor = async (workflowId: string): Promise<string> => {
			const known = new Set((await api.executions(workflowId)).map((e) => e.id));
			await page.locator('[data-test-id="execute-workflow-button"]').first().click();
			const done = await finished(workflowId, known);
			if (done.status !== 'success') throw new Error(`execution ${done.id} ended ${done.status}`);
			await page.waitForTimeout(800);
			return done.id;
		};

		/** Opens a node's panel (its output shows the run's items), and closes it after the key frame. */
		const showNode = async (name: string, frame?: string, asJson = false) => {
			await page.locator(`[data-test-id="canvas-node"][data-node-name="${name}"]`).dblclick();
			await page.waitForSelector('[data-test-id="ndv"]');
			await page.waitForTimeout(1200);
			// A wide record cut off in the table (status and the M-Pesa code off screen) reads whole as JSON.
			if (asJson) {
				await page
					.locator('[data-test-id="ndv"]')
					.getByText('JSON', { exact: true })
					.last()
					.click();
				await page.waitForTimeout(800);
			}
			if (frame) await keyFrame(frame);
			if (dwell) await page.waitForTimeout(dwell);
			await page.locator('[data-test-id="ndv-close-button"]').click();
			await page.waitForSelector('[data-test-id="ndv"]', { state: 'detached' });
		};

		// 0. Sign in.
		await caption(
			'Little Pay for n8n: the verification take, one run, no cuts, against the local sandbox (no real money)',
		);
		await page.goto(`${n8n.url}/signin`);
		await page.fill('input[name="emailOrLdapLoginId"]', OWNER.email);
		await page.fill('input[name="password"]', OWNER.password);
		await page.click('[data-test-id="form-submit-button"]');
		await page.waitForURL(/\/home/);

		// 1. The package, installed.
		await step(
			'install',
			'1. The package n8n-nodes-littlepay, installed from its npm-pack tarball the way Settings > Community Nodes installs it: n8n has loaded both its nodes.\n' +
				'(Not typed into the panel, which then lists only what it installed itself: n8n 2.41.1 fetches only from registry.npmjs.org unless licensed for a custom registry.)',
			async () => {
				const types = (await api.nodeTypes()).map((t) => t.name);
				for (const name of [
					'n8n-nodes-littlepay.littlePay',
					'n8n-nodes-littlepay.littlePayTrigger',
				])
					if (!types.includes(name)) throw new Error(`${name} is not loaded`);
				await page.goto(`${n8n!.url}/workflow/new`);
				await page.click('[data-test-id="node-creator-plus-button"]');
				await page.locator('[data-test-id="node-creator"] input').first().fill('little pay');
				await page
					.locator('[data-test-id="node-creator-item-name"]', { hasText: 'Little Pay' })
					.first()
					.waitFor();
				await keyFrame('1-node-creator');
				await page.keyboard.press('Escape');
				return 'both nodes loaded from the installed package; the node creator finds Little Pay';
			},
		);

		// 2. Both credentials, made in the credential dialog, each with its Test passing.
		const ids = { basicId: '', apiKeyId: '' };
		await step(
			'credentials',
			'2. Both credentials, made in the Create Credential dialog: Client ID and Secret (payment intents)\nand API key (everything else). Saving tests each against the sandbox: the green banner is its Test passing.',
			async () => {
				const forms: Array<{
					type: string;
					label: string;
					frame: string;
					fields: Record<string, string>;
				}> = [
					{
						type: 'littlePayBasicApi',
						label: 'Little Pay (Client ID and Secret) API',
						frame: '2-credential-basic',
						fields: {
							clientId: m.clientId,
							clientSecret: m.clientSecret,
							tokenId: m.tokenId,
							baseUrl: m.baseUrl,
						},
					},
					{
						type: 'littlePayApiKeyApi',
						label: 'Little Pay (API Key) API',
						frame: '2-credential-api-key',
						fields: { apiKey: m.apiKey, baseUrl: m.baseUrl },
					},
				];
				const results: string[] = [];
				for (const form of forms) {
					await page.goto(`${n8n!.url}/home/credentials/create`);
					await caption(current);
					await page
						.locator('[data-test-id="new-credential-type-select"] input')
						.first()
						.fill(form.label);
					await page
						.locator('[data-test-id="new-credential-type-select-option"]', { hasText: form.label })
						.first()
						.click();
					await page.locator('[data-test-id="new-credential-type-button"]').click();
					await page.waitForSelector('[data-test-id="credential-edit-dialog"]');
					// On a loaded machine the dialog can still be settling when the first field is filled: each
					// field is filled until it holds its value, and the name until n8n has given one.
					await page.waitForTimeout(500);
					for (const [name, value] of Object.entries(form.fields)) {
						const input = page.locator(`[data-test-id="parameter-input-${name}"] input`).first();
						await waitFor(
							`the field ${name}`,
							async () => {
								await input.fill(value);
								return (await input.inputValue()) === value ? true : undefined;
							},
							15000,
						);
					}
					await page.waitForTimeout(300);
					await page.locator('[data-test-id="credential-save-button"]').click();
					await page
						.locator('[data-test-id="credentials-config-container-test-success"]')
						.waitFor({ timeout: 30000 });
					await keyFrame(form.frame);
					if (dwell) await page.waitForTimeout(dwell);
					await page.keyboard.press('Escape');
					// The saved credential, tested again the way the dialog's Retry does, so the step's
					// success does not rest on the page alone.
					const list = await api.http.get('/rest/credentials', { params: { includeData: true } });
					const saved = (
						list.data as { data: Array<{ id: string; type: string; data: Json }> }
					).data.find((c) => c.type === form.type);
					if (!saved) throw new Error(`no ${form.type} credential was saved`);
					if (form.type === 'littlePayBasicApi') ids.basicId = saved.id;
					else ids.apiKeyId = saved.id;
					const res = await api.http.post('/rest/credentials/test', {
						credentials: { id: saved.id, name: form.type, type: form.type, data: saved.data },
					});
					const status = (res.data as { data?: { status: string } }).data;
					if (status?.status !== 'OK')
						throw new Error(`${form.type} test: ${JSON.stringify(res.data)}`);
					results.push(`${form.type} saved in the dialog and tested OK`);
				}
				return results.join(', ');
			},
		);

		// 3. Mobile Money: Collect to COMPLETED.
		let paidReference = '';
		await step(
			'collect',
			'3. Mobile Money: Collect, KES 1,500 from M-Pesa 0712345670 (the sandbox pays numbers ending in 0).\nOne node asks the payer and waits: the output says COMPLETED, with the M-Pesa code.',
			async () => {
				const workflow = loadExample('1-mpesa-collect.json', {
					BASIC_CREDENTIAL_ID: ids.basicId,
					API_KEY_CREDENTIAL_ID: ids.apiKeyId,
				});
				workflow.name = 'Take: collect M-Pesa';
				const { id } = await api.createWorkflow(workflow);
				await openWorkflow(id);
				const execution = await executeInEditor(id);
				const [row] = await outputOf(execution, 'Collect M-Pesa');
				if (row?.status !== 'COMPLETED') throw new Error(`collect answered ${JSON.stringify(row)}`);
				paidReference = String(row.reference);
				await showNode('Collect M-Pesa', '3-collect-completed', true);
				return `payment ${paidReference} COMPLETED, KES ${String(row.amount)}`;
			},
		);

		// 4. The trigger on a signed callback, through its Test URL.
		await step(
			'trigger',
			"4. Little Pay Trigger: Execute step, then a payment whose Callback URL is the trigger's Test URL is paid.\nThe sandbox signs its callback; the trigger checks the signature and shows the payment as its test event.",
			async () => {
				const workflow = loadExample('5-callback-receipt.json', {
					API_KEY_CREDENTIAL_ID: ids.apiKeyId,
				});
				workflow.name = 'Take: receipt on callback';
				const webhookId = (workflow.nodes as Array<{ webhookId?: string }>)[0].webhookId;
				const { id } = await api.createWorkflow(workflow);
				await openWorkflow(id);
				// As docs/trigger.md says: open the trigger, Execute step, then pay with its Test URL as Callback URL.
				await page
					.locator('[data-test-id="canvas-node"][data-node-name="Little Pay Trigger"]')
					.dblclick();
				const ndv = page.locator('[data-test-id="ndv"]');
				await ndv.waitFor();
				await page.locator('[title="Click to display webhook URLs"]').click();
				const testUrl = (await ndv.innerText()).match(/http:\/\/\S*\/webhook-test\/\S*/)?.[0];
				if (testUrl !== `${n8n!.url}/webhook-test/${webhookId}/littlepay`)
					throw new Error(`the panel shows the Test URL ${String(testUrl)}`);
				await page.waitForTimeout(dwell ? 1500 : 0);
				await page.locator('[data-test-id="node-execute-button"]').first().click();
				await ndv.getByText('Listening for test event').waitFor();
				await page.waitForTimeout(dwell ? 1500 : 0);
				const reference = await payIntent(sandbox!, testUrl, 'take0004', 900);
				await ndv.getByText('payment.completed').first().waitFor({ timeout: 30000 });
				await page.waitForTimeout(800);
				await keyFrame('4-trigger-fired');
				if (dwell) await page.waitForTimeout(dwell);
				// The sandbox's delivery log: its signed callback was answered 2xx (401 is a refusal).
				const deliveries = (
					(await axios.get(`${m.baseUrl}/sandbox/callbacks`)).data.data.callbacks as Array<{
						body: string;
						status?: number;
					}>
				).filter((d) => d.body.includes(reference));
				if (deliveries.map((d) => d.status).join() !== '200')
					throw new Error(
						`the sandbox's callbacks were answered ${JSON.stringify(deliveries.map((d) => d.status))}`,
					);
				if (!(await ndv.innerText()).includes(reference))
					throw new Error('the panel does not show the payment');
				await page.locator('[data-test-id="ndv-close-button"]').click();
				return `the signed callback for ${reference} answered 200 and shown as the trigger's test event`;
			},
		);

		// 5. A refund of part of the collected payment.
		await step(
			'refund',
			"5. Refund: Create, KES 500 of the KES 1,500 collected in step 3.\nThe output gives the refund's status; the sandbox's ledger holds exactly this refund.",
			async () => {
				if (!paidReference) throw new Error('no payment from step 3 to refund');
				const workflow = {
					name: 'Take: refund',
					nodes: [
						manualTriggerNode,
						littlePayNodeAt(
							'Refund',
							{
								resource: 'refund',
								operation: 'create',
								paymentId: paidReference,
								refundType: 'partial',
								amount: 500,
								reason: 'Customer returned one item',
							},
							ids,
							[260, 0],
						),
					],
					connections: chain('Start', 'Refund'),
					settings: { executionOrder: 'v1' },
				};
				const { id } = await api.createWorkflow(workflow);
				await openWorkflow(id);
				const execution = await executeInEditor(id);
				const [row] = await outputOf(execution, 'Refund');
				const ledger = (await axios.get(`${m.baseUrl}/sandbox/ledger`)).data.data as {
					refunds: Array<{ reference: string; amount: number }>;
				};
				const refunds = ledger.refunds.filter((r) => r.reference === paidReference);
				if (refunds.length !== 1 || refunds[0].amount !== 500)
					throw new Error(
						`ledger refunds ${JSON.stringify(refunds)}; output ${JSON.stringify(row)}`,
					);
				await showNode('Refund', '5-refund', true);
				return `refund of 500 on ${paidReference}: ${String(row?.status ?? row?.outcome ?? 'created')}`;
			},
		);

		// 6. A payout run: the dry run, then the real one.
		await step(
			'payout',
			'6. Payout run: first Pay Out with Check Only (a dry run: every row checked, nothing sent),\nthen the same rows for real, waiting until each payout settles.',
			async () => {
				const rows = [
					{ payoutId: 'take6001', phone: '0712345670', amount: 500 },
					{ payoutId: 'take6002', phone: '0722345670', amount: 750 },
				];
				const rowsNode = {
					name: 'Payout Rows',
					type: 'n8n-nodes-base.code',
					typeVersion: 2,
					position: [220, 0],
					parameters: { jsCode: `return ${JSON.stringify(rows)}.map((json) => ({ json }));` },
				};
				const payOut = (checkOnly: boolean) =>
					littlePayNodeAt(
						'Pay Out',
						{
							resource: 'disbursement',
							operation: 'create',
							amount: '={{ $json.amount }}',
							currency: 'KES',
							method: 'MPESA',
							to: '={{ $json.phone }}',
							country: 'KE',
							keySource: 'mapped',
							key: '={{ $json.payoutId }}',
							checkOnly,
							...(checkOnly ? {} : { waitForResult: 'untilSettled', waitTimeoutSeconds: 30 }),
							options: {},
						},
						ids,
						[440, 0],
					);
				const ledgerCount = async () =>
					((await axios.get(`${m.baseUrl}/sandbox/ledger`)).data.data.disbursements as unknown[])
						.length;
				const before = await ledgerCount();
				const make = async (name: string, checkOnly: boolean) =>
					(
						await api.createWorkflow({
							name,
							nodes: [manualTriggerNode, rowsNode, payOut(checkOnly)],
							connections: chain('Start', 'Payout Rows', 'Pay Out'),
							settings: { executionOrder: 'v1' },
						})
					).id;
				const dryId = await make('Take: payout run, dry run', true);
				await openWorkflow(dryId);
				const dry = (await outputOf(await executeInEditor(dryId), 'Pay Out')).filter(
					(r) => !r.summary,
				);
				if (dry.length !== 2 || dry.some((r) => r.valid !== true))
					throw new Error(`dry run answered ${JSON.stringify(dry)}`);
				if ((await ledgerCount()) !== before) throw new Error('the dry run sent a payout');
				await showNode('Pay Out', '6-payout-dry-run');
				current =
					'6. Payout run, for real now: the same two rows paid, each with its own key, waited for until settled.';
				await caption(current);
				const realId = await make('Take: payout run', false);
				await openWorkflow(realId);
				const real = (await outputOf(await executeInEditor(realId), 'Pay Out')).filter(
					(r) => !r.summary,
				);
				if (real.length !== 2 || real.some((r) => r.error))
					throw new Error(`payout run answered ${JSON.stringify(real)}`);
				if ((await ledgerCount()) !== before + 2)
					throw new Error('the payout run did not send two payouts');
				await showNode('Pay Out', '6-payout-paid');
				return `dry run: 2 rows valid, nothing sent; real: ${real.map((r) => `${String(r.key)} ${String(r.status ?? r.outcome)}`).join(', ')}`;
			},
		);

		// 7. The node as an AI agent's tool, refusing a payout over its Spending Limits.
		await step(
			'agent',
			"7. The node as an AI Agent's tool (a scripted model on loopback asks it to pay KES 5,000):\nits Spending Limits allow KES 1,000 per payout, so the tool refuses and nothing is sent.",
			async () => {
				const openAiId = await api.createCredential('Scripted model (loopback)', 'openAiApi', {
					apiKey: 'sk-test',
					url: model!.url,
				});
				const tool = littlePayToolNode(
					'pay_out',
					{
						resource: 'disbursement',
						operation: 'create',
						method: 'MPESA',
						amount: "={{ $fromAI('amount', 'Amount in KES', 'number') }}",
						to: "={{ $fromAI('to', 'Recipient number', 'string') }}",
						allowMoneyMoves: true,
						spendingLimits: { maxAmount: 1000 },
					},
					ids,
					200,
				);
				tool.position = [420, 220];
				const workflow = agentWorkflow(
					'Take: agent with a payout tool',
					manualTriggerNode,
					{ promptType: 'define', text: 'Pay Baraka 5000 KES on 254712345680', options: {} },
					openAiId,
					[tool],
				);
				const before = (
					(await axios.get(`${m.baseUrl}/sandbox/ledger`)).data.data.disbursements as unknown[]
				).length;
				const { id } = await api.createWorkflow(workflow);
				await openWorkflow(id);
				await executeInEditor(id);
				const [answer] = model!.toolAnswersFor('Pay Baraka 5000');
				if (answer?.refused !== true || answer?.sent !== false)
					throw new Error(`the tool answered ${JSON.stringify(answer)}`);
				const after = (
					(await axios.get(`${m.baseUrl}/sandbox/ledger`)).data.data.disbursements as unknown[]
				).length;
				if (after !== before) throw new Error('a payout was sent');
				await showNode('pay_out', '7-agent-refused');
				return `refused: ${JSON.stringify((answer as { limit?: unknown }).limit)}; ledger unchanged`;
			},
		);

		current = 'Done: every step above ran in one take against the sandbox.';
		await caption(current);
		await page.waitForTimeout(dwell ? 2000 : 200);
		const totalSeconds = now();
		if (cdp) await cdp.send('Page.stopScreencast').catch(() => undefined);
		writeFileSync(
			join(options.outDir, 'steps.json'),
			JSON.stringify({ totalSeconds, steps, keyFrames }, null, 2),
		);
		writeFileSync(
			join(options.outDir, 'steps.tsv'),
			[
				'step\tstart_s\tend_s\tok\tdetail',
				...steps.map(
					(s) => `${s.step}\t${s.start.toFixed(1)}\t${s.end.toFixed(1)}\t${s.ok}\t${s.detail}`,
				),
			].join('\n') + '\n',
		);
		return { steps, totalSeconds, keyFrames, frames };
	} finally {
		await browser?.close().catch(() => undefined);
		await n8n?.stop();
		model?.server.close();
		await sandbox?.close();
	}
}

/** The Little Pay node at a position under a name (workflowParts' littlePayNode with both credentials). */
function littlePayNodeAt(
	name: string,
	parameters: Json,
	ids: { basicId: string; apiKeyId: string },
	position: [number, number],
): Json {
	return {
		name,
		type: 'n8n-nodes-littlepay.littlePay',
		typeVersion: 1,
		position,
		parameters,
		credentials: {
			littlePayBasicApi: { id: ids.basicId, name: 'Little Pay sandbox (Basic)' },
			littlePayApiKeyApi: { id: ids.apiKeyId, name: 'Little Pay sandbox (API key)' },
		},
	};
}

/** A payment intent with a callback URL, paid by M-Pesa on the sandbox (its signed callback follows). */
async function payIntent(
	sandbox: SandboxHandle,
	callbackUrl: string,
	key: string,
	amount: number,
): Promise<string> {
	const m = sandbox.merchant;
	const res = await axios.post(
		`${m.baseUrl}/api/payments/${m.tokenId}/pay`,
		{
			amount,
			currency: 'KES',
			description: 'Take order',
			callbackUrl,
			key,
			payload: { billingAddress: { firstName: 'Amina', phoneNumber: '+254712345670' } },
		},
		{ auth: { username: m.clientId, password: m.clientSecret } },
	);
	const reference = res.data.data.reference as string;
	await axios.post(
		`${m.baseUrl}/pay/${reference}/process`,
		{ type: 'MPESA', payment: { mobile: '254712345670' } },
		{ headers: { 'X-API-KEY': m.apiKey } },
	);
	return reference;
}

/**
 * Encodes the screencast frames into an H.264 MP4 with Debian's ffmpeg, each frame shown until the next
 * (the screencast sends a frame only when the page changes). Returns the video's path.
 */
export function encodeTake(
	outDir: string,
	frames: Array<{ file: string; at: number }>,
	totalSeconds: number,
): string {
	if (frames.length === 0) throw new Error('no frames were recorded');
	// Frames closer than a video frame (1/25 s) to the one before share its slot, the later image winning, so
	// every duration is exact and the video lasts as long as the take: its times are the step log's.
	const kept: Array<{ file: string; at: number }> = [];
	for (const frame of frames) {
		const last = kept[kept.length - 1];
		if (last && frame.at - last.at < 0.04) last.file = frame.file;
		else kept.push({ ...frame });
	}
	const list: string[] = [];
	kept.forEach((frame, i) => {
		const next = i + 1 < kept.length ? kept[i + 1].at : totalSeconds;
		list.push(
			`file 'frames/${frame.file}'`,
			`duration ${Math.max(0.04, next - frame.at).toFixed(3)}`,
		);
	});
	// The concat demuxer takes the last file's duration only when the file is listed once more.
	list.push(`file 'frames/${kept[kept.length - 1].file}'`);
	writeFileSync(join(outDir, 'frames.txt'), list.join('\n') + '\n');
	const video = join(outDir, 'take.mp4');
	const run = spawnSync(
		'ffmpeg',
		[
			'-y',
			'-loglevel',
			'error',
			'-f',
			'concat',
			'-safe',
			'0',
			'-i',
			'frames.txt',
			'-vf',
			'scale=trunc(iw/2)*2:trunc(ih/2)*2,fps=25',
			'-c:v',
			'libx264',
			'-preset',
			'veryfast',
			'-pix_fmt',
			'yuv420p',
			'take.mp4',
		],
		{ cwd: outDir, encoding: 'utf8' },
	);
	if (run.error || run.status !== 0)
		throw new Error(`ffmpeg failed: ${run.error?.message ?? run.stderr}`);
	return video;
}

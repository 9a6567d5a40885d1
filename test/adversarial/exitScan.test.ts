// One exit for everything the node emits (issue 49 point 3, issue 50 point 4): every operation's output
// paths run through n8n-core's real engine with the credential's default Payer Details (Masked), and
// what n8n keeps of the Little Pay node (its items, Continue-mode error items, the error an On Error:
// Stop run is stored with, as n8n-core stores it: {...error, message, stack}, its execution hints, the
// item a pause leaves waiting, a tool's answer) is serialised whole and scanned for the payer's number
// in any writing, the e-mail and the surname. A stub gateway stands in where the sandbox never echoes a
// payee or a card (a refusal naming the recipient, a card request echoed back).
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';

import type { ICredentialDataDecryptedObject, IDataObject } from 'n8n-workflow';

import { loadFixture, runWorkflow } from '../../testkit/engine';
import type { RunResult, WorkflowJson } from '../../testkit/engine';
import { useNodeTestSandbox } from '../../testkit/nodeSandbox';
import { newKey } from '../../testkit/sandbox';

const sb = useNodeTestSandbox({ pinDelayMs: 50, longPollTimeoutMs: 400 });

// The payee (ends in 0: the sandbox completes), another number with the same first four and last
// three digits, and a payer who never answers the PIN prompt (ends in 3: stays pending).
const PAYEE = '254712345670';
const OTHER = '254799999670';
const PAYER = '254712345673';
const SURNAME = 'Macharia';
const EMAIL = 'achieng.macharia@duka.co.ke';

// The number's national digits in any writing: spaces (one or more), dashes, dots, brackets, "+".
const anyWriting = (number: string) =>
	new RegExp(number.slice(-9).split('').join('[\\s()\\-.+]{0,3}'));
const LEAKS: Array<[string, RegExp]> = [
	['the payee number', anyWriting(PAYEE)],
	['the other number', anyWriting(OTHER)],
	['the payer number', anyWriting(PAYER)],
	['the e-mail', /achieng\.macharia@/i],
	['the surname', new RegExp(SURNAME, 'i')],
];

/** The writings a sheet or a person gives one number in. */
const WRITINGS: Array<string | number> = [
	'+254-712-345-670',
	'(0712) 345670',
	'0712-345-670',
	'254  712 345 670',
	'+254 (712) 345 670',
	712345670,
	254712345670,
];

/** What n8n keeps of the node's runs: its run data (items, error, hints), and the run's error. */
function kept(result: RunResult, nodes = ['Little Pay'], withWaiting = false): string {
	const data = result.run.data;
	const runData = Object.fromEntries(nodes.map((node) => [node, data.resultData.runData[node]]));
	const waiting = withWaiting
		? data.executionData?.nodeExecutionStack.filter((entry) => nodes.includes(entry.node.name))
		: [];
	return JSON.stringify({ runData, error: data.resultData.error, waiting });
}

function leaksIn(text: string): string[] {
	return LEAKS.filter(([, pattern]) => pattern.test(text)).map(([what]) => what);
}

function credentials(extra: IDataObject = {}, baseUrl?: string) {
	const apiKey = { ...sb.credentials.littlePayApiKeyApi, ...extra };
	const basic = { ...sb.credentials.littlePayBasicApi };
	if (baseUrl) {
		apiKey.baseUrl = baseUrl;
		basic.baseUrl = baseUrl;
	}
	return { littlePayBasicApi: basic, littlePayApiKeyApi: apiKey } as Record<
		string,
		ICredentialDataDecryptedObject
	>;
}

function payoutRun(items: IDataObject[], onError: string, extra: IDataObject = {}) {
	return runWorkflow(
		loadFixture('disbursement-create.json', { ITEMS: JSON.stringify(items), ON_ERROR: onError }),
		{ credentials: credentials(extra) },
	);
}

const row = (to: string | number, overrides: IDataObject = {}): IDataObject => ({
	method: 'MPESA',
	amount: 100,
	to,
	key: newKey('exit'),
	name: `Achieng ${SURNAME}`,
	email: EMAIL,
	...overrides,
});

/** A gateway that refuses every request, naming the payee and echoing the card it was sent. */
async function echoingGateway(): Promise<{ url: string; close: () => Promise<void> }> {
	const server: Server = createServer((request, response) => {
		let body = '';
		request.on('data', (chunk) => (body += chunk));
		request.on('end', () => {
			const card = /cc_number/.test(body);
			response.writeHead(400, { 'content-type': 'application/json' });
			response.end(
				JSON.stringify(
					card
						? {
								message:
									'cc_number 4111 1111 1111 1111 / 4111-1111-1111-1111 / 4111.1111.1111.1111 / 4111111111111111 / cc_cvv 846 / cc_exp 01/39 rejected',
								code: 'CARD_REJECTED',
								echo: body,
							}
						: {
								message: `Recipient +254 712 345 670 (ACHIENG ${SURNAME.toUpperCase()}) is not registered for M-Pesa`,
								details: { to: PAYEE, name: `ACHIENG ${SURNAME.toUpperCase()}`, email: EMAIL },
							},
				),
			);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		close: async () => await new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

describe('everything the node emits leaves through one exit (Payer Details: Masked)', () => {
	it('Pay Out: items, Continue-mode error items, the dry run summary and the hints, numbers in any writing', async () => {
		const real = await payoutRun(
			[...WRITINGS.map((to) => row(to)), row(PAYEE, { amount: 'twelve' })],
			'continueRegularOutput',
		);
		const dry = await payoutRun(
			[row(PAYEE, { checkOnly: true }), row(254712345670, { checkOnly: true, amount: 'x' })],
			'continueRegularOutput',
		);
		expect(real.output('Little Pay').length).toBe(WRITINGS.length + 1);
		expect(real.hints('Little Pay').length).toBeGreaterThan(0);
		expect(leaksIn(kept(real))).toEqual([]);
		expect(leaksIn(kept(dry))).toEqual([]);
	});

	it('On Error: Stop: the whole-run refusal of Allowed Recipients is stored masked (#5)', async () => {
		const stopped = await payoutRun(
			[row('254710000010'), row(PAYEE), row('+254 712 345 670')],
			'stopWorkflow',
			{ allowedRecipients: '254710000010' },
		);
		expect(stopped.error?.message).toMatch(/Nothing was paid/);
		expect(leaksIn(kept(stopped))).toEqual([]);
		// What the user must see stays: the row and that the number is not on the list.
		expect(String(stopped.error?.description)).toMatch(/Row 2 .*2547•••••670 is not on the list/);
	});

	it('Payer Details Omitted: not even the masked digits of the number in items, error items or the stopped run', async () => {
		const omitted = { payerDetails: 'omitted', allowedRecipients: '254710000010' };
		const items = await payoutRun(
			[row('+254 (712) 345 670', { amount: 'twelve' }), row(712345670, { checkOnly: true })],
			'continueRegularOutput',
			{ payerDetails: 'omitted' },
		);
		const stopped = await payoutRun([row('254710000010'), row(PAYEE)], 'stopWorkflow', omitted);
		expect(stopped.error?.message).toMatch(/Nothing was paid/);
		for (const text of [kept(items), kept(stopped)]) {
			expect(leaksIn(text)).toEqual([]);
			expect(text).not.toMatch(/2547•|7••|•670/);
		}
	});

	it("Reconcile: the mismatch and the echo of the row (surname, e-mail, phone) are masked (#6, #22, the editor's #7)", async () => {
		const key = newKey('exitrec');
		const paid = await payoutRun([row(PAYEE, { key })], 'stopWorkflow');
		expect(paid.error).toBeUndefined();
		const reconciled = await runWorkflow(
			loadFixture('disbursement-reconcile.json', {
				ITEMS: JSON.stringify([
					{
						id: key,
						expectedTo: OTHER,
						name: `Achieng ${SURNAME}`,
						lastName: SURNAME,
						email: EMAIL,
						phone: '+254 (712) 345 670',
						mobile: 712345670,
					},
				]),
				ON_ERROR: 'stopWorkflow',
			}),
			{ credentials: credentials() },
		);
		const [out] = reconciled.output('Little Pay').map((o) => o.json);
		expect(out.outcome).toBe('mismatch');
		expect(leaksIn(kept(reconciled))).toEqual([]);
		// Two different numbers are not shown as one.
		expect(JSON.stringify(out.mismatch)).toContain('(another number)');
		expect(out.name).toBe('Achieng');
	});

	it('a gateway refusal naming the payee: errorResponse, messages, description, message and stack (#8)', async () => {
		const gateway = await echoingGateway();
		try {
			const failed = await runWorkflow(
				loadFixture('payment-get-status.json', {
					ITEMS: JSON.stringify([{ paymentId: 'order1001' }]),
					ON_ERROR: 'stopWorkflow',
				}),
				{ credentials: credentials({}, gateway.url) },
			);
			// Little Pay's words are not declared output: the message names the request and the status.
			expect(failed.error?.message).toBe(
				'Little Pay rejected GET /api/payments-v2/order1001 (HTTP 400)',
			);
			const text = kept(failed);
			expect(text).toContain('errorResponse');
			expect(text).not.toMatch(/is not registered/);
			expect(leaksIn(text)).toEqual([]);
			expect(leaksIn(String(failed.error?.stack))).toEqual([]);
			// Payer Details: Full is the merchant's ask for everything: Little Pay's words are added.
			const full = await runWorkflow(
				loadFixture('payment-get-status.json', {
					ITEMS: JSON.stringify([{ paymentId: 'order1001' }]),
					ON_ERROR: 'stopWorkflow',
				}),
				{ credentials: credentials({ payerDetails: 'full' }, gateway.url) },
			);
			expect(full.error?.message).toMatch(
				/^Little Pay rejected GET \/api\/payments-v2\/order1001 \(HTTP 400\): Recipient .* is not registered for M-Pesa$/,
			);
		} finally {
			await gateway.close();
		}
	});

	it('Collect with Pause: the item n8n keeps while waiting and passes on at the timeout (#7)', async () => {
		const pausing = (): WorkflowJson => {
			const json = loadFixture('mobile-money-collect.json', {
				ITEMS: JSON.stringify([
					{ amount: 1500, key: newKey('exitp'), network: 'MPESA', mobile: '+254 712 345 673' },
				]),
			});
			const node = json.nodes.find((n) => n.name === 'Little Pay')!;
			node.parameters = {
				...node.parameters,
				waitForPayment: 'pause',
				pauseTimeout: 2,
				pauseTimeoutUnit: 'hours',
				options: { publicKey: sb.sandbox.merchant.publicKeyPem },
			};
			return json;
		};
		const waiting = await runWorkflow(pausing(), { credentials: credentials() });
		expect(waiting.error).toBeUndefined();
		const resumed = await runWorkflow(pausing(), {
			credentials: credentials(),
			resumeOf: waiting,
		});
		expect(resumed.output('Little Pay')[0].json).toMatchObject({ timedOut: true });
		expect(leaksIn(kept(waiting, ['Little Pay'], true))).toEqual([]);
		expect(leaksIn(kept(resumed))).toEqual([]);
	});

	it("an AI tool's refusal names the rule, never the credential's allowlist (#10)", async () => {
		const tool: WorkflowJson = {
			nodes: [
				{
					name: 'Items',
					type: 'test.fixtureItems',
					typeVersion: 1,
					position: [0, 0],
					parameters: {
						items: JSON.stringify([
							{ amount: 100, to: '254711223380', toolCallId: `call_${randomUUID()}` },
						]),
					},
				},
				{
					name: 'Little Pay',
					id: randomUUID(),
					type: 'n8n-nodes-littlepay.littlePayTool',
					typeVersion: 1,
					position: [220, 0],
					parameters: {
						resource: 'disbursement',
						operation: 'create',
						method: 'MPESA',
						amount: '={{ $json.amount }}',
						to: '={{ $json.to }}',
						currency: 'KES',
						keySource: 'generated',
						allowMoneyMoves: true,
					},
				},
			],
			connections: { Items: { main: [[{ node: 'Little Pay', type: 'main', index: 0 }]] } },
		} as unknown as WorkflowJson;
		const answered = await runWorkflow(tool, {
			credentials: credentials({ allowedRecipients: `+254 712 345 670, ${OTHER}` }),
		});
		const [answer] = answered.output('Little Pay').map((o) => o.json);
		expect(answer).toMatchObject({
			refused: true,
			sent: false,
			limit: { field: 'allowedRecipients' },
		});
		expect(leaksIn(kept(answered))).toEqual([]);
	});

	it('a card request the gateway echoes: no PAN in any writing, no CVV, no expiry in what n8n stores (security L1)', async () => {
		const gateway = await echoingGateway();
		try {
			const failed = await runWorkflow(
				loadFixture('card-frictionless.json', {
					ITEMS: JSON.stringify([
						{
							reference: 'ref1',
							cardNumber: '4111 1111 1111 1111',
							cvv: '846',
							expiry: '01/39',
							name: `Amina ${SURNAME}`,
						},
					]),
					ON_ERROR: 'stopWorkflow',
				}),
				{ credentials: credentials({}, gateway.url) },
			);
			expect(failed.error?.message).toMatch(/rejected/);
			const text = kept(failed, ['Card Token']) + String(failed.error?.stack);
			expect(text).not.toMatch(/4111\D{0,3}1111\D{0,3}1111\D{0,3}1111/);
			expect(text).not.toMatch(/(?<![\d:])846(?![\d:])/);
			expect(text).not.toMatch(/(?<!\d)0?1\s*[/.-]\s*(?:20)?39(?!\d)/);
			expect(text).not.toMatch(new RegExp(SURNAME, 'i'));
		} finally {
			await gateway.close();
		}
	});
});

// "Pause Until Little Pay Calls Back" through n8n-core's engine: the execution is put to wait with
// the intent's callback pointing at its own resume URL; the node's webhook() verifies the resuming
// call as the trigger does; at the timeout n8n passes the paused item on. The real resume through
// n8n's waiting webhooks (and across a restart) is in test/e2e/pause.e2e.test.ts.
import { generateKeyPairSync, sign } from 'node:crypto';

import axios from 'axios';
import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { LittlePay } from '../../nodes/LittlePay/LittlePay.node';
import { loadFixture, runWorkflow } from '../../testkit/engine';
import type { RunResult, WorkflowJson } from '../../testkit/engine';
import { useNodeTestSandbox } from '../../testkit/nodeSandbox';
import { newKey } from '../../testkit/sandbox';

const gateway = generateKeyPairSync('rsa', { modulusLength: 2048 });
const attacker = generateKeyPairSync('rsa', { modulusLength: 2048 });
const sb = useNodeTestSandbox({
	pinDelayMs: 50,
	longPollTimeoutMs: 400,
	privateKeyPem: gateway.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
});

/** Mobile Money: Collect pausing after the PIN prompt (Payment Intent: Create no longer waits). */
function pausingWorkflow(items: IDataObject[], mode = 'pause'): WorkflowJson {
	const json = loadFixture('mobile-money-collect.json', { ITEMS: JSON.stringify(items) });
	const node = json.nodes.find((n) => n.name === 'Little Pay')!;
	node.parameters = {
		...node.parameters,
		waitForPayment: mode,
		pauseTimeout: 2,
		pauseTimeoutUnit: 'hours',
		options: { publicKey: sb.sandbox.merchant.publicKeyPem },
	};
	return json;
}

const order = (overrides: IDataObject = {}): IDataObject => ({
	amount: 1500,
	description: 'Checkout',
	key: newKey('pause'),
	network: 'MPESA',
	// A payer who never answers the PIN prompt by themselves.
	mobile: '254712345673',
	...overrides,
});

/** The item n8n keeps on the waiting node's stack entry: what webhook() checks and a timeout passes on. */
function pausedItem(run: RunResult): IDataObject {
	return run.run.data.executionData!.nodeExecutionStack[0].data.main[0]![0].json;
}

function callbackBody(reference: string, status = 'COMPLETED'): string {
	return JSON.stringify({
		reference,
		status,
		payload: { billingAddress: { email: 'amina@example.com' } },
		amount: 1500,
		key: 'k',
		currency: 'KES',
		provider: 'CARDS',
		date: new Date().toISOString(),
	});
}

interface Call {
	result: IWebhookResponseData;
	status?: number;
	body?: unknown;
}

/** Calls the node's webhook() the way n8n's waiting webhooks do for the paused execution. */
async function resumeCall(
	paused: IDataObject,
	rawBody: string,
	headers: Record<string, string | undefined>,
	options: IDataObject = { publicKey: sb.sandbox.merchant.publicKeyPem, toleranceSeconds: 300 },
): Promise<Call> {
	const call: Call = { result: {} };
	const res = {
		setHeader() {
			return res;
		},
		status(code: number) {
			call.status = code;
			return res;
		},
		json(body: unknown) {
			call.body = body;
			return res;
		},
	};
	const parameters: IDataObject = { options };
	const context = {
		getRequestObject: () => ({ headers, rawBody: Buffer.from(rawBody) }),
		getResponseObject: () => res,
		getNodeParameter: (name: string, fallback?: unknown) => parameters[name] ?? fallback,
		getNode: () => ({
			name: 'Little Pay',
			credentials: { littlePayApiKeyApi: { id: 'cred-1', name: 'Little Pay sandbox (API key)' } },
		}),
		// A FAILED callback is judged by the status record, read with the node's API key credential.
		getCredentials: async () => sb.credentials.littlePayApiKeyApi,
		helpers: {
			httpRequestWithAuthentication: async (
				_type: string,
				options: { url: string; method: string },
			) => {
				const answer = await axios.request({
					url: options.url,
					method: options.method,
					headers: { 'X-API-KEY': String(sb.credentials.littlePayApiKeyApi.apiKey) },
					validateStatus: () => true,
				});
				return { statusCode: answer.status, body: answer.data };
			},
		},
		// n8n evaluates against the waiting node's stack entry; only $json fields are used.
		evaluateExpression: (expression: string) => paused[/\$json\.(\w+)/.exec(expression)?.[1] ?? ''],
	} as unknown as IWebhookFunctions;
	call.result = await new LittlePay().webhook.call(context);
	return call;
}

function signedHeaders(
	body: string,
	options: { ageSeconds?: number; key?: typeof attacker.privateKey } = {},
): Record<string, string> {
	const timestamp = String(Math.floor(Date.now() / 1000) - (options.ageSeconds ?? 0));
	const key = options.key ?? gateway.privateKey;
	return {
		'x-littlepay-timestamp': timestamp,
		'x-littlepay-signature': sign('sha256', Buffer.from(`${timestamp}.${body}`), key).toString(
			'base64',
		),
	};
}

describe('Pause Until Little Pay Calls Back', () => {
	it('creates the intent with the execution resume URL as callback, sends the PIN prompt and puts the execution to wait', async () => {
		const input = order();
		const before = Date.now();
		const run = await runWorkflow(pausingWorkflow([input]), {
			credentials: sb.credentials,
			executionId: 'pause-exec-1',
		});
		expect(run.error).toBeUndefined();
		// Waiting in n8n's sense: a wait time is set and nothing runs after the node.
		const waitTill = new Date(String(run.run.waitTill)).getTime();
		// n8n keeps the wait time to the second.
		expect(waitTill).toBeGreaterThanOrEqual(before + 2 * 3600_000 - 1000);
		expect(waitTill).toBeLessThan(Date.now() + 2 * 3600_000 + 1000);
		const [sent] = await sb.received();
		expect(sent.body).toMatchObject({
			key: input.key,
			// n8n's resume URL carries the execution's resume token.
			callbackUrl: expect.stringMatching(
				/^http:\/\/127\.0\.0\.1:9\/webhook-waiting\/pause-exec-1\?signature=\w+$/,
			),
			expiresAt: 120,
		});
		const out = run.output('Little Pay')[0].json;
		expect(out).toMatchObject({ key: input.key, status: 'PENDING', timedOut: false });
		expect(out.checkoutUrl).toEqual(expect.stringContaining('http'));
		expect(pausedItem(run)).toMatchObject({
			reference: out.reference,
			status: 'PENDING',
			timedOut: true,
		});
	});

	it('at the timeout n8n goes on with timedOut: true and status PENDING, without sending anything', async () => {
		const run = await runWorkflow(pausingWorkflow([order()]), { credentials: sb.credentials });
		await sb.received();
		const resumed = await runWorkflow(pausingWorkflow([order()]), {
			credentials: sb.credentials,
			resumeOf: run,
		});
		expect(resumed.error).toBeUndefined();
		expect(resumed.run.waitTill ?? undefined).toBeUndefined();
		expect(resumed.output('Little Pay')[0].json).toMatchObject({
			reference: run.output('Little Pay')[0].json.reference,
			status: 'PENDING',
			timedOut: true,
			waitedSeconds: 7200,
		});
		expect(await sb.received()).toEqual([]);
	});

	it('the item n8n keeps while waiting, and passes on at the timeout, is masked like any output (red team #7)', async () => {
		const run = await runWorkflow(pausingWorkflow([order()]), { credentials: sb.credentials });
		expect(pausedItem(run)).toMatchObject({ mobile: '2547•••••673', gateway: 'sandbox' });
		const resumed = await runWorkflow(pausingWorkflow([order()]), {
			credentials: sb.credentials,
			resumeOf: run,
		});
		expect(resumed.output('Little Pay')[0].json).toMatchObject({
			mobile: '2547•••••673',
			timedOut: true,
		});
		expect(JSON.stringify(run.run.data.executionData)).not.toContain('254712345673');
	});

	it('refuses a second item before sending anything: an execution resumes once', async () => {
		const run = await runWorkflow(pausingWorkflow([order(), order()]), {
			credentials: sb.credentials,
		});
		expect(run.error?.message).toBe(
			'Row 1: Wait for Payment "Pause Until Little Pay Calls Back" takes one payment per execution, and this run has 2 items',
		);
		expect(await sb.received()).toEqual([]);
	});

	it('resumes only with a genuine, fresh, signed callback for the paused intent', async () => {
		const run = await runWorkflow(pausingWorkflow([order()]), { credentials: sb.credentials });
		const paused = pausedItem(run);
		const reference = String(paused.reference);
		const body = callbackBody(reference);

		const refused: Array<[string, string, Record<string, string | undefined>]> = [
			['unsigned', body, {}],
			['forged', body, signedHeaders(body, { key: attacker.privateKey })],
			['tampered', body.replace('1500', '15'), signedHeaders(body)],
			['stale', body, signedHeaders(body, { ageSeconds: 3600 })],
			['other payment', callbackBody('another-ref'), signedHeaders(callbackBody('another-ref'))],
		];
		for (const [label, raw, headers] of refused) {
			const call = await resumeCall(paused, raw, headers);
			expect({ label, status: call.status, resumed: call.result.workflowData }).toEqual({
				label,
				status: 401,
				resumed: undefined,
			});
		}

		const genuine = await resumeCall(paused, body, signedHeaders(body));
		expect(genuine.body).toBeUndefined();
		const [[item]] = genuine.result.workflowData!;
		expect(item.json).toMatchObject({
			event: 'payment.completed',
			reference,
			status: 'COMPLETED',
			amount: 1500,
			provider: 'CARDS',
			verified: 'signature',
			timedOut: false,
		});
		expect(item.json.waitedSeconds).toEqual(expect.any(Number));
	});

	it('during a key rotation: resumes with a callback signed by the previous key until the date, says so, and refuses it after', async () => {
		const run = await runWorkflow(pausingWorkflow([order()]), { credentials: sb.credentials });
		const paused = pausedItem(run);
		const body = callbackBody(String(paused.reference));
		// Little Pay now signs with a new key; the gateway's key is the previous one.
		const next = generateKeyPairSync('rsa', { modulusLength: 2048 });
		const rotation = (until: string): IDataObject => ({
			publicKey: next.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
			previousPublicKey: sb.sandbox.merchant.publicKeyPem,
			previousKeyUntil: until,
		});
		const expired = await resumeCall(
			paused,
			body,
			signedHeaders(body),
			rotation(new Date(Date.now() - 60_000).toISOString()),
		);
		expect(expired).toMatchObject({ status: 401, body: { error: 'previous-key-expired' } });
		expect(expired.result.workflowData).toBeUndefined();
		const overlap = await resumeCall(
			paused,
			body,
			signedHeaders(body),
			rotation(new Date(Date.now() + 3600_000).toISOString()),
		);
		expect(overlap.result.workflowData?.[0][0].json).toMatchObject({
			event: 'payment.completed',
			verified: 'signature',
			verifiedKey: 'previous',
			gateway: 'sandbox',
		});
	});

	it('a PENDING callback is acknowledged and the execution keeps waiting', async () => {
		const run = await runWorkflow(pausingWorkflow([order()]), { credentials: sb.credentials });
		const paused = pausedItem(run);
		const body = callbackBody(String(paused.reference), 'PENDING');
		const call = await resumeCall(paused, body, signedHeaders(body));
		expect(call.result).toEqual({ webhookResponse: { received: true, ignored: 'not-final' } });
	});

	it('a FAILED callback while the payer can still pay is acknowledged and the execution keeps waiting', async () => {
		const run = await runWorkflow(pausingWorkflow([order()]), { credentials: sb.credentials });
		const paused = pausedItem(run);
		const reference = String(paused.reference);
		// The collect pause knows when its intent expires: its Pause Timeout.
		expect(Date.parse(String(paused.expiresAt))).toBeGreaterThan(Date.now());
		await sb.post(`/sandbox/payments/${reference}/resolve`, { status: 'FAILED' });
		const body = callbackBody(reference, 'FAILED');
		const call = await resumeCall(paused, body, signedHeaders(body));
		expect(call.result).toEqual({
			webhookResponse: { received: true, ignored: 'payer-can-still-pay' },
		});
	});

	it('a FAILED callback once the intent can no longer be paid resumes with FAILED and payable: false', async () => {
		const run = await runWorkflow(pausingWorkflow([order()]), { credentials: sb.credentials });
		const paused = pausedItem(run);
		const reference = String(paused.reference);
		await sb.post(`/sandbox/payments/${reference}/resolve`, {
			status: 'FAILED',
			message: 'Insufficient funds in the payer account',
		});
		await sb.post(`/sandbox/payments/${reference}/expire`);
		const body = callbackBody(reference, 'FAILED');
		const call = await resumeCall(paused, body, signedHeaders(body));
		const [[item]] = call.result.workflowData!;
		expect(item.json).toMatchObject({
			event: 'payment.failed',
			reference,
			status: 'FAILED',
			payable: false,
			failureCode: 'insufficient-funds',
			retry: 'new-attempt',
			timedOut: false,
		});
	});

	it('a FAILED callback that arrives after the payment completed resumes with COMPLETED', async () => {
		const run = await runWorkflow(pausingWorkflow([order()]), { credentials: sb.credentials });
		const paused = pausedItem(run);
		const reference = String(paused.reference);
		await sb.post(`/sandbox/payments/${reference}/resolve`, { status: 'COMPLETED' });
		const body = callbackBody(reference, 'FAILED');
		const call = await resumeCall(paused, body, signedHeaders(body));
		const [[item]] = call.result.workflowData!;
		expect(item.json).toMatchObject({ event: 'payment.completed', status: 'COMPLETED' });
	});

	it('a FAILED callback that cannot be judged now (status API down) gets 503 and resumes nothing', async () => {
		const run = await runWorkflow(pausingWorkflow([order()]), { credentials: sb.credentials });
		const paused = pausedItem(run);
		const reference = String(paused.reference);
		await sb.post(`/sandbox/payments/${reference}/resolve`, { status: 'FAILED' });
		await sb.post('/sandbox/faults', {
			rules: [{ method: 'GET', pathPrefix: '/api/payments-v2/', status: 503 }],
		});
		const body = callbackBody(reference, 'FAILED');
		const call = await resumeCall(paused, body, signedHeaders(body));
		expect(call.status).toBe(503);
		expect(call.result.workflowData).toBeUndefined();
	});

	it('refuses a pause timeout outside 1 minute to 30 days before sending anything', async () => {
		const json = pausingWorkflow([order()]);
		json.nodes[1].parameters.pauseTimeout = 31;
		json.nodes[1].parameters.pauseTimeoutUnit = 'days';
		const run = await runWorkflow(json, { credentials: sb.credentials });
		expect(run.error?.message).toBe(
			'Row 1: Pause Timeout must be from 1 minute to 30 days (got 31 days)',
		);
		expect(await sb.received()).toEqual([]);
	});
});

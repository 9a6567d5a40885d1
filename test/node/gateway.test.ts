// Which gateway answered, and what the run says when a workflow still carries the sandbox's habits
// while its credential points at Little Pay (issue 45, point 2). A sandbox stands in for Little Pay:
// the credential says https://pay.little.africa and the engine sends those requests to the sandbox.
import type { IDataObject, INodeProperties } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { LittlePay } from '../../nodes/LittlePay/LittlePay.node';
import { LittlePayTrigger } from '../../nodes/LittlePay/LittlePayTrigger.node';
import { loadFixture, runWorkflow } from '../../testkit/engine';
import type { RunResult } from '../../testkit/engine';
import { useNodeTestSandbox } from '../../testkit/nodeSandbox';
import { newKey } from '../../testkit/sandbox';

const sb = useNodeTestSandbox({ pinDelayMs: 50, longPollTimeoutMs: 400 });

/** The same merchant's credentials, pointing at Little Pay's own address. */
function liveCredentials() {
	const live = 'https://pay.little.africa';
	return {
		littlePayBasicApi: { ...sb.credentials.littlePayBasicApi, baseUrl: live },
		littlePayApiKeyApi: { ...sb.credentials.littlePayApiKeyApi, baseUrl: live },
	};
}

const intent = (callbackUrl: string) => ({
	amount: 1500,
	description: 'Order 1',
	callbackUrl,
	key: newKey('gw'),
	email: 'amina@example.com',
});

async function createIntent(callbackUrl: string, live: boolean): Promise<RunResult> {
	return runWorkflow(
		loadFixture('payment-intent-create.json', { ITEMS: JSON.stringify([intent(callbackUrl)]) }),
		live
			? { credentials: liveCredentials(), littlePayAt: sb.sandbox.merchant.baseUrl }
			: { credentials: sb.credentials },
	);
}

/** The warnings n8n shows in the node's output panel (execution hints). */
function hintsOf(result: RunResult, node = 'Little Pay'): string[] {
	const runs = result.run.data.resultData.runData[node] ?? [];
	return runs.flatMap((run) => (run.hints ?? []).map((hint) => hint.message));
}

describe('gateway: which gateway answered, in every output row', () => {
	it('says sandbox for the sandbox and littlepay for Little Pay, from the credential alone', async () => {
		const sandbox = await createIntent('https://shop.example/callback', false);
		expect(sandbox.error).toBeUndefined();
		expect(sandbox.output('Little Pay')[0].json.gateway).toBe('sandbox');
		const live = await createIntent('https://shop.example/callback', true);
		expect(live.error).toBeUndefined();
		expect(live.output('Little Pay')[0].json.gateway).toBe('littlepay');
		// The request really went out to Little Pay's address (and reached the stand-in).
		expect(live.requests.map((r) => r.url)).toContainEqual(
			expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/api\/payments\//),
		);
	});

	it('a failed row (Continue On Fail) says which gateway refused it', async () => {
		const json = loadFixture('refund-create.json', {
			ITEMS: JSON.stringify([{ paymentId: 'nosuchpayment1' }]),
			ON_ERROR: 'continueRegularOutput',
		});
		const result = await runWorkflow(json, { credentials: sb.credentials });
		const [row] = result.output('Little Pay');
		expect(row.json.error).toEqual(expect.any(String));
		expect(row.json.gateway).toBe('sandbox');
	});
});

describe('gateway names the address the request went to (red team #13)', () => {
	const payout = () =>
		loadFixture('disbursement-create.json', {
			ITEMS: JSON.stringify([
				{ method: 'MPESA', amount: 150, to: '254712340010', key: newKey('gw') },
			]),
			ON_ERROR: 'stopWorkflow',
		});

	it('a payout sent to a live Disbursement Base URL says littlepay, though the Base URL is a sandbox', async () => {
		const result = await runWorkflow(payout(), {
			credentials: {
				...sb.credentials,
				littlePayApiKeyApi: {
					...sb.credentials.littlePayApiKeyApi,
					disbursementBaseUrl: 'https://pay.little.africa',
				},
			},
			littlePayAt: sb.sandbox.merchant.baseUrl,
		});
		expect(result.error).toBeUndefined();
		expect(result.requests.map((r) => r.url)).toContainEqual(
			expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/api\/disbursements$/),
		);
		expect(result.output('Little Pay')[0].json.gateway).toBe('littlepay');
	});

	it('a payout sent to a test Disbursement Base URL says sandbox, though the Base URL is Little Pay', async () => {
		const result = await runWorkflow(payout(), {
			credentials: {
				...sb.credentials,
				littlePayApiKeyApi: {
					...sb.credentials.littlePayApiKeyApi,
					baseUrl: 'https://pay.little.africa',
					disbursementBaseUrl: sb.sandbox.merchant.baseUrl,
				},
			},
		});
		expect(result.error).toBeUndefined();
		expect(result.output('Little Pay')[0].json.gateway).toBe('sandbox');
	});
});

describe('a Callback URL Little Pay cannot reach', () => {
	it('with a credential pointing at Little Pay: the run warns in the output panel, naming only the address', async () => {
		const result = await createIntent(
			'http://127.0.0.1:5678/webhook/abc/littlepay?token=s3cret',
			true,
		);
		expect(result.error).toBeUndefined();
		const hints = hintsOf(result);
		expect(hints).toHaveLength(1);
		expect(hints[0]).toContain(
			'Callback URL http://127.0.0.1:5678 is on this machine or a private network',
		);
		expect(hints[0]).toContain('WEBHOOK_URL');
		expect(hints[0]).not.toContain('s3cret');
		// Nothing is refused: the intent exists, and Little Pay would simply never call back.
		expect(result.output('Little Pay')[0].json.reference).toEqual(expect.any(String));
	});

	it('with the sandbox (beside n8n) or a public https address: no warning', async () => {
		expect(
			hintsOf(await createIntent('http://127.0.0.1:5678/webhook/abc/littlepay', false)),
		).toEqual([]);
		expect(
			hintsOf(await createIntent('https://n8n.example.com/webhook/abc/littlepay', true)),
		).toEqual([]);
	});

	it("a paused Collect with a pasted key and Little Pay's credential warns about both before it waits", async () => {
		const json = loadFixture('mobile-money-collect.json', {
			ITEMS: JSON.stringify([
				{
					amount: 10,
					description: 'First',
					key: newKey('gw'),
					network: 'MPESA',
					mobile: '254712345673',
				},
			]),
		});
		const node = json.nodes.find((n) => n.name === 'Little Pay')!;
		node.parameters = {
			...node.parameters,
			waitForPayment: 'pause',
			pauseTimeout: 1,
			pauseTimeoutUnit: 'hours',
			options: { publicKey: sb.sandbox.merchant.publicKeyPem },
		};
		const result = await runWorkflow(json, {
			credentials: liveCredentials(),
			littlePayAt: sb.sandbox.merchant.baseUrl,
		});
		expect(result.error).toBeUndefined();
		expect(result.run.waitTill).toBeDefined();
		const hints = hintsOf(result);
		expect(hints).toContainEqual(
			expect.stringContaining('is on this machine or a private network'),
		);
		expect(hints).toContainEqual(
			expect.stringContaining(
				'Options > Public Key holds a pasted key while the API key credential points at Little Pay',
			),
		);
	});
});

/** Whether n8n's editor shows a parameter for these node values (its own display rules). */
function shown(properties: INodeProperties[], name: string, values: IDataObject): boolean {
	const matches = properties.filter((p) => p.name === name);
	expect(matches.length).toBeGreaterThan(0);
	return matches.some((p) =>
		NodeHelpers.displayParameter(values as never, p, { typeVersion: 1 }, null),
	);
}

describe('the panels say it before the run', () => {
	const action = new LittlePay().description.properties;
	const trigger = new LittlePayTrigger().description.properties;

	it('Payment Intent: Create and Collect flag a typed plain-http Callback URL (a local address)', () => {
		const create = { resource: 'paymentIntent', operation: 'create' };
		const collect = { resource: 'mobileMoney', operation: 'collect', waitForPayment: 'longPoll' };
		for (const url of [
			'http://127.0.0.1:5678/webhook/x/littlepay',
			'http://localhost:5678/webhook/x',
			'http://192.168.1.20:5678/webhook/x',
			'http://n8n:5678/webhook/x',
			// Issue 51 point 6: a private address with https is as unreachable as with http.
			'https://192.168.1.20:5678/webhook/x',
			'https://10.0.0.12/webhook/x',
			'https://172.16.4.2/x',
			'https://127.0.0.1:5678/x',
			'https://[::1]:5678/x',
		]) {
			expect(shown(action, 'privateCallbackUrlNotice', { ...create, callbackUrl: url })).toBe(true);
			expect(shown(action, 'privateCallbackUrlNotice', { ...collect, callbackUrl: url })).toBe(
				true,
			);
		}
		// A public https address, an expression (judged at run time) or nothing yet: no notice.
		for (const url of [
			'https://n8n.example.com/webhook/x',
			'https://N8N.Example.com/x',
			'https://z.example/x',
			'={{ $json.callbackUrl }}',
			'',
		])
			expect(shown(action, 'privateCallbackUrlNotice', { ...create, callbackUrl: url })).toBe(
				false,
			);
		// Paused, the node sets the callback itself.
		expect(
			shown(action, 'privateCallbackUrlNotice', {
				...collect,
				waitForPayment: 'pause',
				callbackUrl: 'http://127.0.0.1:5678/x',
			}),
		).toBe(false);
		const notice = action.find((p) => p.name === 'privateCallbackUrlNotice')!;
		expect(notice.displayName).toContain('WEBHOOK_URL');
	});

	it('the trigger and the pause say what a pasted Public Key does, only while one is pasted', () => {
		const pem = '-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----';
		expect(shown(trigger, 'pastedKeyNotice', { options: { publicKey: pem } })).toBe(true);
		expect(shown(trigger, 'pastedKeyNotice', { options: {} })).toBe(false);
		expect(shown(trigger, 'pastedKeyNotice', { options: { publicKey: '' } })).toBe(false);
		const pause = { resource: 'payment', operation: 'waitForCompletion', waitForPayment: 'pause' };
		expect(shown(action, 'pastedKeyNotice', { ...pause, options: { publicKey: pem } })).toBe(true);
		expect(shown(action, 'pastedKeyNotice', { ...pause, options: {} })).toBe(false);
		expect(
			shown(action, 'pastedKeyNotice', {
				resource: 'mobileMoney',
				operation: 'collect',
				waitForPayment: 'pause',
				options: { publicKey: pem },
			}),
		).toBe(true);
		const notice = trigger.find((p) => p.name === 'pastedKeyNotice')!;
		expect(notice.displayName).toContain('https://pay.little.africa');
	});
});

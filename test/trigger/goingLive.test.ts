// Nothing pinned to the sandbox (issue 45, point 2): the examples take the key callbacks verify against
// from the API key credential, so switching the credential from the sandbox to Little Pay needs no edit
// to a workflow; every callback item says which gateway called; a pasted key that would refuse Little
// Pay's real callbacks is said in the run.
import { generateKeyPairSync, sign } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { IDataObject } from 'n8n-workflow';

import { forgetFetchedKeys } from '../../nodes/LittlePay/callbacks/publicKey';
import { callWebhook, newTriggerState } from '../../testkit/webhookContext';
import type { FakeRequest } from '../../testkit/webhookContext';

const sandboxKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const sandboxPem = sandboxKeys.publicKey.export({ type: 'spki', format: 'pem' }).toString();
const SANDBOX = 'http://127.0.0.1:4010';
const LITTLE_PAY = 'https://pay.little.africa';

const root = join(__dirname, '..', '..');
const examplesDir = join(root, 'examples', 'workflows');

interface ExampleNode {
	name: string;
	type: string;
	typeVersion: number;
	parameters: IDataObject;
	credentials?: Record<string, { id: string; name: string }>;
}

const examples = readdirSync(examplesDir)
	.filter((f) => f.endsWith('.json'))
	.map((file) => ({
		file,
		nodes: (JSON.parse(readFileSync(join(examplesDir, file), 'utf8')) as { nodes: ExampleNode[] })
			.nodes,
	}));

/** Every node that verifies Little Pay's callbacks: triggers, and Little Pay nodes that pause for one. */
const verifiers = examples.flatMap(({ file, nodes }) =>
	nodes
		.filter(
			(n) =>
				n.type === 'n8n-nodes-littlepay.littlePayTrigger' ||
				(n.type === 'n8n-nodes-littlepay.littlePay' && n.parameters.waitForPayment === 'pause'),
		)
		.map((node) => ({ file, node })),
);

function signed(body: object): FakeRequest {
	const raw = JSON.stringify(body);
	const timestamp = String(Math.floor(Date.now() / 1000));
	const signature = sign('sha256', Buffer.from(`${timestamp}.${raw}`), sandboxKeys.privateKey);
	return {
		headers: {
			'x-littlepay-timestamp': timestamp,
			'x-littlepay-signature': signature.toString('base64'),
		},
		rawBody: Buffer.from(raw),
	};
}

const paid = (reference: string) => ({
	reference,
	status: 'COMPLETED',
	payload: { billingAddress: { email: 'amina@example.com' } },
	amount: 1500,
	key: 'order12345',
	currency: 'KES',
	provider: 'MPESA',
	date: new Date().toISOString(),
});

beforeEach(() => forgetFetchedKeys());

/** The merchant's own status records of these payments, which the trigger's default confirmation reads. */
const recordsOf = (...references: string[]) =>
	Object.fromEntries(references.map((reference) => [reference, { ...paid(reference) }]));

describe('the example workflows are pinned to no gateway', () => {
	it('examples 5, 6, 9, 10 and 11 verify callbacks, each with the API key credential and no pasted Public Key', () => {
		expect(verifiers.map((v) => v.file.split('-')[0]).sort()).toEqual(['10', '11', '5', '6', '9']);
		for (const { file, node } of verifiers) {
			const options = (node.parameters.options ?? {}) as IDataObject;
			expect({ file, node: node.name, publicKey: options.publicKey }).toEqual({
				file,
				node: node.name,
				publicKey: undefined,
			});
			expect({
				file,
				node: node.name,
				credential: node.credentials?.littlePayApiKeyApi?.id,
			}).toEqual({ file, node: node.name, credential: '{{API_KEY_CREDENTIAL_ID}}' });
		}
	});

	it('nothing fills a sandbox key into them: no example, script or test kit file names one', () => {
		const files = [
			...examples.map((e) => join(examplesDir, e.file)),
			...readdirSync(join(root, 'scripts')).map((f) => join(root, 'scripts', f)),
			...readdirSync(join(root, 'testkit'))
				.filter((f) => f.endsWith('.ts'))
				.map((f) => join(root, 'testkit', f)),
		];
		const naming = files.filter((f) => readFileSync(f, 'utf8').includes('SANDBOX_PUBLIC_KEY'));
		expect(naming).toEqual([]);
	});

	it("example 5's trigger, unchanged: the sandbox credential verifies the sandbox's callbacks; switched to Little Pay, its published key decides", async () => {
		const trigger = verifiers.find((v) => v.file.startsWith('5-'))!.node;
		const onSandbox = newTriggerState(recordsOf('LP-EX5-1'));
		onSandbox.credential = { baseUrl: SANDBOX };
		onSandbox.gatewayKeys = { [SANDBOX]: sandboxPem };
		const accepted = await callWebhook(
			onSandbox,
			trigger.parameters,
			signed(paid('LP-EX5-1')),
			trigger.typeVersion,
		);
		expect(accepted.started).toBe(true);
		expect(accepted.result.workflowData?.[0][0].json).toMatchObject({
			event: 'payment.completed',
			verified: 'signature',
			gateway: 'sandbox',
		});

		const onLittlePay = newTriggerState(recordsOf('LP-EX5-2'));
		onLittlePay.credential = { baseUrl: LITTLE_PAY };
		onLittlePay.gatewayKeys = { [SANDBOX]: sandboxPem };
		const refused = await callWebhook(
			onLittlePay,
			trigger.parameters,
			signed(paid('LP-EX5-2')),
			trigger.typeVersion,
		);
		// The sandbox's signature is not Little Pay's: refused, and Little Pay is never asked for a key.
		expect(refused.started).toBe(false);
		expect(refused.response).toMatchObject({ status: 401, body: { error: 'bad-signature' } });
		expect(onLittlePay.keyFetches).toEqual([]);
	});
});

describe('a pasted Public Key while the credential points at Little Pay', () => {
	it('is said in the run (a warning in the output panel); the item says littlepay', async () => {
		const state = newTriggerState(recordsOf('LP-P-1'));
		state.credential = { baseUrl: LITTLE_PAY };
		const call = await callWebhook(
			state,
			{ options: { publicKey: sandboxPem } },
			signed(paid('LP-P-1')),
		);
		expect(call.started).toBe(true);
		expect(call.result.workflowData?.[0][0].json.gateway).toBe('littlepay');
		expect(state.hints).toEqual([
			expect.stringContaining(
				'Options > Public Key holds a pasted key while the API key credential points at Little Pay',
			),
		]);
	});

	it('is not flagged with the sandbox credential', async () => {
		const state = newTriggerState(recordsOf('LP-P-2'));
		state.credential = { baseUrl: SANDBOX };
		const call = await callWebhook(
			state,
			{ options: { publicKey: sandboxPem } },
			signed(paid('LP-P-2')),
		);
		expect(call.started).toBe(true);
		expect(state.hints ?? []).toEqual([]);
	});
});

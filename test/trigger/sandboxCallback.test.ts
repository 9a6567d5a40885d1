// A real signed callback from a completed sandbox payment, received over HTTP and handed to the
// trigger's webhook() with its raw bytes and headers, exactly as n8n would.
import { generateKeyPairSync, sign } from 'node:crypto';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import axios from 'axios';
import type { IDataObject } from 'n8n-workflow';

import { forgetFetchedKeys } from '../../nodes/LittlePay/callbacks/publicKey';
import { startSandbox } from '../../sandbox';
import { createSandboxIntent } from '../../testkit/n8nRuns';
import type { SandboxHandle } from '../../sandbox';
import { callWebhook, newTriggerState } from '../../testkit/webhookContext';
import type { WebhookCall } from '../../testkit/webhookContext';

describe('Little Pay Trigger with the sandbox gateway', () => {
	let sandbox: SandboxHandle;
	let receiver: Server;
	let receiverUrl: string;
	const state = newTriggerState();
	const calls: WebhookCall[] = [];
	let params: IDataObject;

	beforeAll(async () => {
		sandbox = await startSandbox({
			port: 0,
			pinDelayMs: 100,
			quiet: true,
			callbackRetryDelaysMs: [100],
		});
		params = { options: { publicKey: sandbox.merchant.publicKeyPem } };
		// The trigger confirms each callback with the merchant's own API key (its default).
		state.credential = { baseUrl: sandbox.baseUrl, apiKey: sandbox.merchant.apiKey };
		receiver = createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (c: Buffer) => chunks.push(c));
			req.on('end', async () => {
				const call = await callWebhook(state, params, {
					headers: req.headers,
					rawBody: Buffer.concat(chunks),
				});
				calls.push(call);
				res.writeHead(call.response.status ?? 200, { 'content-type': 'application/json' });
				res.end(JSON.stringify(call.response.body ?? call.result.webhookResponse));
			});
		});
		await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
		receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/callback`;
	});

	afterAll(async () => {
		await sandbox.close();
		await new Promise((r) => receiver.close(r));
	});

	it('accepts the signed callback of a completed payment once, and drops its re-delivery', async () => {
		const basic = Buffer.from(
			`${sandbox.merchant.clientId}:${sandbox.merchant.clientSecret}`,
		).toString('base64');
		const intent = await axios.post(
			`${sandbox.baseUrl}/api/payments/${sandbox.merchant.tokenId}/pay`,
			{
				amount: 250,
				description: 'Trigger test',
				callbackUrl: receiverUrl,
				key: 'trigtest0001',
				payload: { billingAddress: { email: 'a@b.co' } },
			},
			{ headers: { Authorization: `Basic ${basic}` } },
		);
		const reference = intent.data.data.reference as string;
		await axios.post(`${sandbox.baseUrl}/pay/${reference}/process`, {
			type: 'MPESA',
			payment: { mobile: '254712345670' },
		});

		const deadline = Date.now() + 10000;
		while (calls.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
		expect(calls).toHaveLength(1);
		expect(calls[0].started).toBe(true);
		expect(calls[0].result.workflowData![0][0].json).toMatchObject({
			event: 'payment.completed',
			reference,
			key: 'trigtest0001',
			status: 'COMPLETED',
			amount: 250,
			currency: 'KES',
			provider: 'MPESA',
			verified: 'signature',
		});

		// The gateway delivering the same callback again (as on a retry) starts nothing.
		const log = await axios.get(`${sandbox.baseUrl}/sandbox/callbacks`);
		const delivered = log.data.data.callbacks as Array<{
			body: string;
			timestamp: string;
			signature: string;
		}>;
		const entry = delivered.find((d) => d.body.includes(reference));
		expect(entry).toBeDefined();
		const again = await callWebhook(state, params, {
			headers: {
				'x-littlepay-timestamp': entry!.timestamp,
				'x-littlepay-signature': entry!.signature,
			},
			rawBody: Buffer.from(entry!.body),
		});
		expect(again.started).toBe(false);
		expect(again.result.webhookResponse).toMatchObject({ received: true, duplicate: true });
	});
});

describe('A new Little Pay Trigger with the sandbox API key credential and nothing pasted', () => {
	let sandbox: SandboxHandle;
	let receiver: Server;
	let receiverUrl: string;
	// Fresh as n8n adds it: no Options; the one API key credential (the sandbox's) selected; tested
	// with Execute step, so n8n runs the callback as a manual execution.
	const state = newTriggerState();
	const calls: WebhookCall[] = [];

	beforeAll(async () => {
		forgetFetchedKeys();
		sandbox = await startSandbox({
			port: 0,
			pinDelayMs: 100,
			quiet: true,
			callbackRetryDelaysMs: [],
		});
		state.credential = { baseUrl: sandbox.baseUrl, apiKey: sandbox.merchant.apiKey };
		state.mode = 'manual';
		receiver = createServer((req, res) => {
			const chunks: Buffer[] = [];
			req.on('data', (c: Buffer) => chunks.push(c));
			req.on('end', async () => {
				const call = await callWebhook(
					state,
					{},
					{ headers: req.headers, rawBody: Buffer.concat(chunks) },
				);
				calls.push(call);
				res.writeHead(call.response.status ?? 200, { 'content-type': 'application/json' });
				res.end(JSON.stringify(call.response.body ?? call.result.webhookResponse));
			});
		});
		await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
		receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/callback`;
	});

	afterAll(async () => {
		await sandbox.close();
		await new Promise((r) => receiver.close(r));
	});

	it("verifies the sandbox's signed callback with the key the sandbox publishes", async () => {
		const reference = await createSandboxIntent(sandbox, {
			amount: 300,
			description: 'New trigger',
			key: 'newtrig0001',
			callbackUrl: receiverUrl,
		});
		await axios.post(`${sandbox.baseUrl}/pay/${reference}/process`, {
			type: 'MPESA',
			payment: { mobile: '254712345670' },
		});
		const deadline = Date.now() + 10000;
		while (calls.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
		expect(calls).toHaveLength(1);
		expect(calls[0].response.status).toBeUndefined();
		expect(calls[0].result.workflowData![0][0].json).toMatchObject({
			event: 'payment.completed',
			reference,
			verified: 'signature',
		});
		expect(state.executed?.error).toBeUndefined();
		expect(state.keyFetches).toEqual([`${sandbox.baseUrl}/sandbox/public-key`]);
	});

	it('refuses a forged "paid" callback 401, and the test run shows why instead of running on', async () => {
		const forger = generateKeyPairSync('rsa', { modulusLength: 2048 });
		const raw = JSON.stringify({
			reference: 'LP-FORGED-1',
			status: 'COMPLETED',
			amount: 99000,
			key: 'order-forged',
			currency: 'KES',
			provider: 'MPESA',
			date: new Date().toISOString(),
		});
		const timestamp = String(Math.floor(Date.now() / 1000));
		const signature = sign('sha256', Buffer.from(`${timestamp}.${raw}`), forger.privateKey);
		const res = await axios.post(receiverUrl, raw, {
			headers: {
				'content-type': 'application/json',
				'x-littlepay-timestamp': timestamp,
				'x-littlepay-signature': signature.toString('base64'),
			},
			validateStatus: () => true,
		});
		expect(res.status).toBe(401);
		expect(res.data).toEqual({ received: false, error: 'bad-signature' });
		const refused = calls[calls.length - 1];
		expect(refused.result.workflowData![0][0].json).toMatchObject({
			refused: true,
			reason: 'bad-signature',
			answered: 401,
			unverified: { reference: 'LP-FORGED-1', status: 'COMPLETED' },
		});
		// The trigger's execution fails with the reason: nothing after it runs on the forged callback.
		expect(state.executed?.outputs).toBeUndefined();
		expect(state.executed?.error?.message).toBe(
			'Refused a callback (bad-signature): the caller was answered 401 and nothing after this trigger ran',
		);
		expect(state.executed?.error?.description).toMatch(/Keep Verify Signatures on/);
	});
});

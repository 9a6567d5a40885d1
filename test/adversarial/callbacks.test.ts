// Forged callbacks against the fallback setup the panel offers: Verify Signatures off, Confirm With
// Status API on (and the refund path with a Refund Callback Token that leaked). Little Pay's record is
// the sandbox's own, read over HTTP through the trigger's credential. None of the forgeries may start
// the workflow as confirmed, and no event may start it twice, however the copy is re-worded.
import { generateKeyPairSync, sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';

import axios from 'axios';
import type { IDataObject } from 'n8n-workflow';

import { startSandbox } from '../../sandbox';
import type { SandboxHandle } from '../../sandbox';
import { createSandboxIntent, paidSandboxIntent } from '../../testkit/n8nRuns';
import { callWebhook, newTriggerState } from '../../testkit/webhookContext';
import type { FakeRequest, TriggerState, WebhookCall } from '../../testkit/webhookContext';

let sandbox: SandboxHandle;
let paid: string;
let paidKey: string;
let other: string;

beforeAll(async () => {
	sandbox = await startSandbox({ port: 0, pinDelayMs: 50, quiet: true });
	paidKey = `ORD${Date.now().toString(36).slice(-6)}`;
	paid = await paidSandboxIntent(sandbox, { amount: 10, description: 'Forgery', key: paidKey });
	other = await paidSandboxIntent(sandbox, {
		amount: 10,
		description: 'Another payment',
		key: `OTH${Date.now().toString(36).slice(-6)}`,
	});
});
afterAll(async () => await sandbox.close());

/** A trigger whose API key credential reads the sandbox's status API. */
function trigger(): TriggerState {
	const state = newTriggerState();
	state.credential = { baseUrl: sandbox.baseUrl, apiKey: sandbox.merchant.apiKey };
	return state;
}

const unverified = { verifySignatures: false, confirmWithStatusApi: true };

/** The payment callback Little Pay would send for the paid intent, with `change` applied. */
function paymentBody(change: IDataObject = {}): IDataObject {
	return {
		reference: paid,
		status: 'COMPLETED',
		payload: { billingAddress: { phoneNumber: '+254712345670' } },
		amount: 10,
		key: paidKey,
		currency: 'KES',
		provider: 'MPESA',
		date: '2026-11-27T10:00:00.000Z',
		...change,
	};
}

function refundBody(change: IDataObject = {}): IDataObject {
	return {
		status: 'COMPLETED',
		message: 'Refund completed',
		amount: 5,
		reason: 'customer request',
		date: '2026-11-27T11:00:00.000Z',
		reference: paid,
		key: paidKey,
		...change,
	};
}

async function post(
	state: TriggerState,
	body: IDataObject,
	params: IDataObject = unverified,
	token?: string,
): Promise<WebhookCall> {
	return await callWebhook(state, params, {
		headers: {},
		rawBody: Buffer.from(JSON.stringify(body)),
		query: token === undefined ? {} : { token },
	});
}

/** The items the workflow ran with, over every call. */
const ran = (calls: WebhookCall[]) =>
	calls.filter((c) => c.started).map((c) => c.result.workflowData![0][0].json);

describe('forged payment callbacks, Verify Signatures off and Confirm With Status API on', () => {
	it('runs the genuine body once, with the amount and currency of the record, and nothing else', async () => {
		const state = trigger();
		const calls: WebhookCall[] = [];
		calls.push(await post(state, paymentBody()));
		calls.push(await post(state, paymentBody({ amount: 999999 })));
		calls.push(await post(state, paymentBody({ currency: 'UGX' })));
		calls.push(await post(state, paymentBody({ date: '2026-11-27T10:00:01.000Z' })));
		calls.push(await post(state, paymentBody({ date: '2030-01-01T00:00:00.000Z', amount: 10 })));
		calls.push(await post(state, paymentBody({ reference: paidKey })));
		calls.push(await post(state, paymentBody({ status: 'completed', date: 'x' })));
		calls.push(
			await post(state, paymentBody({ amount: undefined, currency: undefined, date: 'y' })),
		);
		calls.push(await post(state, paymentBody({ key: 'SOMEONEELSE' })));
		calls.push(await post(state, paymentBody({ provider: 'CARDS' })));
		calls.push(await post(state, paymentBody({ amount: '1e1' })));
		const items = ran(calls);
		expect(items).toHaveLength(1);
		expect(items[0]).toMatchObject({
			event: 'payment.completed',
			reference: paid,
			amount: 10,
			currency: 'KES',
			verified: 'status-check',
			statusConfirmed: true,
		});
		const refused = calls.filter((c) => c.response.status === 401);
		expect(refused.map((c) => c.response.body)).toEqual(
			Array(6).fill({ received: false, error: 'status-not-confirmed' }),
		);
		// The re-dated and re-worded copies of the one event are acknowledged as copies.
		expect(calls.filter((c) => c.result.webhookResponse?.duplicate === true)).toHaveLength(4);
	});

	it('a forged payment.failed for a paid payment, and a paid callback for an unknown reference, run nothing', async () => {
		const state = trigger();
		const calls = [
			await post(state, paymentBody({ status: 'FAILED' })),
			await post(state, paymentBody({ reference: 'NOSUCHREFERENCE1' })),
			await post(state, paymentBody({ reference: other, key: undefined })),
		];
		// The third is the other payment's own callback (without its key): its record agrees, so it runs.
		expect(ran(calls).map((i) => i.reference)).toEqual([other]);
		expect(calls[0].response).toMatchObject({ status: 401 });
		expect(calls[1].response).toMatchObject({ status: 401 });
	});

	it('variations: the amount as text, the reference in another case or padded, a refund dressed as a payment', async () => {
		const state = trigger();
		const calls: WebhookCall[] = [];
		calls.push(await post(state, paymentBody()));
		calls.push(await post(state, paymentBody({ amount: '10', date: 'a' })));
		calls.push(await post(state, paymentBody({ amount: '10.00', date: 'b' })));
		const otherCase = paid === paid.toUpperCase() ? paid.toLowerCase() : paid.toUpperCase();
		expect(otherCase).not.toBe(paid);
		calls.push(await post(state, paymentBody({ reference: otherCase })));
		calls.push(await post(state, paymentBody({ reference: `${paid} ` })));
		calls.push(await post(state, paymentBody({ reference: `${paid}/../${other}` })));
		// A refund's fields with a currency: read as a payment callback, and the record's amount decides.
		calls.push(await post(state, { ...refundBody({ amount: 10 }), currency: 'KES', date: 'c' }));
		calls.push(await post(state, { ...refundBody(), currency: 'KES' }));
		const items = ran(calls);
		expect(items).toHaveLength(1);
		expect(items[0]).toMatchObject({ amount: 10, reference: paid, statusConfirmed: true });
		expect(calls.filter((c) => c.result.webhookResponse?.duplicate === true)).toHaveLength(3);
		expect(calls.filter((c) => c.response.status === 401)).toHaveLength(4);
	});

	it('a copy the workflow already ran is dropped in a later call too (another trigger process, same static data)', async () => {
		const state = trigger();
		const first = await post(state, paymentBody());
		const later = await post(state, paymentBody({ date: '2026-11-28T00:00:00.000Z' }));
		expect([first.started, later.started]).toEqual([true, false]);
		expect(later.result.webhookResponse).toMatchObject({ duplicate: true });
	});
});

describe('forged refund callbacks', () => {
	it('a refund.completed or refund.failed for a refund that does not exist runs nothing, unsigned', async () => {
		const state = trigger();
		const calls = [
			await post(state, refundBody()),
			await post(state, refundBody({ status: 'FAILED', message: 'Refund failed' })),
			await post(state, refundBody({ amount: 50 })),
		];
		expect(ran(calls)).toEqual([]);
		expect(calls.map((c) => c.response.status)).toEqual([401, 401, 401]);
	});

	it('with the Refund Callback Token: a made-up refund is refused, a refund.failed runs once and never as confirmed', async () => {
		const state = trigger();
		const params = { ...unverified, refundToken: 'leaked-token-0123456789' };
		const calls = [
			await post(state, refundBody(), params, 'leaked-token-0123456789'),
			await post(
				state,
				refundBody({
					status: 'FAILED',
					message: 'Refund failed: the provider rejected the reversal',
				}),
				params,
				'leaked-token-0123456789',
			),
			await post(
				state,
				refundBody({ status: 'FAILED', date: '2026-11-27T12:00:00.000Z' }),
				params,
				'leaked-token-0123456789',
			),
		];
		expect(calls[0].response).toMatchObject({
			status: 401,
			body: { error: 'status-not-confirmed' },
		});
		const items = ran(calls);
		expect(items).toHaveLength(1);
		expect(items[0]).toMatchObject({
			event: 'refund.failed',
			verified: 'token',
			statusConfirmed: false,
		});
		expect(calls[2].result.webhookResponse).toMatchObject({ duplicate: true });
	});

	it('a refund that exists is confirmed once; a larger one, or its re-dated copy, runs nothing more', async () => {
		const reference = await paidSandboxIntent(sandbox, {
			amount: 20,
			description: 'Refunded',
			key: `REF${Date.now().toString(36).slice(-6)}`,
		});
		const refund = await axios.post(
			`${sandbox.baseUrl}/api/refund/${reference}`,
			{ amount: 5, reason: 'customer request' },
			{ headers: { 'X-API-KEY': sandbox.merchant.apiKey } },
		);
		expect(refund.data.data.status).toBe('COMPLETED');
		const record = await axios.get(`${sandbox.baseUrl}/api/payments-v2/${reference}`, {
			headers: { 'X-API-KEY': sandbox.merchant.apiKey },
		});
		const key = record.data.data.key as string;
		const state = trigger();
		const calls = [
			await post(state, refundBody({ reference, key })),
			await post(state, refundBody({ reference, key, date: '2026-11-28T00:00:00.000Z' })),
			await post(state, refundBody({ reference, key, amount: 6 })),
		];
		const items = ran(calls);
		expect(items).toHaveLength(1);
		expect(items[0]).toMatchObject({
			event: 'refund.completed',
			amount: 5,
			verified: 'status-check',
			statusConfirmed: true,
		});
		expect(calls[2].response).toMatchObject({ status: 401 });
	});
});

describe('the Refused alert blames the key only when the key is what fails', () => {
	const littlePay = generateKeyPairSync('rsa', { modulusLength: 2048 });
	const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 });
	const params = {
		confirmWithStatusApi: true,
		refusedOutput: true,
		options: { publicKey: littlePay.publicKey.export({ type: 'spki', format: 'pem' }).toString() },
	};
	afterEach(() => jest.restoreAllMocks());

	function signedBy(key: KeyObject, body: IDataObject): FakeRequest {
		const raw = JSON.stringify(body);
		const timestamp = String(Math.floor(Date.now() / 1000));
		const signature = sign('sha256', Buffer.from(`${timestamp}.${raw}`), key);
		return {
			headers: {
				'x-littlepay-timestamp': timestamp,
				'x-littlepay-signature': signature.toString('base64'),
			},
			rawBody: Buffer.from(raw),
		};
	}
	const alertOf = (call: WebhookCall) => call.result.workflowData?.[0][0].json ?? {};

	it("a stranger's badly signed callback for a real paid reference, while Little Pay's still verify: forged, not a rotated key", async () => {
		const state = trigger();
		const genuine = await callWebhook(state, params, signedBy(littlePay.privateKey, paymentBody()));
		expect(genuine.started).toBe(true);
		const forged = await callWebhook(
			state,
			params,
			signedBy(stranger.privateKey, paymentBody({ reference: other, key: undefined })),
		);
		expect(forged.response.status).toBe(401);
		expect(alertOf(forged)).toMatchObject({
			reason: 'bad-signature',
			likelyCause: expect.stringMatching(/^A forged or replayed callback/),
			fix: expect.stringMatching(/^Change nothing in the key/),
		});
		expect(JSON.stringify(alertOf(forged))).not.toMatch(/rotated or wrong/);
	});

	it('with no callback verifying and an older payment, it says it cannot tell a replay from a rotation', async () => {
		const state = trigger();
		const later = Date.now() + 20 * 60_000;
		jest.spyOn(Date, 'now').mockReturnValue(later);
		const forged = await callWebhook(state, params, signedBy(stranger.privateKey, paymentBody()));
		expect(alertOf(forged).likelyCause).toMatch(/a replayed or forged callback, or a rotated key/);
		expect(JSON.stringify(alertOf(forged))).not.toMatch(/rotated or wrong/);
	});

	it("a payment that has just completed, signed with a key that is not the trigger's, and nothing verifying: the key looks rotated", async () => {
		const reference = await paidSandboxIntent(sandbox, {
			amount: 30,
			description: 'Rotation',
			key: `ROT${Date.now().toString(36).slice(-6)}`,
		});
		const record = await axios.get(`${sandbox.baseUrl}/api/payments-v2/${reference}`, {
			headers: { 'X-API-KEY': sandbox.merchant.apiKey },
		});
		const r = record.data.data as IDataObject;
		const body = {
			reference,
			status: 'COMPLETED',
			amount: 30,
			key: r.key,
			currency: 'KES',
			provider: 'MPESA',
			date: new Date().toISOString(),
		};
		const rotated = await callWebhook(trigger(), params, signedBy(stranger.privateKey, body));
		expect(alertOf(rotated).likelyCause).toMatch(/^The public key looks rotated or wrong/);
		// The same callback with a made-up amount is not Little Pay's, whatever the key: no verdict on it.
		const altered = await callWebhook(
			trigger(),
			params,
			signedBy(stranger.privateKey, { ...body, amount: 31 }),
		);
		expect(alertOf(altered).likelyCause).toMatch(/^The signature does not verify against the key/);
	});

	it("the sandbox's own callback for a payment that just expired, under a wrong key: the key looks rotated (as the e2e alert test expects)", async () => {
		const reference = await createSandboxIntent(sandbox, {
			amount: 900,
			description: 'Expired',
			key: `EXP${Date.now().toString(36).slice(-6)}`,
		});
		await axios.post(`${sandbox.baseUrl}/sandbox/payments/${reference}/expire`);
		let body: string | undefined;
		for (let i = 0; i < 100 && body === undefined; i++) {
			const list = (await axios.get(`${sandbox.baseUrl}/sandbox/callbacks`)).data.data
				.callbacks as Array<{ body: string }>;
			body = list.find((c) => c.body.includes(reference))?.body;
			if (body === undefined) await new Promise((r) => setTimeout(r, 20));
		}
		const call = await callWebhook(
			trigger(),
			params,
			signedBy(stranger.privateKey, JSON.parse(String(body)) as IDataObject),
		);
		expect(alertOf(call)).toMatchObject({
			reason: 'bad-signature',
			unverified: { status: 'FAILED' },
		});
		expect(alertOf(call).likelyCause).toMatch(/^The public key looks rotated or wrong/);
	});

	it("recognises a rotation against a record with only Little Pay's documented fields (no currency)", async () => {
		const state = newTriggerState({
			'LP-DOC-1': {
				reference: 'LP-DOC-1',
				status: 'COMPLETED',
				amount: 10,
				key: 'docorder1',
				payment: { provider: 'MPESA' },
				completedAt: new Date().toISOString(),
			},
		});
		const body = {
			reference: 'LP-DOC-1',
			status: 'COMPLETED',
			amount: 10,
			key: 'docorder1',
			currency: 'KES',
			provider: 'MPESA',
		};
		const rotated = await callWebhook(state, params, signedBy(stranger.privateKey, body));
		expect(alertOf(rotated).likelyCause).toMatch(/^The public key looks rotated or wrong/);
	});
});

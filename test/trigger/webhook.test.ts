import { generateKeyPairSync, sign } from 'node:crypto';

import { LittlePayTrigger } from '../../nodes/LittlePay/LittlePayTrigger.node';
import { callbackEventId, parseCallback } from '../../nodes/LittlePay/callbacks/callbackEvent';
import { processMemorySize } from '../../nodes/LittlePay/callbacks/eventMemory';
import { forgetFetchedKeys } from '../../nodes/LittlePay/callbacks/publicKey';

import { callHookMethod, callWebhook, newTriggerState } from '../../testkit/webhookContext';
import type { FakeRequest } from '../../testkit/webhookContext';

const gateway = generateKeyPairSync('rsa', { modulusLength: 2048 });
const attacker = generateKeyPairSync('rsa', { modulusLength: 2048 });
const publicKey = gateway.publicKey.export({ type: 'spki', format: 'pem' }).toString();

const paymentBody = {
	reference: 'LP-REF-1',
	status: 'COMPLETED',
	payload: { billingAddress: { firstName: 'Amina', email: 'amina@example.com' } },
	amount: 1500,
	key: 'order12345',
	currency: 'KES',
	provider: 'MPESA',
	date: '2026-11-22T10:00:00.000Z',
};
const refundBody = {
	status: 'COMPLETED',
	message: 'Refund processed',
	amount: 500,
	reason: 'customer request',
	date: '2026-11-22T11:00:00.000Z',
	reference: 'LP-REF-1',
	key: 'order12345',
};

function signed(
	body: object,
	options: { key?: typeof gateway.privateKey; ageSeconds?: number } = {},
): FakeRequest {
	const raw = JSON.stringify(body);
	const timestamp = String(Math.floor(Date.now() / 1000) - (options.ageSeconds ?? 0));
	const signature = sign(
		'sha256',
		Buffer.from(`${timestamp}.${raw}`),
		options.key ?? gateway.privateKey,
	);
	return {
		headers: {
			'x-littlepay-timestamp': timestamp,
			'x-littlepay-signature': signature.toString('base64'),
		},
		rawBody: Buffer.from(raw),
	};
}

// The signature layer alone: the account confirmation (on by default) has its own tests.
const signatureLayer = { confirmWithStatusApi: false };
const params = { options: { publicKey }, ...signatureLayer };

describe('Little Pay Trigger webhook', () => {
	it('starts the workflow once with a clean item for a genuine payment callback', async () => {
		const state = newTriggerState();
		const call = await callWebhook(state, params, signed(paymentBody));
		expect(call.started).toBe(true);
		const item = call.result.workflowData![0][0].json;
		// n8n answers (after recording the execution) with the trigger's small JSON body.
		expect(call.result.noWebhookResponse).toBeUndefined();
		expect(call.response).toEqual({});
		expect(call.result.webhookResponse).toEqual({
			received: true,
			event: 'payment.completed',
			eventId: item.eventId,
		});
		expect(item.eventId).toMatch(/^[0-9a-f]{32}$/);
		expect(item).toMatchObject({
			event: 'payment.completed',
			reference: 'LP-REF-1',
			key: 'order12345',
			status: 'COMPLETED',
			amount: 1500,
			currency: 'KES',
			provider: 'MPESA',
			date: '2026-11-22T10:00:00.000Z',
			verified: 'signature',
		});
		// No second copy of the body unless Options > Include Raw Body asks for one (test/trigger/payerData.test.ts).
		expect(item).not.toHaveProperty('raw');
		// The payer's details as the credential's Payer Details says: Masked without a credential.
		expect(item.billingAddress).toMatchObject({
			firstName: 'Amina',
			email: 'a•••@example.com',
			country: null,
		});
	});

	const refusals: Array<[string, () => FakeRequest, string]> = [
		[
			'no signature headers',
			() => ({ headers: {}, rawBody: Buffer.from(JSON.stringify(paymentBody)) }),
			'missing-signature',
		],
		[
			'a signature by another key',
			() => signed(paymentBody, { key: attacker.privateKey }),
			'bad-signature',
		],
		[
			'a tampered amount',
			() => {
				const req = signed(paymentBody);
				req.rawBody = Buffer.from(req.rawBody!.toString().replace('1500', '9999999'));
				return req;
			},
			'bad-signature',
		],
		[
			'a stale timestamp (replay)',
			() => signed(paymentBody, { ageSeconds: 301 }),
			'stale-timestamp',
		],
		['a future timestamp', () => signed(paymentBody, { ageSeconds: -301 }), 'future-timestamp'],
		[
			'a malformed signature',
			() => ({
				...signed(paymentBody),
				headers: { ...signed(paymentBody).headers, 'x-littlepay-signature': '%%%' },
			}),
			'malformed-signature',
		],
	];
	it.each(refusals)('answers 401 and starts nothing for %s', async (_name, request, reason) => {
		const call = await callWebhook(newTriggerState(), params, request());
		expect(call.started).toBe(false);
		expect(call.result.noWebhookResponse).toBe(true);
		expect(call.response).toEqual({ status: 401, body: { received: false, error: reason } });
	});

	it('answers 400 for a body that is not a callback, without running', async () => {
		const call = await callWebhook(newTriggerState(), params, {
			headers: {},
			rawBody: Buffer.from('hello'),
		});
		expect(call.response.status).toBe(400);
		expect(call.started).toBe(false);
	});

	it('acknowledges events the user did not select with 2xx and starts nothing', async () => {
		const failed = { ...paymentBody, status: 'FAILED' };
		const call = await callWebhook(
			newTriggerState(),
			{ ...params, events: ['payment.completed'] },
			signed(failed),
		);
		expect(call.started).toBe(false);
		expect(call.response.status).toBeUndefined();
		expect(call.result.webhookResponse).toEqual({ received: true, ignored: 'payment.failed' });
	});

	it('starts the workflow once when the gateway delivers the same callback twice', async () => {
		const state = newTriggerState();
		const first = await callWebhook(state, params, signed(paymentBody));
		const second = await callWebhook(state, params, signed(paymentBody));
		expect(first.started).toBe(true);
		expect(second.started).toBe(false);
		expect(second.result.webhookResponse).toEqual({
			received: true,
			duplicate: true,
			eventId: first.result.workflowData![0][0].json.eventId,
		});
		const failedLater = await callWebhook(
			state,
			params,
			signed({ ...paymentBody, reference: 'LP-REF-2' }),
		);
		expect(failedLater.started).toBe(true);
	});

	it('keeps the duplicate memory bounded to the last 1,000 events', async () => {
		const state = newTriggerState();
		for (let i = 0; i < 1005; i++) {
			await callWebhook(state, params, signed({ ...paymentBody, reference: `R${i}` }));
		}
		expect(processMemorySize(`${state.workflowId}:trigger-node`)).toBe(1000);
		expect(Object.keys(state.staticData.acceptedEvents as object)).toHaveLength(1000);
		// The newest are still recognised; the five oldest were forgotten and start again.
		expect(
			(await callWebhook(state, params, signed({ ...paymentBody, reference: 'R1004' }))).started,
		).toBe(false);
		expect(
			(await callWebhook(state, params, signed({ ...paymentBody, reference: 'R5' }))).started,
		).toBe(false);
		expect(
			(await callWebhook(state, params, signed({ ...paymentBody, reference: 'R0' }))).started,
		).toBe(true);
	});

	it('writes static data only when it accepts an event, never for refused, ignored or duplicate calls', async () => {
		const state = newTriggerState();
		await callHookMethod(state, 'create', params);
		const snapshot = () => JSON.stringify(state.staticData);
		const afterActivation = snapshot();
		expect(
			(await callWebhook(state, params, signed(paymentBody, { key: attacker.privateKey }))).response
				.status,
		).toBe(401);
		expect(
			(await callWebhook(state, { ...params, events: ['payment.failed'] }, signed(paymentBody)))
				.started,
		).toBe(false);
		expect(snapshot()).toBe(afterActivation);
		const accepted = await callWebhook(state, params, signed(paymentBody));
		expect(accepted.started).toBe(true);
		const eventId = String(accepted.result.workflowData![0][0].json.eventId);
		expect(Object.keys(state.staticData.acceptedEvents as object)).toEqual([eventId]);
		const afterAccept = snapshot();
		expect((await callWebhook(state, params, signed(paymentBody))).started).toBe(false);
		expect(snapshot()).toBe(afterAccept);
	});

	it('starts once when the same callback arrives many times at the same moment', async () => {
		const state = newTriggerState();
		const calls = await Promise.all(
			Array.from({ length: 20 }, () => callWebhook(state, params, signed(paymentBody))),
		);
		expect(calls.filter((c) => c.started)).toHaveLength(1);
		// The others arrived while the first was in flight (asked to come back) or after it was recorded.
		const duplicates = calls.filter((c) => c.result.webhookResponse?.duplicate === true);
		const retryLater = calls.filter((c) => c.response.status === 503);
		expect(duplicates.length + retryLater.length).toBe(19);
		for (const call of retryLater) {
			expect(call.response.body).toEqual({ received: false, error: 'in-flight' });
			expect(call.response.headers).toEqual({ 'retry-after': '5' });
		}
	});

	describe('counts an event as seen only once n8n has recorded its execution', () => {
		it('runs the redelivery of a callback whose execution n8n failed to record (answered 500)', async () => {
			const state = newTriggerState();
			const first = await callWebhook(state, params, signed(paymentBody), 2, undefined, 'fails');
			expect(first.started).toBe(true);
			expect(state.staticData.acceptedEvents).toBeUndefined();
			const again = await callWebhook(state, params, signed(paymentBody));
			expect(again.started).toBe(true);
			expect(again.result.webhookResponse).toMatchObject({ event: 'payment.completed' });
			// Recorded this time: the next copy is a duplicate, in the process and in static data.
			expect(Object.keys(state.staticData.acceptedEvents as object)).toEqual([
				again.result.webhookResponse!.eventId,
			]);
			expect((await callWebhook(state, params, signed(paymentBody))).started).toBe(false);
		});

		it('asks a copy arriving while the first is in flight to come back, then calls it a duplicate', async () => {
			const state = newTriggerState();
			const first = await callWebhook(state, params, signed(paymentBody), 2, undefined, 'later');
			const copy = await callWebhook(state, params, signed(paymentBody));
			expect(copy.started).toBe(false);
			expect(copy.response.status).toBe(503);
			await first.finishRecording(true);
			const later = await callWebhook(state, params, signed(paymentBody));
			expect(later.started).toBe(false);
			expect(later.result.webhookResponse).toMatchObject({ duplicate: true });
		});

		it('runs a copy after the first request closed without n8n answering', async () => {
			const state = newTriggerState();
			const first = await callWebhook(state, params, signed(paymentBody), 2, undefined, 'later');
			await first.finishRecording(false);
			expect((await callWebhook(state, params, signed(paymentBody))).started).toBe(true);
		});

		it('writes static data from the recorded execution, not from the webhook call', async () => {
			const state = newTriggerState();
			const first = await callWebhook(state, params, signed(paymentBody), 2, undefined, 'later');
			expect(first.started).toBe(true);
			expect(state.staticData.acceptedEvents).toBeUndefined();
			await first.finishRecording(true);
			expect(Object.keys(state.staticData.acceptedEvents as object)).toHaveLength(1);
		});
	});

	it('keeps one memory per trigger: the same event in two workflows starts both', async () => {
		const a = newTriggerState();
		const b = newTriggerState();
		expect((await callWebhook(a, params, signed(paymentBody))).started).toBe(true);
		expect((await callWebhook(b, params, signed(paymentBody))).started).toBe(true);
		expect((await callWebhook(a, params, signed(paymentBody))).started).toBe(false);
	});

	it('does not remember refused callbacks: a forged one does not block the genuine delivery', async () => {
		const state = newTriggerState();
		expect(
			(await callWebhook(state, params, signed(paymentBody, { key: attacker.privateKey }))).response
				.status,
		).toBe(401);
		expect((await callWebhook(state, params, signed(paymentBody))).started).toBe(true);
	});

	it('refuses to activate with a Refund Callback Token under 16 characters, naming its length', async () => {
		const state = newTriggerState();
		await expect(
			callHookMethod(state, 'create', { ...params, refundToken: 'books0refund' }),
		).rejects.toThrow('Refund Callback Token has 12 characters: use at least 16');
		expect(await callHookMethod(state, 'checkExists')).toBe(false);
		expect(
			await callHookMethod(state, 'create', { ...params, refundToken: 'books0refund0token' }),
		).toBe(true);
	});

	it('keeps the memory across deactivation and activation, and drops the list version 0.1 kept', async () => {
		const state = newTriggerState();
		state.staticData.seenEventIds = ['old-id'];
		expect(await callHookMethod(state, 'checkExists')).toBe(false);
		expect(await callHookMethod(state, 'create', params)).toBe(true);
		expect(await callHookMethod(state, 'checkExists')).toBe(true);
		expect(state.staticData.seenEventIds).toBeUndefined();
		expect((await callWebhook(state, params, signed(paymentBody))).started).toBe(true);
		await callHookMethod(state, 'delete');
		expect(await callHookMethod(state, 'checkExists')).toBe(false);
		await callHookMethod(state, 'create', params);
		expect((await callWebhook(state, params, signed(paymentBody))).started).toBe(false);
	});

	it('is version 2 by default, and version 1 workflows behave the same', async () => {
		// n8n evaluates an expression (in an isolate) on every call to a typeVersion 1 webhook start node.
		const { description } = new LittlePayTrigger();
		expect(description.version).toEqual([1, 2]);
		expect(description.defaultVersion).toBe(2);
		for (const typeVersion of [1, 2]) {
			const state = newTriggerState();
			const first = await callWebhook(state, params, signed(paymentBody), typeVersion);
			expect(first.result.webhookResponse).toMatchObject({
				received: true,
				event: 'payment.completed',
			});
			expect((await callWebhook(state, params, signed(paymentBody), typeVersion)).started).toBe(
				false,
			);
			expect(
				(
					await callWebhook(
						state,
						params,
						signed(paymentBody, { key: attacker.privateKey }),
						typeVersion,
					)
				).response.status,
			).toBe(401);
		}
	});

	it('refuses unsigned payment callbacks unless verification is explicitly off', async () => {
		const unsigned: FakeRequest = {
			headers: {},
			rawBody: Buffer.from(JSON.stringify(paymentBody)),
		};
		expect((await callWebhook(newTriggerState(), params, unsigned)).response.status).toBe(401);
		const off = await callWebhook(
			newTriggerState(),
			{ ...params, verifySignatures: false },
			unsigned,
		);
		expect(off.started).toBe(true);
		expect(off.result.workflowData![0][0].json.verified).toBe('none');
	});

	describe('refund callbacks', () => {
		const token = 's3cret-refund-token-0123456789';
		const unsignedRefund = (query?: Record<string, string>): FakeRequest => ({
			headers: {},
			rawBody: Buffer.from(JSON.stringify(refundBody)),
			query,
		});

		it('accept an unsigned refund only with the right token', async () => {
			const ok = await callWebhook(
				newTriggerState(),
				{ ...params, refundToken: token },
				unsignedRefund({ token }),
			);
			expect(ok.started).toBe(true);
			expect(ok.result.workflowData![0][0].json).toMatchObject({
				event: 'refund.completed',
				verified: 'token',
				amount: 500,
				reason: 'customer request',
			});
			const wrong = await callWebhook(
				newTriggerState(),
				{ ...params, refundToken: token },
				unsignedRefund({ token: `${token}x` }),
			);
			expect(wrong.response).toEqual({
				status: 401,
				body: { received: false, error: 'missing-or-wrong-token' },
			});
			const missing = await callWebhook(
				newTriggerState(),
				{ ...params, refundToken: token },
				unsignedRefund(),
			);
			expect(missing.response.status).toBe(401);
			const noTokenConfigured = await callWebhook(
				newTriggerState(),
				params,
				unsignedRefund({ token: '' }),
			);
			expect(noTokenConfigured.response.status).toBe(401);
		});

		it('give a refund that failed later its failure code and next step', async () => {
			const failed = {
				...refundBody,
				status: 'FAILED',
				message: 'Refund failed: the provider rejected the reversal',
			};
			const call = await callWebhook(newTriggerState(), params, signed(failed));
			expect(call.result.workflowData![0][0].json).toMatchObject({
				event: 'refund.failed',
				failureCode: 'refund-rejected',
				retry: 'no',
				nextStep: expect.stringContaining('Nothing was refunded'),
			});
		});

		it('accept a validly signed refund and refuse a forged one', async () => {
			const ok = await callWebhook(newTriggerState(), params, signed(refundBody));
			expect(ok.result.workflowData![0][0].json).toMatchObject({
				event: 'refund.completed',
				verified: 'signature',
			});
			const forged = await callWebhook(
				newTriggerState(),
				params,
				signed(refundBody, { key: attacker.privateKey }),
			);
			expect(forged.response.status).toBe(401);
		});
	});

	describe('confirm with status API', () => {
		it('starts the workflow only when the gateway confirms the status', async () => {
			const state = newTriggerState({
				'LP-REF-1': {
					reference: 'LP-REF-1',
					status: 'COMPLETED',
					amount: 1500,
					key: 'order12345',
				},
			});
			const call = await callWebhook(
				state,
				{ ...params, confirmWithStatusApi: true },
				signed(paymentBody),
			);
			expect(call.started).toBe(true);
			expect(call.result.workflowData![0][0].json).toMatchObject({
				verified: 'signature',
				statusConfirmed: true,
			});
			expect(state.statusCalls).toEqual(['http://127.0.0.1:1/api/payments-v2/LP-REF-1']);
		});

		it("keeps a signed callback's own eventId (the one example 9's sweep computes), also when the record is read", async () => {
			const record = {
				reference: 'LP-REF-1',
				status: 'COMPLETED',
				amount: 1500,
				currency: 'KES',
				key: 'order12345',
			};
			const call = await callWebhook(
				newTriggerState({ 'LP-REF-1': record }),
				{ ...params, confirmWithStatusApi: true },
				signed(paymentBody),
			);
			const parsed = parseCallback(JSON.stringify(paymentBody));
			if ('error' in parsed) throw new Error(parsed.error);
			expect(call.result.workflowData![0][0].json).toMatchObject({
				eventId: callbackEventId(parsed),
				statusConfirmed: true,
			});
		});

		it('gives a failed payment the code of the reason in its status record; without the record, unknown', async () => {
			const failed = { ...paymentBody, status: 'FAILED' };
			const state = newTriggerState({
				'LP-REF-1': {
					reference: 'LP-REF-1',
					status: 'FAILED',
					amount: 1500,
					key: 'order12345',
					message: 'Insufficient funds',
				},
			});
			const confirmed = await callWebhook(
				state,
				{ ...params, confirmWithStatusApi: true },
				signed(failed),
			);
			expect(confirmed.result.workflowData![0][0].json).toMatchObject({
				event: 'payment.failed',
				failureCode: 'insufficient-funds',
				retry: 'new-attempt',
			});
			const alone = await callWebhook(newTriggerState(), params, signed(failed));
			expect(alone.result.workflowData![0][0].json).toMatchObject({
				event: 'payment.failed',
				failureCode: 'unknown',
				retry: 'check-first',
			});
		});

		/** The workflow did not start and the caller was answered 401 status-not-confirmed. */
		const expectNotConfirmed = (call: Awaited<ReturnType<typeof callWebhook>>) => {
			expect(call.started).toBe(false);
			expect(call.response).toEqual({
				status: 401,
				body: { received: false, error: 'status-not-confirmed' },
			});
		};

		// Payers retry: an attempt fails, the payer pays. Little Pay's record by reference then lists only the
		// latest (COMPLETED) attempt, so a failed attempt's callback handled after the payment (n8n busy, a
		// redelivery) was refused 401 and never started the workflow: a genuine callback lost (the pause e2e's
		// example 5, under load). The record by key lists every attempt.
		const retried = (attempts: string[]) => {
			const record = {
				reference: 'LP-REF-1',
				status: 'COMPLETED',
				amount: 1500,
				key: 'order12345',
				currency: 'KES',
			};
			const attempt = (status: string, i: number) => ({
				reference: `LP-ATT-${i}`,
				provider: 'MPESA',
				status,
			});
			return newTriggerState({
				'LP-REF-1': { ...record, attempts: [attempt('COMPLETED', attempts.length)] },
				order12345: { ...record, attempts: attempts.map(attempt) },
			});
		};

		it.each([
			[['FAILED', 'COMPLETED']],
			[['FAILED', 'FAILED', 'COMPLETED']],
			[['PENDING', 'FAILED', 'COMPLETED']],
		])(
			"confirms a failed attempt's callback handled after the payer paid, by the attempts its record by key lists (%j)",
			async (attempts) => {
				const state = retried(attempts);
				const call = await callWebhook(
					state,
					{ ...params, confirmWithStatusApi: true },
					signed({ ...paymentBody, status: 'FAILED' }),
				);
				expect(call.started).toBe(true);
				expect(call.result.workflowData![0][0].json).toMatchObject({
					event: 'payment.failed',
					status: 'FAILED',
					statusConfirmed: true,
				});
				expect(state.statusCalls).toEqual([
					'http://127.0.0.1:1/api/payments-v2/LP-REF-1',
					'http://127.0.0.1:1/api/payments-v2/order12345',
				]);
			},
		);

		it.each([[['COMPLETED']], [['PENDING', 'COMPLETED']]])(
			'refuses a FAILED callback when the record by key lists no failed attempt (%j)',
			async (attempts) => {
				const call = await callWebhook(
					retried(attempts),
					{ ...params, confirmWithStatusApi: true },
					signed({ ...paymentBody, status: 'FAILED' }),
				);
				expectNotConfirmed(call);
			},
		);

		// Attack: the record by key vouches for a failed attempt of this payment only, never for the body.
		it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
			['another amount', { amount: 99000 }, {}],
			['another provider', { provider: 'AIRTEL' }, { payment: { provider: 'MPESA' } }],
			["another payment's reference by key", {}, { reference: 'LP-REF-2' }],
			["another payment's key by key", {}, { key: 'order99999' }],
		])('refuses a FAILED callback after the payer paid that says %s', async (_, body, byKey) => {
			const state = retried(['FAILED', 'COMPLETED']);
			const records = state.statusRecords as Record<string, Record<string, unknown>>;
			records.order12345 = { ...records.order12345, ...byKey };
			records['LP-REF-1'] = { ...records['LP-REF-1'], ...(byKey.payment ? byKey : {}) };
			const call = await callWebhook(
				state,
				{ ...params, confirmWithStatusApi: true },
				signed({ ...paymentBody, status: 'FAILED', ...body }),
			);
			expectNotConfirmed(call);
		});

		it('refuses a COMPLETED callback the record by reference contradicts, whatever its attempts (no second read)', async () => {
			const state = newTriggerState({
				'LP-REF-1': {
					reference: 'LP-REF-1',
					status: 'FAILED',
					amount: 1500,
					key: 'order12345',
					attempts: [{ status: 'FAILED' }],
				},
				order12345: {
					reference: 'LP-REF-1',
					status: 'FAILED',
					amount: 1500,
					key: 'order12345',
					attempts: [{ status: 'COMPLETED' }, { status: 'FAILED' }],
				},
			});
			const call = await callWebhook(
				state,
				{ ...params, confirmWithStatusApi: true },
				signed(paymentBody),
			);
			expect(call.started).toBe(false);
			expect(state.statusCalls).toEqual(['http://127.0.0.1:1/api/payments-v2/LP-REF-1']);
		});

		it('refuses a callback whose status the gateway contradicts, even with verification off', async () => {
			const state = newTriggerState({
				'LP-REF-1': { reference: 'LP-REF-1', status: 'PENDING', amount: 1500 },
			});
			const unsigned: FakeRequest = {
				headers: {},
				rawBody: Buffer.from(JSON.stringify(paymentBody)),
			};
			const call = await callWebhook(
				state,
				{ verifySignatures: false, confirmWithStatusApi: true },
				unsigned,
			);
			expectNotConfirmed(call);
		});

		it('marks an unsigned callback the gateway confirms as status-check', async () => {
			const state = newTriggerState({
				'LP-REF-1': {
					reference: 'LP-REF-1',
					status: 'COMPLETED',
					amount: 1500,
					currency: 'KES',
					key: 'order12345',
					payment: { provider: 'MPESA' },
				},
			});
			const unsigned: FakeRequest = {
				headers: {},
				rawBody: Buffer.from(JSON.stringify(paymentBody)),
			};
			const call = await callWebhook(
				state,
				{ verifySignatures: false, confirmWithStatusApi: true },
				unsigned,
			);
			expect(call.result.workflowData![0][0].json.verified).toBe('status-check');
		});
	});
});

describe("The key a trigger without Options > Public Key checks with: its credential's gateway", () => {
	const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
	const otherPem = other.publicKey.export({ type: 'spki', format: 'pem' }).toString();
	let now = Date.now();
	beforeEach(() => {
		forgetFetchedKeys();
		now = Date.now();
		jest.spyOn(Date, 'now').mockImplementation(() => now);
	});
	afterEach(() => jest.restoreAllMocks());

	function onGateway(baseUrl: string, key: string | 'down' | undefined) {
		const state = newTriggerState();
		state.credential = { baseUrl };
		state.gatewayKeys = key === undefined ? {} : { [baseUrl]: key };
		return state;
	}

	it("accepts the gateway's signed callbacks, refuses forged ones, and asks for the key once", async () => {
		const state = onGateway('http://127.0.0.1:4010', publicKey);
		for (let i = 0; i < 3; i++) {
			const call = await callWebhook(
				state,
				signatureLayer,
				signed({ ...paymentBody, reference: `LP-G-${i}` }),
			);
			expect(call.started).toBe(true);
		}
		const forged = await callWebhook(
			state,
			signatureLayer,
			signed(paymentBody, { key: attacker.privateKey }),
		);
		expect(forged.started).toBe(false);
		expect(forged.response).toMatchObject({
			status: 401,
			body: { received: false, error: 'bad-signature' },
		});
		// A forged call within 10 s of the fetch does not make the trigger ask the gateway again.
		expect(state.keyFetches).toEqual(['http://127.0.0.1:4010/sandbox/public-key']);
	});

	it('asks the gateway for its key once when a burst of first callbacks arrives together', async () => {
		const state = onGateway('http://127.0.0.1:4012', publicKey);
		const calls = await Promise.all(
			Array.from(
				{ length: 5 },
				async (_, i) =>
					await callWebhook(
						state,
						signatureLayer,
						signed({ ...paymentBody, reference: `LP-B-${i}` }),
					),
			),
		);
		expect(calls.map((call) => call.started)).toEqual([true, true, true, true, true]);
		expect(state.keyFetches).toEqual(['http://127.0.0.1:4012/sandbox/public-key']);
	});

	it("never asks Little Pay's live host: its callbacks verify against the published key", async () => {
		const state = onGateway('https://pay.little.africa/', publicKey);
		const call = await callWebhook(state, signatureLayer, signed(paymentBody));
		expect(call.response).toMatchObject({ status: 401, body: { error: 'bad-signature' } });
		expect(state.keyFetches).toEqual([]);
	});

	it('Options > Public Key wins over the gateway, and the gateway is then not asked', async () => {
		const state = onGateway('http://127.0.0.1:4011', otherPem);
		const call = await callWebhook(state, params, signed(paymentBody));
		expect(call.started).toBe(true);
		expect(state.keyFetches).toEqual([]);
	});

	it('a gateway started again with a new key: the first callback it signs makes the trigger fetch the new key', async () => {
		const baseUrl = 'http://127.0.0.1:4012';
		const state = onGateway(baseUrl, otherPem);
		expect(
			(await callWebhook(state, signatureLayer, signed(paymentBody, { key: other.privateKey })))
				.started,
		).toBe(true);
		state.gatewayKeys = { [baseUrl]: publicKey };
		now += 11_000;
		const call = await callWebhook(
			state,
			signatureLayer,
			signed({ ...paymentBody, reference: 'LP-NEW' }),
		);
		expect(call.started).toBe(true);
		expect(state.keyFetches).toHaveLength(2);
		// The old key is gone: what it signs is refused now.
		now += 11_000;
		const old = await callWebhook(
			state,
			{},
			signed({ ...paymentBody, reference: 'LP-OLD' }, { key: other.privateKey }),
		);
		expect(old.response).toMatchObject({ status: 401, body: { error: 'bad-signature' } });
	});

	it('a gateway that cannot be reached: 503 with Retry-After, nothing starts, and it runs once the key is back', async () => {
		const baseUrl = 'http://127.0.0.1:4013';
		const state = onGateway(baseUrl, 'down');
		const call = await callWebhook(state, signatureLayer, signed(paymentBody));
		expect(call.started).toBe(false);
		expect(call.response).toEqual({
			status: 503,
			body: { received: false, error: 'public-key-unavailable' },
			headers: { 'retry-after': '30' },
		});
		state.gatewayKeys = { [baseUrl]: publicKey };
		expect((await callWebhook(state, signatureLayer, signed(paymentBody))).started).toBe(true);
	});

	it("a gateway that publishes no key is taken to sign with Little Pay's", async () => {
		const state = onGateway('http://127.0.0.1:4014', undefined);
		const call = await callWebhook(state, signatureLayer, signed(paymentBody));
		expect(call.response).toMatchObject({ status: 401, body: { error: 'bad-signature' } });
		expect(state.keyFetches).toHaveLength(1);
	});
});

describe('A refused callback while someone tests (Execute step)', () => {
	it('ends the test run with the reason and the fix; published, the same call starts nothing', async () => {
		const testing = newTriggerState();
		testing.mode = 'manual';
		const call = await callWebhook(
			testing,
			params,
			signed(paymentBody, { key: attacker.privateKey }),
		);
		expect(call.response).toMatchObject({ status: 401, body: { error: 'bad-signature' } });
		expect(call.started).toBe(true);
		expect(testing.executed?.error?.message).toBe(
			'Refused a callback (bad-signature): the caller was answered 401 and nothing after this trigger ran',
		);
		const unsigned = await callWebhook(testing, params, {
			headers: {},
			rawBody: Buffer.from(JSON.stringify(paymentBody)),
		});
		expect(unsigned.result.workflowData![0][0].json).toMatchObject({
			refused: true,
			reason: 'missing-signature',
		});

		const published = newTriggerState();
		const live = await callWebhook(
			published,
			params,
			signed(paymentBody, { key: attacker.privateKey }),
		);
		expect(live.started).toBe(false);
		expect(published.executed).toBeUndefined();
	});

	it('goes to the Refused output instead when Output Refused Callbacks is on', async () => {
		const testing = newTriggerState();
		testing.mode = 'manual';
		const call = await callWebhook(
			testing,
			{ ...params, refusedOutput: true },
			signed(paymentBody, { key: attacker.privateKey }),
		);
		expect(call.started).toBe(true);
		expect(testing.executed?.error).toBeUndefined();
		const outputs = testing.executed?.outputs as Array<Array<{ json: Record<string, unknown> }>>;
		expect(outputs[0]).toEqual([]);
		expect(outputs[1][0].json).toMatchObject({ refused: true, reason: 'bad-signature' });
	});
});

describe("a test event says when the trigger's Production URL is on this machine (issue 51 point 6)", () => {
	it('hints it in the test run, and keeps the item clean', async () => {
		const state = newTriggerState();
		state.mode = 'manual';
		state.productionUrl = 'http://localhost:5678/webhook/abc/littlepay';
		await callWebhook(state, params, signed(paymentBody));
		expect(state.hints).toEqual([
			expect.stringMatching(
				/^This trigger's Production URL \(http:\/\/localhost:5678\) is on this machine or a private network: the sandbox beside n8n can call it, Little Pay cannot\. Going live: set n8n's WEBHOOK_URL/,
			),
		]);
		const outputs = state.executed?.outputs as Array<Array<Record<string, unknown>>>;
		expect(Object.keys(outputs[0][0])).toEqual(['json']);
	});

	it('says nothing for a public Production URL, nor in a published run', async () => {
		const publicUrl = newTriggerState();
		publicUrl.mode = 'manual';
		publicUrl.productionUrl = 'https://n8n.example.com/webhook/abc/littlepay';
		await callWebhook(publicUrl, params, signed(paymentBody));
		expect(publicUrl.hints ?? []).toEqual([]);
		const published = newTriggerState();
		published.productionUrl = 'http://localhost:5678/webhook/abc/littlepay';
		await callWebhook(published, params, signed(paymentBody));
		expect(published.hints ?? []).toEqual([]);
	});
});

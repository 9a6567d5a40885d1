// Key rotation with overlap (issue 45, point 3): during a rotation the trigger accepts callbacks signed
// with the previous key until the date the merchant set, says which key verified each one, refuses the old
// key after the date, and its refusal alert names the expired previous key as the cause.
import { generateKeyPairSync, sign } from 'node:crypto';

import { forgetFetchedKeys } from '../../nodes/LittlePay/callbacks/publicKey';
import { callWebhook, newTriggerState } from '../../testkit/webhookContext';
import type { FakeRequest } from '../../testkit/webhookContext';

const oldKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const newKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 });
const pem = (keys: typeof oldKeys) =>
	keys.publicKey.export({ type: 'spki', format: 'pem' }).toString();

let seq = 0;
function signedBy(keys: typeof oldKeys): FakeRequest {
	const raw = JSON.stringify({
		reference: `LP-ROT-${++seq}`,
		status: 'COMPLETED',
		payload: { billingAddress: { email: 'amina@example.com' } },
		amount: 1500,
		key: `order${seq}`,
		currency: 'KES',
		provider: 'MPESA',
		date: new Date(Date.now()).toISOString(),
	});
	const timestamp = String(Math.floor(Date.now() / 1000));
	const signature = sign('sha256', Buffer.from(`${timestamp}.${raw}`), keys.privateKey);
	return {
		headers: {
			'x-littlepay-timestamp': timestamp,
			'x-littlepay-signature': signature.toString('base64'),
		},
		rawBody: Buffer.from(raw),
	};
}

const realNow = Date.now();
const until = new Date(realNow + 3600_000).toISOString();
let now = realNow;

beforeEach(() => {
	forgetFetchedKeys();
	now = realNow;
	jest.spyOn(Date, 'now').mockImplementation(() => now);
});
afterEach(() => jest.restoreAllMocks());

const rotating = (extra: Record<string, unknown> = {}) => ({
	// The signature layer alone: the account confirmation (on by default) has its own tests.
	confirmWithStatusApi: false,
	options: {
		publicKey: pem(newKeys),
		previousPublicKey: pem(oldKeys),
		previousKeyUntil: until,
		...extra,
	},
});

describe('a trigger during a key rotation', () => {
	it('before the date: refuses no callback signed by either key, and says which key verified each', async () => {
		const state = newTriggerState();
		const byNew = await callWebhook(state, rotating(), signedBy(newKeys));
		const byOld = await callWebhook(state, rotating(), signedBy(oldKeys));
		expect([byNew.started, byOld.started]).toEqual([true, true]);
		expect(byNew.result.workflowData?.[0][0].json).toMatchObject({
			verified: 'signature',
			verifiedKey: 'pasted',
		});
		expect(byOld.result.workflowData?.[0][0].json).toMatchObject({
			verified: 'signature',
			verifiedKey: 'previous',
		});
		// Up to the last second of the overlap.
		now = Date.parse(until);
		expect((await callWebhook(state, rotating(), signedBy(oldKeys))).started).toBe(true);
	});

	it('after the date: the old key is refused (401, previous-key-expired), the new key still runs', async () => {
		const state = newTriggerState();
		now = Date.parse(until) + 1000;
		const byOld = await callWebhook(state, rotating(), signedBy(oldKeys));
		expect(byOld.started).toBe(false);
		expect(byOld.response).toMatchObject({
			status: 401,
			body: { received: false, error: 'previous-key-expired' },
		});
		expect((await callWebhook(state, rotating(), signedBy(newKeys))).started).toBe(true);
		// A stranger's signature is still a bad signature, not an expired key.
		const forged = await callWebhook(state, rotating(), signedBy(stranger));
		expect(forged.response).toMatchObject({ status: 401, body: { error: 'bad-signature' } });
	});

	it('a previous key without a date is accepted nowhere', async () => {
		const state = newTriggerState();
		const call = await callWebhook(state, rotating({ previousKeyUntil: '' }), signedBy(oldKeys));
		expect(call.response).toMatchObject({ status: 401, body: { error: 'previous-key-expired' } });
	});

	it('the refusal alert names the expired previous key as the cause and says what to do', async () => {
		const state = newTriggerState();
		now = Date.parse(until) + 1000;
		const call = await callWebhook(
			state,
			{ ...rotating(), refusedOutput: true },
			signedBy(oldKeys),
		);
		const alert = call.result.workflowData?.[0][0].json;
		expect(alert).toMatchObject({ refused: true, reason: 'previous-key-expired', answered: 401 });
		expect(alert?.likelyCause).toContain('Previous Public Key');
		expect(alert?.likelyCause).toContain('Accept Previous Key Until has passed');
		expect(alert?.fix).toContain('set Accept Previous Key Until later');
	});

	it("with the credential's gateway as the current key: the sandbox's key and the previous one both verify", async () => {
		const state = newTriggerState();
		state.credential = { baseUrl: 'http://127.0.0.1:4010' };
		state.gatewayKeys = { 'http://127.0.0.1:4010': pem(newKeys) };
		const options = {
			confirmWithStatusApi: false,
			options: { previousPublicKey: pem(oldKeys), previousKeyUntil: until },
		};
		const byGateway = await callWebhook(state, options, signedBy(newKeys));
		const byOld = await callWebhook(state, options, signedBy(oldKeys));
		expect(byGateway.result.workflowData?.[0][0].json).toMatchObject({
			verifiedKey: 'gateway',
			gateway: 'sandbox',
		});
		expect(byOld.result.workflowData?.[0][0].json).toMatchObject({ verifiedKey: 'previous' });
	});
});

describe("Accept Previous Key Until, read in the workflow's time zone (payday red team #21)", () => {
	// 2026-12-01T00:00 in Nairobi (UTC+3) is 2026-11-30T21:00Z.
	const nairobiMidnight = Date.parse('2026-11-30T21:00:00.000Z');

	it("refuses the previous key after midnight in Nairobi for a workflow in Nairobi, whatever the process's zone", async () => {
		const state = newTriggerState();
		state.timezone = 'Africa/Nairobi';
		const options = rotating({ previousKeyUntil: '2026-12-01T00:00:00' });
		now = nairobiMidnight + 3600_000;
		const after = await callWebhook(state, options, signedBy(oldKeys));
		expect(after.response).toMatchObject({
			status: 401,
			body: { error: 'previous-key-expired' },
		});
		now = nairobiMidnight - 60_000;
		const before = await callWebhook(state, options, signedBy(oldKeys));
		expect(before.result.workflowData?.[0][0].json).toMatchObject({ verifiedKey: 'previous' });
	});

	it('takes a date with an offset or Z as written, and a date alone as midnight in the zone', async () => {
		const state = newTriggerState();
		state.timezone = 'America/New_York';
		now = Date.parse('2026-12-01T04:30:00.000Z');
		const withOffset = await callWebhook(
			state,
			rotating({ previousKeyUntil: '2026-12-01T00:00:00+03:00' }),
			signedBy(oldKeys),
		);
		expect(withOffset.response).toMatchObject({ body: { error: 'previous-key-expired' } });
		// Midnight in New York is 05:00Z: still accepted at 04:30Z.
		const dateOnly = await callWebhook(
			state,
			rotating({ previousKeyUntil: '2026-12-01' }),
			signedBy(oldKeys),
		);
		expect(dateOnly.result.workflowData?.[0][0].json).toMatchObject({ verifiedKey: 'previous' });
	});

	it.each(['01/12/2026', '12/01/2026 00:00', 'December 1, 2026', '2026-02-30T00:00:00', 'soon'])(
		'refuses the previous key for %s, with a reason that says the date cannot be read',
		async (written) => {
			const state = newTriggerState();
			now = Date.parse('2025-06-01T00:00:00.000Z');
			const call = await callWebhook(
				state,
				{ ...rotating({ previousKeyUntil: written }), refusedOutput: true },
				signedBy(oldKeys),
			);
			expect(call.response).toMatchObject({
				status: 401,
				body: { error: 'previous-key-until-unreadable' },
			});
			const alert = call.result.workflowData?.[0][0].json;
			expect(alert?.likelyCause).toContain('01/12/2026 is 1 December in Nairobi');
			expect(alert?.fix).toContain('2026-12-01T00:00');
			// The current key still verifies: only the previous key is refused.
			const current = await callWebhook(
				state,
				rotating({ previousKeyUntil: written }),
				signedBy(newKeys),
			);
			expect(current.started).toBe(true);
		},
	);
});

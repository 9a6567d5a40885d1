// Alerts on refused callbacks, alone: one per trigger and reason per window, counting the refusals
// in between and listing their references (bounded), with the likely cause and nothing of the stranger's
// body but a reference-shaped value; refusals held after an alert reach the operator with a later call.
import { generateKeyPairSync, sign } from 'node:crypto';
import type { IExecuteFunctions } from 'n8n-workflow';

import {
	ALERT_REFERENCES_LIMIT,
	alertDue,
	heldAlerts,
} from '../../nodes/LittlePay/callbacks/alerts';
import { ALERT_WINDOW_MS, refusedAlert } from '../../nodes/LittlePay/callbacks/alertWords';
import { LittlePayTrigger } from '../../nodes/LittlePay/LittlePayTrigger.node';

import { callWebhook, newTriggerState } from '../../testkit/webhookContext';
import type { FakeRequest } from '../../testkit/webhookContext';

describe('alertDue', () => {
	it('raises the first refusal of a reason, holds the rest of its window, and counts them into the next alert', () => {
		const t0 = 1_800_000_000_000;
		expect(alertDue('wf:a', 'bad-signature', t0)).toEqual({
			refused: 1,
			since: t0,
			references: [],
			referencesNotListed: 1,
		});
		for (let i = 1; i <= 499; i++)
			expect(alertDue('wf:a', 'bad-signature', t0 + i)).toBeUndefined();
		// Another reason, or another trigger, has its own window.
		expect(alertDue('wf:a', 'missing-signature', t0 + 10)).toEqual({
			refused: 1,
			since: t0 + 10,
			references: [],
			referencesNotListed: 1,
		});
		expect(alertDue('wf:b', 'bad-signature', t0 + 10)).toEqual({
			refused: 1,
			since: t0 + 10,
			references: [],
			referencesNotListed: 1,
		});
		const next = t0 + ALERT_WINDOW_MS;
		expect(alertDue('wf:a', 'bad-signature', next)).toEqual({
			refused: 500,
			since: t0,
			references: [],
			referencesNotListed: 500,
		});
	});
});

describe('refusedAlert', () => {
	it('names the cause and the fix, marks the reference unverified, and keeps nothing else of the body', () => {
		const alert = refusedAlert(
			'bad-signature',
			{ refused: 3, since: 0, references: ['abc-123'], referencesNotListed: 2 },
			1000,
			{
				reference: 'abc-123',
				status: 'COMPLETED',
				payload: { billingAddress: { email: 'x@y.z' } },
			},
			'rotated',
		);
		expect(alert).toMatchObject({
			refused: true,
			reason: 'bad-signature',
			likelyCause: expect.stringMatching(/public key looks rotated or wrong/),
			fix: expect.stringMatching(/Options > Public Key/),
			refusedSinceLastAlert: 3,
			unverified: { reference: 'abc-123', status: 'COMPLETED' },
		});
		expect(JSON.stringify(alert)).not.toContain('x@y.z');
		const junk = refusedAlert(
			'missing-signature',
			{ refused: 1, since: 0, references: [], referencesNotListed: 1 },
			0,
			{
				reference: '<script>alert(1)</script>',
			},
		);
		expect(junk.unverified).toEqual({ reference: null, status: null });
		expect(junk.likelyCause).toMatch(/unsigned/i);
	});
});

describe('the references an alert lists', () => {
	it('lists every reference refused since the last alert once, in order, including those held in the window', () => {
		const t0 = 1_810_000_000_000;
		expect(alertDue('wf:refs', 'bad-signature', t0, 'ref-A')).toEqual({
			refused: 1,
			since: t0,
			references: ['ref-A'],
			referencesNotListed: 0,
		});
		// Little Pay delivers again (the sandbox: 1 s, 5 s and 30 s later) and another payment is refused.
		for (const [offset, reference] of [
			[1000, 'ref-A'],
			[2000, 'ref-B'],
			[3000, 'ref-B'],
			[4000, '<img src=x>'],
			[5000, undefined],
			[6000, 'ref-C'],
		] as const)
			expect(alertDue('wf:refs', 'bad-signature', t0 + offset, reference)).toBeUndefined();
		expect(alertDue('wf:refs', 'bad-signature', t0 + ALERT_WINDOW_MS, 'ref-D')).toEqual({
			refused: 7,
			since: t0,
			references: ['ref-A', 'ref-B', 'ref-C', 'ref-D'],
			referencesNotListed: 2,
		});
	});

	it('keeps at most the first 50 references of a flood and counts the rest', () => {
		const t0 = 1_820_000_000_000;
		alertDue('wf:flood', 'bad-signature', t0, 'first');
		for (let i = 0; i < 10_000; i++)
			alertDue('wf:flood', 'bad-signature', t0 + 1 + (i % 1000), `forged-${i}`);
		const next = alertDue('wf:flood', 'bad-signature', t0 + ALERT_WINDOW_MS, 'last');
		expect(ALERT_REFERENCES_LIMIT).toBe(50);
		expect(next?.refused).toBe(10_001);
		expect(next?.references).toHaveLength(50);
		expect(next?.references.slice(0, 2)).toEqual(['forged-0', 'forged-1']);
		expect(next?.references[49]).toBe('forged-49');
		expect(next?.referencesNotListed).toBe(10_001 - 50);
		const alert = refusedAlert('bad-signature', next!, t0 + ALERT_WINDOW_MS, {
			reference: 'last',
		});
		expect(alert).toMatchObject({
			refusedSinceLastAlert: 10_001,
			refusedReferencesNotListed: 9_951,
			nextAlertAfter: new Date(t0 + 2 * ALERT_WINDOW_MS).toISOString(),
		});
		expect(alert.refusedReferences).toHaveLength(50);
	});

	it('raises the refusals held since an alert at the first call after the window, once', () => {
		const t0 = 1_830_000_000_000;
		alertDue('wf:held', 'bad-signature', t0, 'ref-1');
		alertDue('wf:held', 'bad-signature', t0 + 1000, 'ref-2');
		alertDue('wf:held', 'stale-timestamp', t0 + 2000, 'ref-3');
		alertDue('wf:other', 'bad-signature', t0, 'ref-9');
		alertDue('wf:other', 'bad-signature', t0 + 1000, 'ref-10');
		// Within the window nothing more may be raised; a reason with no refusal held raises nothing.
		expect(heldAlerts('wf:held', t0 + ALERT_WINDOW_MS - 1)).toEqual([]);
		const held = heldAlerts('wf:held', t0 + ALERT_WINDOW_MS);
		expect(held).toEqual([
			expect.objectContaining({
				refused: true,
				reason: 'bad-signature',
				refusedSinceLastAlert: 1,
				refusedReferences: ['ref-2'],
				refusedReferencesNotListed: 0,
				unverified: { reference: null, status: null },
			}),
		]);
		expect(heldAlerts('wf:held', t0 + ALERT_WINDOW_MS + 1)).toEqual([]);
		// A raise starts a new window: the next refusal waits for it, as after any alert.
		expect(alertDue('wf:held', 'bad-signature', t0 + ALERT_WINDOW_MS + 2, 'ref-4')).toBeUndefined();
	});
});

describe('the trigger with Output Refused Callbacks on', () => {
	const gateway = generateKeyPairSync('rsa', { modulusLength: 2048 });
	const rotated = generateKeyPairSync('rsa', { modulusLength: 2048 });
	const params = {
		refusedOutput: true,
		confirmWithStatusApi: false,
		options: { publicKey: gateway.publicKey.export({ type: 'spki', format: 'pem' }).toString() },
	};
	function callback(reference: string, key = gateway.privateKey): FakeRequest {
		const raw = JSON.stringify({ reference, status: 'COMPLETED', amount: 700, key: reference });
		const timestamp = String(Math.floor(Date.now() / 1000));
		return {
			headers: {
				'x-littlepay-timestamp': timestamp,
				'x-littlepay-signature': sign('sha256', Buffer.from(`${timestamp}.${raw}`), key).toString(
					'base64',
				),
			},
			rawBody: Buffer.from(raw),
		};
	}
	afterEach(() => jest.restoreAllMocks());

	it('sends the references refused after an alert out on the Refused output with the first accepted callback after the window', async () => {
		const state = newTriggerState();
		const t0 = Date.now();
		const at = (ms: number) => jest.spyOn(Date, 'now').mockReturnValue(t0 + ms);
		at(0);
		const first = await callWebhook(state, params, callback('pay-1', rotated.privateKey));
		expect(first.response.status).toBe(401);
		expect(first.result.workflowData?.[0][0].json).toMatchObject({
			reason: 'bad-signature',
			refusedReferences: ['pay-1'],
		});
		at(1000);
		const second = await callWebhook(state, params, callback('pay-2', rotated.privateKey));
		expect(second.response.status).toBe(401);
		expect(second.started).toBe(false);
		// The key is fixed within the window: a callback is accepted, and the held one waits for the window.
		at(60_000);
		const early = await callWebhook(state, params, callback('pay-3'));
		expect(early.result.workflowData?.[0].map((i) => i.json.refused ?? false)).toEqual([false]);
		at(ALERT_WINDOW_MS + 1000);
		const later = new LittlePayTrigger();
		const accepted = await callWebhook(state, params, callback('pay-4'), 2, later, 'later');
		const items = accepted.result.workflowData![0];
		expect(items.map((i) => i.json.reference ?? i.json.refusedReferences)).toEqual([
			'pay-4',
			['pay-2'],
		]);
		// The execution sends the callback on Accepted and the alert on Refused.
		const outputs = await later.execute.call({
			getInputData: () => items,
			getWorkflowStaticData: () => state.staticData,
			getWorkflow: () => ({ id: state.workflowId, active: true }),
			getNode: () => ({ id: 'trigger-node', name: 'Little Pay Trigger', typeVersion: 2 }),
			getNodeParameter: (name: string, _index: number, fallback: unknown) =>
				name in params ? params[name as keyof typeof params] : fallback,
		} as unknown as IExecuteFunctions);
		expect(outputs.map((output) => output.map((i) => i.json.refused === true))).toEqual([
			[false],
			[true],
		]);
		await accepted.finishRecording(true);
	});
});

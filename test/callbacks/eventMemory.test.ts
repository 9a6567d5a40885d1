// The duplicate memory across n8n processes, modelled as n8n runs a webhook call: static data is loaded
// from the database before the call and the whole blob is saved after it (no lock, the last save wins).
// Each "process" is a separate copy of the trigger module, so each has its own process memory.
import { generateKeyPairSync, sign } from 'node:crypto';
import { ObservableObject } from 'n8n-workflow';
import type { IDataObject } from 'n8n-workflow';

import type { LittlePayTrigger } from '../../nodes/LittlePay/LittlePayTrigger.node';
import { EVENT_MEMORY_LIMIT, recordAccepted } from '../../nodes/LittlePay/callbacks/eventMemory';
import { callWebhook } from '../../testkit/webhookContext';
import type { FakeRequest, WebhookCall } from '../../testkit/webhookContext';

const gateway = generateKeyPairSync('rsa', { modulusLength: 2048 });
const publicKey = gateway.publicKey.export({ type: 'spki', format: 'pem' }).toString();
// The signature layer alone: the account confirmation (on by default) has its own tests.
const params = { options: { publicKey }, confirmWithStatusApi: false };

function signedPayment(reference: string): FakeRequest {
	const raw = JSON.stringify({
		reference,
		status: 'COMPLETED',
		amount: 1500,
		key: 'order12345',
		currency: 'KES',
		provider: 'MPESA',
		date: '2026-11-22T10:00:00.000Z',
	});
	const timestamp = String(Math.floor(Date.now() / 1000));
	const signature = sign('sha256', Buffer.from(`${timestamp}.${raw}`), gateway.privateKey);
	return {
		headers: {
			'x-littlepay-timestamp': timestamp,
			'x-littlepay-signature': signature.toString('base64'),
		},
		rawBody: Buffer.from(raw),
	};
}

/** A fresh copy of the trigger module: what a new or another n8n process loads. */
function newProcess(): LittlePayTrigger {
	let trigger: LittlePayTrigger | undefined;
	jest.isolateModules(() => {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const module = require('../../nodes/LittlePay/LittlePayTrigger.node') as {
			LittlePayTrigger: new () => LittlePayTrigger;
		};
		trigger = new module.LittlePayTrigger();
	});
	return trigger!;
}

/** The workflow row: its static data as saved in the database. */
interface Database {
	workflowId: string;
	staticData: IDataObject;
}

/** One webhook call as n8n makes it: load the blob, run webhook(), save the blob if the node changed it. */
async function n8nCall(
	db: Database,
	process: LittlePayTrigger,
	request: FakeRequest,
	saveAfter?: Promise<void>,
): Promise<WebhookCall> {
	const loaded = structuredClone(db.staticData);
	const before = JSON.stringify(loaded);
	const call = await callWebhook(
		{ staticData: loaded, workflowId: db.workflowId, statusCalls: [] },
		params,
		request,
		2,
		process,
	);
	await saveAfter;
	if (JSON.stringify(loaded) !== before) db.staticData = loaded;
	return call;
}

function newDatabase(): Database {
	return { workflowId: `wf-${Math.random().toString(36).slice(2)}`, staticData: {} };
}

describe('duplicate memory across n8n processes and restarts', () => {
	it('a redelivery to another process, or after a restart, starts nothing', async () => {
		const db = newDatabase();
		const a = newProcess();
		expect((await n8nCall(db, a, signedPayment('R1'))).started).toBe(true);
		expect((await n8nCall(db, newProcess(), signedPayment('R1'))).started).toBe(false);
		expect((await n8nCall(db, a, signedPayment('R2'))).started).toBe(true);
	});

	it('an id lost to another process saving at the same moment comes back with that process next write', async () => {
		const db = newDatabase();
		const a = newProcess();
		const b = newProcess();
		// A and B load the same blob; A accepts R1 and saves, then B's save of R2 overwrites it.
		let releaseB!: () => void;
		const bSaves = new Promise<void>((r) => (releaseB = r));
		const bCall = n8nCall(db, b, signedPayment('R2'), bSaves);
		await n8nCall(db, a, signedPayment('R1'));
		releaseB();
		await bCall;
		// R1 was lost from the database: a redelivery of R1 to B would run again (the limit measured in
		// bench queueCallbacks) ...
		const afterRace = Object.keys(db.staticData.acceptedEvents as object);
		expect(afterRace).toHaveLength(1);
		// ... until A accepts its next event: A's write carries R1 again.
		expect((await n8nCall(db, a, signedPayment('R3'))).started).toBe(true);
		expect(Object.keys(db.staticData.acceptedEvents as object)).toHaveLength(3);
		expect((await n8nCall(db, b, signedPayment('R1'))).started).toBe(false);
		expect((await n8nCall(db, newProcess(), signedPayment('R2'))).started).toBe(false);
	});

	it('keeps the newest ids when merging a process memory with the stored ones', () => {
		const staticData: IDataObject = { acceptedEvents: {} };
		const stored = staticData.acceptedEvents as Record<string, number>;
		for (let i = 0; i < EVENT_MEMORY_LIMIT; i++) stored[`old${i}`] = 1000 + i;
		recordAccepted(`merge-${Math.random()}`, staticData, 'new', 5000);
		const kept = staticData.acceptedEvents as Record<string, number>;
		expect(Object.keys(kept)).toHaveLength(EVENT_MEMORY_LIMIT);
		expect(kept.new).toBe(5000);
		expect(kept.old0).toBeUndefined();
		expect(kept.old1).toBe(1001);
	});

	it('keeps the newest when many ids come back at once, and drops malformed entries', () => {
		const triggerId = `many-${Math.random()}`;
		for (let i = 0; i < 20; i++) recordAccepted(triggerId, {}, `p${i}`, 5000 + i);
		const stored: Record<string, unknown> = { bad: 'x' };
		for (let i = 0; i < EVENT_MEMORY_LIMIT; i++) stored[`old${i}`] = 1000 + i;
		const staticData: IDataObject = { acceptedEvents: stored as IDataObject };
		recordAccepted(triggerId, staticData, 'new', 6000);
		const kept = staticData.acceptedEvents as Record<string, number>;
		expect(Object.keys(kept)).toHaveLength(EVENT_MEMORY_LIMIT);
		expect(kept.bad).toBeUndefined();
		expect(kept.old20).toBeUndefined();
		expect(kept.old21).toBe(1021);
		expect([kept.p0, kept.p19, kept.new]).toEqual([5000, 5019, 6000]);
	});

	it("changes the loaded static data in place, through n8n's proxy, so n8n saves it", () => {
		// As n8n loads a workflow's static data for an execution: wrapped to track changes.
		const root = ObservableObject.create(
			{ 'node:Little Pay Trigger': { acceptedEvents: { earlier: 1000 } } },
			undefined,
			{ ignoreEmptyOnFirstChild: true },
		) as IDataObject;
		const node = root['node:Little Pay Trigger'] as IDataObject;
		expect(root.__dataChanged).toBe(false);
		recordAccepted(`proxy-${Math.random()}`, node, 'new', 2000);
		expect(root.__dataChanged).toBe(true);
		expect(JSON.parse(JSON.stringify(root))).toEqual({
			'node:Little Pay Trigger': { acceptedEvents: { earlier: 1000, new: 2000 } },
		});
	});

	it('gives two deliveries of the same event the same eventId, and different events different ones', async () => {
		const ids = await Promise.all(
			['R1', 'R1', 'R2'].map(async (reference) => {
				const call = await n8nCall(newDatabase(), newProcess(), signedPayment(reference));
				return call.result.workflowData![0][0].json.eventId;
			}),
		);
		expect(ids[0]).toBe(ids[1]);
		expect(ids[0]).not.toBe(ids[2]);
	});
});

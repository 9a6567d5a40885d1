// The three families of issue 56 on the callback side, generated rather than listed:
// 1. a callback signed with Little Pay's one key for another merchant's payment (the sandbox has two
//    merchants; the trigger holds merchant A's API key credential and the node's defaults);
// 2. a status answer that does not prove what it must (every required field removed or mangled);
// 3. references that cannot name one payment (dot segments, paths, encodings).
// Each must leave the workflow unstarted; the genuine callback beside them must start it.
import { generateKeyPairSync } from 'node:crypto';

import type { IDataObject } from 'n8n-workflow';

import { startSandbox } from '../../sandbox';
import type { SandboxHandle } from '../../sandbox';
import { createSandboxIntent, paidSandboxIntent } from '../../testkit/n8nRuns';
import {
	callWebhook,
	callHookMethod,
	newTriggerState,
	signedCallback,
} from '../../testkit/webhookContext';
import type { FakeRequest, TriggerState } from '../../testkit/webhookContext';
import { validateRecordId } from '../../nodes/LittlePay/helpers/validation';
import { recordSegment } from '../../nodes/LittlePay/transport';

// Little Pay's one signing key (here a test pair): it signs every merchant's callbacks.
const littlePay = generateKeyPairSync('rsa', { modulusLength: 2048 });
const publicKey = littlePay.publicKey.export({ type: 'spki', format: 'pem' }).toString();
/** The trigger as a merchant leaves it: only the key it verifies with is set; everything else is the default. */
const defaults = { options: { publicKey } };

const signed = (body: object): FakeRequest => signedCallback(body, littlePay.privateKey);

const tag = Date.now().toString(36).slice(-6);

describe("a Little Pay-signed callback for another merchant's payment (sandbox with two merchants)", () => {
	let sandbox: SandboxHandle;
	/** Merchant A's unpaid order, and A's own paid payment. */
	let victimOrder: string;
	let victimKey: string;
	let ownPaid: string;
	let ownKey: string;
	/** Merchant B's payment, made with A's order key and KES 10. */
	let strangerPaid: string;

	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0, pinDelayMs: 50, quiet: true });
		const stranger = sandbox.merchant.otherMerchants[0];
		victimKey = `ORDER${tag}`;
		victimOrder = await createSandboxIntent(sandbox, {
			amount: 1500,
			description: 'Victim order',
			key: victimKey,
		});
		ownKey = `OWN${tag}`;
		ownPaid = await paidSandboxIntent(sandbox, { amount: 700, description: 'Own', key: ownKey });
		strangerPaid = await paidSandboxIntent(
			sandbox,
			{ amount: 10, description: 'Stranger', key: victimKey },
			stranger,
		);
	});
	afterAll(async () => await sandbox.close());

	/** A trigger holding merchant A's API key credential. */
	function merchantA(): TriggerState {
		const state = newTriggerState();
		state.credential = { baseUrl: sandbox.baseUrl, apiKey: sandbox.merchant.apiKey };
		return state;
	}

	const body = (change: IDataObject): IDataObject => ({
		reference: strangerPaid,
		status: 'COMPLETED',
		amount: 10,
		key: victimKey,
		currency: 'KES',
		provider: 'MPESA',
		date: new Date().toISOString(),
		...change,
	});

	it("refuses the stranger's paid KES 10 under the victim's order key, with the node's defaults", async () => {
		const call = await callWebhook(merchantA(), defaults, signed(body({})));
		expect(call.started).toBe(false);
		expect(call.response).toMatchObject({ status: 401, body: { error: 'status-not-confirmed' } });
	});

	it("with Confirm With Status API turned off the same callback runs: the panel's notice says so", async () => {
		const call = await callWebhook(
			merchantA(),
			{ ...defaults, confirmWithStatusApi: false },
			signed(body({})),
		);
		expect(call.started).toBe(true);
		expect(call.result.workflowData![0][0].json).toMatchObject({ key: victimKey, amount: 10 });
	});

	it('refuses every generated variation of a stranger-made callback; runs the merchant own one', async () => {
		const references = [
			strangerPaid,
			victimOrder,
			victimKey,
			strangerPaid.toUpperCase(),
			victimOrder.toUpperCase(),
		];
		const statuses = ['COMPLETED', 'FAILED', 'completed'];
		const amounts: Array<number | string | undefined> = [10, 1500, '10', '1500.00', undefined];
		const keys: Array<string | undefined> = [victimKey, undefined, ownKey];
		let tried = 0;
		for (const reference of references)
			for (const status of statuses)
				for (const amount of amounts)
					for (const key of keys) {
						const call = await callWebhook(
							merchantA(),
							defaults,
							signed(body({ reference, status, amount, key })),
						);
						tried += 1;
						// A's order is unpaid: no completed or failed callback about it is true.
						expect({ reference, status, amount, key, started: call.started }).toEqual({
							reference,
							status,
							amount,
							key,
							started: false,
						});
					}
		expect(tried).toBe(references.length * statuses.length * amounts.length * keys.length);
		// Refunds of the stranger's payment, and of the victim's unpaid order, are refused too.
		for (const reference of [strangerPaid, victimOrder])
			for (const amount of [5, 10]) {
				const refund = await callWebhook(
					merchantA(),
					defaults,
					signed({
						status: 'COMPLETED',
						message: 'Refund processed',
						amount,
						reason: 'x',
						date: new Date().toISOString(),
						reference,
						key: victimKey,
					}),
				);
				expect(refund.started).toBe(false);
			}
		const own = await callWebhook(
			merchantA(),
			defaults,
			signed(body({ reference: ownPaid, key: ownKey, amount: 700 })),
		);
		expect(own.started).toBe(true);
		expect(own.result.workflowData![0][0].json).toMatchObject({
			reference: ownPaid,
			key: ownKey,
			amount: 700,
			statusConfirmed: true,
			verified: 'signature',
		});
	});

	it('refuses to activate the default trigger without the API key credential, and says why', async () => {
		await expect(callHookMethod(newTriggerState(), 'create', defaults)).rejects.toThrow(
			'Confirm With Status API needs the Little Pay API key credential',
		);
		const withCredential = newTriggerState();
		withCredential.credential = { baseUrl: sandbox.baseUrl, apiKey: sandbox.merchant.apiKey };
		expect(await callHookMethod(withCredential, 'create', defaults)).toBe(true);
	});
});

describe('a status answer that does not prove what it must confirms nothing (generated records)', () => {
	const complete: IDataObject = {
		reference: 'LPREF1',
		status: 'COMPLETED',
		amount: 1500,
		key: 'order12345',
		currency: 'KES',
		payment: { provider: 'MPESA' },
		attempts: [{ reference: 'a1', provider: 'MPESA', status: 'COMPLETED' }],
	};
	const callback = {
		reference: 'LPREF1',
		status: 'COMPLETED',
		amount: 1500,
		key: 'order12345',
		currency: 'KES',
		provider: 'MPESA',
		date: new Date().toISOString(),
	};
	const broken: unknown[] = [undefined, null, '', ' ', [], {}, true, 'NaN', -1500, 'PAID'];
	const records: Array<[string, unknown]> = [];
	for (const field of ['reference', 'status', 'amount'])
		for (const value of broken) {
			const record: IDataObject = { ...complete };
			if (value === undefined) delete record[field];
			else record[field] = value as IDataObject[string];
			records.push([`${field}=${JSON.stringify(value)}`, record]);
		}
	for (const status of ['SUCCESS', 'COMPLETED ', 'PAID', 'settled'])
		records.push([`status=${status}`, { ...complete, status }]);
	records.push(['another payment', { ...complete, reference: 'LPREF2', key: 'order99999' }]);
	records.push(['the key not shown', { ...complete, key: undefined }]);
	for (const data of [null, 'COMPLETED', 1500, [complete]])
		records.push([`data=${JSON.stringify(data)}`, data]);

	it.each(records)('%s: the workflow does not start', async (_name, record) => {
		const state = newTriggerState({ LPREF1: record as IDataObject });
		const call = await callWebhook(state, defaults, signed(callback));
		expect(call.started).toBe(false);
		expect([401, 503]).toContain(call.response.status);
	});

	it('the complete record beside them confirms the callback (the control)', async () => {
		const state = newTriggerState({ LPREF1: complete });
		const call = await callWebhook(state, defaults, signed(callback));
		expect(call.started).toBe(true);
		expect(call.result.workflowData![0][0].json).toMatchObject({ statusConfirmed: true });
	});

	it('an answer that is not a record is "not now" (503), so Little Pay delivers it again', async () => {
		const state = newTriggerState({ LPREF1: { ...complete, amount: undefined } });
		const call = await callWebhook(state, defaults, signed(callback));
		expect(call.response).toMatchObject({ status: 503 });
	});
});

describe('references that cannot name one payment are refused before any request (generated)', () => {
	const dots = ['.', '..', '...', '%2e', '%2e%2e', '%2E%2E', '.%2e', '%2e.'];
	const joined = ['../x', 'a/..', 'a/b', 'a\\b', 'a?b=1', 'a#b', 'a b', ' a', 'a\u0000', 'ré', ''];
	const generated = [...dots, ...joined, ...dots.map((d) => `${d}/api/disbursements`)];

	it.each(generated)(
		'%j: refused as input, never put in a path, and the trigger asks nothing',
		async (reference) => {
			expect(validateRecordId(reference, 'Reference or Key')).not.toBe(reference);
			expect(() => recordSegment(reference)).toThrow();
			const state = newTriggerState({});
			const call = await callWebhook(
				state,
				defaults,
				signed({ reference, status: 'COMPLETED', amount: 10, key: 'k', date: 'd' }),
			);
			expect(call.started).toBe(false);
			expect(state.statusCalls).toEqual([]);
		},
	);

	it('a reference, a key and an id of Little Pay pass (the control)', () => {
		for (const ok of ['1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed', 'order12345', 'PAY-0001r2', 'a.b'])
			expect(recordSegment(ok)).toBe(encodeURIComponent(ok));
	});
});

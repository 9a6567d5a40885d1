// Money exactly once under n8n's own recovery: retrying a failed execution from the Executions list
// (a new execution in mode `retry` that re-runs the failed node with all its items), retrying it
// again, and the node's own Retry On Fail. Counted from the sandbox's ledger and request log.
import type { INode } from 'n8n-workflow';

import { loadFixture, runWorkflow } from '../../testkit/engine';
import type { RunResult, WorkflowJson } from '../../testkit/engine';
import { useNodeTestSandbox } from '../../testkit/nodeSandbox';
import { newKey } from '../../testkit/sandbox';
import { COMMIT_WINDOW_MINUTES } from '../../nodes/LittlePay/money/claim';

// The third create and its recovery lookups (five tries, about 4 s) fail with 503.
jest.setTimeout(60000);

const sb = useNodeTestSandbox({ pinDelayMs: 50, longPollTimeoutMs: 400 });

type Item = Record<string, unknown>;
type Payout = { key: string; amount: number };
type Intent = { key: string; description: string; attempts: unknown[] };

function workflow(file: string, items: Item[], node: Partial<INode> = {}): WorkflowJson {
	const json = loadFixture(file, { ITEMS: JSON.stringify(items), ON_ERROR: 'stopWorkflow' });
	json.nodes = json.nodes.map((n) => (n.name === 'Little Pay' ? { ...n, ...node } : n));
	return json;
}

function run(json: WorkflowJson, retryOf?: RunResult) {
	return runWorkflow(json, { credentials: sb.credentials, retryOf });
}

/**
 * Runs `then` as if the commit window after an unknown outcome had passed (money/once.ts): until it
 * has, a key whose send got a 503 is reported unknown, never sent again on a 404.
 */
async function pastCommitWindow<T>(then: () => Promise<T>): Promise<T> {
	const now = Date.now.bind(Date);
	const later = (COMMIT_WINDOW_MINUTES + 1) * 60_000;
	const clock = jest.spyOn(Date, 'now').mockImplementation(() => now() + later);
	try {
		return await then();
	} finally {
		clock.mockRestore();
	}
}

/**
 * The first two creates go through; the third, and every lookup after it, answers 503. A payout run
 * with keys from the data looks each key up before sending: those `lookupsFirst` lookups go through.
 */
async function failThirdCreate(
	createPath: string,
	lookupPath: string,
	times?: number,
	lookupsFirst = 0,
) {
	await sb.post('/sandbox/faults', {
		rules: [
			...(lookupsFirst > 0 ? [{ method: 'GET', pathPrefix: lookupPath, times: lookupsFirst }] : []),
			{ method: 'POST', pathPrefix: createPath, times: 2 },
			{ method: 'POST', pathPrefix: createPath, status: 503, ...(times ? { times: 1 } : {}) },
			{ method: 'GET', pathPrefix: lookupPath, status: 503, ...(times ? { times } : {}) },
		],
	});
}

async function clearFaults() {
	await sb.post('/sandbox/faults', { rules: [] });
}

/** Payouts per recipient, recipients told apart by amount. */
async function payoutsPerRecipient(amounts: number[]): Promise<number[]> {
	const all = (await sb.get('/sandbox/ledger')).data.data.disbursements as Payout[];
	return amounts.map((amount) => all.filter((d) => d.amount === amount).length);
}

/** Intents and PIN prompts per order, orders told apart by description. */
async function intentsAndPrompts(descriptions: string[]) {
	const all = (await sb.get('/sandbox/ledger')).data.data.intents as Intent[];
	const intents = descriptions.map((d) => all.filter((i) => i.description === d));
	return {
		intents: intents.map((found) => found.length),
		prompts: intents.map((found) => found.reduce((sum, i) => sum + i.attempts.length, 0)),
	};
}

function recipients(mapKeys: boolean): { items: Item[]; amounts: number[] } {
	const base = 1000 + Math.floor(Math.random() * 90000);
	const amounts = [base, base + 1, base + 2];
	const items = amounts.map((amount, i) => ({
		method: 'MPESA',
		amount,
		to: '+254712345670',
		checkLimits: false,
		key: mapKeys ? newKey(`p${i}`) : '',
	}));
	return { items, amounts };
}

function orders(mapKeys: boolean): { items: Item[]; descriptions: string[] } {
	const tag = newKey('o');
	const descriptions = [1, 2, 3].map((n) => `Order ${n} ${tag}`);
	const items = descriptions.map((description, i) => ({
		amount: 100 + i,
		description,
		network: 'MPESA',
		mobile: '+254712345670',
		wait: false,
		key: mapKeys ? newKey(`c${i}`) : '',
	}));
	return { items, descriptions };
}

const PAYOUT_CREATE = '/api/disbursements';
const PAYOUT_LOOKUP = '/api/disbursements/';
const INTENT_CREATE = '/api/payments/';
const INTENT_LOOKUP = '/api/payments-v2/';

describe('retrying a failed payout run from the Executions list pays each recipient once', () => {
	it.each([
		['Key empty, retry with the original workflow', false, false],
		['Key empty, retry with the currently saved workflow', false, true],
		['Key mapped, retry with the original workflow', true, false],
	])('%s: 1, 1, 1 and the retry succeeds', async (_label, mapKeys, editedWorkflow) => {
		const { items, amounts } = recipients(mapKeys);
		await failThirdCreate(PAYOUT_CREATE, PAYOUT_LOOKUP, undefined, mapKeys ? 3 : 0);
		const original = await run(workflow('disbursement-create.json', items));
		expect(original.error?.message).toMatch(/Row 3: the outcome of the payout is unknown/);
		expect(await payoutsPerRecipient(amounts)).toEqual([1, 1, 0]);
		await clearFaults();

		// "Currently saved workflow": the user edited the workflow since (here: moved the node);
		// node ids stay, as they do in n8n.
		const saved = editedWorkflow
			? workflow('disbursement-create.json', items, { position: [400, 80] })
			: workflow('disbursement-create.json', items);
		// Right away, the third row's outcome is still unknown: nothing is sent.
		const tooSoon = await run(saved, original);
		expect(tooSoon.error?.message).toMatch(/Row 3: the outcome of the payout is unknown/);
		expect(await payoutsPerRecipient(amounts)).toEqual([1, 1, 0]);
		const retry = await pastCommitWindow(() => run(saved, original));
		expect(retry.error).toBeUndefined();
		expect(retry.run.mode).toBe('retry');
		expect(await payoutsPerRecipient(amounts)).toEqual([1, 1, 1]);
		const out = retry.output('Little Pay').map((i) => i.json);
		expect(out.map((o) => o.alreadyExisted ?? false)).toEqual([true, true, false]);
		// The first two were found settled under their keys; the third was just created.
		expect(out.map((o) => o.outcome)).toEqual(['completed', 'completed', 'accepted']);

		// The same failed execution retried once more, after the successful retry: nothing new.
		const again = await run(workflow('disbursement-create.json', items), original);
		expect(again.error).toBeUndefined();
		expect(again.output('Little Pay').map((i) => i.json.alreadyExisted)).toEqual([
			true,
			true,
			true,
		]);
		expect(await payoutsPerRecipient(amounts)).toEqual([1, 1, 1]);
		expect((await sb.received()).filter((r) => r.method === 'POST' && r.status < 300)).toHaveLength(
			3,
		);
	});

	it('a retry of a retry keeps the keys of the first attempt', async () => {
		const { items, amounts } = recipients(false);
		await failThirdCreate(PAYOUT_CREATE, PAYOUT_LOOKUP);
		const original = await run(workflow('disbursement-create.json', items));
		expect(original.error).toBeDefined();
		// The first retry fails too: the gateway is still down, so its first lookup gets no answer
		// and it sends nothing.
		const firstRetry = await run(workflow('disbursement-create.json', items), original);
		expect(firstRetry.error?.message).toMatch(/Row 1: the outcome of the payout is unknown/);
		expect(await payoutsPerRecipient(amounts)).toEqual([1, 1, 0]);
		await clearFaults();
		const secondRetry = await pastCommitWindow(() =>
			run(workflow('disbursement-create.json', items), firstRetry),
		);
		expect(secondRetry.error).toBeUndefined();
		expect(await payoutsPerRecipient(amounts)).toEqual([1, 1, 1]);
		const keys = secondRetry.output('Little Pay').map((i) => i.json.key);
		const ledger = (await sb.get('/sandbox/ledger')).data.data.disbursements as Payout[];
		expect(keys.slice(0, 2)).toEqual(
			amounts.slice(0, 2).map((a) => ledger.find((d) => d.amount === a)?.key),
		);
	});

	it("Key mapped, the node's own Retry On Fail does not send the unknown one again: 1, 1, 0, then a re-run later pays it", async () => {
		const { items, amounts } = recipients(true);
		await failThirdCreate(PAYOUT_CREATE, PAYOUT_LOOKUP, 5, 3);
		const result = await run(
			workflow('disbursement-create.json', items, {
				retryOnFail: true,
				maxTries: 2,
				waitBetweenTries: 0,
			}),
		);
		expect(result.error?.message).toMatch(/Row 3: the outcome of the payout is unknown/);
		expect(await payoutsPerRecipient(amounts)).toEqual([1, 1, 0]);
		await clearFaults();
		const later = await pastCommitWindow(() => run(workflow('disbursement-create.json', items)));
		expect(later.error).toBeUndefined();
		expect(await payoutsPerRecipient(amounts)).toEqual([1, 1, 1]);
		expect(later.output('Little Pay').map((i) => i.json.alreadyExisted ?? false)).toEqual([
			true,
			true,
			false,
		]);
	});
});

describe('retrying a failed collect run creates one intent and one PIN prompt per order', () => {
	it.each([
		['Key empty', false],
		['Key mapped', true],
	])('%s, retried from the Executions list', async (_label, mapKeys) => {
		const { items, descriptions } = orders(mapKeys);
		await failThirdCreate(INTENT_CREATE, INTENT_LOOKUP);
		const original = await run(workflow('mobile-money-collect.json', items));
		expect(original.error?.message).toMatch(/Row 3: the outcome of the payment intent is unknown/);
		await clearFaults();
		const retry = await pastCommitWindow(() =>
			run(workflow('mobile-money-collect.json', items), original),
		);
		expect(retry.error).toBeUndefined();
		expect(await intentsAndPrompts(descriptions)).toEqual({
			intents: [1, 1, 1],
			prompts: [1, 1, 1],
		});
		const out = retry.output('Little Pay').map((i) => i.json);
		expect(out.map((o) => o.alreadyExisted ?? false)).toEqual([true, true, false]);
		expect(out.map((o) => o.alreadyPrompted ?? false)).toEqual([true, true, false]);
	});

	it("Key empty, the node's own Retry On Fail does not create the unknown intent again", async () => {
		const { items, descriptions } = orders(false);
		await failThirdCreate(INTENT_CREATE, INTENT_LOOKUP, 5);
		const result = await run(
			workflow('mobile-money-collect.json', items, {
				retryOnFail: true,
				maxTries: 2,
				waitBetweenTries: 0,
			}),
		);
		expect(result.error?.message).toMatch(/Row 3: the outcome of the payment intent is unknown/);
		expect(await intentsAndPrompts(descriptions)).toEqual({
			intents: [1, 1, 0],
			prompts: [1, 1, 0],
		});
	});
});

describe('keys that exist already', () => {
	it('a different payout under an existing key fails the item naming the key and the fields', async () => {
		const key = newKey('same');
		const first = await run(
			workflow('disbursement-create.json', [
				{ method: 'MPESA', amount: 500, to: '+254712345670', key, checkLimits: false },
			]),
		);
		expect(first.error).toBeUndefined();
		await sb.received();
		const other = await run(
			workflow('disbursement-create.json', [
				{ method: 'MPESA', amount: 700, to: '+254712345670', key, checkLimits: false },
			]),
		);
		expect(other.error?.message).toBe(
			`Row 1: Key "${key}" already belongs to a different payout (amount 500 there, 700 here)`,
		);
		expect(other.error?.description).toMatch(/Use a new key for a new payout/);
		const ledger = (await sb.get('/sandbox/ledger')).data.data.disbursements as Payout[];
		expect(ledger.filter((d) => d.key === key)).toHaveLength(1);
	});

	it('a retried execution whose first attempt left no run token refuses generated keys and sends nothing', async () => {
		const { items } = recipients(false);
		await failThirdCreate(PAYOUT_CREATE, PAYOUT_LOOKUP);
		const original = await run(workflow('disbursement-create.json', items));
		expect(original.error).toBeDefined();
		await clearFaults();
		// As an execution run by an older version of the node (or stopped mid-run) would be stored.
		const contextData = original.run.data.executionData?.contextData ?? {};
		for (const name of Object.keys(contextData)) delete contextData[name];
		await sb.received();
		const retry = await run(workflow('disbursement-create.json', items), original);
		expect(retry.error?.message).toBe('Nothing was paid: 3 of 3 rows are refused');
		expect(retry.error?.description).toMatch(
			/^Row 1: Key is empty, and this retried execution cannot recover the keys its first attempt generated\. To fix: The first attempt left no Little Pay run token[^<]*<br>\nRow 2: .*\. To fix: as for row 1\.<br>\n/,
		);
		expect(retry.error?.description).toMatch(/Map a Key from your data/);
		expect(await sb.received()).toEqual([]);
	});
});

describe('refunds, which have no key, are sent once under every n8n retry', () => {
	/** A COMPLETED M-Pesa payment. */
	async function paid(amount: number) {
		const intent = await sb.createIntent({ amount });
		await sb.post(`/pay/${intent.reference}/process`, {
			type: 'MPESA',
			payment: { mobile: '254712345670' },
		});
		const record = await sb.status(intent.key, '?longPoll=true');
		if (record.status !== 'COMPLETED') throw new Error(`payment is ${String(record.status)}`);
		return intent.reference;
	}

	async function refundsPerPayment(references: string[]): Promise<number[]> {
		const all = (await sb.get('/sandbox/ledger')).data.data.refunds as Array<{ reference: string }>;
		return references.map((ref) => all.filter((r) => r.reference === ref).length);
	}

	/** The first two refunds go through; the third is refused (422), so the node fails. */
	async function refuseThirdRefund() {
		await sb.post('/sandbox/faults', {
			rules: [
				{ method: 'POST', pathPrefix: '/api/refund/', times: 2 },
				{ method: 'POST', pathPrefix: '/api/refund/', status: 422, times: 1 },
			],
		});
	}

	it.each([
		['retried from the Executions list', false],
		["the node's own Retry On Fail", true],
	])('partial refunds, %s: 1, 1, 1', async (_label, retryOnFail) => {
		const references = [await paid(1000), await paid(1001), await paid(1002)];
		const items = references.map((paymentId) => ({ paymentId, amount: 100 }));
		const json = workflow(
			'refund-create.json',
			items,
			retryOnFail ? { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 } : {},
		);
		await sb.received();
		await refuseThirdRefund();
		let result = await run(json);
		if (!retryOnFail) {
			expect(result.error?.message).toMatch(
				/^Little Pay refused by its rules POST \/api\/refund\//,
			);
			expect(await refundsPerPayment(references)).toEqual([1, 1, 0]);
			result = await run(json, result);
		}
		expect(result.error).toBeUndefined();
		expect(await refundsPerPayment(references)).toEqual([1, 1, 1]);
		expect(result.output('Little Pay').map((i) => i.json.alreadyRefunded ?? false)).toEqual([
			true,
			true,
			false,
		]);
	});

	it('a refund whose answer was lost is not sent again by a retry: the item says to check first', async () => {
		const references = [await paid(1003)];
		const json = workflow('refund-create.json', [{ paymentId: references[0], amount: 100 }]);
		await sb.post('/sandbox/faults', {
			rules: [{ method: 'POST', pathPrefix: '/api/refund/', drop: 'after', times: 1 }],
		});
		const original = await run(json);
		expect(original.error?.message).toMatch(/Row 1: the outcome of the refund is unknown/);
		const retry = await run(json, original);
		expect(retry.error?.message).toBe(
			'Row 1: the outcome of the refund is unknown (an earlier attempt of this execution sent it and got no answer)',
		);
		expect(await refundsPerPayment(references)).toEqual([1]);
	});
});

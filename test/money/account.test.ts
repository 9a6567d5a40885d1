// One money ledger per Little Pay account (issue 66): the day totals and the key claims belong to the
// account (Little Pay's addresses and the API key), not to an n8n credential, and a day is the account's
// calendar day (the credential's Day Time Zone, Africa/Nairobi by default), never the workflow's. Through
// n8n-core's engine; "paid" is read from the sandbox's ledger. Each test has a sandbox of its own, so its
// account's day starts empty whatever ran before.
import { randomUUID } from 'node:crypto';
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { loadFixture, runWorkflow } from '../../testkit/engine';
import type { RunResult, WorkflowJson } from '../../testkit/engine';
import { outputs, payoutParameters, TOOL, call, workflow, NODE } from '../../testkit/moneyRun';
import { startNodeTestSandbox } from '../../testkit/nodeSandbox';
import type { NodeTestSandbox } from '../../testkit/nodeSandbox';
import { newKey } from '../../testkit/sandbox';

type Json = Record<string, unknown>;
type Disbursement = { key: string; amount: number };

let sb: NodeTestSandbox;
beforeEach(async () => {
	sb = await startNodeTestSandbox({ pinDelayMs: 50, longPollTimeoutMs: 400 });
});
afterEach(async () => {
	await sb.sandbox.close();
});

const ledger = async (): Promise<Disbursement[]> =>
	(await sb.get('/sandbox/ledger')).data.data.disbursements as Disbursement[];

/** The sandbox's API key credential with these fields added (the limits, the zone, the grant). */
const credentialWith = (fields: Json): Record<string, ICredentialDataDecryptedObject> =>
	({
		littlePayApiKeyApi: { ...sb.credentials.littlePayApiKeyApi, ...fields },
	}) as Record<string, ICredentialDataDecryptedObject>;

/** One payout of `amount` from a workflow in `timezone`, with the n8n credential named `credentialId`. */
function payoutIn(
	timezone: string,
	amount: number,
	fields: Json,
	credentialId = 'littlePayApiKeyApi',
): Promise<RunResult> {
	const json = workflow(NODE, payoutParameters(), [{ amount, to: '254712345670' }], {
		credentials: { littlePayApiKeyApi: { id: credentialId, name: credentialId } },
	});
	json.settings = { timezone };
	return runWorkflow(json, { credentials: credentialWith(fields) });
}

/** The Little Pay node's error message, or its first item's refusal reason. */
const refusalOf = (result: RunResult): string =>
	result.error?.message ?? String(outputs(result)[0]?.reason ?? '');

describe("a day is the account's calendar day, whatever the workflow's time zone", () => {
	// Each pair is more than a day apart, so at any moment their calendar dates differ: counted in the
	// workflow's zone, each would start a fresh day.
	const pairs: Array<[string, string]> = [
		['Pacific/Kiritimati', 'Etc/GMT+12'],
		['Etc/GMT+12', 'Pacific/Kiritimati'],
		['Pacific/Tongatapu', 'Pacific/Pago_Pago'],
		['Asia/Tokyo', 'Pacific/Honolulu'],
	];
	it.each(pairs)(
		'Max Total per Day 1,000 on the credential: a workflow in %s pays 1,000, one in %s at the same moment is refused',
		async (first, second) => {
			const limits = { maxTotalPerDay: 1000 };
			const a = await payoutIn(first, 1000, limits);
			expect(a.error).toBeUndefined();
			const b = await payoutIn(second, 1000, limits);
			expect(refusalOf(b)).toMatch(/would bring the total of one day to KES 2,000/);
			expect((await ledger()).map((d) => d.amount)).toEqual([1000]);
		},
	);

	it("the node's own Max Total per Day counts in the account's calendar too", async () => {
		const node = { id: randomUUID() };
		const parameters = payoutParameters({ spendingLimits: { maxTotalPerDay: 1000 } });
		const inZone = (timezone: string, amount: number) => {
			const json = workflow(NODE, parameters, [{ amount, to: '254712345670' }], node);
			json.settings = { timezone };
			return runWorkflow(json, { credentials: credentialWith({}) });
		};
		expect((await inZone('Pacific/Kiritimati', 600)).error).toBeUndefined();
		expect(refusalOf(await inZone('Etc/GMT+12', 600))).toMatch(/total of one day to KES 1,200/);
		expect((await ledger()).map((d) => d.amount)).toEqual([600]);
	});

	it('a Day Time Zone that names no time zone refuses the move, and nothing is sent', async () => {
		const result = await payoutIn('UTC', 100, {
			maxTotalPerDay: 1000,
			dayTimeZone: 'Mars/Olympus',
		});
		expect(refusalOf(result)).toMatch(/Day Time Zone "Mars\/Olympus" names no time zone/);
		expect(await ledger()).toEqual([]);
		expect((await sb.received()).filter((r) => r.method === 'POST')).toEqual([]);
	});

	it("the agent grant's Valid Until is read in the account's calendar, not the workflow's", async () => {
		// Two hours ago on Nairobi's clock: over there; read on the clock of Etc/GMT+12 (15 hours behind
		// Nairobi), the same wall time is 13 hours ahead.
		const nairobiWall = new Date(Date.now() + (3 - 2) * 3600_000).toISOString().slice(0, 19);
		const grant = {
			agentGrant: true,
			grantMoves: ['payout'],
			grantValidUntil: nairobiWall,
		};
		const json = workflow(
			TOOL,
			payoutParameters({ allowMoneyMoves: true }),
			[call({ amount: 100, to: '254712345670' })],
			{ id: randomUUID() },
		);
		json.settings = { timezone: 'Etc/GMT+12' };
		const result = await runWorkflow(json, { credentials: credentialWith(grant) });
		expect(outputs(result)[0]).toMatchObject({
			refused: true,
			reason: `The agent grant on the credential ended on ${nairobiWall} (Africa/Nairobi): no AI tool may move money with it`,
		});
		expect(await ledger()).toEqual([]);
	});
});

describe('two n8n credentials holding one API key are one account', () => {
	it('Max Total per Day 1,000 on both: one pays 1,000, the other is refused', async () => {
		const limits = { maxTotalPerDay: 1000 };
		expect((await payoutIn('UTC', 1000, limits, 'credential-a')).error).toBeUndefined();
		const b = await payoutIn('UTC', 1000, limits, 'credential-b');
		expect(refusalOf(b)).toMatch(/would bring the total of one day to KES 2,000/);
		expect((await ledger()).map((d) => d.amount)).toEqual([1000]);
	});

	// Attack: one account written another way (case, a trailing slash, spaces around the key) must not open a second day total.
	it.each([
		['the same address in capitals', (base: string) => base.toUpperCase(), (key: string) => key],
		['with a trailing slash', (base: string) => `${base}/`, (key: string) => key],
		['with a path of /', (base: string) => `${base}//`, (key: string) => key],
		['with spaces around the key', (base: string) => base, (key: string) => ` ${key} `],
	])(
		'a second credential on the same account written %s shares its day total',
		async (_, address, key) => {
			const limits = { maxTotalPerDay: 1000 };
			expect((await payoutIn('UTC', 1000, limits, 'credential-a')).error).toBeUndefined();
			const m = sb.sandbox.merchant;
			const again = await payoutIn(
				'UTC',
				1000,
				{ ...limits, baseUrl: address(m.baseUrl), apiKey: key(m.apiKey) },
				'credential-b',
			);
			expect(refusalOf(again)).toMatch(/would bring the total of one day to KES 2,000/);
			expect((await ledger()).map((d) => d.amount)).toEqual([1000]);
		},
	);

	it('a credential on another API key is another account: both pay', async () => {
		const limits = { maxTotalPerDay: 1000 };
		expect((await payoutIn('UTC', 1000, limits, 'credential-a')).error).toBeUndefined();
		// The same fields but another key: the sandbox refuses the key itself, so only the count is read.
		const other = await payoutIn('UTC', 1000, { ...limits, apiKey: 'another-key' }, 'credential-b');
		expect(refusalOf(other)).not.toMatch(/total of one day/);
	});

	it.each([
		[1, 1],
		[10, 10],
		[10, 1],
	])(
		'the same 20-row sheet run at once through two credentials (Concurrency %i and %i), the gateway taking a repeated key: 20 payouts',
		async (first, second) => {
			await sb.post('/sandbox/settings', { acceptRepeatedPayoutKeys: true });
			await sb.post('/sandbox/faults', {
				rules: [{ method: 'POST', pathPrefix: '/api/disbursements', latencyMs: 400 }],
			});
			const rows = Array.from({ length: 20 }, (_, i) => ({
				method: 'MPESA',
				amount: 100 + i,
				to: `2547123${String(i).padStart(4, '0')}0`.slice(0, 12),
				key: newKey(`a${i}x`),
			}));
			const sheet = (concurrency: number, credentialId: string): WorkflowJson => {
				const json = loadFixture('disbursement-create.json', {
					ITEMS: JSON.stringify(rows.map((r) => ({ ...r, concurrency }))),
					ON_ERROR: 'stopWorkflow',
				});
				const node = json.nodes.find((n) => n.name === 'Little Pay')!;
				node.credentials = { littlePayApiKeyApi: { id: credentialId, name: credentialId } };
				return json;
			};
			const [a, b] = await Promise.all([
				runWorkflow(sheet(first, 'credential-a'), { credentials: sb.credentials }),
				new Promise((r) => setTimeout(r, 300)).then(() =>
					runWorkflow(sheet(second, 'credential-b'), { credentials: sb.credentials }),
				),
			]);
			expect(a.error).toBeUndefined();
			expect(b.error).toBeUndefined();
			const keys = new Set(rows.map((r) => r.key));
			expect((await ledger()).filter((d) => keys.has(d.key))).toHaveLength(20);
		},
		60000,
	);
});

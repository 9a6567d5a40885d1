// Payer details at the source, in the action node (issue 45, point 4): the API key credential's Payer
// Details decides what every output row says of payers and payees; numbers typed are sent as typed; a
// Matching Secret gives the same contactHash for the same payee in every output; errors are masked too.
import { createHmac } from 'node:crypto';

import type { ICredentialDataDecryptedObject } from 'n8n-workflow';

import { loadFixture, runWorkflow } from '../../testkit/engine';
import { useNodeTestSandbox } from '../../testkit/nodeSandbox';
import { newKey } from '../../testkit/sandbox';

const sb = useNodeTestSandbox({ pinDelayMs: 50, longPollTimeoutMs: 400 });

type Item = Record<string, unknown>;

function credentials(setting: Record<string, string>) {
	return {
		...sb.credentials,
		littlePayApiKeyApi: { ...sb.credentials.littlePayApiKeyApi, ...setting },
	} as Record<string, ICredentialDataDecryptedObject>;
}

function run(file: string, items: Item[], setting: Record<string, string>) {
	return runWorkflow(
		loadFixture(file, { ITEMS: JSON.stringify(items), ON_ERROR: 'stopWorkflow' }),
		{ credentials: credentials(setting) },
	);
}

const payout = (overrides: Item = {}): Item => ({
	method: 'MPESA',
	amount: 500,
	to: '+254 712 345 670',
	key: newKey('pd'),
	...overrides,
});

const hashOf = (digits: string) => createHmac('sha256', 'm4tch').update(digits).digest('hex');

describe("the credential's Payer Details on the action node", () => {
	it('omitted: a payout row has no number, the payout is sent to the number as typed, and contactHash matches it', async () => {
		const item = payout();
		const result = await run('disbursement-create.json', [item], {
			payerDetails: 'omitted',
			matchingSecret: 'm4tch',
		});
		expect(result.error).toBeUndefined();
		const [row] = result.output('Little Pay');
		expect(row.json).toMatchObject({ key: item.key, outcome: 'accepted', to: null });
		expect(row.json.contactHash).toBe(hashOf('254712345670'));
		const post = (await sb.received()).find((r) => r.method === 'POST');
		expect(post?.body).toMatchObject({ details: { to: '254712345670' } });
	});

	it('full: the number as Little Pay has it', async () => {
		const result = await run('disbursement-create.json', [payout()], { payerDetails: 'full' });
		expect(result.output('Little Pay')[0].json.to).toBe('254712345670');
	});

	it("the same payer's status record carries the same contactHash, and no full number or e-mail", async () => {
		const intent = await sb.createIntent({ amount: 1500 });
		await sb.post(`/pay/${intent.reference}/process`, {
			type: 'MPESA',
			payment: { mobile: '254712345670' },
		});
		const result = await run(
			'payment-get-status.json',
			[{ paymentId: intent.key, simplify: false }],
			{ matchingSecret: 'm4tch' },
		);
		expect(result.error).toBeUndefined();
		const [row] = result.output('Little Pay');
		expect(row.json).toMatchObject({
			payment: { details: { mobile: '2547•••••670' } },
			contactHash: hashOf('254712345670'),
		});
		expect(JSON.stringify(row.json)).not.toMatch(/254712345670|amina@example\.com/);
	});

	it('the error a run stops with masks the numbers it names (the payout duplicate check)', async () => {
		const key = newKey('pddup');
		const first = await run('disbursement-create.json', [payout({ key })], {});
		expect(first.error).toBeUndefined();
		const again = await run('disbursement-create.json', [payout({ key, to: '254712345671' })], {});
		expect(again.error?.message).toContain(
			`Key "${key}" already belongs to a different payout (to 2547•••••670 there, 2547•••••671 here)`,
		);
		expect(again.error?.message).not.toMatch(/25471234567[01]/);
	});
});

describe('a scan of what the package outputs on masked defaults', () => {
	it('no full number, e-mail or surname in any output of a day of operations (collect, status, wait, reconcile, payout, get, refund)', async () => {
		const none = {};
		const intent = await sb.createIntent({ amount: 1500 });
		await sb.post(`/pay/${intent.reference}/process`, {
			type: 'MPESA',
			payment: { mobile: '254712345670' },
		});
		await sb.status(intent.key, '?longPoll=true');
		const key = newKey('scan');
		const runs = [
			await run(
				'mobile-money-collect.json',
				[
					{ amount: 10, key: newKey('scan'), network: 'MPESA', mobile: '254712345670' },
					{ amount: 10, key: newKey('scan'), network: 'MPESA', mobile: '+254 712 345 671' },
				],
				none,
			),
			await run(
				'payment-get-status.json',
				[{ paymentId: intent.key, simplify: false }, { paymentId: intent.reference }],
				none,
			),
			await run(
				'payment-wait-for-completion.json',
				[{ paymentId: intent.key, simplify: false, timeout: 5 }],
				none,
			),
			await run('payment-reconcile.json', [{ paymentId: intent.key }], none),
			await run('disbursement-create.json', [payout({ key }), payout({ to: '0712345672' })], none),
			await run('disbursement-get.json', [{ id: key, includeRecord: true }], none),
			await run('disbursement-reconcile.json', [{ id: key, expectedTo: '254712345670' }], none),
			await run('refund-create.json', [{ paymentId: intent.key, amount: 100 }], none),
		];
		const outputs = runs.flatMap((r) => r.output('Little Pay').map((o) => JSON.stringify(o.json)));
		expect(runs.map((r) => r.error?.message)).toEqual(runs.map(() => undefined));
		expect(outputs.length).toBeGreaterThanOrEqual(10);
		const full = /2547\d{8}|amina@example\.com|Wanjiru|Otieno/;
		expect(outputs.filter((o) => full.test(o))).toEqual([]);
		// What the package did output about the payers, masked.
		expect(outputs.filter((o) => o.includes('2547•••••67')).length).toBeGreaterThanOrEqual(6);
	});
});

// Variations on the bookkeeper's page (issue 51) the editor review did not list: what a refused row can
// smuggle into an error panel that renders HTML, Reconcile given Little Pay's id instead of the key, an
// attempt that is another row's payout, and a re-run that finds a failed payout without Pay Again.
import type { WorkflowJson } from '../../testkit/engine';
import { loadFixture, runWorkflow } from '../../testkit/engine';
import { useNodeTestSandbox } from '../../testkit/nodeSandbox';
import { newKey } from '../../testkit/sandbox';

const sb = useNodeTestSandbox({ pinDelayMs: 50, longPollTimeoutMs: 300 });

type Item = Record<string, unknown>;

function payOut(items: Item[], options: Item = {}) {
	const json: WorkflowJson = loadFixture('disbursement-create.json', {
		ITEMS: JSON.stringify(items),
		ON_ERROR: 'stopWorkflow',
	});
	const node = json.nodes.find((n) => n.name === 'Little Pay');
	Object.assign((node?.parameters as { options: Item }).options, options);
	return runWorkflow(json, { credentials: sb.credentials });
}

function reconcile(items: Item[]) {
	return runWorkflow(
		loadFixture('disbursement-reconcile.json', {
			ITEMS: JSON.stringify(items),
			ON_ERROR: 'continueRegularOutput',
		}),
		{ credentials: sb.credentials },
	);
}

const row = (lastDigit: number, amount: number, extra: Item = {}): Item => ({
	method: 'MPESA',
	amount,
	to: `25471234567${lastDigit}`,
	key: newKey('adv'),
	...extra,
});

async function settledPayout(key: string, lastDigit: number, amount = 1000): Promise<string> {
	const created = await sb.createPayout({ key, to: `25471234567${lastDigit}`, amount });
	await sb.payoutSettled(key);
	return String((created as { id?: unknown }).id ?? '');
}

describe("the bookkeeper's page, attacked", () => {
	it('a row value written as HTML cannot break the error panel: only the line breaks are tags', async () => {
		const rows = [
			row(0, 100, { key: '<b>x</b>' }),
			row(0, 100, { amount: '<img src=x onerror=alert(1)>' }),
			row(0, 100),
		];
		const result = await payOut(rows);
		expect(result.error?.message).toBe('Nothing was paid: 2 of 3 rows are refused');
		const description = String(result.error?.description);
		const tags = description.match(/<[^>]*>/g) ?? [];
		expect(new Set(tags)).toEqual(new Set(['<br>']));
		expect(description).toContain('&lt;b>x&lt;/b>');
		expect((await sb.received()).filter((r) => r.method === 'POST')).toEqual([]);
	});

	it('the same row under Continue: the run summary hint, also rendered as HTML, carries it as text', async () => {
		const json: WorkflowJson = loadFixture('disbursement-create.json', {
			ITEMS: JSON.stringify([row(0, 100, { key: '<b>x</b>' }), row(0, 100)]),
			ON_ERROR: 'continueRegularOutput',
		});
		const result = await runWorkflow(json, { credentials: sb.credentials });
		const [hint] = result.hints('Little Pay');
		const tags = hint.message.match(/<[^>]*>/g) ?? [];
		expect(new Set(tags)).toEqual(new Set(['<br>']));
		expect(hint.message).toContain('Row 1 (&lt;b>x&lt;/b>) refused: ');
	});

	it("Reconcile given Little Pay's id of a failed first attempt still follows the row's key to r2", async () => {
		const key = newKey('byid');
		await settledPayout(key, 1);
		await settledPayout(`${key}r2`, 0);
		const first = (await sb.get(`/api/disbursements/${key}`, sb.apiKeyHeaders)).data.data as Item;
		const result = await reconcile([{ id: String(first.id), expectedAmount: 1000 }]);
		const [out] = result.output('Little Pay').map((o) => o.json);
		expect(out).toMatchObject({
			outcome: 'completed',
			key: `${key}r2`,
			attempt: 2,
			failedBefore: [key],
		});
	});

	it('a row paid as r2 with another amount than the books say is a mismatch that pays nobody, not "pay it under its own key"', async () => {
		const key = newKey('mis');
		await settledPayout(key, 1, 1000);
		await settledPayout(`${key}r2`, 0, 1000);
		// The books hold another number than the one r2 paid: whose payout it is, is not known.
		const result = await reconcile([{ id: key, expectedAmount: 1000, expectedTo: '254712345674' }]);
		const [out] = result.output('Little Pay').map((o) => o.json);
		expect(out).toMatchObject({ outcome: 'mismatch', key: `${key}r2`, attempt: 2 });
		expect(String(out.nextStep)).not.toMatch(/pay it under its own key|new key/);
		expect(String(out.nextStep)).toMatch(/pay nobody for it until you know whose payout this is/);
	});

	it('a re-run without Pay Again that finds a failed payout counts it failed, not "found already sent", and not in paid so far', async () => {
		const failing = row(1, 2000);
		const paid = row(0, 500);
		await payOut([failing, paid]);
		await sb.payoutSettled(String(failing.key));
		await sb.payoutSettled(String(paid.key));
		await sb.received();
		const again = await payOut([failing, paid], { runSummaryOutput: true });
		expect(again.error).toBeUndefined();
		const [summary] = again.output('Little Pay', 1).map((o) => o.json);
		expect(summary).toMatchObject({
			count: 0,
			alreadyExisted: 1,
			failed: 1,
			completed: 1,
			payroll: {
				KES: {
					foundAlreadySent: { count: 1, amount: 500 },
					failed: { count: 1, amount: 2000 },
					paidSoFar: { count: 1, amount: 500 },
				},
			},
		});
		const [hint] = again.hints('Little Pay');
		expect(hint.message).toMatch(
			/^Payout run: 0 sent now, 1 found already sent \(KES 500\.00\), 1 failed \(KES 2,000\.00\), /,
		);
		expect((await sb.received()).filter((r) => r.method === 'POST')).toEqual([]);
	});
});

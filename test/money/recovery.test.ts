// Unknown outcomes of requests that move money: a server error or a lost answer is resolved by a
// lookup, never by a blind retry, and a lookup that gets no answer leaves the item saying so.
import { loadFixture, runWorkflow } from '../../testkit/engine';
import { useNodeTestSandbox } from '../../testkit/nodeSandbox';
import { newKey } from '../../testkit/sandbox';

const sb = useNodeTestSandbox({ pinDelayMs: 50, longPollTimeoutMs: 400 });

type Item = Record<string, unknown>;

function run(file: string, items: Item[]) {
	return runWorkflow(
		loadFixture(file, { ITEMS: JSON.stringify(items), ON_ERROR: 'continueRegularOutput' }),
		{ credentials: sb.credentials },
	);
}

async function ledgerDisbursements(key: string): Promise<unknown[]> {
	const ledger = await sb.get('/sandbox/ledger');
	return (ledger.data.data.disbursements as Array<{ key: string }>).filter((d) => d.key === key);
}

const payout = (key: string, extra: Item = {}): Item => ({
	method: 'MPESA',
	amount: 500,
	to: '+254712345670',
	key,
	checkLimits: false,
	...extra,
});

describe('unknown outcomes of money-moving requests', () => {
	it('a payout answered 503 is looked up and, found missing, not sent again: its outcome is unknown (the first request may yet commit)', async () => {
		const key = newKey('p503');
		await sb.post('/sandbox/faults', {
			rules: [{ method: 'POST', pathPrefix: '/api/disbursements', status: 503, times: 1 }],
		});
		const result = await run('disbursement-create.json', [payout(key)]);
		const [out] = result.output('Little Pay').map((i) => i.json);
		expect(out.error).toBe(
			`Row 1: the outcome of the payout is unknown (HTTP 503, and Little Pay shows nothing under it yet; key ${key})`,
		);
		expect(String(out.description)).toMatch(
			new RegExp(
				`^It may still be committed at Little Pay, so it was not sent again. Run the workflow again in 5 minutes or later: a re-run looks key ${key} up first`,
			),
		);
		expect(await ledgerDisbursements(key)).toHaveLength(0);
		const sent = (await sb.received()).map((r) => `${r.method} ${r.path.split('?')[0]}`);
		expect(sent).toEqual([
			`GET /api/disbursements/${key}`,
			'POST /api/disbursements',
			`GET /api/disbursements/${key}`,
		]);
	});

	it('a payout whose answer and every lookup are lost says the outcome is unknown, and is not sent again', async () => {
		const key = newKey('plost');
		await sb.post('/sandbox/faults', {
			rules: [
				// The lookup before sending (a key from the data) goes through; every later one is lost.
				{ method: 'GET', pathPrefix: `/api/disbursements/${key}`, times: 1 },
				{ method: 'POST', pathPrefix: '/api/disbursements', drop: 'after', times: 1 },
				{ method: 'GET', pathPrefix: `/api/disbursements/${key}`, drop: 'before' },
			],
		});
		const result = await run('disbursement-create.json', [payout(key)]);
		const [out] = result.output('Little Pay').map((i) => i.json);
		expect(out.error).toMatch(/Row 1: the outcome of the payout is unknown/);
		expect(String(out.description)).toMatch(/before retrying/);
		expect(String(out.description)).not.toMatch(/then try again/);
		expect(await ledgerDisbursements(key)).toHaveLength(1);
		const posts = (await sb.received()).filter((r) => r.method === 'POST');
		expect(posts).toHaveLength(1);
	});

	it('a refund answered 502 is never resent: the item says to check before retrying', async () => {
		const { reference } = await sb.createIntent();
		await sb.received();
		await sb.post('/sandbox/faults', {
			rules: [{ method: 'POST', pathPrefix: '/api/refund/', status: 502, times: 1 }],
		});
		const result = await run('refund-create.json', [{ paymentId: reference, amount: 100 }]);
		const [out] = result.output('Little Pay').map((i) => i.json);
		expect(out.error).toMatch(/Row 1: the outcome of the refund is unknown \(HTTP 502\)/);
		expect((await sb.received()).filter((r) => r.method === 'POST')).toHaveLength(1);
	});
});

describe('values as expressions give them', () => {
	it('accepts a network in any case with spaces, and sends Little Pay its own name', async () => {
		const key = newKey('pcase');
		const result = await run('disbursement-create.json', [payout(key, { method: ' mpesa ' })]);
		expect(result.output('Little Pay')[0].json).toMatchObject({
			method: 'MPESA',
			outcome: 'accepted',
		});
		const [post] = (await sb.received()).filter((r) => r.method === 'POST');
		expect(post.body).toMatchObject({ method: 'MPESA' });
	});

	it('refuses an unknown network naming the field, and sends nothing', async () => {
		const result = await run('disbursement-create.json', [
			payout(newKey('pnet'), { method: 'VODAFONE' }),
		]);
		expect(result.output('Little Pay')[0].json.error).toMatch(
			/Row 1: Network is not one of MPESA, AIRTEL, MTN, TIGOPESA/,
		);
		expect(await sb.received()).toEqual([]);
	});

	it('takes a key an expression turns into a number', async () => {
		const result = await run('disbursement-create.json', [payout('', { key: 87654321 })]);
		expect(result.output('Little Pay')[0].json).toMatchObject({
			key: '87654321',
			outcome: 'accepted',
		});
	});
});

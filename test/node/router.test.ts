// The item loop and the safety rules every operation shares: Continue On Fail, nothing sent on bad input,
// gateway errors mapped with hints, and creates whose answer was lost resolved by lookup, not by a second create.
import { loadFixture, runWorkflow } from '../../testkit/engine';
import { useNodeTestSandbox } from '../../testkit/nodeSandbox';
import type { NodeTestSandbox } from '../../testkit/nodeSandbox';
import { newKey } from '../../testkit/sandbox';

const sb = useNodeTestSandbox({ pinDelayMs: 50, longPollTimeoutMs: 400 });

type Item = Record<string, unknown>;

function run(
	file: string,
	items: Item[],
	options: {
		continueOnFail?: boolean;
		executionId?: string;
		credentials?: NodeTestSandbox['credentials'];
	} = {},
) {
	return runWorkflow(
		loadFixture(file, {
			ITEMS: JSON.stringify(items),
			ON_ERROR: options.continueOnFail ? 'continueRegularOutput' : 'stopWorkflow',
		}),
		{
			credentials: options.credentials ?? sb.credentials,
			executionId: options.executionId,
		},
	);
}

const payout = (overrides: Item = {}): Item => ({
	method: 'MPESA',
	amount: 500,
	to: '254712345670',
	key: newKey('rpay'),
	...overrides,
});
const intent = (overrides: Item = {}): Item => ({
	amount: 1500,
	callbackUrl: 'http://127.0.0.1:9/callback',
	key: newKey('rint'),
	...overrides,
});

async function ledger(): Promise<{
	intents: Array<{ key: string; reference: string; attempts: unknown[] }>;
	disbursements: Array<{ key: string; id: string }>;
}> {
	return (await sb.get('/sandbox/ledger')).data.data;
}

describe('Continue On Fail', () => {
	it('puts the error on the bad item and the other items go on, each paired with its input', async () => {
		const items = [payout(), payout({ amount: 5 }), payout()];
		const result = await run('disbursement-create.json', items, { continueOnFail: true });
		expect(result.error).toBeUndefined();
		const output = result.output('Little Pay');
		expect(output.map((o) => o.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(output[0].json).toMatchObject({ key: items[0].key, outcome: 'accepted' });
		expect(output[1].json).toEqual({
			error: 'Row 2: Amount 5 is outside the MPESA limits 10-150000',
			description:
				'Split the payout into parts within the limits, each a row with its own payout ID (key), or pick another network',
			key: items[1].key,
			itemIndex: 1,
			row: 2,
			failureCode: 'invalid-input',
			retry: 'no',
			nextStep: expect.any(String),
			gateway: 'sandbox',
		});
		expect(output[2].json).toMatchObject({ key: items[2].key, outcome: 'accepted' });
		const posts = (await sb.received()).filter((r) => r.method === 'POST');
		expect(posts.map((r) => (r.body as Item).key)).toEqual([items[0].key, items[2].key]);
	});

	it('without it the run fails naming the item, and no payout after the failing one is sent', async () => {
		// The second row skips the node's own limit check, so Little Pay refuses it mid-run.
		const items = [payout(), payout({ amount: 5, checkLimits: false }), payout()];
		const result = await run('disbursement-create.json', items);
		expect(result.error?.message).toBe(
			'Little Pay refused by its rules POST /api/disbursements (HTTP 422, AMOUNT_OUT_OF_RANGE)',
		);
		expect(result.error).toMatchObject({ context: { itemIndex: 1 } });
		expect(result.error?.description).toMatch(
			/The run stopped here\.<br>\nPayout run: 1 sent now \(KES [\d.,]+, fees KES [\d.,]+\), 0 found already sent, 0 failed, 0 refused, 1 error, 1 pending, 1 not reached \(the run stopped\)\./,
		);
		expect(result.output('Little Pay')).toEqual([]);
		const posts = (await sb.received()).filter((r) => r.method === 'POST');
		expect(posts.map((r) => (r.body as Item).key)).toEqual([items[0].key, items[1].key]);
		// n8n still logs the failure (the harness keeps the line instead of printing it).
		expect(result.engineLog).toContainEqual({
			level: 'error',
			message: expect.stringContaining('AMOUNT_OUT_OF_RANGE'),
		});
	});

	it('a bad row found before sending stops a payout run with nothing sent, naming the row', async () => {
		const items = [payout(), payout({ amount: 5 }), payout()];
		const result = await run('disbursement-create.json', items);
		expect(result.error?.message).toBe('Nothing was paid: 1 of 3 rows is refused');
		expect(result.error?.description).toMatch(
			new RegExp(
				`^Row 2 \\(key ${String(items[1].key)}\\): Amount 5 is outside the MPESA limits 10-150000\\. To fix: Split [^<]*<br>\n`,
			),
		);
		expect(result.output('Little Pay')).toEqual([]);
		expect((await sb.received()).filter((r) => r.method === 'POST')).toEqual([]);
	});

	it("puts the row's key and its 1-based row number beside n8n's item index on every error item", async () => {
		const rows = [intent(), intent(), intent(), intent({ amount: 0 })];
		const result = await run('router-payment-intent.json', rows, { continueOnFail: true });
		expect(result.error).toBeUndefined();
		const output = result.output('Little Pay');
		expect(output[3].json).toEqual({
			error: "Row 4: Amount is 0 (the field's default): enter the amount",
			description: expect.any(String),
			key: rows[3].key,
			itemIndex: 3,
			row: 4,
			failureCode: 'invalid-input',
			retry: 'no',
			nextStep: expect.any(String),
			gateway: 'sandbox',
		});
		// A row with the Key left empty says so rather than inventing one.
		const keyless = await run('router-payment-intent.json', [intent({ key: '', amount: -1 })], {
			continueOnFail: true,
		});
		expect(keyless.output('Little Pay')[0].json).toMatchObject({ key: null, itemIndex: 0, row: 1 });
	});

	it('keeps a gateway error on its item too (an unknown payment among known ones)', async () => {
		const known = await sb.createIntent();
		const result = await run(
			'payment-get-status.json',
			[{ paymentId: known.key }, { paymentId: 'noSuchOrder9' }, { paymentId: known.reference }],
			{ continueOnFail: true },
		);
		expect(result.error).toBeUndefined();
		const output = result.output('Little Pay');
		expect(output.map((o) => o.json.status ?? o.json.error)).toEqual([
			'PENDING',
			'Little Pay has nothing at GET /api/payments-v2/noSuchOrder9 (HTTP 404, NOT_FOUND)',
			'PENDING',
		]);
		expect(output[1].json.description).toBe(
			'No payment or payout with this reference or key exists for this merchant',
		);
		// The error item names the payment it looked up, under the name the other items use.
		expect(output[1].json).toMatchObject({ reference: 'noSuchOrder9', itemIndex: 1, row: 2 });
	});
});

describe('Bad input fails the item before anything is sent', () => {
	const cases: Array<[string, string, Item, RegExp]> = [
		[
			'missing amount',
			'router-payment-intent.json',
			intent({ amount: undefined }),
			/^Row 1: Amount must be a positive number/,
		],
		[
			'malformed amount',
			'router-payment-intent.json',
			intent({ amount: '12abc' }),
			/^Row 1: Amount "12abc" has text beside the number: enter only the number/,
		],
		[
			'zero amount',
			'router-payment-intent.json',
			intent({ amount: 0 }),
			/^Row 1: Amount is 0 \(the field's default\): enter the amount/,
		],
		[
			'key with special characters',
			'router-payment-intent.json',
			intent({ key: 'order-1/2' }),
			/^Row 1: Key must contain only letters and digits/,
		],
		[
			'bad callback URL',
			'router-payment-intent.json',
			intent({ callbackUrl: 'not a url' }),
			/^Row 1: Callback URL is not an http\(s\) URL \(got "not a url"\)/,
		],
		[
			'bad payer number',
			'mobile-money-collect.json',
			{ amount: 100, network: 'MPESA', mobile: '07123' },
			/^Row 1: Mobile Number must have 9 digits after the country code 254/,
		],
		[
			'letters in the payer number',
			'mobile-money-collect.json',
			{ amount: 100, network: 'MPESA', mobile: 'call me' },
			/^Row 1: Mobile Number is not a phone number/,
		],
		[
			'bad payout number',
			'disbursement-create.json',
			payout({ to: '+256712345670' }),
			/^Row 1: Destination Number does not start with a country code that MPESA serves/,
		],
		[
			'payout key with special characters',
			'disbursement-create.json',
			payout({ key: 'pay out!' }),
			/^Row 1: Key must contain only letters and digits/,
		],
		[
			'malformed payout amount',
			'disbursement-create.json',
			payout({ amount: 'ten' }),
			/^Row 1: Amount must be a positive number/,
		],
		[
			'bad refund amount',
			'refund-create.json',
			{ paymentId: 'order1', amount: -1 },
			/^Row 1: Amount must be a positive number/,
		],
	];

	it.each(cases)('%s', async (_name, file, item, message) => {
		const result = await run(file, [item]);
		expect(result.error?.message).toMatch(message);
		expect(result.error?.description).toEqual(expect.any(String));
		expect(await sb.received()).toEqual([]);
	});

	it('amount outside the network limits: only the charges table is read, no payout is sent', async () => {
		const result = await run('disbursement-create.json', [payout({ amount: 200000 })]);
		expect(result.error?.message).toBe(
			'Row 1: Amount 200000 is outside the MPESA limits 10-150000',
		);
		expect((await sb.received()).map((r) => `${r.method} ${r.path}`)).toEqual([
			'GET /api/disbursements/charges',
		]);
	});
});

describe('Gateway errors become NodeApiErrors with a hint', () => {
	it('a wrong API key is a 401 with a hint about the credentials', async () => {
		const wrong = {
			...sb.credentials,
			littlePayApiKeyApi: { ...sb.credentials.littlePayApiKeyApi, apiKey: 'not-the-key' },
		};
		const result = await run('payment-get-status.json', [{ paymentId: 'order1' }], {
			credentials: wrong,
		});
		// The message leads with the credential by the name the merchant gave it (the engine names each
		// credential after its type), then the request and the status: Little Pay's words are not declared.
		expect(result.error).toMatchObject({
			name: 'NodeApiError',
			httpCode: '401',
			message: 'Little Pay refused the credential "littlePayApiKeyApi" (HTTP 401, UNAUTHORIZED)',
		});
		expect(result.error?.description).toBe(
			'Check the credentials: Little Pay refused the API key of the "Little Pay (API Key) API" credential. Open it under Credentials and paste the current key from the Little Pay dashboard: Merchants, Merchant Settings, Security tab (after a rotation only the new key works, and it is shown once).',
		);
		const sent = await sb.received();
		expect(sent).toEqual([
			expect.objectContaining({ path: '/api/payments-v2/order1', status: 401 }),
		]);
	});

	it('a wrong client secret on intent creation is a 401 too, and nothing is created', async () => {
		const wrong = {
			...sb.credentials,
			littlePayBasicApi: { ...sb.credentials.littlePayBasicApi, clientSecret: 'wrong' },
		};
		const item = intent();
		const result = await run('router-payment-intent.json', [item], { credentials: wrong });
		expect(result.error).toMatchObject({
			name: 'NodeApiError',
			httpCode: '401',
			message: expect.stringMatching(
				/^Little Pay refused the credential "littlePayBasicApi" \(HTTP 401/,
			),
		});
		expect(result.error?.description).toContain('Check the credentials');
		expect(result.error?.description).toContain(
			'"Little Pay (Client ID and Secret) API" credential',
		);
		expect((await ledger()).intents.filter((i) => i.key === item.key)).toEqual([]);
	});

	it('the same payout under a key used before is that payout (alreadyExisted), and no second payout exists', async () => {
		const item = payout();
		const first = await run('disbursement-create.json', [item]);
		expect(first.error).toBeUndefined();
		const second = await run('disbursement-create.json', [item]);
		expect(second.error).toBeUndefined();
		expect(second.output('Little Pay')[0].json).toMatchObject({
			id: first.output('Little Pay')[0].json.id,
			key: item.key,
			alreadyExisted: true,
		});
		expect((await ledger()).disbursements.filter((d) => d.key === item.key)).toHaveLength(1);
	});

	it('a 5xx on a read is retried (a 5xx on a payout is an unknown outcome: see recovery.test.ts)', async () => {
		await sb.post('/sandbox/faults', {
			rules: [{ method: 'GET', pathPrefix: '/api/disbursements/charges', status: 503, times: 1 }],
		});
		const quote = await run('disbursement-quote-fee.json', [{ method: 'MPESA', amount: 1000 }]);
		expect(quote.error).toBeUndefined();
		expect(quote.output('Little Pay')[0].json.fee).toBe(13);
		expect((await sb.received()).map((r) => r.status)).toEqual([503, 200]);
	});
});

describe('A create whose answer was lost is resolved by lookup', () => {
	const dropAfter = (pathPrefix: string) =>
		sb.post('/sandbox/faults', {
			rules: [{ method: 'POST', pathPrefix, drop: 'after', times: 1 }],
		});

	it.each([
		['a key you set', () => payout()],
		['a generated key', () => payout({ key: '' })],
	])('disbursement with %s: exactly one payout, output says recovered', async (_name, make) => {
		await dropAfter('/api/disbursements');
		const result = await run('disbursement-create.json', [make()]);
		expect(result.error).toBeUndefined();
		const out = result.output('Little Pay')[0].json;
		expect(out).toMatchObject({
			id: expect.any(String),
			recovered: true,
			to: '2547•••••670',
			amount: 500,
		});
		const mine = (await ledger()).disbursements.filter((d) => d.key === out.key);
		expect(mine).toHaveLength(1);
		expect(mine[0].id).toBe(out.id);
		const sent = await sb.received();
		expect(sent.filter((r) => r.method === 'POST')).toHaveLength(1);
		// A key from the data is looked up before sending too (an earlier run may have paid it).
		const lookups = sent.filter((r) => r.path === `/api/disbursements/${String(out.key)}`);
		expect(lookups.map((r) => r.status)).toEqual(_name === 'a key you set' ? [404, 200] : [200]);
	});

	it('payment intent: exactly one intent, output says recovered', async () => {
		await dropAfter('/api/payments/');
		const item = intent();
		const result = await run('router-payment-intent.json', [item]);
		expect(result.error).toBeUndefined();
		const out = result.output('Little Pay')[0].json;
		expect(out).toMatchObject({ key: item.key, recovered: true, reference: expect.any(String) });
		const mine = (await ledger()).intents.filter((i) => i.key === item.key);
		expect(mine).toHaveLength(1);
		expect(mine[0].reference).toBe(out.reference);
		expect((await sb.received()).filter((r) => r.method === 'POST')).toHaveLength(1);
	});

	it('a lost create that did not happen (dropped before handling) is not sent again: the lookup finding nothing proves nothing, so the item says the outcome is unknown', async () => {
		await sb.post('/sandbox/faults', {
			rules: [{ method: 'POST', pathPrefix: '/api/disbursements', drop: 'before', times: 1 }],
		});
		const item = payout();
		const result = await run('disbursement-create.json', [item]);
		expect(result.error?.message).toMatch(
			new RegExp(`^Row 1: the outcome of the payout is unknown \\(.*key ${String(item.key)}\\)$`),
		);
		expect((await sb.received()).map((r) => `${r.method} ${r.path}`)).toEqual([
			'GET /api/disbursements/charges',
			`GET /api/disbursements/${String(item.key)}`,
			'POST /api/disbursements',
			`GET /api/disbursements/${String(item.key)}`,
		]);
		expect((await ledger()).disbursements.filter((d) => d.key === item.key)).toHaveLength(0);
	});

	it.each([
		['the intent answer', '/api/payments/'],
		['the PIN prompt answer', '/pay/'],
	])(
		'Mobile Money Collect with %s lost: exactly one intent with one attempt, and the payment completes',
		async (_name, pathPrefix) => {
			await dropAfter(pathPrefix);
			const key = newKey('rcol');
			const result = await run('mobile-money-collect.json', [
				{ amount: 100, network: 'MPESA', mobile: '254712345670', key },
			]);
			expect(result.error).toBeUndefined();
			const mine = (await ledger()).intents.filter((i) => i.key === key);
			expect(mine).toHaveLength(1);
			expect(mine[0].attempts).toHaveLength(1);
			expect(result.output('Little Pay')[0].json).toMatchObject({
				reference: mine[0].reference,
				key,
				status: 'COMPLETED',
			});
			expect(
				(await sb.received()).filter((r) => r.method === 'POST' && r.path.startsWith(pathPrefix)),
			).toHaveLength(1);
		},
	);

	it.each([
		['the intent answer', '/api/payments/'],
		['the PIN prompt answer', '/pay/'],
	])(
		'Mobile Money Collect with %s lost says recovered in its output, as Create and Request Payment do',
		async (_name, pathPrefix) => {
			await dropAfter(pathPrefix);
			const result = await run('mobile-money-collect.json', [
				{ amount: 100, network: 'MPESA', mobile: '254712345670', key: newKey('rcol') },
			]);
			expect(result.error).toBeUndefined();
			expect(result.output('Little Pay')[0].json).toMatchObject({
				status: 'COMPLETED',
				recovered: true,
			});
		},
	);

	it('Mobile Money Request Payment with the prompt answer lost: one attempt, output says recovered', async () => {
		const existing = await sb.createIntent();
		await dropAfter('/pay/');
		const result = await run('mobile-money-request-payment.json', [
			{ reference: existing.reference, network: 'MPESA', mobile: '254712345670' },
		]);
		expect(result.error).toBeUndefined();
		expect(result.output('Little Pay')[0].json).toMatchObject({
			reference: existing.reference,
			recovered: true,
		});
		expect((await sb.status(existing.key)).attempts).toHaveLength(1);
	});
});

describe('the exit the router opens', () => {
	it('every execution hint passes through it, whoever adds it: a number in one is masked', async () => {
		const { openExit } = await import('../../nodes/LittlePay/flows/output');
		const shown: Array<{ message: string }> = [];
		const context = {
			getNode: () => ({ name: 'Little Pay', parameters: {}, credentials: {} }),
			getInputData: () => [],
			addExecutionHints: (...hints: Array<{ message: string }>) => shown.push(...hints),
		};
		await openExit(context as never);
		// As an operation adds it (a run summary), not through the exit's own functions.
		(context as { addExecutionHints: (hint: object) => void }).addExecutionHints({
			message: 'Row 2 (to +254 712 345 670) needs a look',
			type: 'info',
			location: 'outputPane',
		});
		expect(shown).toEqual([
			{ message: 'Row 2 (to +254 7•• ••• 670) needs a look', type: 'info', location: 'outputPane' },
		]);
	});
});

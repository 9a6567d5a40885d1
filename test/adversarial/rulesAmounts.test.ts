// The prepare step's rules through the real engine against the sandbox: an odd amount, a currency the
// number's wallet does not hold, a national number read in a country its network does not serve are
// refused before anything is sent, by Pay Out (dry run and real run), Collect and Payment Intent: Create,
// each with the message that says what is wrong with that value; and the limits count in minor units.
import type { WorkflowJson } from '../../testkit/engine';
import { loadFixture, runWorkflow } from '../../testkit/engine';
import { useNodeTestSandbox } from '../../testkit/nodeSandbox';
import { newKey } from '../../testkit/sandbox';

const sb = useNodeTestSandbox({ pinDelayMs: 50, longPollTimeoutMs: 300 });

type Item = Record<string, unknown>;

const KE_WALLET = '254712345670';

/** Each case: what the row (or collection) gives, and the message its refusal must carry, whole. */
const CASES: Array<[string, Item, string]> = [
	[
		'hexadecimal',
		{ amount: '0x3E8' },
		'Amount "0x3E8" is written in hexadecimal (it would be 1000): an amount is decimal digits',
	],
	['exponent', { amount: '1e3' }, 'Amount "1e3" is in exponent notation: write 1000'],
	[
		'spaced thousands',
		{ amount: ' 1 000' },
		'Amount " 1 000" has a thousands separator: write 1000',
	],
	['thousands comma', { amount: '1,500' }, 'Amount "1,500" has a thousands comma: write 1500'],
	['decimal comma', { amount: '1500,50' }, 'Amount "1500,50" has a decimal comma: write 1500.50'],
	['minus zero', { amount: '-0' }, 'Amount must be a positive number (got "-0")'],
	['infinite', { amount: 'Infinity' }, 'Amount "Infinity" is not an amount (infinite)'],
	[
		'too large',
		{ amount: 1e21 },
		'Amount 1e+21 is too large for an amount (at most 12 digits before the point)',
	],
	[
		'a currency in it',
		{ amount: 'KES 1500' },
		'Amount "KES 1500" has text beside the number: enter only the number',
	],
	[
		'too many decimals',
		{ amount: 150.123456 },
		'Amount 150.123456 has 6 decimals: KES takes at most 2',
	],
	[
		'decimals UGX has not',
		{ amount: 1000.5, currency: 'UGX', network: 'AIRTEL', number: '256712345670' },
		'Amount 1000.5 has 1 decimal: UGX has no decimals',
	],
	[
		'UGX to a Kenyan M-Pesa number',
		{ amount: 1000, currency: 'UGX' },
		"Currency UGX is not the currency of the NUMBER's wallet: a Kenyan number (254) on MPESA holds KES",
	],
	[
		'GHS to a Tanzanian M-Pesa number',
		{ amount: 1000, currency: 'GHS', number: '255712345670' },
		"Currency GHS is not the currency of the NUMBER's wallet: a Tanzanian number (255) on MPESA holds TZS",
	],
	[
		'a national number read in Uganda, on M-Pesa',
		{ amount: 1000, currency: 'UGX', number: '0712345670', country: 'UG' },
		'NUMBER is read as a Ugandan number (Country UG), and MPESA serves only Kenya and Tanzania',
	],
];

function payOut(rows: Item[], checkOnly: boolean): WorkflowJson {
	return loadFixture('disbursement-create.json', {
		ITEMS: JSON.stringify(
			rows.map(({ network, number, ...row }) => ({
				method: network ?? 'MPESA',
				to: number ?? KE_WALLET,
				key: newKey('rule'),
				checkOnly,
				...row,
			})),
		),
		ON_ERROR: 'stopWorkflow',
	});
}

async function posts() {
	return (await sb.received()).filter((r) => r.method === 'POST');
}

describe('Pay Out refuses each odd row before anything is sent, saying what is wrong with it', () => {
	it.each(CASES)('%s: dry run', async (_name, given, message) => {
		await sb.received();
		const result = await runWorkflow(payOut([given], true), { credentials: sb.credentials });
		expect(result.error).toBeUndefined();
		const [row] = result.output('Little Pay').map((o) => o.json);
		expect(row).toMatchObject({
			valid: false,
			reason: message.replace('NUMBER', 'Destination Number'),
		});
		expect(await posts()).toEqual([]);
	});

	it.each(CASES)('%s: real run', async (_name, given, message) => {
		await sb.received();
		const workflow = payOut([{ amount: 1000 }, given], false);
		const result = await runWorkflow(workflow, { credentials: sb.credentials });
		expect(result.error?.message).toBe('Nothing was paid: 1 of 2 rows is refused');
		// One row a line (n8n's error panel renders <br>), the row's own fix beside it.
		const line = String(result.error?.description).split('<br>\n')[0];
		expect(line).toMatch(/^Row 2 \(key rule\w+\): /);
		const said = message.replace('NUMBER', 'Destination Number');
		const rest = line.replace(/^Row 2 \(key rule\w+\): /, '');
		expect(rest.slice(0, said.length)).toBe(said);
		expect(rest.slice(said.length)).toMatch(/^\.? To fix: \S/);
		// The good row was not paid either: nothing is sent while a row is wrong.
		expect(await posts()).toEqual([]);
	});

	it('pays what passes, as the value says: "12.500" is 12.5, UGX 1000.00 to a Ugandan wallet is UGX 1000', async () => {
		await sb.received();
		const result = await runWorkflow(
			payOut(
				[
					{ amount: '12.500' },
					{ amount: '1000.00', currency: 'UGX', network: 'AIRTEL', number: '+256 712 345 670' },
					{ amount: ' 1500 ', currency: 'tzs', number: '0712345670', country: 'TZ' },
				],
				false,
			),
			{ credentials: sb.credentials },
		);
		expect(result.error).toBeUndefined();
		const sent = (await posts()).map((r) => r.body as Item);
		expect(sent.map((b) => [b.amount, b.currency, b.method])).toEqual([
			[12.5, 'KES', 'MPESA'],
			[1000, 'UGX', 'AIRTEL'],
			[1500, 'TZS', 'MPESA'],
		]);
	});
});

describe('Collect and Payment Intent: Create refuse the same values before any request', () => {
	function collect(given: Item): WorkflowJson {
		const { network, number, ...rest } = given;
		return loadFixture('mobile-money-collect.json', {
			ITEMS: JSON.stringify([
				{
					network: network ?? 'MPESA',
					mobile: number ?? KE_WALLET,
					key: newKey('rule'),
					wait: false,
					...rest,
				},
			]),
			ON_ERROR: 'stopWorkflow',
		});
	}

	it.each(CASES)('Collect, %s', async (_name, given, message) => {
		await sb.received();
		const result = await runWorkflow(collect(given), { credentials: sb.credentials });
		expect(result.error?.message).toBe(`Row 1: ${message.replace('NUMBER', 'Mobile Number')}`);
		// No intent, no prompt: not even the token request reached the gateway.
		expect(await sb.received()).toEqual([]);
	});

	// An intent has no network: the payer picks on the checkout page. Its amount and currency still hold.
	const intentCases = CASES.filter(([, given]) => given.number === undefined && !given.currency);
	it.each([
		...intentCases,
		[
			'decimals UGX has not',
			{ amount: '100.5', currency: 'UGX' },
			'Amount "100.5" has 1 decimal: UGX has no decimals',
		] as [string, Item, string],
	])('Payment Intent: Create, %s', async (_name, given, message) => {
		await sb.received();
		const workflow = loadFixture('router-payment-intent.json', {
			ITEMS: JSON.stringify([
				{ callbackUrl: 'http://127.0.0.1:9/callback', key: newKey('rule'), ...given },
			]),
			ON_ERROR: 'stopWorkflow',
		});
		for (const node of workflow.nodes)
			if (node.name === 'Little Pay') node.parameters.currency = "={{ $json.currency ?? 'KES' }}";
		const result = await runWorkflow(workflow, { credentials: sb.credentials });
		expect(result.error?.message).toBe(`Row 1: ${message}`);
		expect(await sb.received()).toEqual([]);
	});
});

describe('Spending limits count money in minor units (#18)', () => {
	function limited(rows: Item[]) {
		const workflow = payOut(rows, true);
		for (const node of workflow.nodes)
			if (node.name === 'Little Pay')
				node.parameters.spendingLimits = { maxTotalPerExecution: 1001 };
		return runWorkflow(workflow, { credentials: sb.credentials });
	}

	it('ten payouts of 100.10 under Max Total per Execution 1001 are all allowed; 1001.01 is refused', async () => {
		const exact = await limited(Array.from({ length: 10 }, () => ({ amount: 100.1 })));
		expect(exact.error).toBeUndefined();
		const rows = exact.output('Little Pay').map((o) => o.json);
		expect(rows.slice(0, 10).map((r) => r.valid)).toEqual(Array(10).fill(true));

		const over = await limited([
			...Array.from({ length: 9 }, () => ({ amount: 100.1 })),
			{ amount: 100.11 },
		]);
		const refused = over.output('Little Pay').map((o) => o.json);
		expect(refused.slice(0, 10).map((r) => r.valid)).toEqual([...Array(9).fill(true), false]);
		expect(String(refused[9].reason)).toBe(
			"KES 100.11 would bring the total of this execution to KES 1,001.01, above the maximum of KES 1,001 (set on this node's Spending Limits; KES 900.9 already moved)",
		);
		expect(await posts()).toEqual([]);
	});
});

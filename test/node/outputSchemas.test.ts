// Output schemas: n8n's editor shows a node's fields before its first run from the schema the package
// ships for the operation (`__schema__/v1.0.0/<resource>/<operation>.json` beside the node). Each one
// is derived here from real outputs against the sandbox, a paid and a failed run where the fields
// differ, so a changed output without its schema fails; `npm run schemas` (UPDATE_SCHEMAS=1) writes them.
import {
	existsSync,
	mkdirSync,
	readdirSync,
	readFileSync,
	unlinkSync,
	writeFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';

import { OPERATIONS } from '../../nodes/LittlePay/actions/registry';
import type { RegisteredOperation } from '../../nodes/LittlePay/actions/registry';
import { loadFixture, runWorkflow } from '../../testkit/engine';
import type { RunResult } from '../../testkit/engine';
import { useNodeTestSandbox } from '../../testkit/nodeSandbox';
import { schemaOfItems, schemaPath, schemaText } from '../../testkit/outputSchema';
import { newKey, waitFor } from '../../testkit/sandbox';

jest.setTimeout(60000);

const UPDATE = process.env.UPDATE_SCHEMAS === '1';
const ROOT = join(__dirname, '..', '..');
const NODE_DIR = join(ROOT, 'nodes', 'LittlePay');

const sb = useNodeTestSandbox({ pinDelayMs: 50, longPollTimeoutMs: 300 });

type Json = Record<string, unknown>;

/** Runs a fixture with the items; a sample must succeed, so a stopped run fails the test at once. */
async function run(file: string, items: Json[]): Promise<RunResult> {
	const result = await runWorkflow(
		loadFixture(file, { ITEMS: JSON.stringify(items), ON_ERROR: 'stopWorkflow' }),
		{ credentials: sb.credentials },
	);
	if (result.error) throw new Error(`${file} stopped: ${result.error.message}`);
	return result;
}

function jsonOf(result: RunResult, node = 'Little Pay'): Json[] {
	return result.output(node).map((item) => item.json as Json);
}

/** An intent with an M-Pesa attempt by a number ending in `lastDigit` (0 pays, 1 and 2 fail, 3 never answers). */
async function intentWithAttempt(lastDigit: number) {
	const intent = await sb.createIntent({ amount: 1500 });
	const res = await sb.post(`/pay/${intent.reference}/process`, {
		type: 'MPESA',
		payment: { mobile: `25471234567${lastDigit}` },
	});
	if (res.status !== 200) throw new Error(`process: ${res.status}`);
	if (lastDigit !== 3)
		await waitFor('the attempt to settle', async () =>
			(await sb.status(intent.key)).status !== 'PENDING' ? true : undefined,
		);
	return intent;
}

/** A payment that failed for good: its attempt failed and the intent expired. */
async function failedForGood() {
	const intent = await intentWithAttempt(1);
	await sb.post(`/sandbox/payments/${intent.reference}/expire`);
	return intent;
}

/** A payout sent straight to the gateway to a number ending in `lastDigit` (0 pays, 1 and 2 fail), once settled. */
async function settledPayout(lastDigit: number): Promise<string> {
	const key = newKey('schema');
	await sb.createPayout({ key, to: `25471234567${lastDigit}` });
	await sb.payoutSettled(key);
	return key;
}

const card = (reference: string, cardNumber: string): Json => ({
	reference,
	cardNumber,
	cvv: '737',
	expiry: '01/39',
	name: 'Amina Wanjiru',
});

/** The card flows run once for the five card operations: paid, declined and not enrolled; and a challenge. */
const cardRuns = (() => {
	let runs: Promise<{ frictionless: RunResult; stepUp: RunResult }> | undefined;
	return () =>
		(runs ??= (async () => {
			const [paid, declined, notEnrolled, challenged] = await Promise.all(
				Array.from({ length: 4 }, () => sb.createIntent()),
			);
			const frictionless = await run('card-frictionless.json', [
				card(paid.reference, '4111111111111111'),
				card(declined.reference, '4000000000000002'),
				card(notEnrolled.reference, '4000000000000010'),
			]);
			const stepUp = await run('card-step-up.json', [
				card(challenged.reference, '5200000000002151'),
			]);
			return { frictionless, stepUp };
		})());
})();

const intentItem = (key: string): Json => ({
	amount: 1500,
	description: 'Order 1',
	callbackUrl: 'http://127.0.0.1:9/callback',
	key,
	email: 'amina@example.com',
});

const payer = (mobile: string): Json => ({
	amount: 1500,
	network: 'MPESA',
	mobile,
	key: newKey('schema'),
});

/**
 * Each operation's sample outputs, with the node's defaults (Simplify on, no gateway record, no dry
 * run): a success, and where the output has more fields then, a failure, a timeout and a second run
 * of the same key. Options that only add fields to the same vocabulary (a payout's Wait for Result)
 * are sampled too; those that return another shape (Simplify off, Check Only) are not.
 */
const SAMPLES: Record<string, () => Promise<Json[]>> = {
	'paymentIntent:create': async () => {
		const key = newKey('schema');
		const first = await run('payment-intent-create.json', [intentItem(key)]);
		const again = await run('payment-intent-create.json', [intentItem(key)]);
		return [...jsonOf(first), ...jsonOf(again)];
	},
	'mobileMoney:collect': async () =>
		jsonOf(
			await run('mobile-money-collect.json', [
				payer('254712345670'),
				payer('254712345671'),
				payer('254712345672'),
			]),
		),
	'mobileMoney:requestPayment': async () => {
		const intent = await sb.createIntent();
		const item = { reference: intent.reference, network: 'MPESA', mobile: '254712345673' };
		const prompted = await run('mobile-money-request-payment.json', [item]);
		const again = await run('mobile-money-request-payment.json', [item]);
		return [...jsonOf(prompted), ...jsonOf(again)];
	},
	'payment:getStatus': async () => {
		const payments = [await intentWithAttempt(0), await failedForGood()];
		return jsonOf(
			await run(
				'payment-get-status.json',
				payments.map((p) => ({ paymentId: p.key })),
			),
		);
	},
	'payment:reconcile': async () => {
		const payments = [
			await intentWithAttempt(0),
			await failedForGood(),
			await intentWithAttempt(2),
			await intentWithAttempt(3),
		];
		return jsonOf(
			await run(
				'payment-reconcile.json',
				// The schema describes the node's own fields, not the input fields a row carries through.
				payments.map((p) => ({ paymentId: p.key, includeInputFields: false })),
			),
		);
	},
	'payment:waitForCompletion': async () => {
		const paid = await intentWithAttempt(0);
		const failed = await failedForGood();
		// Failed once but still payable: the wait ends at its timeout with payable: true.
		const payable = await intentWithAttempt(2);
		return jsonOf(
			await run('payment-wait-for-completion.json', [
				{ paymentId: paid.key, timeout: 30 },
				{ paymentId: failed.key, timeout: 30 },
				{ paymentId: payable.key, timeout: 1 },
			]),
		);
	},
	'refund:create': async () => {
		const full = await intentWithAttempt(0);
		const rejected = await intentWithAttempt(0);
		// The sandbox refuses the reversal of a refund whose reason says "fail": a FAILED refund.
		return jsonOf(
			await run('refund-create.json', [
				{ paymentId: full.reference },
				{ paymentId: rejected.reference, amount: 100, reason: 'fail on purpose' },
			]),
		);
	},
	'disbursement:create': async () => {
		const item = { method: 'MPESA', amount: 500, to: '254712345670', key: newKey('schema') };
		const first = await run('disbursement-create.json', [item]);
		const again = await run('disbursement-create.json', [item]);
		// Wait for Result adds the settled outcome (reason, settledAt, timedOut, a failure's code): a
		// payout that pays and one the wallet rejects.
		const settled = await run(
			'disbursement-create.json',
			['254712345670', '254712345671'].map((to) => ({
				method: 'MPESA',
				amount: 500,
				to,
				key: newKey('schema'),
				wait: true,
				waitTimeout: 8,
			})),
		);
		return [...jsonOf(first), ...jsonOf(again), ...jsonOf(settled)];
	},
	'disbursement:get': async () => {
		const keys = [await settledPayout(0), await settledPayout(2)];
		return jsonOf(
			await run(
				'disbursement-get.json',
				keys.map((id) => ({ id })),
			),
		);
	},
	'disbursement:getCharges': async () => jsonOf(await run('disbursement-get-charges.json', [{}])),
	'disbursement:quoteFee': async () =>
		jsonOf(
			await run('disbursement-quote-fee.json', [
				{ method: 'MPESA', amount: 1000 },
				// Over the network's maximum: no fee.
				{ method: 'TIGOPESA', amount: 3500000 },
			]),
		),
	'disbursement:reconcile': async () => {
		const keys = [await settledPayout(0), await settledPayout(1)];
		return jsonOf(
			await run(
				'disbursement-reconcile.json',
				keys.map((id) => ({ id, includeInputFields: false })),
			),
		);
	},
	'disbursement:waitForSettlement': async () => {
		const keys = [await settledPayout(0), await settledPayout(1)];
		return jsonOf(
			await run(
				'disbursement-wait-for-settlement.json',
				keys.map((id) => ({ id, waitTimeout: 8 })),
			),
		);
	},
	'card:getDeviceDataCollectionToken': async () =>
		jsonOf((await cardRuns()).frictionless, 'Card Token'),
	'card:buildDeviceDataCollectionPage': async () =>
		jsonOf((await cardRuns()).frictionless, 'Device Page'),
	'card:checkEnrolment': async () => {
		const { frictionless, stepUp } = await cardRuns();
		return [...jsonOf(frictionless, 'Enrolment'), ...jsonOf(stepUp, 'Enrolment')];
	},
	'card:buildStepUpPage': async () => jsonOf((await cardRuns()).stepUp, 'Step-Up Page'),
	'card:processPayment': async () => jsonOf((await cardRuns()).frictionless, 'Process'),
};

function rel(path: string): string {
	return relative(ROOT, path);
}

/** Every .json file under the node's __schema__ folder. */
function schemaFiles(dir = join(NODE_DIR, '__schema__')): string[] {
	if (!existsSync(dir)) return [];
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
		entry.isDirectory()
			? schemaFiles(join(dir, entry.name))
			: entry.name.endsWith('.json')
				? [join(dir, entry.name)]
				: [],
	);
}

describe('output schemas', () => {
	it('has a sample run for every operation of the registry, and for nothing else', () => {
		expect(Object.keys(SAMPLES).sort()).toEqual(OPERATIONS.map((o) => o.id).sort());
	});

	it.each(OPERATIONS.map((o): [string, RegisteredOperation] => [o.id, o]))(
		'%s: the committed schema is the schema of its outputs',
		async (id, { resource, operation }) => {
			const sample = SAMPLES[id];
			if (!sample) throw new Error(`No sample run for ${id}`);
			const outputs = await sample();
			// A sample is successful outputs only: an error item's fields are not the operation's.
			expect(outputs.filter((json) => 'error' in json)).toEqual([]);
			const derived = schemaOfItems(outputs);
			const file = schemaPath(NODE_DIR, resource, operation);
			if (UPDATE) {
				mkdirSync(dirname(file), { recursive: true });
				writeFileSync(file, schemaText(derived));
				return;
			}
			if (!existsSync(file))
				throw new Error(`${rel(file)} is missing: run \`npm run schemas\` and commit it`);
			const committed: unknown = JSON.parse(readFileSync(file, 'utf8'));
			try {
				expect(committed).toEqual(derived);
			} catch (error) {
				throw new Error(
					`${rel(file)} is not the schema of what ${id} outputs now: run \`npm run schemas\` and commit it\n\n${(error as Error).message}`,
				);
			}
		},
	);

	it('ships one schema file per operation and none for an operation that does not exist', () => {
		// Beside them, the trigger's, one per version (test/trigger/outputSchema.test.ts).
		const trigger = ['v1.0.0.json', 'v2.0.0.json'].map((f) => join(NODE_DIR, '__schema__', f));
		const expected = [
			...OPERATIONS.map((o) => schemaPath(NODE_DIR, o.resource, o.operation)),
			...trigger,
		].sort();
		const stale = schemaFiles().filter((file) => !expected.includes(file));
		// Writing the schemas also removes those of operations that are gone.
		if (UPDATE) for (const file of stale) unlinkSync(file);
		else if (stale.length > 0)
			throw new Error(
				`Schemas of no operation: ${stale.map(rel).join(', ')}: run \`npm run schemas\` and commit the removal`,
			);
		expect(schemaFiles().sort()).toEqual(expected);
	});
});

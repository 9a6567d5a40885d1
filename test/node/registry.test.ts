// The operation registry: every operation declares what the node's tables need beside its parameters,
// and the subtitle, row keys, money fields and credential rules are derived from it. These tests fail
// when an operation is added without a subtitle, a row key or its money fields.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

import type { INodeProperties } from 'n8n-workflow';

import { LittlePay } from '../../nodes/LittlePay/LittlePay.node';
import {
	MONEY_OPERATIONS,
	OPERATIONS,
	showForOperations,
} from '../../nodes/LittlePay/actions/registry';
import type { RegisteredOperation } from '../../nodes/LittlePay/actions/registry';
import { loadFixture, runWorkflow } from '../../testkit/engine';
import { useNodeTestSandbox } from '../../testkit/nodeSandbox';

const description = new LittlePay().description;

/** The canvas subtitle n8n shows for an operation: the node's subtitle expression, evaluated. */
function canvasSubtitle(o: RegisteredOperation, parameters: Record<string, unknown> = {}): unknown {
	const expression = String(description.subtitle)
		.replace(/^=\{\{/, '')
		.replace(/\}\}$/, '');
	const evaluate = new Function('$parameter', `return (${expression});`) as (
		p: Record<string, unknown>,
	) => unknown;
	return evaluate({ resource: o.resource, operation: o.operation, ...parameters });
}

/** The properties shown for an operation (top-level show rules on resource, operation and @tool). */
function shownFor(o: RegisteredOperation, tool: boolean): INodeProperties[] {
	const values: Record<string, unknown> = {
		resource: o.resource,
		operation: o.operation,
		'@tool': tool,
	};
	return description.properties.filter((p) =>
		['resource', 'operation', '@tool'].every((key) => {
			const allowed = p.displayOptions?.show?.[key] as unknown[] | undefined;
			return allowed === undefined || allowed.includes(values[key]);
		}),
	);
}

/** Operations that act on no payment or payout, so an error row has nothing to be named by. */
const WITHOUT_ROW = ['disbursement:getCharges', 'disbursement:quoteFee'];

describe('the operation registry', () => {
	it('lists every operation file of every resource, and the selectors offer exactly those', () => {
		// Counted from the files, so a new operation only needs its file and its resource's line.
		const actions = join(__dirname, '../../nodes/LittlePay/actions');
		const files = readdirSync(actions, { withFileTypes: true })
			.filter((entry) => entry.isDirectory())
			.flatMap((dir) =>
				readdirSync(join(actions, dir.name))
					.filter((file) => file.endsWith('.operation.ts'))
					.map((file) => `${dir.name}:${file.replace('.operation.ts', '')}`),
			);
		expect(files.length).toBeGreaterThan(0);
		expect(OPERATIONS.map((o) => o.id).sort()).toEqual(files.sort());
		const selectors = description.properties.filter((p) => p.name === 'operation');
		const offered = selectors.flatMap((s) =>
			(s.options as Array<{ value: string }>).map(
				(option) => `${String(s.displayOptions?.show?.resource)}:${option.value}`,
			),
		);
		expect(offered.sort()).toEqual(OPERATIONS.map((o) => o.id).sort());
	});

	it.each(OPERATIONS.map((o) => [o.id, o]))('%s has a canvas subtitle in words', (_id, o) => {
		expect(canvasSubtitle(o)).toBe(o.run.meta.subtitle);
		expect(o.run.meta.subtitle).toMatch(/ · /);
		// n8n 2.41's canvas cuts a subtitle after about 29 characters (the editor suite measures it).
		expect(o.run.meta.subtitle.length).toBeLessThanOrEqual(29);
	});

	it.each(OPERATIONS.map((o) => [o.id, o]))(
		'%s names an error row by one of its own parameters',
		(id, o) => {
			if (WITHOUT_ROW.includes(id)) {
				expect(o.run.meta.rowKey).toBeUndefined();
				return;
			}
			expect(o.run.meta.rowKey).toBeDefined();
			const names = shownFor(o, false).map((p) => p.name);
			expect(names).toContain(o.run.meta.rowKey!.parameter);
		},
	);

	it.each(MONEY_OPERATIONS.map((o) => [o.id, o]))(
		'%s shows its money fields before its Options, and a tool description that says what it does',
		(_id, o) => {
			const inWorkflow = shownFor(o, false).map((p) => p.name);
			expect(inWorkflow).toContain('spendingLimits');
			expect(inWorkflow).not.toContain('allowMoneyMoves');
			const asTool = shownFor(o, true);
			const names = asTool.map((p) => p.name);
			expect(names).toEqual(
				expect.arrayContaining([
					'moneyMovesOffNotice',
					'allowMoneyMoves',
					'spendingLimits',
					'toolDescription',
				]),
			);
			if (names.includes('options')) {
				expect(names.indexOf('spendingLimits')).toBeLessThan(names.indexOf('options'));
				expect(names.indexOf('options')).toBe(names.length - 1);
			}
			expect(o.run.meta.toolSummary).toMatch(/^[A-Z].+\.$/);
			const tool = asTool.find((p) => p.name === 'toolDescription')!;
			expect(String(tool.default)).toContain(String(o.run.meta.toolSummary));
		},
	);

	it('shows the money notices and the Client ID credential for exactly the operations that declare them', () => {
		const within = (show: { resource: string[]; operation: string[] }) =>
			OPERATIONS.filter(
				(o) => show.resource.includes(o.resource) && show.operation.includes(o.operation),
			).map((o) => o.id);
		expect(within(showForOperations(MONEY_OPERATIONS))).toEqual(MONEY_OPERATIONS.map((o) => o.id));
		const basic = description.credentials!.find((c) => c.name === 'littlePayBasicApi')!;
		const shown = basic.displayOptions!.show as { resource: string[]; operation: string[] };
		expect(within(shown).sort()).toEqual(['mobileMoney:collect', 'paymentIntent:create']);
	});

	it('names payouts "payout" in the resource list and every action, and keeps each operation description whole in the dropdown (under 120 characters)', () => {
		const selectors = description.properties.filter((p) => p.name === 'operation');
		const options = selectors.flatMap(
			(s) => s.options as Array<{ name: string; action: string; description: string }>,
		);
		const resources = description.properties.find((p) => p.name === 'resource')!.options as Array<{
			name: string;
			value: string;
		}>;
		expect(resources.find((r) => r.value === 'disbursement')?.name).toBe('Payout');
		expect(options.map((o) => o.action).filter((a) => /disbursement/i.test(a))).toEqual([]);
		expect(options.map((o) => o.action)).toEqual(
			expect.arrayContaining(['Get a payout', 'Wait for payouts to settle', 'Reconcile payouts']),
		);
		expect(options.filter((o) => o.description.length >= 120).map((o) => o.description)).toEqual(
			[],
		);
	});

	it('shows every Options collection last in its panel, without re-sorting the property list', () => {
		for (const o of OPERATIONS) {
			for (const tool of [false, true]) {
				const names = shownFor(o, tool).map((p) => p.name);
				if (names.includes('options')) expect(names.at(-1)).toBe('options');
			}
		}
	});
});

describe('Disbursement: Wait for Settlement, once missing from two tables', () => {
	const sb = useNodeTestSandbox({ pinDelayMs: 50, longPollTimeoutMs: 400 });

	it('has its canvas subtitle', () => {
		const wait = OPERATIONS.find((o) => o.id === 'disbursement:waitForSettlement')!;
		expect(canvasSubtitle(wait)).toBe('Wait for Settlement · Payout');
	});

	it('a dry run of Pay Out says Check Only on the canvas', () => {
		const payOut = OPERATIONS.find((o) => o.id === 'disbursement:create')!;
		expect(canvasSubtitle(payOut, { checkOnly: true })).toBe('Check Only · Payout');
		expect(canvasSubtitle(payOut, { checkOnly: false })).toBe('Pay Out · Payout');
	});

	it('names its Continue On Fail error rows by the payout id they looked up', async () => {
		const result = await runWorkflow(
			loadFixture('disbursement-wait-for-settlement.json', {
				ITEMS: JSON.stringify([{ id: 'noSuchPayout7', timeout: 5 }]),
				ON_ERROR: 'continueRegularOutput',
			}),
			{ credentials: sb.credentials },
		);
		expect(result.error).toBeUndefined();
		expect(result.output('Little Pay')[0].json).toMatchObject({
			id: 'noSuchPayout7',
			itemIndex: 0,
			row: 1,
		});
		expect(String(result.output('Little Pay')[0].json.error)).toMatch(/noSuchPayout7/);
	});
});

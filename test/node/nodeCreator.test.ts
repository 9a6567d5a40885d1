// What n8n's node creator shows for the package. n8n 2.41 lists the Little Pay node and its trigger as
// ONE entry (its generateMergedNodesAndActions merges "xTrigger" into "x"): the entry is searched by the
// Little Pay node's codex aliases only, and described by the trigger's description. So the trigger's
// aliases must be in the node's codex, and the trigger's description must say what both nodes do.
// test/e2e/editor.e2e.test.ts checks the same in the real editor.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { LittlePay } from '../../nodes/LittlePay/LittlePay.node';
import { LittlePayTrigger } from '../../nodes/LittlePay/LittlePayTrigger.node';

const codex = (file: string) =>
	JSON.parse(readFileSync(join(__dirname, '../../nodes/LittlePay', file), 'utf8')) as {
		alias: string[];
	};

const aliases = codex('LittlePay.node.json').alias.map((a) => a.toLowerCase());
const node = new LittlePay().description;
const trigger = new LittlePayTrigger().description;

/** Every action label of the node's operation selectors, as the node creator lists them. */
const actions = node.properties
	.filter((p) => p.name === 'operation')
	.flatMap((p) => (p.options as Array<{ action: string }>).map((o) => o.action));

describe("the node creator's one Little Pay entry", () => {
	it("is found by every action's own words (without a card step's number)", () => {
		expect(actions).toHaveLength(18);
		const missing = actions
			.map((action) => action.replace(/ \(step \d of 5\)$/, ''))
			.filter((action) => !aliases.includes(action.toLowerCase()));
		expect(missing).toEqual([]);
	});

	it('is found by the words merchants type for payouts and their settlement', () => {
		for (const words of ['settlement', 'payout status', 'pending', 'pending payout', 'payout'])
			expect(aliases).toContain(words);
	});

	it("is found by the trigger's own aliases too: n8n searches the merged entry by the node's codex only", () => {
		const missing = codex('LittlePayTrigger.node.json').alias.filter(
			(a) => !aliases.includes(a.toLowerCase()),
		);
		expect(missing).toEqual([]);
	});

	it('is described by words that fit both nodes, whatever the search matched', () => {
		const description = String(trigger.description);
		for (const words of [/collect/i, /card/i, /refund/i, /pay out/i, /callbacks/i])
			expect(description).toMatch(words);
		expect(description).not.toMatch(/disbursement/i);
		// n8n shows two lines under the name; a longer description is cut.
		expect(description.length).toBeLessThan(110);
	});
});

// The examples point at each other in their sticky notes and e-mails ("example 11's Refund Callbacks"). A
// pointer to the wrong example sends a merchant looking for a trigger or a statement that is not there:
// each pointer must name the example that holds the node it speaks of. The demo's mailbox page too.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import axios from 'axios';

import { startMailSink } from '../../testkit/mailSink';

const DIR = join(__dirname, '../../examples/workflows');

interface Example {
	number: number;
	nodes: string[];
	text: string;
}

const examples: Example[] = readdirSync(DIR)
	.filter((file) => file.endsWith('.json'))
	.map((file) => {
		const workflow = JSON.parse(readFileSync(join(DIR, file), 'utf8')) as {
			nodes: Array<{ name: string; type: string }>;
		};
		return {
			number: Number(file.split('-')[0]),
			nodes: workflow.nodes
				.filter((n) => n.type !== 'n8n-nodes-base.stickyNote')
				.map((n) => n.name),
			text: readFileSync(join(DIR, file), 'utf8'),
		};
	});

/** What a pointer speaks of, and the node that makes an example the one holding it. */
const POINTERS: Array<[RegExp, string]> = [
	[/[Ee]xample (\d+)'s \*\*Refund Callbacks\*\*/g, 'Refund Callbacks'],
	[/[Ee]xample (\d+)'s daily statement/g, 'Every Day at 18:00'],
	[/[Ee]xample (\d+)'s sweep closes the PENDING/g, 'Ask Little Pay About Payouts'],
	[/[Ee]xample (\d+)'s sweep names the ones whose callback never came/g, 'Say Why It Is Open'],
];

function holder(node: string): number {
	const found = examples.filter((e) => e.nodes.includes(node));
	expect(found).toHaveLength(1);
	return found[0].number;
}

/** Every pointer in a text that names another example than the one holding its node. */
function wrongPointers(text: string): string[] {
	return POINTERS.flatMap(([pattern, node]) =>
		[...text.matchAll(pattern)]
			.filter((match) => Number(match[1]) !== holder(node))
			.map((match) => `${match[0]} (it is example ${holder(node)}'s)`),
	);
}

describe("the examples' pointers to each other", () => {
	it('name the example that holds the refund callbacks, the daily statement and the sweeps', () => {
		const pointers = examples.flatMap((e) =>
			POINTERS.flatMap(([pattern]) => [...e.text.matchAll(pattern)]),
		);
		// Examples 3 and 4 point at example 11 three times: a test that finds none proves nothing.
		expect(pointers.length).toBeGreaterThanOrEqual(3);
		expect(examples.flatMap((e) => wrongPointers(e.text))).toEqual([]);
	});

	it("and so does the demo's mailbox page", async () => {
		const mailbox = await startMailSink();
		try {
			const page = String((await axios.get(mailbox.url)).data);
			expect(page).toContain("example 11's daily statement");
			expect(wrongPointers(page)).toEqual([]);
		} finally {
			await mailbox.close();
		}
	});
});

// What the examples serve to a payer's browser (issue 50, point 3): every page is framed by no one and
// sniffed by no one, every value a result page shows is escaped, and a webhook that acts on a payment
// acts only on a link signed with the workflow's secret that has not expired. The expressions are
// evaluated as plain JavaScript with `$json` and `$now` (what n8n gives them); the e2e runs them in n8n.
import { createHmac } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { DateTime } from 'luxon';

const DIR = join(__dirname, '../../examples/workflows');

interface Node {
	name: string;
	type: string;
	parameters: Record<string, unknown>;
}
interface Workflow {
	name: string;
	nodes: Node[];
	connections: Record<string, { main: Array<Array<{ node: string }>> }>;
}

const workflows: Array<[string, Workflow]> = readdirSync(DIR)
	.filter((file) => file.endsWith('.json'))
	.map((file) => [file, JSON.parse(readFileSync(join(DIR, file), 'utf8')) as Workflow]);

const byName = (w: Workflow, name: string) => w.nodes.find((n) => n.name === name) as Node;

/** An n8n expression (`={{ ... }}`) as a function of `$json` and `$now`. */
function expression(value: unknown): (json: unknown) => unknown {
	const text = String(value);
	const inner = /^=\{\{([\s\S]*)\}\}$/.exec(text)?.[1];
	if (inner === undefined) return () => text;
	const fn = new Function('$json', '$now', `return (${inner});`) as (
		j: unknown,
		n: unknown,
	) => unknown;
	return (json) => fn(json, DateTime.now());
}

/** Every node a node leads to, in order of distance. */
function downstream(w: Workflow, start: string): string[] {
	const seen: string[] = [];
	const queue = [start];
	while (queue.length) {
		const name = queue.shift() as string;
		for (const out of w.connections[name]?.main ?? [])
			for (const { node } of out)
				if (!seen.includes(node)) {
					seen.push(node);
					queue.push(node);
				}
	}
	return seen;
}

/** The nodes on the way from `start` to `target` (a path through the graph, first found). */
function pathTo(
	w: Workflow,
	start: string,
	target: string,
	path: string[] = [],
): string[] | undefined {
	if (start === target) return path;
	for (const out of w.connections[start]?.main ?? [])
		for (const { node } of out) {
			if (path.includes(node)) continue;
			const found = pathTo(w, node, target, [...path, node]);
			if (found) return found;
		}
	return undefined;
}

const HOSTILE = {
	status: '<img src=x onerror=alert(1)>',
	message: '<script>alert(2)</script>',
	reference: '"><iframe src=//evil.example>',
};

describe("the examples' pages", () => {
	const responders = workflows.flatMap(([file, w]) =>
		w.nodes
			.filter((n) => n.type === 'n8n-nodes-base.respondToWebhook')
			.map((n) => [`${file}: ${n.name}`, n] as const),
	);

	it('there are pages to check (both card examples)', () => {
		expect(responders.length).toBeGreaterThanOrEqual(10);
	});

	it.each(responders)(
		'%s is sent with X-Frame-Options DENY and X-Content-Type-Options nosniff',
		(_, node) => {
			const options = node.parameters.options as {
				responseHeaders?: { entries?: Array<{ name: string; value: string }> };
			};
			const headers = Object.fromEntries(
				(options.responseHeaders?.entries ?? []).map((e) => [e.name.toLowerCase(), e.value]),
			);
			expect(headers['x-frame-options']).toBe('DENY');
			expect(headers['x-content-type-options']).toBe('nosniff');
			expect(headers['cache-control']).toBe('no-store');
		},
	);

	const resultPages = responders.filter(([, n]) =>
		String(n.parameters.responseBody).includes('$json.status'),
	);

	it.each(resultPages)('%s escapes every value the gateway answered', (_, node) => {
		expect(resultPages.length).toBeGreaterThanOrEqual(3);
		const html = String(expression(node.parameters.responseBody)(HOSTILE));
		expect(html).not.toContain('<img');
		expect(html).not.toContain('<script>alert');
		expect(html).not.toContain('<iframe');
		expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
		expect(html).toContain('&quot;&gt;&lt;iframe');
	});
});

/** The Little Pay operations that act on an existing payment (charge it, check it, read it for a page). */
const ACTS = ['processPayment', 'checkEnrolment', 'getStatus'];

describe("the examples' webhooks that act on a payment", () => {
	const guarded = workflows.flatMap(([file, w]) =>
		w.nodes
			.filter((n) => n.type === 'n8n-nodes-base.webhook')
			.flatMap((hook) => {
				const reached = downstream(w, hook.name).map((name) => byName(w, name));
				const firstLittlePay = reached.find((n) => n.type === 'n8n-nodes-littlepay.littlePay');
				// A webhook that starts a new checkout (creates the intent) acts on no earlier payment.
				if (!firstLittlePay || !ACTS.includes(String(firstLittlePay.parameters.operation)))
					return [];
				return [[`${file}: ${hook.name}`, w, hook.name, firstLittlePay.name] as const];
			}),
	);

	it('there are such webhooks (the hosted return, the demo continue and step-up)', () => {
		expect(guarded.map(([label]) => label)).toEqual(
			expect.arrayContaining([
				'2-card-checkout.json: Back From Checkout',
				'13-card-server-side-sandbox-demo.json: Device Data Collected',
				'13-card-server-side-sandbox-demo.json: Step-Up Finished',
			]),
		);
	});

	it.each(guarded)(
		'%s acts only on a link signed with the secret and not expired',
		(_, w, hook, acting) => {
			const path = pathTo(w, hook, acting) as string[];
			const crypto = path.map((n) => byName(w, n)).find((n) => n.type === 'n8n-nodes-base.crypto');
			const gate = path.map((n) => byName(w, n)).find((n) => n.type === 'n8n-nodes-base.if');
			expect(crypto?.parameters.action).toBe('hmac');
			expect(gate).toBeDefined();
			const secret = String(crypto?.parameters.secret);
			expect(secret.length).toBeGreaterThanOrEqual(32);
			const conditions = (
				gate?.parameters.conditions as { conditions: Array<{ leftValue: string }> }
			).conditions;
			// The gate must pass on the Valid? node's true output to the acting node.
			expect(w.connections[gate?.name as string].main[0].map((c) => c.node)).toEqual([
				path[path.indexOf(gate?.name as string) + 1],
			]);
			/** The request as the webhook gives it, run through the HMAC node and the gate. */
			const passes = (request: {
				query: Record<string, string>;
				body?: Record<string, string>;
			}) => {
				const signed = String(expression(crypto?.parameters.value)(request));
				const json = {
					...request,
					[String(crypto?.parameters.dataPropertyName)]: createHmac('sha256', secret)
						.update(signed)
						.digest('hex'),
				};
				return conditions.every((c) => expression(c.leftValue)(json) === true);
			};
			const expires = String(Math.floor(Date.now() / 1000) + 600);
			const body = { reference: 'REF1' };
			const query = { key: 'order1', reference: 'REF1', expires };
			const subject = String(expression(crypto?.parameters.value)({ query, body }));
			const signature = createHmac('sha256', secret).update(subject).digest('hex');
			expect(passes({ query: { ...query, signature }, body })).toBe(true);
			// A bare reference, a forged signature, another payment, an expired link: refused.
			expect(passes({ query, body })).toBe(false);
			expect(passes({ query: { ...query, signature: '0'.repeat(64) }, body })).toBe(false);
			expect(
				passes({
					query: { ...query, key: 'order2', signature },
					body: { reference: 'REF2' },
				}),
			).toBe(false);
			const past = String(Math.floor(Date.now() / 1000) - 1);
			const stale = String(
				expression(crypto?.parameters.value)({ query: { ...query, expires: past }, body }),
			);
			const staleSignature = createHmac('sha256', secret).update(stale).digest('hex');
			expect(passes({ query: { ...query, expires: past, signature: staleSignature }, body })).toBe(
				false,
			);
		},
	);
});

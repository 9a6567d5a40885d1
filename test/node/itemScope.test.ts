// The item scope reads `={{ $json.field }}` mappings from the item itself: the same value n8n's expression
// gives, without n8n's sandboxed evaluation (about 1 ms each in a real n8n); anything else goes to n8n.
import type { IExecuteFunctions } from 'n8n-workflow';

import { itemScope } from '../../nodes/LittlePay/item';

function contextWith(parameters: Record<string, unknown>, json: Record<string, unknown>) {
	const asked: string[] = [];
	const context = {
		getNode: () => ({ name: 'Little Pay', parameters }),
		getInputData: () => [{ json }],
		getNodeParameter: (name: string, _index: number, fallback?: unknown) => {
			asked.push(name);
			return parameters[name] === undefined ? fallback : `n8n:${String(parameters[name])}`;
		},
	} as unknown as IExecuteFunctions;
	return { context, asked };
}

describe('itemScope: parameters mapped from the item', () => {
	it("reads a plain field of the item's own JSON without asking n8n", () => {
		const { context, asked } = contextWith(
			{ amount: '={{ $json.amount }}', to: '={{ $json["phone"] }}', key: '={{$json.payoutId}}' },
			{ amount: 1500, phone: '+254 712 345 670', payoutId: 'po1001' },
		);
		const item = itemScope(context, 0);
		expect([item.param('amount'), item.param('to'), item.param('key')]).toEqual([
			1500,
			'+254 712 345 670',
			'po1001',
		]);
		expect(asked).toEqual([]);
	});

	it('asks n8n for everything else: other expressions, fixed values, missing fields, objects and nested names', () => {
		const { context, asked } = contextWith(
			{
				amount: '={{ $json.amount * 2 }}',
				currency: 'KES',
				to: '={{ $json.missing }}',
				details: '={{ $json.details }}',
				'options.concurrency': '={{ $json.concurrency }}',
				key: '={{ $json.key }}',
			},
			{ amount: 5, details: { a: 1 }, concurrency: 3, key: null },
		);
		const item = itemScope(context, 0);
		for (const name of ['amount', 'currency', 'to', 'details', 'options.concurrency', 'key'])
			expect(item.param(name)).toMatch(/^n8n:/);
		expect(asked).toEqual(['amount', 'currency', 'to', 'details', 'options.concurrency', 'key']);
	});
});

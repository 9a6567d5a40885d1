// The Summary output is declared where the node has one: n8n evaluates the node's `outputs` expression
// to draw the canvas connectors, so Pay Out and both Reconciles get "Summary" only with the option on.
import type { INode, INodeTypes } from 'n8n-workflow';
import { NodeHelpers, Workflow } from 'n8n-workflow';

import { LittlePay } from '../../nodes/LittlePay/LittlePay.node';

const nodeType = new LittlePay();

function outputsOf(parameters: INode['parameters']) {
	const node: INode = {
		id: '1',
		name: 'Little Pay',
		type: 'n8n-nodes-littlepay.littlePay',
		typeVersion: 1,
		position: [0, 0],
		parameters,
	};
	const nodeTypes = {
		getByName: () => nodeType,
		getByNameAndVersion: () => nodeType,
		getKnownTypes: () => ({}),
	} as unknown as INodeTypes;
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	return NodeHelpers.getNodeOutputs(workflow, node, nodeType.description).map((output) =>
		typeof output === 'string' ? output : (output.displayName ?? output.type),
	);
}

describe("the node's outputs", () => {
	it.each([
		['disbursement', 'create', ['Payouts', 'Summary']],
		['disbursement', 'reconcile', ['Payouts', 'Summary']],
		['payment', 'reconcile', ['Payments', 'Summary']],
		['payment', 'get', ['main']],
	])('%s: %s with the summary option on has %j', (resource, operation, expected) => {
		expect(outputsOf({ resource, operation, options: { runSummaryOutput: true } })).toEqual(
			expected,
		);
	});

	it('without the option every operation has one output', () => {
		for (const [resource, operation] of [
			['disbursement', 'create'],
			['disbursement', 'reconcile'],
			['payment', 'reconcile'],
		])
			expect(outputsOf({ resource, operation, options: {} })).toEqual(['main']);
	});
});

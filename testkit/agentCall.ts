// A stand-in for n8n 2.x's AI Agent handing a tool one call (n8n-core's requests-response.js): the
// agent's own input item (here a Chat node's) merged with the model's arguments and `toolCallId`, the
// item marked with the node the agent's input came from (`pairedItem.sourceOverwrite`). Never shipped.
import { randomUUID } from 'node:crypto';
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';

import { registerNodeType } from './engine';
import type { RunResult, WorkflowJson } from './engine';

class AgentCall implements INodeType {
	description = {
		displayName: 'Agent Call',
		name: 'agentCall',
		group: ['transform'],
		version: 1,
		description: 'Calls its tool once per call, through the engine, as the AI Agent (v3) does',
		defaults: { name: 'Agent' },
		inputs: ['main', 'ai_tool'],
		outputs: ['main'],
		properties: [{ displayName: 'Calls', name: 'calls', type: 'json', default: '[]' }],
	} as unknown as INodeType['description'];

	async execute(this: IExecuteFunctions, response?: { actionResponses?: unknown[] }) {
		// Resumed once its tools have answered (toolAnswers reads the answers from the run).
		if (response?.actionResponses?.length) return [[{ json: {} }]];
		const calls = JSON.parse(this.getNodeParameter('calls', 0) as string) as IDataObject[];
		// An engine request (n8n-core's requests-response.js merges each call's arguments into the
		// agent's input item and marks the call's item with the node that input came from).
		return {
			actions: calls.map((input) => ({
				actionType: 'ExecutionNodeAction',
				nodeName: 'Little Pay',
				input,
				type: 'ai_tool',
				id: `call_${randomUUID()}`,
				metadata: { itemIndex: 0 },
			})),
			metadata: {},
		} as unknown as INodeExecutionData[][];
	}
}

registerNodeType('test.agentCall', new AgentCall());

/**
 * A chat message's execution: the Chat Trigger's item (`chat`), the agent's tool calls (`calls`, the
 * model's arguments) and the tool under test, with its parameters and node fields.
 */
export function chatWorkflow(
	type: string,
	parameters: Record<string, unknown>,
	chat: Record<string, unknown>,
	calls: Array<Record<string, unknown>>,
	node: Record<string, unknown> = {},
): WorkflowJson {
	return {
		nodes: [
			{
				name: 'Chat',
				type: 'test.fixtureItems',
				typeVersion: 1,
				position: [0, 0],
				parameters: { items: JSON.stringify([chat]) },
			},
			{
				name: 'Agent',
				type: 'test.agentCall',
				typeVersion: 1,
				position: [220, 0],
				parameters: { calls: JSON.stringify(calls) },
			},
			{
				name: 'Little Pay',
				id: randomUUID(),
				type,
				typeVersion: 1,
				position: [440, 0],
				parameters,
				...node,
			},
		],
		connections: {
			Chat: { main: [[{ node: 'Agent', type: 'main', index: 0 }]] },
			'Little Pay': { ai_tool: [[{ node: 'Agent', type: 'ai_tool', index: 0 }]] },
		},
	} as unknown as WorkflowJson;
}

/** The tool's answers in a chatWorkflow run, one per call in the order the agent made them. */
export function toolAnswers(result: RunResult): IDataObject[] {
	return (result.run.data.resultData.runData['Little Pay'] ?? []).map(
		(run) => (run.data?.ai_tool ?? run.data?.main)?.[0]?.[0]?.json ?? {},
	);
}

// Nodes the real-n8n tests and benches build workflows from: a production Webhook that answers at
// once, the Little Pay node (and its tool) with the sandbox credentials, an AI Agent workflow, a No
// Operation, and a chain.
import { randomUUID } from 'node:crypto';

type Json = Record<string, unknown>;

/** A POST Webhook start node that answers as soon as the execution starts. */
export function webhookNode(path: string, name = 'Webhook'): Json {
	return {
		name,
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: [0, 0],
		webhookId: randomUUID(),
		parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
	};
}

/**
 * A POST Webhook start node that answers once the workflow has run, with the last node's items
 * (`allEntries`) or nothing (`noData`).
 */
export function lastNodeWebhookNode(
	path: string,
	name = 'Start',
	responseData: 'allEntries' | 'noData' = 'allEntries',
): Json {
	return {
		name,
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: [0, 0],
		webhookId: randomUUID(),
		parameters: { httpMethod: 'POST', path, responseMode: 'lastNode', responseData, options: {} },
	};
}

/** The Little Pay node with both sandbox credentials attached. */
export function littlePayNode(
	parameters: Json,
	ids: { basicId: string; apiKeyId: string },
	position: [number, number] = [220, 0],
	name = 'Little Pay',
): Json {
	return {
		name,
		type: 'n8n-nodes-littlepay.littlePay',
		typeVersion: 1,
		position,
		parameters,
		credentials: {
			littlePayBasicApi: { id: ids.basicId, name: 'basic' },
			littlePayApiKeyApi: { id: ids.apiKeyId, name: 'key' },
		},
	};
}

/** A Little Pay Tool node (for an AI Agent or an MCP Server Trigger) with both sandbox credentials. */
export function littlePayToolNode(
	name: string,
	parameters: Json,
	ids: { basicId: string; apiKeyId: string },
	y: number,
): Json {
	return {
		...littlePayNode(parameters, ids, [0, y], name),
		type: 'n8n-nodes-littlepay.littlePayTool',
	};
}

/**
 * An AI Agent workflow started by `start`, its OpenAI Chat Model on the credential `openAiId`, and
 * `tools` attached to the agent. Execution order v1, as the editor saves new workflows: under the
 * legacy order (v0) n8n 2.41.1 resumed the agent before its tool ran, and the model got an empty
 * tool answer.
 */
export function agentWorkflow(
	name: string,
	start: Json,
	agentParameters: Json,
	openAiId: string,
	tools: Json[],
): Json {
	return {
		name,
		settings: { executionOrder: 'v1' },
		nodes: [
			start,
			{
				name: 'AI Agent',
				type: '@n8n/n8n-nodes-langchain.agent',
				typeVersion: 3.1,
				position: [220, 0],
				parameters: agentParameters,
			},
			{
				name: 'OpenAI Chat Model',
				type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
				typeVersion: 1.2,
				position: [100, 200],
				parameters: { model: { __rl: true, value: 'gpt-4.1-mini', mode: 'list' }, options: {} },
				credentials: { openAiApi: { id: openAiId, name: 'fake model' } },
			},
			...tools,
		],
		connections: {
			[String(start.name)]: { main: [[{ node: 'AI Agent', type: 'main', index: 0 }]] },
			'OpenAI Chat Model': {
				ai_languageModel: [[{ node: 'AI Agent', type: 'ai_languageModel', index: 0 }]],
			},
			...Object.fromEntries(
				tools.map((t) => [
					String(t.name),
					{ ai_tool: [[{ node: 'AI Agent', type: 'ai_tool', index: 0 }]] },
				]),
			),
		},
	};
}

/** A Manual Trigger: a workflow run from the editor's Execute Workflow button. */
export const manualTriggerNode: Json = {
	name: 'Start',
	type: 'n8n-nodes-base.manualTrigger',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

/** A Code node that outputs the given rows, one item each, as a sheet would. */
export function rowsNode(name: string, position: [number, number], rows: unknown[]): Json {
	return {
		name,
		type: 'n8n-nodes-base.code',
		typeVersion: 2,
		position,
		parameters: { jsCode: `return ${JSON.stringify(rows)}.map((json) => ({ json }));` },
	};
}

/** A No Operation node: where a real workflow would go on. */
export function noOpNode(name: string, position: [number, number]): Json {
	return { name, type: 'n8n-nodes-base.noOp', typeVersion: 1, position, parameters: {} };
}

/** Connections of nodes run one after another, in the order given. */
export function chain(...names: string[]): Json {
	return Object.fromEntries(
		names
			.slice(0, -1)
			.map((name, i) => [name, { main: [[{ node: names[i + 1], type: 'main', index: 0 }]] }]),
	);
}

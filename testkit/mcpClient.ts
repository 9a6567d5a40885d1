// Little Pay tools published through n8n's MCP Server Trigger, for the MCP suites: the workflow (trigger with
// bearer auth, tools attached) and an MCP SDK client that calls a tool and reads the node's output item.
import { randomUUID } from 'node:crypto';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import axios from 'axios';

import { waitFor } from './n8nRuns';

type Json = Record<string, unknown>;

/** A payout tool whose amount and number the model fills (`$fromAI`). */
export const payoutToolParameters = (extra: Json = {}): Json => ({
	resource: 'disbursement',
	operation: 'create',
	method: 'MPESA',
	amount: "={{ $fromAI('amount', 'Amount in KES, main unit', 'number') }}",
	to: "={{ $fromAI('to', 'Recipient mobile number with country code', 'string') }}",
	...extra,
});

/** A workflow publishing `tools` through an MCP Server Trigger v2 at `/mcp/<path>`, bearer auth. */
export function mcpWorkflow(name: string, path: string, bearerId: string, tools: Json[]): Json {
	return {
		name,
		nodes: [
			{
				name: 'MCP Server Trigger',
				type: '@n8n/n8n-nodes-langchain.mcpTrigger',
				typeVersion: 2,
				position: [300, -200],
				webhookId: randomUUID(),
				parameters: { authentication: 'bearerAuth', path },
				credentials: { httpBearerAuth: { id: bearerId, name: 'mcp bearer' } },
			},
			...tools,
		],
		connections: Object.fromEntries(
			tools.map((t) => [
				t.name,
				{ ai_tool: [[{ node: 'MCP Server Trigger', type: 'ai_tool', index: 0 }]] },
			]),
		),
	};
}

/**
 * An MCP client connected to `url` with the bearer token, over streamable HTTP or the older SSE
 * transport; waits first for n8n to listen on the path (activation returns before it does).
 */
export async function connectMcp(
	url: string,
	token: string,
	transport: 'http' | 'sse' = 'http',
): Promise<Client> {
	await waitFor('the MCP endpoint', async () => {
		const res = await axios.post(url, {}, { validateStatus: () => true });
		return res.status === 404 ? undefined : true;
	});
	const client = new Client({ name: 'littlepay-e2e', version: '1.0.0' });
	const headers = { Authorization: `Bearer ${token}` };
	await client.connect(
		transport === 'http'
			? new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } })
			: new SSEClientTransport(new URL(url), {
					requestInit: { headers },
					// The SDK's event source sends no headers of its own: the token goes on every request.
					eventSourceInit: {
						fetch: (input, init) =>
							fetch(input, { ...init, headers: { ...(init?.headers ?? {}), ...headers } }),
					},
				}),
	);
	return client;
}

/** Calls a tool and returns the node's output item (n8n sends the items as JSON text). */
export async function callMcpTool(client: Client, name: string, args: Json): Promise<Json> {
	const result = (await client.callTool({ name, arguments: args })) as {
		content: Array<{ type: string; text: string }>;
		isError?: boolean;
	};
	const text = result.content.find((c) => c.type === 'text')?.text ?? '';
	let parsed: unknown;
	try {
		parsed = JSON.parse(text);
	} catch {
		throw new Error(`${name} answered ${result.isError ? 'an error' : 'text'}: ${text}`);
	}
	return (Array.isArray(parsed) ? parsed[0] : parsed) as Json;
}

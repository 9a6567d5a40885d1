// A scripted OpenAI-compatible chat-completions server on loopback, for n8n's OpenAI Chat Model in the
// agent suites: the user's message names a scenario and the number of tool answers so far picks the step.
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Json = Record<string, unknown>;
export type Message = { role: string; content?: unknown; tool_call_id?: string };
export type ToolCall = { name: string; args: Json };

/**
 * A chat-completions server that plays a fixed script: the user's message names the scenario, and the
 * number of tool answers so far picks the step. Every request is kept, so the test can read what n8n
 * sent back to the model after each tool call.
 */
export async function fakeModel(script: Record<string, ToolCall[]>) {
	const requests: Array<{ messages: Message[] }> = [];
	let seq = 0;
	const server: Server = createServer((req, res) => {
		let raw = '';
		req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
		req.on('end', () => {
			const body = JSON.parse(raw || '{}') as { messages?: Message[]; stream?: boolean };
			const messages = body.messages ?? [];
			requests.push({ messages });
			const user = [...messages].reverse().find((m) => m.role === 'user');
			const scenario = String(
				typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content),
			);
			const steps = Object.entries(script).find(([name]) => scenario.includes(name))?.[1] ?? [];
			const step = messages.filter((m) => m.role === 'tool').length;
			const call = steps[step];
			const id = `chatcmpl-${++seq}`;
			const message = call
				? {
						role: 'assistant',
						content: null,
						tool_calls: [
							{
								id: `call_${seq}`,
								type: 'function',
								function: { name: call.name, arguments: JSON.stringify(call.args) },
							},
						],
					}
				: { role: 'assistant', content: 'Done.' };
			const finish = call ? 'tool_calls' : 'stop';
			if (body.stream) {
				res.writeHead(200, { 'content-type': 'text/event-stream' });
				const delta = call
					? { role: 'assistant', tool_calls: [{ index: 0, ...message.tool_calls?.[0] }] }
					: { role: 'assistant', content: 'Done.' };
				const chunk = (d: Json, finishReason: string | null) =>
					`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 0, model: 'gpt-4.1-mini', choices: [{ index: 0, delta: d, finish_reason: finishReason }] })}\n\n`;
				res.end(`${chunk(delta, null)}${chunk({}, finish)}data: [DONE]\n\n`);
				return;
			}
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(
				JSON.stringify({
					id,
					object: 'chat.completion',
					created: 0,
					model: 'gpt-4.1-mini',
					choices: [{ index: 0, message, finish_reason: finish }],
					usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
				}),
			);
		});
	});
	await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));

	/**
	 * The tool answers n8n sent the model in the last request about the user's `message`, each the
	 * tool's first output item (n8n sends the items as JSON text).
	 */
	function toolAnswersFor(message: string): Json[] {
		const last = [...requests]
			.reverse()
			.find((r) =>
				r.messages.some((m) => m.role === 'user' && String(m.content).includes(message)),
			);
		if (!last) throw new Error(`the model was never asked "${message}"`);
		return last.messages
			.filter((m) => m.role === 'tool')
			.map((m) => {
				const parsed = JSON.parse(String(m.content)) as unknown;
				return (Array.isArray(parsed) ? parsed[0] : parsed) as Json;
			});
	}

	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
		requests,
		server,
		toolAnswersFor,
	};
}

// Both nodes' and both credentials' descriptions as one JSON document: everything n8n reads from the
// package to draw a panel, a credential form and the canvas. Two trees that print the same bytes present
// the same nodes and credentials to n8n, however their code is arranged.
//
//   npx tsx scripts/descriptions.ts > after.json
//   git stash && npx tsx scripts/descriptions.ts > before.json && git stash pop && diff before.json after.json
//
// Functions (credential `authenticate`, `test`) are printed as their source text.

// The .ts files by name: beside each node, its .node.json (the codex) would win an extensionless import.
import { LittlePayApiKeyApi } from '../credentials/LittlePayApiKeyApi.credentials.js';
import { LittlePayBasicApi } from '../credentials/LittlePayBasicApi.credentials.js';
import { LittlePay } from '../nodes/LittlePay/LittlePay.node.js';
import { LittlePayTrigger } from '../nodes/LittlePay/LittlePayTrigger.node.js';

function plain(value: unknown): unknown {
	if (typeof value === 'function') return `[function] ${value.toString()}`;
	if (Array.isArray(value)) return value.map(plain);
	if (value && typeof value === 'object') {
		return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, plain(inner)]));
	}
	return value;
}

const credential = (instance: object) => plain({ ...instance });

process.stdout.write(
	JSON.stringify(
		{
			nodes: {
				littlePay: plain(new LittlePay().description),
				littlePayTrigger: plain(new LittlePayTrigger().description),
			},
			credentials: {
				littlePayBasicApi: credential(new LittlePayBasicApi()),
				littlePayApiKeyApi: credential(new LittlePayApiKeyApi()),
			},
		},
		null,
		'\t',
	) + '\n',
);

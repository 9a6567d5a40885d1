// `npm start`: the sandbox gateway plus a real n8n with this package, credentials and the example
// workflows loaded, so a new user can try everything in the browser without a Little Pay account.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { startSandbox } from '../sandbox';
import { N8nApi, OWNER, REPO_ROOT, startN8n } from './n8n';

async function main(): Promise<void> {
	const sandboxPort = Number(process.env.SANDBOX_PORT ?? 4010);
	const n8nPort = Number(process.env.N8N_DEMO_PORT ?? 5678);
	const sandbox = await startSandbox({ port: sandboxPort, quiet: true });
	process.stdout.write(`Sandbox gateway: ${sandbox.baseUrl}\n`);
	process.stdout.write('Starting n8n (the first run installs it once, a few minutes) ...\n');
	const n8n = await startN8n({ port: n8nPort });

	let stopping = false;
	const stop = async () => {
		if (stopping) return;
		stopping = true;
		process.stdout.write('\nStopping n8n and the sandbox ...\n');
		await n8n.stop();
		await sandbox.close();
		process.exit(0);
	};
	process.on('SIGINT', () => void stop());
	process.on('SIGTERM', () => void stop());

	const api = new N8nApi(n8n.url);
	await api.setupOwner();
	const m = sandbox.merchant;
	const basicId = await api.createCredential('Little Pay sandbox (Basic)', 'littlePayBasicApi', {
		clientId: m.clientId,
		clientSecret: m.clientSecret,
		tokenId: m.tokenId,
		baseUrl: m.baseUrl,
	});
	const apiKeyId = await api.createCredential(
		'Little Pay sandbox (API key)',
		'littlePayApiKeyApi',
		{
			apiKey: m.apiKey,
			baseUrl: m.baseUrl,
			disbursementBaseUrl: '',
		},
	);

	const dir = join(REPO_ROOT, 'examples/workflows');
	const imported: string[] = [];
	for (const file of readdirSync(dir)
		.filter((f) => f.endsWith('.json'))
		.sort()) {
		const text = readFileSync(join(dir, file), 'utf8')
			.split('{{SANDBOX_PUBLIC_KEY}}')
			.join(JSON.stringify(m.publicKeyPem).slice(1, -1))
			.split('http://127.0.0.1:5678')
			.join(n8n.url)
			.split('{{BASIC_CREDENTIAL_ID}}')
			.join(basicId)
			.split('{{API_KEY_CREDENTIAL_ID}}')
			.join(apiKeyId);
		const workflow = JSON.parse(text) as Record<string, unknown>;
		const { id, versionId } = await api.createWorkflow(workflow);
		const nodes = workflow.nodes as Array<{
			type: string;
			webhookId?: string;
			parameters: { path?: string; httpMethod?: string };
		}>;
		const trigger = nodes.find((n) => n.type === 'n8n-nodes-littlepay.littlePayTrigger');
		const checkout = nodes.find(
			(n) => n.type === 'n8n-nodes-base.webhook' && n.parameters.httpMethod === 'GET',
		);
		if (trigger) {
			await api.activateWorkflow(id, versionId);
			imported.push(
				`${String(workflow.name)} (active; callback URL ${n8n.url}/webhook/${trigger.webhookId}/littlepay)`,
			);
		} else if (checkout) {
			// Webhook-driven examples (the card checkout) only work while active.
			await api.activateWorkflow(id, versionId);
			imported.push(
				`${String(workflow.name)} (active; open ${n8n.url}/webhook/${String(checkout.parameters.path)})`,
			);
		} else {
			imported.push(String(workflow.name));
		}
	}

	process.stdout.write(
		[
			'',
			`n8n editor:  ${n8n.url}`,
			`Login:       ${OWNER.email} / ${OWNER.password}`,
			`Sandbox:     ${sandbox.baseUrl}  (test numbers and cards: sandbox/README.md)`,
			'Workflows:',
			...imported.map((w) => `  - ${w}`),
			'',
			'Try: open "Collect an M-Pesa payment" and click "Execute workflow"; a number ending in 0',
			'completes after the simulated PIN prompt, one ending in 1 fails. The receipt workflow runs',
			'on the signed callback. For cards, open the checkout URL above in a browser and pay with',
			'4111111111111111 (no challenge) or 5200000000002151 (your bank page asks you to approve).',
			'Ctrl-C stops n8n and the sandbox.',
			'',
		].join('\n'),
	);
}

main().catch((error: unknown) => {
	process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
	process.exit(1);
});

// The demo's example workflows in an n8n: the sandbox credentials and examples/workflows/*.json, used by
// `npm start` (one n8n) and `npm run queue` (queue mode).
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { SandboxHandle } from '../sandbox';
import { REPO_ROOT } from '../testkit/n8n';
import type { N8nApi } from '../testkit/n8n';
import {
	createExampleTables,
	exampleReplacements,
	mailboxCredential,
	sandboxCredentials,
} from '../testkit/n8nRuns';

/**
 * Creates the sandbox credentials, the SMTP credential of the Human review mailbox (`mailSmtpPort`) and
 * the examples' Data Tables and the token refund callbacks carry, and imports examples/workflows/*.json, with production URLs pointing at
 * `webhookUrl`; activates the webhook-driven ones. Returns one line per workflow.
 */
export async function importExamples(
	api: N8nApi,
	sandbox: SandboxHandle,
	webhookUrl: string,
	mailSmtpPort: number,
): Promise<string[]> {
	const { basicId, apiKeyId } = await sandboxCredentials(api, sandbox, 'Little Pay sandbox');
	const smtpId = await mailboxCredential(api, mailSmtpPort);
	const tables = await createExampleTables(api);
	const placeholders = exampleReplacements(tables, randomBytes(12).toString('hex'));
	const dir = join(REPO_ROOT, 'examples/workflows');
	const imported: string[] = [];
	for (const file of readdirSync(dir)
		.filter((f) => f.endsWith('.json'))
		.sort()) {
		let text = readFileSync(join(dir, file), 'utf8')
			.split('http://127.0.0.1:5678')
			.join(webhookUrl)
			.split('{{BASIC_CREDENTIAL_ID}}')
			.join(basicId)
			.split('{{API_KEY_CREDENTIAL_ID}}')
			.join(apiKeyId)
			.split('{{SMTP_CREDENTIAL_ID}}')
			.join(smtpId);
		for (const [name, value] of Object.entries(placeholders))
			text = text.split(`{{${name}}}`).join(value);
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
		const orders = nodes.find(
			(n) => n.type === 'n8n-nodes-base.webhook' && n.parameters.httpMethod === 'POST',
		);
		if (trigger) {
			await api.activateWorkflow(id, versionId);
			// Example 10 also takes new orders on a webhook of its own: say where.
			const newOrders = orders
				? `; new orders: POST ${webhookUrl}/webhook/${String(orders.parameters.path)}`
				: '';
			imported.push(
				`${String(workflow.name)} (active; callback URL ${webhookUrl}/webhook/${trigger.webhookId}/littlepay${newOrders})`,
			);
		} else if (checkout) {
			await api.activateWorkflow(id, versionId);
			imported.push(
				`${String(workflow.name)} (active; open ${webhookUrl}/webhook/${String(checkout.parameters.path)})`,
			);
		} else {
			imported.push(String(workflow.name));
		}
	}
	return imported;
}

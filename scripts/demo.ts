// `npm start`: the sandbox gateway plus a real n8n with this package, credentials and the example
// workflows loaded, so a new user can try everything in the browser without a Little Pay account.
import { startSandbox } from '../sandbox';
import { startMailSink } from '../testkit/mailSink';
import { N8nApi, OWNER, startN8n } from '../testkit/n8n';
import { importExamples } from './examples';

async function main(): Promise<void> {
	const sandboxPort = Number(process.env.SANDBOX_PORT ?? 4010);
	const n8nPort = Number(process.env.N8N_DEMO_PORT ?? 5678);
	const sandbox = await startSandbox({ port: sandboxPort, quiet: true });
	process.stdout.write(`Sandbox gateway: ${sandbox.baseUrl}\n`);
	const mailbox = await startMailSink({ httpPort: Number(process.env.MAILBOX_PORT ?? 4011) });
	// WEBHOOK_URL (a tunnel's public https address, say) is where n8n says its webhooks are: the
	// triggers' Production URLs and the examples' Callback URLs use it, so a gateway that is not on
	// this machine can call back. Unset, they are on this machine (the sandbox beside n8n only).
	const webhookUrl = process.env.WEBHOOK_URL?.trim().replace(/\/+$/, '') || undefined;
	process.stdout.write('Starting n8n (the first run installs it once, a few minutes) ...\n');
	const n8n = await startN8n({
		port: n8nPort,
		...(webhookUrl ? { env: { WEBHOOK_URL: `${webhookUrl}/` } } : {}),
	});

	let stopping = false;
	const stop = async () => {
		if (stopping) return;
		stopping = true;
		process.stdout.write('\nStopping n8n and the sandbox ...\n');
		await n8n.stop();
		await sandbox.close();
		await mailbox.close();
		process.exit(0);
	};
	process.on('SIGINT', () => void stop());
	process.on('SIGTERM', () => void stop());

	const api = new N8nApi(n8n.url);
	await api.setupOwner();
	const imported = await importExamples(api, sandbox, webhookUrl ?? n8n.url, mailbox.smtpPort);

	process.stdout.write(
		[
			'',
			`n8n editor:  ${n8n.url}`,
			webhookUrl
				? `Webhooks:    ${webhookUrl} (WEBHOOK_URL: the triggers' Production URLs and the examples' Callback URLs)`
				: `Webhooks:    ${n8n.url} (on this machine: set WEBHOOK_URL to a public https address to be called from outside)`,
			`Login:       ${OWNER.email} / ${OWNER.password}`,
			`Sandbox:     ${sandbox.baseUrl}  (test numbers and cards: sandbox/README.md)`,
			`Mailbox:     ${mailbox.url}  (example 8's Human review e-mails, example 9's refused-callback alerts)`,
			`Signatures:  a new Little Pay Trigger with the "Little Pay sandbox (API key)" credential verifies the sandbox's callbacks (key at ${sandbox.baseUrl}/sandbox/public-key); nothing to paste`,
			'Workflows:',
			...imported.map((w) => `  - ${w}`),
			'',
			'Try: open "Collect an M-Pesa payment" and click "Execute workflow"; a number ending in 0',
			'completes after the simulated PIN prompt, one ending in 1 fails. The receipt workflow runs',
			'on the signed callback. For cards, open the checkout URL above in a browser and pay with',
			'4111111111111111 (no challenge) or 5200000000002151 (your bank page asks you to approve).',
			'For the pause: execute "checkout link, pause until paid", open the checkoutUrl of its first node',
			'and pay; the waiting execution resumes when the sandbox calls back (Executions list).',
			'Ctrl-C stops n8n and the sandbox.',
			'',
		].join('\n'),
	);
}

main().catch((error: unknown) => {
	process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
	process.exit(1);
});

// `npm run queue`: n8n 2.41.1 in queue mode on this machine, from nothing: a private Postgres and Redis,
// n8n main + 2 workers + 2 webhook processes (the package loaded in each), the sandbox as gateway, its two
// credentials and the example workflows imported, as `npm start` does for one process. Ctrl-C stops all of
// it and deletes its temporary folder.
import { startSandbox } from '../sandbox';
import type { SandboxHandle } from '../sandbox';
import { startMailSink } from '../testkit/mailSink';
import type { MailSink } from '../testkit/mailSink';
import { N8nApi, OWNER } from '../testkit/n8n';
import { startQueueCluster } from '../testkit/queueCluster';
import type { QueueCluster } from '../testkit/queueCluster';
import { importExamples } from './examples';

async function main(): Promise<void> {
	const port = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
	// Filled as things start, so that Ctrl-C at any moment stops what is running.
	const running: { sandbox?: SandboxHandle; cluster?: QueueCluster; mailbox?: MailSink } = {};
	let stopping = false;
	const starting = new AbortController();
	const stop = async (code: number) => {
		if (stopping) return;
		stopping = true;
		starting.abort();
		process.stdout.write('\nStopping n8n, Redis, Postgres and the sandbox ...\n');
		await running.cluster?.stop();
		await running.sandbox?.close();
		await running.mailbox?.close();
		process.exit(code);
	};
	process.on('SIGINT', () => void stop(0));
	process.on('SIGTERM', () => void stop(0));

	const sandbox = await startSandbox({ port: port('SANDBOX_PORT', 4010), quiet: true });
	running.sandbox = sandbox;
	process.stdout.write(`Sandbox gateway: ${sandbox.baseUrl}\n`);
	const mailbox = await startMailSink({ httpPort: port('MAILBOX_PORT', 4011) });
	running.mailbox = mailbox;
	const cluster = await startQueueCluster({
		mainPort: port('N8N_QUEUE_PORT', 5690),
		webhookPorts: [port('N8N_QUEUE_WEBHOOK_PORT_1', 5691), port('N8N_QUEUE_WEBHOOK_PORT_2', 5692)],
		log: (line) => process.stdout.write(`${line}\n`),
		signal: starting.signal,
	});
	running.cluster = cluster;
	if (stopping) return;
	const api = new N8nApi(cluster.main.url!);
	await api.setupOwner();
	const webhookUrl = cluster.webhooks[0].url!;
	const imported = await importExamples(api, sandbox, webhookUrl, mailbox.smtpPort);

	process.stdout.write(
		[
			'',
			'n8n in queue mode:',
			`  main (editor, API):   ${cluster.main.url}   login ${OWNER.email} / ${OWNER.password}`,
			...cluster.webhooks.map((w) => `  ${w.name} (production webhooks):  ${w.url}`),
			`  ${cluster.workers.length} workers (run every execution, manual ones too)`,
			`  Postgres ${cluster.postgres.major}: 127.0.0.1:${cluster.postgres.port}, Redis: 127.0.0.1:${cluster.redis.port}`,
			`  folder: ${cluster.dir} (deleted on exit)`,
			`Sandbox:  ${sandbox.baseUrl}`,
			`Mailbox:  ${mailbox.url}  (example 8's Human review e-mails, example 9's refused-callback alerts)`,
			'Workflows:',
			...imported.map((w) => `  - ${w}`),
			'',
			'Callbacks and checkout pages go to the webhook processes; any of them serves any workflow.',
			'Ctrl-C stops all of it.',
			'',
		].join('\n'),
	);
}

if (require.main === module) {
	main().catch((error: unknown) => {
		process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
		process.exit(1);
	});
}

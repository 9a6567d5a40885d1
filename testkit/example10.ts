// Example 10 (every paid order shipped once) and example 11 (the books: payouts and refunds swept, refund
// callbacks, the daily statement of all three kinds) published in a real n8n with their schedules on demand,
// and the statement e-mail read back; used by the ship-once and books suites.
import { startSandbox } from '../sandbox';
import type { SandboxHandle, SandboxOptions } from '../sandbox';
import { startMailSink } from './mailSink';
import type { MailSink } from './mailSink';
import { N8nApi, startN8n } from './n8n';
import type { N8nServer } from './n8n';
import { sharedN8n } from './sharedN8n';
import type { SharedN8n } from './sharedN8n';
import {
	createExampleTables,
	exampleReplacements,
	loadExample,
	mailboxCredential,
	sandboxCredentials,
	waitForWebhook,
} from './n8nRuns';
import type { ExampleTables } from './n8nRuns';
import { lastNodeWebhookNode } from './workflowParts';

type Json = Record<string, unknown>;

/** The token example 10's Refund Callbacks trigger wants in a refund callback's URL, in these tests. */
export const REFUND_CALLBACK_CHECK = 'books0refund0token';

/** What publishExample10 set up: the tables, the credentials and the URLs to drive the workflow. */
export interface PublishedExample10 {
	tables: ExampleTables;
	ids: { basicId: string; apiKeyId: string };
	/** Every placeholder of examples 3, 4 and 10 with its value here. */
	replacements: Record<string, string>;
	/** Example 10's workflow. */
	workflowId: string;
	/** Example 11's workflow (the books). */
	booksWorkflowId: string;
	orderUrl: string;
	/** Example 10's sweep: the payments. */
	sweepUrl: string;
	/** Example 11's sweep: the payouts and refunds. */
	booksSweepUrl: string;
	/** Example 11's daily statement. */
	statementUrl: string;
	triggerUrl: string;
	/** Example 11's Refund Callbacks trigger's production URL with the token, as a refund's Callback URL. */
	refundCallbackUrl: string;
}

/**
 * Examples 10 and 11 set up and published in `n8n`: the sandbox credentials, the mailbox's SMTP credential, the
 * examples' Data Tables, the intents' Callback URL on this n8n, and the sweeps and the statement on demand (a
 * Webhook under each Schedule Trigger's name keeps its connections; it answers once its path has run, with
 * no data, since a sweep that claims nothing has no last item). Returns the tables and the URLs.
 */
export async function publishExample10(
	api: N8nApi,
	n8nUrl: string,
	sandbox: SandboxHandle,
	mailbox: MailSink,
	label: string,
	{
		takeOverAfterSeconds,
		callbackUrl,
	}: { takeOverAfterSeconds?: number; callbackUrl?: string } = {},
): Promise<PublishedExample10> {
	const ids = await sandboxCredentials(api, sandbox, label);
	const smtpId = await mailboxCredential(api, mailbox.smtpPort);
	const tables = await createExampleTables(api);
	const replacements = {
		BASIC_CREDENTIAL_ID: ids.basicId,
		API_KEY_CREDENTIAL_ID: ids.apiKeyId,
		SMTP_CREDENTIAL_ID: smtpId,
		...exampleReplacements(tables, REFUND_CALLBACK_CHECK),
	};
	const loaded = loadExample('10-orders-ship-once.json', replacements);
	// The Create node's Callback URL is the trigger's production URL on the demo's port.
	const workflow = JSON.parse(
		JSON.stringify(loaded).split('http://127.0.0.1:5678').join(n8nUrl),
	) as Json;
	const nodes = workflow.nodes as Json[];
	if (callbackUrl) {
		const create = nodes.find((n) => n.name === 'Create Payment Intent');
		if (!create) throw new Error('example 10 has no Create Payment Intent node');
		(create.parameters as Json).callbackUrl = callbackUrl;
	}
	const onDemand = (nodes: Json[], name: string, path: string) => {
		const at = nodes.findIndex(
			(n) => n.name === name && n.type === 'n8n-nodes-base.scheduleTrigger',
		);
		if (at < 0) throw new Error(`example 10 or 11 has no Schedule Trigger named ${name}`);
		nodes[at] = { ...lastNodeWebhookNode(path, name, 'noData'), position: nodes[at].position };
		if (nodes.some((n) => n.type === 'n8n-nodes-base.scheduleTrigger' && n.name === name))
			throw new Error(`two Schedule Triggers named ${name}`);
	};
	onDemand(nodes, 'Every 15 Minutes', 'littlepay-sweep');
	if (nodes.some((n) => n.type === 'n8n-nodes-base.scheduleTrigger'))
		throw new Error('example 10 has a Schedule Trigger the test does not run on demand');
	const books = loadExample('11-books.json', replacements);
	const booksNodes = books.nodes as Json[];
	onDemand(booksNodes, 'Every 15 Minutes', 'littlepay-books-sweep');
	onDemand(booksNodes, 'Every Day at 18:00', 'littlepay-statement');
	if (booksNodes.some((n) => n.type === 'n8n-nodes-base.scheduleTrigger'))
		throw new Error('example 11 has a Schedule Trigger the test does not run on demand');
	if (takeOverAfterSeconds !== undefined) {
		// The sweep takes over claims older than 10 minutes; a test cannot wait that long.
		const conditions = (
			(nodes.find((n) => n.name === 'Claimed, Never Shipped')?.parameters as Json | undefined)
				?.filters as { conditions: Json[] } | undefined
		)?.conditions;
		const age = conditions?.find((c) => c.keyName === 'claimedAt');
		if (age?.keyValue !== '={{ $now.minus({ minutes: 10 }).toISO() }}')
			throw new Error(`example 10's take-over age is not the 10 minutes this test replaces`);
		age.keyValue = `={{ $now.minus({ seconds: ${takeOverAfterSeconds} }).toISO() }}`;
	}
	const trigger = nodes.find((n) => n.name === 'Little Pay Trigger');
	const refundTrigger = booksNodes.find((n) => n.name === 'Refund Callbacks');
	if (!trigger || !refundTrigger)
		throw new Error(
			'example 10 has no Little Pay Trigger or example 11 no Refund Callbacks trigger',
		);
	const { id, versionId } = await api.createWorkflow(workflow);
	await api.activateWorkflow(id, versionId);
	const booksWorkflow = await api.createWorkflow(books);
	await api.activateWorkflow(booksWorkflow.id, booksWorkflow.versionId);
	const triggerUrl = `${n8nUrl}/webhook/${String(trigger.webhookId)}/littlepay`;
	const refundTriggerUrl = `${n8nUrl}/webhook/${String(refundTrigger.webhookId)}/littlepay`;
	await waitForWebhook(triggerUrl);
	await waitForWebhook(refundTriggerUrl);
	return {
		tables,
		ids,
		replacements,
		workflowId: id,
		booksWorkflowId: booksWorkflow.id,
		orderUrl: `${n8nUrl}/webhook/littlepay-order`,
		sweepUrl: `${n8nUrl}/webhook/littlepay-sweep`,
		booksSweepUrl: `${n8nUrl}/webhook/littlepay-books-sweep`,
		statementUrl: `${n8nUrl}/webhook/littlepay-statement`,
		triggerUrl,
		refundCallbackUrl: `${refundTriggerUrl}?token=${REFUND_CALLBACK_CHECK}`,
	};
}

/**
 * A sandbox (payers taking `pinDelayMs`, callbacks retried after `callbackRetryDelaysMs`), the demo's mailbox
 * and an n8n 2.41.1 with its owner, and example 10 published there (see publishExample10). The n8n is the
 * run's shared one (testkit/sharedN8n.ts) unless `n8nOf` is 'own', for a test that kills or restarts it.
 */
export async function startExample10(
	label: string,
	sandboxOptions: SandboxOptions,
	publishOptions: Parameters<typeof publishExample10>[5] = {},
	n8nOf: 'shared' | 'own' = 'shared',
) {
	const sandbox = await startSandbox({ port: 0, quiet: true, ...sandboxOptions });
	const mailbox = await startMailSink();
	let n8n: N8nServer | undefined;
	try {
		let api: N8nApi;
		if (n8nOf === 'shared') {
			const shared = await sharedN8n(label);
			n8n = shared;
			api = shared.api;
		} else {
			n8n = await startN8n();
			api = new N8nApi(n8n.url);
			await api.setupOwner();
		}
		const published = await publishExample10(api, n8n.url, sandbox, mailbox, label, publishOptions);
		return { sandbox, mailbox, n8n, api, ...published };
	} catch (error) {
		// The caller gets nothing to stop: leave no n8n running behind a failed set-up.
		await stopExample10(n8n, sandbox, mailbox);
		throw error;
	}
}

/**
 * Stops what startExample10 started (the n8n running now: a test may have restarted it); the shared n8n is
 * not stopped but released (the workflows the file published unpublished).
 */
export async function stopExample10(
	n8n: N8nServer | undefined,
	sandbox: SandboxHandle | undefined,
	mailbox: MailSink | undefined,
): Promise<void> {
	if (n8n && 'release' in n8n) await (n8n as SharedN8n).release();
	else await n8n?.stop();
	await sandbox?.close();
	await mailbox?.close();
}

/** A figure of the statement, `- <label>: <count>, <sum>[, fees <sum>]`, in cents. */
export interface Figure {
	count: number;
	cents: number;
	feeCents?: number;
}

/** One currency's figures in the statement e-mail (its days added up), and its lines. */
export interface StatementBlock {
	started: Figure;
	completed: Figure;
	failed: Figure;
	open: Figure;
	refundsCompleted: Figure;
	refundsFailed: Figure;
	refundsPending: Figure;
	payoutsCompleted: Figure;
	payoutsFailed: Figure;
	payoutsPending: Figure;
	netCents: number;
	lines: string[];
}

/** Cents of an amount as the statement writes it (`1,234.50`, `-12.00`). */
export function statementCents(amount: string): number {
	return Math.round(Number(amount.replace(/,/g, '')) * 100);
}

/**
 * Reads one currency's figures from the statement e-mail: each paragraph that starts with
 * `<currency> on <day>` is one day; the days are added up.
 */
export function statementBlock(text: string, currency: string): StatementBlock {
	const blocks = text
		.replace(/\r\n/g, '\n')
		.split(/\n\n/)
		.filter((paragraph) => paragraph.startsWith(`${currency} on `));
	if (blocks.length === 0) throw new Error(`the statement has no ${currency} block:\n${text}`);
	const figure = (label: string): Figure => {
		const total: Figure = { count: 0, cents: 0 };
		for (const block of blocks) {
			const match = new RegExp(
				`^- ${label}: (\\d+), (-?[\\d,]+\\.\\d\\d)(?:, fees (-?[\\d,]+\\.\\d\\d))?$`,
				'm',
			).exec(block);
			if (!match) throw new Error(`the ${currency} block has no "${label}" line:\n${block}`);
			total.count += Number(match[1]);
			total.cents += statementCents(match[2]);
			if (match[3] !== undefined) total.feeCents = (total.feeCents ?? 0) + statementCents(match[3]);
		}
		return total;
	};
	const net = blocks.reduce((sum, block) => {
		const match = /^- net to the merchant: (-?[\d,]+\.\d\d)$/m.exec(block);
		if (!match) throw new Error(`the ${currency} block has no net line:\n${block}`);
		return sum + statementCents(match[1]);
	}, 0);
	return {
		started: figure('payments started'),
		completed: figure('payments completed'),
		failed: figure('payments failed'),
		open: figure('payments still open'),
		refundsCompleted: figure('refunds completed'),
		refundsFailed: figure('refunds failed'),
		refundsPending: figure('refunds pending'),
		payoutsCompleted: figure('payouts completed'),
		payoutsFailed: figure('payouts failed'),
		payoutsPending: figure('payouts pending'),
		netCents: net,
		lines: blocks.flatMap((block) => block.split('\n')),
	};
}

// Faults between a callback's answer and n8n recording its execution (issue 18), shared by the e2e test
// and the bench: a burst of genuine signed callbacks to a real n8n, a fault in the middle (n8n killed
// with SIGKILL and restarted on the same database, or the SQLite file write-locked by another
// connection), every callback that got no 2xx delivered again as Little Pay does, then which callbacks
// have an execution. The same run can be made against n8n's own Webhook node, the baseline.
import { spawn } from 'node:child_process';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import axios from 'axios';

import { signCallback } from '../sandbox';
import { N8nApi, startN8n } from './n8n';
import type { N8nServer } from './n8n';
import type { QueueCluster } from './queueCluster';
import { allExecutions, settledExecutions, waitForWebhook } from './n8nRuns';
import { chain, noOpNode, webhookNode } from './workflowParts';

/** What receives the callbacks: the Little Pay Trigger, or n8n's Webhook node (answering on receipt). */
export type Receiver = 'littlePayTrigger' | 'n8nWebhook';

/** The fault, started once `afterAcks` callbacks of the burst have been answered 2xx. */
export type CallbackFault =
	| { kind: 'kill'; afterAcks: number }
	| { kind: 'lockDatabase'; afterAcks: number; forMs: number }
	| { kind: 'killPostgres'; afterAcks: number; downMs: number };

export interface CallbackFaultOptions {
	receiver: Receiver;
	fault: CallbackFault;
	callbacks: number;
	concurrency: number;
	/** Log progress lines (the bench); the test stays quiet. */
	log?: (line: string) => void;
}

export interface CallbackFaultReport {
	receiver: Receiver;
	callbacks: number;
	/** Answered 2xx in the burst, before the fault started. */
	acknowledgedBeforeFault: number;
	/** Answered 2xx at any time (burst or redelivery). */
	acknowledged: number;
	/** Answered 2xx at some point and without any execution in the end: what a gateway never resends. */
	acknowledgedThenLost: number;
	/** Callbacks delivered again because they got no 2xx; and of those, how many have an execution. */
	redelivered: number;
	redeliveredRan: number;
	/** Callbacks still without a 2xx after every redelivery (the gateway would keep trying). */
	neverAcknowledged: number;
	/** Callbacks with more than one execution (at-least-once). */
	ranTwice: number;
	/** Executions that carry one of the burst's callbacks. */
	executions: number;
	/** Answers to the burst other than 2xx, by status (0: no answer). */
	refusals: Record<string, number>;
	/** Executions carrying a callback, by status (a crashed or failed one can be retried in n8n). */
	executionStatuses: Record<string, number>;
	/** Executions of the workflow that carry none of the burst's callbacks (beyond the probes). */
	executionsWithoutCallback: Array<{ id: string; status: string }>;
	/** The references behind acknowledgedThenLost. */
	lostReferences: string[];
}

interface Delivery {
	reference: string;
	url: string;
	body: string;
	acknowledged: boolean;
	attempts: number;
}

const REDELIVERY_ROUNDS = 40;

/** Posts one callback signed as Little Pay signs it; 0 when no answer came (refused, reset, timeout). */
async function deliver(url: string, body: string, key: KeyObject): Promise<number> {
	const timestamp = String(Math.floor(Date.now() / 1000));
	try {
		const res = await axios.post(url, body, {
			headers: {
				'content-type': 'application/json',
				'x-littlepay-timestamp': timestamp,
				'x-littlepay-signature': signCallback(key, timestamp, body),
			},
			validateStatus: () => true,
			timeout: 60000,
		});
		return res.status;
	} catch {
		return 0;
	}
}

/** Holds an exclusive write lock on an SQLite file for `forMs` from another process (python3's sqlite3). */
function lockSqlite(file: string, forMs: number): Promise<void> {
	const script = [
		'import sqlite3, sys, time',
		'c = sqlite3.connect(sys.argv[1], timeout=30, isolation_level=None)',
		"c.execute('BEGIN EXCLUSIVE')",
		"print('locked', flush=True)",
		'time.sleep(float(sys.argv[2]))',
		"c.execute('COMMIT')",
	].join('\n');
	const child = spawn('python3', ['-c', script, file, String(forMs / 1000)], {
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	return new Promise((resolve, reject) => {
		child.stdout.once('data', () => resolve());
		child.once('exit', (code) => {
			if (code !== 0) reject(new Error(`sqlite lock exited with ${code}`));
		});
	});
}

/** The callback workflow: the receiver, then a No Operation where a real workflow would go on. */
function callbackWorkflow(receiver: Receiver, path: string, publicKeyPem: string) {
	const start =
		receiver === 'n8nWebhook'
			? webhookNode(path, 'Receive')
			: {
					name: 'Receive',
					type: 'n8n-nodes-littlepay.littlePayTrigger',
					typeVersion: 2,
					position: [0, 0],
					webhookId: path,
					// Delivery under faults, not whose payment it is (the confirmation has its own tests):
					// no API key credential here, so the account confirmation is turned off.
					parameters: {
						events: ['*'],
						confirmWithStatusApi: false,
						options: { publicKey: publicKeyPem },
					},
				};
	return {
		name: `callback faults (${receiver})`,
		nodes: [start, noOpNode('Fulfil order', [220, 0])],
		connections: chain('Receive', 'Fulfil order'),
	};
}

/** The production URL of the receiver (the trigger's path is `<webhookId>/littlepay`). */
function receiverUrl(n8nUrl: string, receiver: Receiver, path: string): string {
	return receiver === 'n8nWebhook'
		? `${n8nUrl}/webhook/${path}`
		: `${n8nUrl}/webhook/${path}/littlepay`;
}

/** Which burst references each execution of the workflow carries (read from its stored data). */
async function referencesByExecution(
	api: N8nApi,
	workflowId: string,
	runTag: string,
): Promise<{
	counts: Map<string, number>;
	statuses: Record<string, number>;
	without: Array<{ id: string; status: string }>;
}> {
	const counts = new Map<string, number>();
	const statuses: Record<string, number> = {};
	const without: Array<{ id: string; status: string }> = [];
	const pattern = new RegExp(`${runTag}-\\d+`, 'g');
	const listed = await allExecutions(api, workflowId);
	// Eight reads at a time: each execution's stored data is one request.
	let next = 0;
	const reader = async () => {
		while (next < listed.length) {
			const { id, status } = listed[next++];
			const execution = await api.execution(id);
			const text =
				typeof execution.data === 'string' ? execution.data : JSON.stringify(execution.data);
			const references = new Set(text.match(pattern) ?? []);
			if (references.size === 0) without.push({ id, status });
			else statuses[status] = (statuses[status] ?? 0) + 1;
			for (const reference of references) counts.set(reference, (counts.get(reference) ?? 0) + 1);
		}
	};
	await Promise.all(Array.from({ length: 8 }, reader));
	without.sort((a, b) => Number(a.id) - Number(b.id));
	return { counts, statuses, without };
}

/** Where a burst goes and how its fault is made: one n8n process, or a queue-mode cluster. */
interface FaultTarget {
	/** Webhook base URLs (`http://host:port`) the callbacks are spread over, round robin. */
	bases: string[];
	/** Starts the fault; resolves when it is over (a lock released, a database back) or n8n is gone. */
	fault: () => Promise<void>;
	/** Whether n8n is gone after the fault (then nothing more is sent until recover()). */
	stopsN8n: boolean;
	/** Brings n8n back after the burst, when the fault stopped it; resolves to its API base URL. */
	recover: () => Promise<string>;
}

/**
 * Imports and activates the callback workflow, sends the burst through `target` with its fault in the
 * middle, delivers again every callback without a 2xx, and counts which callbacks have an execution.
 */
async function burstThroughFault(
	apiUrl: string,
	target: FaultTarget,
	options: CallbackFaultOptions,
): Promise<CallbackFaultReport> {
	const log = options.log ?? (() => undefined);
	const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
	const pem = keys.publicKey.export({ type: 'spki', format: 'pem' }).toString();
	const api = new N8nApi(apiUrl);
	await api.setupOwner();
	const path = randomUUID();
	const created = await api.createWorkflow(callbackWorkflow(options.receiver, path, pem));
	await api.activateWorkflow(created.id, created.versionId);
	const urls = target.bases.map((base) => receiverUrl(base, options.receiver, path));
	for (const url of urls) await waitForWebhook(url);
	const probes = new Set((await allExecutions(api, created.id)).map((e) => e.id));
	log('workflow active');

	const runTag = `FAULT${randomUUID().slice(0, 8)}`;
	const deliveries: Delivery[] = Array.from({ length: options.callbacks }, (_, i) => {
		const reference = `${runTag}-${i}`;
		return {
			reference,
			url: urls[i % urls.length],
			acknowledged: false,
			attempts: 0,
			body: JSON.stringify({
				reference,
				status: 'COMPLETED',
				amount: 1500,
				key: `order-${i}`,
				currency: 'KES',
				provider: 'MPESA',
				date: new Date().toISOString(),
			}),
		};
	});

	// The burst: `concurrency` senders; the fault starts once `afterAcks` answers were 2xx.
	const refusals: Record<string, number> = {};
	let acks = 0;
	let acknowledgedBeforeFault = -1;
	let faultDone: Promise<void> | undefined;
	let n8nGone = false;
	const startFault = () => {
		acknowledgedBeforeFault = acks;
		log(`fault ${options.fault.kind} after ${acks} acknowledged callbacks`);
		n8nGone = target.stopsN8n;
		faultDone = target.fault();
	};
	let next = 0;
	const sender = async () => {
		while (next < deliveries.length) {
			const delivery = deliveries[next++];
			if (n8nGone) continue; // delivered again once n8n is back
			delivery.attempts++;
			const status = await deliver(delivery.url, delivery.body, keys.privateKey);
			if (status >= 200 && status < 300) {
				delivery.acknowledged = true;
				acks++;
				if (!faultDone && acks >= options.fault.afterAcks) startFault();
			} else {
				refusals[status] = (refusals[status] ?? 0) + 1;
			}
		}
	};
	await Promise.all(Array.from({ length: options.concurrency }, sender));
	if (!faultDone) startFault();
	await faultDone;
	log(`burst: ${acks} of ${deliveries.length} answered 2xx; refusals ${JSON.stringify(refusals)}`);
	const after = new N8nApi(await target.recover());
	for (const url of urls) await waitForWebhook(url, 120000);
	log('n8n answers again');

	// Little Pay's redelivery: every callback without a 2xx, again and again until it gets one.
	const pending = deliveries.filter((d) => !d.acknowledged);
	for (let round = 0; round < REDELIVERY_ROUNDS && pending.some((d) => !d.acknowledged); round++) {
		if (round > 0) await new Promise((r) => setTimeout(r, 1000));
		await Promise.all(
			pending
				.filter((d) => !d.acknowledged)
				.map(async (d) => {
					d.attempts++;
					const status = await deliver(d.url, d.body, keys.privateKey);
					if (status >= 200 && status < 300) d.acknowledged = true;
				}),
		);
	}
	log(`redelivered ${pending.length} callbacks`);

	await after.setupOwner();
	// Receive and a No Operation end in milliseconds: one still running after 10 s of no change is one whose
	// end n8n could not record (the fault), not one still at work.
	await settledExecutions(after, created.id, 3000, 600000, 10000);
	log('executions settled');
	const found = await referencesByExecution(after, created.id, runTag);
	const { counts } = found;
	const ran = (d: Delivery) => (counts.get(d.reference) ?? 0) > 0;
	const executions = [...counts.values()].reduce((a, b) => a + b, 0);
	log(`${executions} executions carry a callback (${probes.size} probe executions ignored)`);
	return {
		receiver: options.receiver,
		callbacks: deliveries.length,
		acknowledgedBeforeFault,
		acknowledged: deliveries.filter((d) => d.acknowledged).length,
		acknowledgedThenLost: deliveries.filter((d) => d.acknowledged && !ran(d)).length,
		redelivered: pending.length,
		redeliveredRan: pending.filter(ran).length,
		neverAcknowledged: deliveries.filter((d) => !d.acknowledged).length,
		ranTwice: [...counts.values()].filter((n) => n > 1).length,
		executions,
		refusals,
		executionStatuses: found.statuses,
		executionsWithoutCallback: found.without.filter((e) => !probes.has(e.id)),
		lostReferences: deliveries.filter((d) => d.acknowledged && !ran(d)).map((d) => d.reference),
	};
}

/**
 * Runs one fault scenario (n8n killed, or its SQLite file locked) against a fresh n8n 2.41.1 in regular
 * mode and reports which acknowledged callbacks have no execution. n8n is stopped afterwards.
 */
export async function runCallbackFault(
	options: CallbackFaultOptions,
): Promise<CallbackFaultReport> {
	const userFolder = mkdtempSync(join(tmpdir(), 'littlepay-faults-'));
	// Its own n8n, not the e2e run's shared one (testkit/sharedN8n.ts): the fault kills it.
	// The port startN8n picks; a restart after the kill comes back on it (the callbacks' URLs name it).
	// Stopped without waiting on executions the fault left running: the run is over and its data read.
	let n8n: N8nServer = await startN8n({ userFolder, stopGraceMs: 2000 });
	const port = Number(new URL(n8n.url).port);
	const { fault } = options;
	try {
		return await burstThroughFault(
			n8n.url,
			{
				bases: [n8n.url],
				stopsN8n: fault.kind === 'kill',
				fault: async () => {
					if (fault.kind === 'kill') return await n8n.kill();
					if (fault.kind !== 'lockDatabase') throw new Error(`${fault.kind}: queue mode only`);
					await lockSqlite(join(userFolder, '.n8n', 'database.sqlite'), fault.forMs);
					await new Promise((r) => setTimeout(r, fault.forMs));
				},
				recover: async () => {
					if (fault.kind === 'kill') n8n = await startN8n({ userFolder, port, stopGraceMs: 2000 });
					return n8n.url;
				},
			},
			options,
		);
	} finally {
		await n8n.stop();
	}
}

/**
 * Runs the burst through a queue-mode cluster's webhook processes, round robin, with Postgres killed
 * (SIGKILL) in the middle and started again `downMs` later; the cluster is left running.
 */
export async function runQueueCallbackFault(
	cluster: QueueCluster,
	options: CallbackFaultOptions,
): Promise<CallbackFaultReport> {
	const { fault } = options;
	if (fault.kind !== 'killPostgres') throw new Error(`${fault.kind}: not a queue-mode fault`);
	return await burstThroughFault(
		cluster.main.url!,
		{
			bases: cluster.webhooks.map((w) => w.url!),
			stopsN8n: false,
			fault: async () => {
				await cluster.postgres.kill();
				await new Promise((r) => setTimeout(r, fault.downMs));
				await cluster.postgres.restart();
			},
			recover: async () => cluster.main.url!,
		},
		options,
	);
}

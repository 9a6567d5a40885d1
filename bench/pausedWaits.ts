// Bench pausedWaits (issue 12): 100 M-Pesa collections whose payer answers 10-30 s after their own
// PIN prompt, run as 100 executions of one workflow in a real n8n whose production concurrency is
// limited to 10, once pausing until the callback and once holding a long poll. Each payment is
// settled through the sandbox's resolve endpoint (which sends the signed callback) at its own delay
// after the sandbox logged its process request. Measured: time until all 100 executions finished,
// the most executions running at once (sampled from n8n's executions list), and gateway requests
// per payment from the sandbox's own request log.
import { randomUUID } from 'node:crypto';

import axios from 'axios';

import { startSandbox } from '../sandbox';
import type { SandboxHandle } from '../sandbox';
import { N8nApi, startN8n } from '../testkit/n8n';
import type { N8nServer } from '../testkit/n8n';
import { allExecutions, sandboxCredentials } from '../testkit/n8nRuns';
import { chain, littlePayNode, noOpNode, webhookNode } from '../testkit/workflowParts';
import { mapConcurrent, note, result, sleep } from './lib';

const PAYMENTS = 100;
const CONCURRENCY_LIMIT = 10;

interface SideResult {
	seconds: number;
	maxRunning: number;
	requestsPerPayment: number;
}

interface LoggedRequest {
	seq: number;
	method: string;
	path: string;
	at?: string;
}

async function requestsSince(sandbox: SandboxHandle, since: number): Promise<LoggedRequest[]> {
	const res = await axios.get(`${sandbox.baseUrl}/sandbox/requests`, { params: { since } });
	return res.data.data.requests as LoggedRequest[];
}

async function runSide(
	n8n: N8nServer,
	api: N8nApi,
	sandbox: SandboxHandle,
	ids: { basicId: string; apiKeyId: string },
	mode: 'pause' | 'longPoll',
): Promise<SideResult> {
	const path = `paused-waits-${mode}-${randomUUID()}`;
	const parameters = {
		resource: 'mobileMoney',
		operation: 'collect',
		amount: '={{ $json.body.amount }}',
		currency: 'KES',
		description: '={{ $json.body.description }}',
		key: '={{ $json.body.key }}',
		// Used by the long poll side; the pause replaces it with the execution's resume URL.
		callbackUrl: `${sandbox.baseUrl}/sandbox/merchant`,
		network: 'MPESA',
		// Ending in 3: the simulated payer never answers; the bench settles each payment itself.
		mobile: '+254712345673',
		waitForPayment: mode,
		pauseTimeout: 30,
		pauseTimeoutUnit: 'minutes',
		options: { waitTimeoutSeconds: 300, publicKey: sandbox.merchant.publicKeyPem },
	};
	const { id, versionId } = await api.createWorkflow({
		name: `pausedWaits ${mode}`,
		nodes: [webhookNode(path), littlePayNode(parameters, ids), noOpNode('Done', [440, 0])],
		connections: chain('Webhook', 'Little Pay', 'Done'),
	});
	await api.activateWorkflow(id, versionId);
	// n8n registers the production webhook a moment after activation.
	for (let i = 0; i < 40; i++) {
		const probe = await axios.head(`${n8n.url}/webhook/${path}`, { validateStatus: () => true });
		if (probe.status !== 404) break;
		await sleep(250);
	}
	const firstSeq = (await requestsSince(sandbox, 0)).at(-1)?.seq ?? 0;
	const tag = randomUUID().slice(0, 6);

	// The payers: each answers 10-30 s after the sandbox logged its own PIN prompt.
	let settled = 0;
	let stop = false;
	const payers = (async () => {
		let since = firstSeq;
		const timers: Array<Promise<void>> = [];
		while (!stop && settled < PAYMENTS) {
			for (const r of await requestsSince(sandbox, since)) {
				since = r.seq;
				const match = /^\/pay\/([^/?]+)\/process/.exec(r.path);
				if (r.method !== 'POST' || !match) continue;
				const delay = 10000 + Math.random() * 20000;
				timers.push(
					sleep(delay).then(async () => {
						await axios.post(`${sandbox.baseUrl}/sandbox/payments/${match[1]}/resolve`, {
							status: 'COMPLETED',
						});
						settled++;
					}),
				);
			}
			await sleep(200);
		}
		await Promise.all(timers);
	})();

	const started = Date.now();
	await mapConcurrent(
		Array.from({ length: PAYMENTS }, (_, i) => i),
		20,
		async (i) => {
			const res = await axios.post(
				`${n8n.url}/webhook/${path}`,
				{ amount: 100 + i, description: `Paused wait ${i}`, key: `pw${tag}${mode[0]}${i}` },
				{ validateStatus: () => true },
			);
			if (res.status !== 200) throw new Error(`${mode}: webhook answered ${res.status}`);
		},
	);
	let maxRunning = 0;
	let finished = 0;
	const deadline = Date.now() + 15 * 60_000;
	while (finished < PAYMENTS) {
		if (Date.now() > deadline) throw new Error(`${mode}: only ${finished} executions finished`);
		const list = await allExecutions(api, id);
		maxRunning = Math.max(maxRunning, list.filter((e) => e.status === 'running').length);
		finished = list.filter((e) => e.status === 'success' || e.status === 'error').length;
		const failed = list.filter((e) => e.status === 'error').length;
		if (failed > 0) throw new Error(`${mode}: ${failed} executions failed`);
		await sleep(500);
	}
	const seconds = (Date.now() - started) / 1000;
	stop = true;
	await payers;
	await api.http.post(`/rest/workflows/${id}/deactivate`, {});
	const gatewayRequests = (await requestsSince(sandbox, firstSeq)).filter(
		(r) => !r.path.startsWith('/sandbox/'),
	).length;
	return { seconds, maxRunning, requestsPerPayment: gatewayRequests / PAYMENTS };
}

/** Runs the paused-waits bench and prints its RESULT lines. */
export async function benchPausedWaits(): Promise<void> {
	const sandbox = await startSandbox({
		port: 0,
		quiet: true,
		longPollTimeoutMs: 60000,
		callbackRetryDelaysMs: [1000, 2000, 5000],
	});
	const n8n = await startN8n({
		env: { N8N_CONCURRENCY_PRODUCTION_LIMIT: String(CONCURRENCY_LIMIT) },
	});
	try {
		const api = new N8nApi(n8n.url);
		await api.setupOwner();
		const ids = await sandboxCredentials(api, sandbox, 'paused waits');
		const pause = await runSide(n8n, api, sandbox, ids, 'pause');
		const longPoll = await runSide(n8n, api, sandbox, ids, 'longPoll');
		for (const [label, side] of [
			['pause', pause],
			['long poll', longPoll],
		] as const) {
			note(
				`pausedWaits ${label}: ${PAYMENTS} payments answered 10-30 s after their prompt, production concurrency ${CONCURRENCY_LIMIT}: all finished in ${side.seconds.toFixed(1)} s, at most ${side.maxRunning} executions running at once, ${side.requestsPerPayment.toFixed(2)} gateway requests per payment`,
			);
		}
		const ratio = pause.seconds / longPoll.seconds;
		result('pausedWaits.ratio_vs_longpoll', ratio, '<=0.25', ratio <= 0.25);
		result(
			'pausedWaits.requests_per_payment',
			pause.requestsPerPayment,
			'<=2',
			pause.requestsPerPayment <= 2,
		);
	} finally {
		await n8n.stop();
		await sandbox.close();
	}
}

// Bench 4: acknowledgement latency of the Little Pay Trigger (signature verification on) versus n8n's
// plain Webhook node on the same payload, both in one real n8n server, 50 concurrent senders; and the
// cost of one signature verification.
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';

import { verifyCallbackSignature } from '../nodes/LittlePay/helpers/callbackSignature';
import { N8nApi, startN8n } from '../scripts/n8n';
import { mapConcurrent, percentile, result } from './lib';

const SENDERS = 50;
const REQUESTS_PER_ROUND = 200;
const ROUNDS = 3;

const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const publicKeyPem = keys.publicKey.export({ type: 'spki', format: 'pem' }).toString();

function signedCallback(i: number): { body: string; headers: Record<string, string> } {
	const body = JSON.stringify({
		reference: `BENCH${i}-${randomUUID().slice(0, 8)}`,
		status: 'COMPLETED',
		payload: { billingAddress: { firstName: 'Bench', email: 'bench@example.com' } },
		amount: 100 + i,
		key: `bench${i}`,
		currency: 'KES',
		provider: 'MPESA',
		date: new Date().toISOString(),
	});
	const timestamp = String(Math.floor(Date.now() / 1000));
	const signature = sign('sha256', Buffer.from(`${timestamp}.${body}`), keys.privateKey).toString('base64');
	return {
		body,
		headers: { 'content-type': 'application/json', 'x-littlepay-timestamp': timestamp, 'x-littlepay-signature': signature },
	};
}

const agent = new Agent({ keepAlive: true, maxSockets: SENDERS });

function post(url: string, body: string, headers: Record<string, string>): Promise<{ status: number; ms: number }> {
	const started = performance.now();
	return new Promise((resolve, reject) => {
		const req = request(url, { method: 'POST', headers, agent }, (res) => {
			res.resume();
			res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
		});
		req.on('error', reject);
		req.end(body);
	});
}

async function round(url: string, count: number): Promise<number[]> {
	const payloads = Array.from({ length: count }, (_, i) => signedCallback(i));
	const outcomes = await mapConcurrent(payloads, SENDERS, (p) => post(url, p.body, p.headers));
	const bad = outcomes.filter((o) => o.status !== 200).length;
	if (bad > 0) throw new Error(`${bad} of ${count} requests to ${url} were not acknowledged with 200`);
	return outcomes.map((o) => o.ms);
}

/** Runs bench 4 and prints its RESULT lines. */
export async function benchCallbacks(): Promise<void> {
	// Cost of one verification, measured alone.
	const sample = signedCallback(0);
	const verifyRuns = 2000;
	const t0 = performance.now();
	for (let i = 0; i < verifyRuns; i++) {
		verifyCallbackSignature({
			rawBody: sample.body,
			timestampHeader: sample.headers['x-littlepay-timestamp'],
			signatureHeader: sample.headers['x-littlepay-signature'],
			publicKeyPem,
			toleranceSeconds: 300,
		});
	}
	const perVerifyUs = ((performance.now() - t0) / verifyRuns) * 1000;
	result('callbacks.verify_cost_us', perVerifyUs, '<1000us', perVerifyUs < 1000, 'us');

	const n8n = await startN8n({ env: { EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'none' } });
	try {
		const api = new N8nApi(n8n.url);
		await api.setupOwner();
		const triggerHook = randomUUID();
		const plainHook = randomUUID();
		const trigger = await api.createWorkflow({
			name: 'bench trigger',
			nodes: [
				{
					parameters: { events: ['*'], verifySignatures: true, publicKey: publicKeyPem },
					name: 'Little Pay Trigger',
					type: 'n8n-nodes-littlepay.littlePayTrigger',
					typeVersion: 1,
					position: [0, 0],
					webhookId: triggerHook,
				},
			],
			connections: {},
		});
		const plain = await api.createWorkflow({
			name: 'bench plain webhook',
			nodes: [
				{
					parameters: { httpMethod: 'POST', path: 'plain', responseMode: 'onReceived', options: {} },
					name: 'Webhook',
					type: 'n8n-nodes-base.webhook',
					typeVersion: 2,
					position: [0, 0],
					webhookId: plainHook,
				},
			],
			connections: {},
		});
		await api.activateWorkflow(trigger.id, trigger.versionId);
		await api.activateWorkflow(plain.id, plain.versionId);
		const triggerUrl = `${n8n.url}/webhook/${triggerHook}/littlepay`;
		const plainUrl = `${n8n.url}/webhook/plain`;

		await round(triggerUrl, 100);
		await round(plainUrl, 100);
		const triggerMs: number[] = [];
		const plainMs: number[] = [];
		// Alternate rounds so both see the same machine noise.
		for (let i = 0; i < ROUNDS; i++) {
			triggerMs.push(...(await round(triggerUrl, REQUESTS_PER_ROUND)));
			plainMs.push(...(await round(plainUrl, REQUESTS_PER_ROUND)));
		}
		const t50 = percentile(triggerMs, 0.5);
		const p50 = percentile(plainMs, 0.5);
		const t99 = percentile(triggerMs, 0.99);
		const p99 = percentile(plainMs, 0.99);
		process.stdout.write(
			`# callbacks: trigger p50=${t50.toFixed(1)}ms p99=${t99.toFixed(1)}ms; plain webhook p50=${p50.toFixed(1)}ms p99=${p99.toFixed(1)}ms; ${SENDERS} senders, ${ROUNDS * REQUESTS_PER_ROUND} requests each\n`,
		);
		result('callbacks.ack_p50_ratio_vs_webhook', t50 / p50, '<=1.2', t50 / p50 <= 1.2);
		result('callbacks.ack_p99_ratio_vs_webhook', t99 / p99, '<=1.2', t99 / p99 <= 1.2);
	} finally {
		agent.destroy();
		await n8n.stop();
	}
}

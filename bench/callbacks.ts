// Bench 4: acknowledgement latency of the Little Pay Trigger (signature verification on) versus n8n's
// plain Webhook node, both in one real n8n server, 50 concurrent senders; and the cost of one signature
// verification. Fair by construction: every side gets the very same signed requests (same bytes, same
// headers), both workflows have the same downstream node, and the rounds alternate their order.
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';

import { verifyCallbackSignature } from '../nodes/LittlePay/callbacks/signature';
import { N8nApi, startN8n } from '../testkit/n8n';
import { mapConcurrent, note, percentile, result } from './lib';

const SENDERS = 50;
const REQUESTS_PER_ROUND = 200;
const ROUNDS = 6;
const LAZY_ROUNDS = 4;
const WARM_UP = 100;
// Information beside the target: a steady 10 callbacks per second, well below what n8n takes here.
const PACED_RATE = 10;
// Short rounds, alternating often: a machine's load changes within seconds, and each side should meet it alike.
const PACED_REQUESTS = 20;
const PACED_ROUNDS = 10;
const PACED_WARM_UP = 20;

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
	const signature = sign('sha256', Buffer.from(`${timestamp}.${body}`), keys.privateKey).toString(
		'base64',
	);
	return {
		body,
		headers: {
			'content-type': 'application/json',
			'x-littlepay-timestamp': timestamp,
			'x-littlepay-signature': signature,
		},
	};
}

const agent = new Agent({ keepAlive: true, maxSockets: SENDERS });

function post(
	url: string,
	body: string,
	headers: Record<string, string>,
): Promise<{ status: number; ms: number }> {
	const started = performance.now();
	return new Promise((resolve, reject) => {
		const req = request(url, { method: 'POST', headers, agent }, (res) => {
			res.resume();
			res.on('end', () =>
				resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }),
			);
		});
		req.on('error', reject);
		req.end(body);
	});
}

type Payload = ReturnType<typeof signedCallback>;

async function round(url: string, payloads: Payload[]): Promise<number[]> {
	return acknowledgedTimes(
		url,
		await mapConcurrent(payloads, SENDERS, (p) => post(url, p.body, p.headers)),
	);
}

/** The times of a round, which counts only when every request was acknowledged with 200. */
function acknowledgedTimes(url: string, outcomes: Array<{ status: number; ms: number }>): number[] {
	const bad = outcomes.filter((o) => o.status !== 200).length;
	if (bad > 0)
		throw new Error(
			`${bad} of ${outcomes.length} requests to ${url} were not acknowledged with 200`,
		);
	return outcomes.map((o) => o.ms);
}

/**
 * Open loop: one callback every 1000/PACED_RATE ms whatever the answers, as a gateway sends them while
 * payments complete, so n8n is not saturated and the time is the acknowledgement itself, not a queue.
 */
async function pacedRound(url: string, payloads: Payload[]): Promise<number[]> {
	const pending: Array<Promise<{ status: number; ms: number }>> = [];
	const started = performance.now();
	for (let i = 0; i < payloads.length; i++) {
		const due = started + (i * 1000) / PACED_RATE;
		const wait = due - performance.now();
		if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
		pending.push(post(url, payloads[i].body, payloads[i].headers));
	}
	return acknowledgedTimes(url, await Promise.all(pending));
}

/** A workflow of `start` followed by the same No Operation node every side has. */
function workflow(name: string, start: Record<string, unknown>): Record<string, unknown> {
	return {
		name,
		nodes: [
			{ ...start, position: [0, 0] },
			{
				parameters: {},
				name: 'Downstream',
				type: 'n8n-nodes-base.noOp',
				typeVersion: 1,
				position: [220, 0],
			},
		],
		connections: {
			[String(start.name)]: { main: [[{ node: 'Downstream', type: 'main', index: 0 }]] },
		},
	};
}

type Side = 'trigger' | 'trigger v1' | 'plain' | 'plain+isolate';

function startNode(side: Side, hook: string): Record<string, unknown> {
	if (side === 'trigger' || side === 'trigger v1') {
		return {
			parameters: { events: ['*'], verifySignatures: true, options: { publicKey: publicKeyPem } },
			name: 'Little Pay Trigger',
			type: 'n8n-nodes-littlepay.littlePayTrigger',
			// 2 is what the editor puts in new workflows; 1 is what workflows made before version 2 carry.
			typeVersion: side === 'trigger' ? 2 : 1,
			webhookId: hook,
		};
	}
	// 'plain+isolate' is a diagnostic: the same Webhook node with one expression parameter. n8n then takes an
	// expression isolate for the webhook call, as it does for every node type except its own Webhook node
	// with static parameters — so for every community trigger, this one included.
	const path = side === 'plain' ? 'plain' : 'plain-isolate';
	return {
		parameters: {
			httpMethod: 'POST',
			path,
			responseMode: 'onReceived',
			options: side === 'plain' ? {} : { ignoreBots: '={{ false }}' },
		},
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		webhookId: hook,
	};
}

/** Waits until none of the workflows has an execution running (at most 120 s). */
async function idle(api: N8nApi, workflowIds: string[]): Promise<void> {
	const deadline = Date.now() + 120000;
	while (Date.now() < deadline) {
		const lists = await Promise.all(workflowIds.map(async (id) => await api.executions(id)));
		if (lists.flat().every((e) => e.status !== 'running' && e.status !== 'new')) return;
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
	note('callbacks: executions still running after 120 s; pacing anyway');
}

/**
 * Starts one n8n with `env`, activates one workflow per side and measures the acknowledgement times:
 * warm-up, then `rounds` rounds in which every side gets the same list of signed callbacks (new references,
 * so the trigger takes every one as new), byte for byte, the order of the sides flipping every round.
 */
async function measure(
	env: Record<string, string>,
	sides: Side[],
	rounds: number,
	paced?: Map<Side, number[]>,
): Promise<Map<Side, number[]>> {
	const n8n = await startN8n({ env: { EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'none', ...env } });
	try {
		const api = new N8nApi(n8n.url);
		await api.setupOwner();
		const urls = new Map<Side, string>();
		const workflowIds: string[] = [];
		for (const side of sides) {
			const hook = randomUUID();
			const start = startNode(side, hook);
			const created = await api.createWorkflow(workflow(`bench ${side}`, start));
			await api.activateWorkflow(created.id, created.versionId);
			workflowIds.push(created.id);
			const path = (start.parameters as { path?: string }).path;
			urls.set(side, path ? `${n8n.url}/webhook/${path}` : `${n8n.url}/webhook/${hook}/littlepay`);
		}
		const times = new Map<Side, number[]>(sides.map((side) => [side, []]));
		const warmUp = Array.from({ length: WARM_UP }, (_, i) => signedCallback(i));
		for (const side of sides) await round(urls.get(side)!, warmUp);
		for (let r = 0; r < rounds; r++) {
			const payloads = Array.from({ length: REQUESTS_PER_ROUND }, (_, i) => signedCallback(i));
			const order = r % 2 === 0 ? sides : [...sides].reverse();
			for (const side of order) times.get(side)!.push(...(await round(urls.get(side)!, payloads)));
		}
		if (paced) {
			const pacedSides = sides.filter((side) => paced.has(side));
			// The burst's executions go on after their answers: pace only once n8n has finished them, or the
			// first paced side waits behind the burst's tail (measured: trigger p99 2.5 s in a whole run).
			await idle(api, workflowIds);
			for (const side of pacedSides) {
				const warm = Array.from({ length: PACED_WARM_UP }, (_, i) => signedCallback(i));
				await pacedRound(urls.get(side)!, warm);
			}
			for (let r = 0; r < PACED_ROUNDS; r++) {
				const payloads = Array.from({ length: PACED_REQUESTS }, (_, i) => signedCallback(i));
				const order = r % 2 === 0 ? pacedSides : [...pacedSides].reverse();
				for (const side of order)
					paced.get(side)!.push(...(await pacedRound(urls.get(side)!, payloads)));
			}
		}
		return times;
	} finally {
		await n8n.stop();
	}
}

function stats(ms: number[]): { p50: number; p99: number } {
	return { p50: percentile(ms, 0.5), p99: percentile(ms, 0.99) };
}

function report(label: string, times: Map<Side, number[]>): void {
	const plain = stats(times.get('plain')!);
	for (const [side, ms] of times) {
		const s = stats(ms);
		note(
			`callbacks${label}: ${side} p50=${s.p50.toFixed(1)}ms p99=${s.p99.toFixed(1)}ms (vs plain webhook ${(s.p50 / plain.p50).toFixed(3)}x / ${(s.p99 / plain.p99).toFixed(3)}x)`,
		);
	}
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

	try {
		note(
			`callbacks: ${SENDERS} senders; per side ${WARM_UP} warm-up, then alternating rounds of ${REQUESTS_PER_ROUND} identical signed requests; every workflow = start node -> No Operation`,
		);
		// The target: n8n as installed (default expression engine settings).
		const paced = new Map<Side, number[]>([
			['trigger', []],
			['plain', []],
			['plain+isolate', []],
		]);
		const times = await measure({}, ['trigger', 'plain', 'plain+isolate'], ROUNDS, paced);
		report(' (n8n defaults)', times);
		report(` (n8n defaults, paced ${PACED_RATE}/s, information)`, paced);
		// Diagnostic: isolates taken only when an expression needs one, so what is left is the nodes' own work.
		const lazy = await measure(
			{ N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' },
			['trigger', 'trigger v1', 'plain'],
			LAZY_ROUNDS,
		);
		report(' (N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true, diagnostic)', lazy);

		const t = stats(times.get('trigger')!);
		const p = stats(times.get('plain')!);
		result('callbacks.ack_p50_ratio_vs_webhook', t.p50 / p.p50, '<=1.2', t.p50 / p.p50 <= 1.2);
		result('callbacks.ack_p99_ratio_vs_webhook', t.p99 / p.p99, '<=1.2', t.p99 / p.p99 <= 1.2);
		// At a gateway's steady pace, against n8n's Webhook node with one expression (it takes an isolate too).
		const pt = stats(paced.get('trigger')!);
		const pe = stats(paced.get('plain+isolate')!);
		result(
			'callbacks.paced_ack_p50_ratio_vs_webhook_expression',
			pt.p50 / pe.p50,
			'<=1.5',
			pt.p50 / pe.p50 <= 1.5,
		);
		result(
			'callbacks.paced_ack_p99_ratio_vs_webhook_expression',
			pt.p99 / pe.p99,
			'<=2',
			pt.p99 / pe.p99 <= 2,
		);
	} finally {
		agent.destroy();
	}
}

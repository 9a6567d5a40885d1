// Reliability of the Little Pay Trigger under load in a real n8n (issue 5): 1,000 genuine signed payment
// callbacks, 20% of them delivered twice (half at the same moment, half later), and 200 bad ones (forged
// signature, tampered body, stale and future timestamps, missing headers, replays of delivered callbacks).
// Counted from n8n's own executions (REST API): every genuine callback must start exactly one execution and
// nothing else may start one. A twin that arrives while the first copy is being recorded is answered 503
// in-flight (Retry-After) and delivered again later, as a gateway retries; that retry must be acknowledged.
// Loopback only; n8n is stopped whatever happens.
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';

import { N8nApi, startN8n } from '../testkit/n8n';
import { allExecutions } from '../testkit/n8nRuns';
import { mapConcurrent, note, result, sleep } from './lib';

const GENUINE = 1000;
const TWICE_AT_ONCE = 100; // delivered twice at the same moment (gateway retry racing the first delivery)
const TWICE_LATER = 100; // delivered again after every first delivery was answered (gateway retry later)
const TOLERANCE_SECONDS = 300;
const SENDERS = 20;
const BAD = {
	forged: 40,
	tampered: 40,
	stale: 30,
	future: 30,
	missingHeaders: 30,
	replay: 30,
} as const;
type BadKind = keyof typeof BAD;

const gateway = generateKeyPairSync('rsa', { modulusLength: 2048 });
const attacker = generateKeyPairSync('rsa', { modulusLength: 2048 });
const publicKeyPem = gateway.publicKey.export({ type: 'spki', format: 'pem' }).toString();
const run = randomUUID().slice(0, 8);

interface Delivery {
	body: string;
	headers: Record<string, string>;
}

/** The flat payment callback body Little Pay (and the sandbox) sends. */
function callbackBody(i: number): string {
	return JSON.stringify({
		reference: `LOAD-${run}-${i}`,
		status: i % 10 === 9 ? 'FAILED' : 'COMPLETED',
		payload: { billingAddress: { firstName: 'Load', email: `payer${i}@example.com` } },
		amount: 100 + i,
		key: `load${run}${i}`,
		currency: 'KES',
		provider: 'MPESA',
		date: new Date(Date.UTC(2026, 10, 22, 12, 0, i % 60)).toISOString(),
	});
}

/** Signs `body` as the gateway does: RSA-SHA256 over `<timestamp>.<body>`, fresh for every attempt. */
function signed(body: string, options: { key?: KeyObject; offsetSeconds?: number } = {}): Delivery {
	const timestamp = String(Math.floor(Date.now() / 1000) + (options.offsetSeconds ?? 0));
	const signature = sign(
		'sha256',
		Buffer.from(`${timestamp}.${body}`),
		options.key ?? gateway.privateKey,
	);
	return {
		body,
		headers: {
			'content-type': 'application/json',
			'x-littlepay-timestamp': timestamp,
			'x-littlepay-signature': signature.toString('base64'),
		},
	};
}

const agent = new Agent({ keepAlive: true, maxSockets: SENDERS * 2 });

interface Answer {
	status: number;
	body: string;
	/** Seconds since the first request, when the answer came. */
	at: number;
}

let firstRequestAt = 0;

function post(url: string, delivery: Delivery): Promise<Answer> {
	if (firstRequestAt === 0) firstRequestAt = performance.now();
	const at = () => Math.round(performance.now() - firstRequestAt) / 1000;
	return new Promise((resolve) => {
		const req = request(
			url,
			{ method: 'POST', headers: delivery.headers, agent, timeout: 60000 },
			(res) => {
				let text = '';
				res.setEncoding('utf8');
				res.on('data', (chunk: string) => (text += chunk));
				res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, at: at() }));
			},
		);
		// A lost answer counts as status 0 (never as accepted).
		req.on('timeout', () => req.destroy(new Error('timeout')));
		req.on('error', (error) => resolve({ status: 0, body: String(error), at: at() }));
		req.end(delivery.body);
	});
}

function isDuplicateAck(answer: Answer): boolean {
	return answer.status === 200 && /"duplicate":\s*true/.test(answer.body);
}

/**
 * The answer to a copy that arrives while its twin is still being recorded: 503 with Retry-After, so the
 * gateway delivers it again later instead of the trigger acknowledging what n8n has not recorded yet.
 */
function isInFlight(answer: Answer): boolean {
	return answer.status === 503 && /"in-flight"/.test(answer.body);
}

/** Fisher-Yates with a fixed seed, so a run's delivery order is reproducible from its code. */
function shuffle<T>(values: T[], seed = 20261122): T[] {
	const out = [...values];
	let state = seed;
	const next = () => {
		state = (state * 1103515245 + 12345) % 2147483648;
		return state / 2147483648;
	};
	for (let i = out.length - 1; i > 0; i--) {
		const j = Math.floor(next() * (i + 1));
		[out[i], out[j]] = [out[j], out[i]];
	}
	return out;
}

/** Runs the trigger load bench and prints its RESULT lines. */
export async function benchTriggerLoad(): Promise<void> {
	const n8n = await startN8n();
	const stopOnSignal = () => {
		void n8n.stop().finally(() => process.exit(130));
	};
	process.once('SIGINT', stopOnSignal);
	process.once('SIGTERM', stopOnSignal);
	try {
		const api = new N8nApi(n8n.url);
		await api.setupOwner();
		const hook = randomUUID();
		const created = await api.createWorkflow({
			name: 'trigger load',
			nodes: [
				{
					parameters: {
						events: ['*'],
						verifySignatures: true,
						options: { publicKey: publicKeyPem, toleranceSeconds: TOLERANCE_SECONDS },
					},
					name: 'Little Pay Trigger',
					type: 'n8n-nodes-littlepay.littlePayTrigger',
					typeVersion: 1,
					position: [0, 0],
					webhookId: hook,
				},
				{
					parameters: {},
					name: 'Receipt',
					type: 'n8n-nodes-base.noOp',
					typeVersion: 1,
					position: [220, 0],
				},
			],
			connections: {
				'Little Pay Trigger': { main: [[{ node: 'Receipt', type: 'main', index: 0 }]] },
			},
		});
		await api.activateWorkflow(created.id, created.versionId);
		const url = `${n8n.url}/webhook/${hook}/littlepay`;
		// n8n answers 404 ("webhook is not registered") for a moment after the activate call returns. Wait
		// until the trigger itself answers: a body that is not JSON gets its 400 and starts nothing.
		const activatedAt = performance.now();
		for (;;) {
			const probe = await post(url, { body: 'probe', headers: { 'content-type': 'text/plain' } });
			if (probe.status !== 404) break;
			if (performance.now() - activatedAt > 30000)
				throw new Error('the trigger did not start listening within 30 s');
			await sleep(50);
		}
		note(
			`trigger_load: the production URL answered ${((performance.now() - activatedAt) / 1000).toFixed(2)} s after activation`,
		);
		firstRequestAt = 0;

		const bodies = Array.from({ length: GENUINE }, (_, i) => callbackBody(i));
		const indices = shuffle(bodies.map((_, i) => i));
		const twiceAtOnce = new Set(indices.slice(0, TWICE_AT_ONCE));
		const twiceLater = indices.slice(TWICE_AT_ONCE, TWICE_AT_ONCE + TWICE_LATER);

		// Bad deliveries for phase 1, built from bodies of their own (a forged callback for a payment that
		// never happened must not start anything either).
		const badBody = (kind: string, i: number) =>
			callbackBody(100000 + i).replace(`LOAD-${run}-`, `LOAD-${run}-${kind}-`);
		type Task = { kind: 'genuine'; index: number } | { kind: BadKind; make: () => Delivery };
		const phase1: Task[] = bodies.map((_, index) => ({ kind: 'genuine' as const, index }));
		for (let i = 0; i < BAD.forged; i++) {
			phase1.push({
				kind: 'forged',
				make: () => signed(badBody('forged', i), { key: attacker.privateKey }),
			});
		}
		for (let i = 0; i < BAD.tampered; i++) {
			// Signed by the gateway, then the amount changed on the way (bodies[...] are genuine ones).
			phase1.push({
				kind: 'tampered',
				make: () => {
					const d = signed(bodies[i]);
					return { ...d, body: d.body.replace(/"amount":\d+/, '"amount":9999999') };
				},
			});
		}
		for (let i = 0; i < BAD.stale; i++) {
			phase1.push({
				kind: 'stale',
				make: () => signed(badBody('stale', i), { offsetSeconds: -(TOLERANCE_SECONDS + 60 + i) }),
			});
		}
		for (let i = 0; i < BAD.future; i++) {
			phase1.push({
				kind: 'future',
				make: () => signed(badBody('future', i), { offsetSeconds: TOLERANCE_SECONDS + 60 + i }),
			});
		}
		for (let i = 0; i < BAD.missingHeaders; i++) {
			phase1.push({
				kind: 'missingHeaders',
				make: () => {
					const d = signed(badBody('missing', i));
					// Alternately no headers at all, no signature, no timestamp.
					const headers = { 'content-type': 'application/json' } as Record<string, string>;
					if (i % 3 === 1) headers['x-littlepay-timestamp'] = d.headers['x-littlepay-timestamp'];
					if (i % 3 === 2) headers['x-littlepay-signature'] = d.headers['x-littlepay-signature'];
					return { body: d.body, headers };
				},
			});
		}

		const genuineAnswers: Answer[] = [];
		// Twins answered 503 in-flight, delivered again after phase 1 as the gateway's retry would be.
		const inFlight: number[] = [];
		const inFlightRetries: Answer[] = [];
		const firstDeliveries = new Map<number, { delivery: Delivery; answer: Answer }>();
		const started: Answer[] = [];
		const badAnswers = new Map<BadKind, Answer[]>(Object.keys(BAD).map((k) => [k as BadKind, []]));
		const t0 = performance.now();
		await mapConcurrent(shuffle(phase1, 7), SENDERS, async (task) => {
			if (task.kind !== 'genuine') {
				badAnswers.get(task.kind)!.push(await post(url, task.make()));
				return;
			}
			const delivery = signed(bodies[task.index]);
			const answers = twiceAtOnce.has(task.index)
				? await Promise.all([post(url, delivery), post(url, signed(bodies[task.index]))])
				: [await post(url, delivery)];
			firstDeliveries.set(task.index, { delivery, answer: answers[0] });
			if (answers.some(isInFlight)) inFlight.push(task.index);
			genuineAnswers.push(...answers);
			started.push(...answers.filter((a) => a.status === 200 && !isDuplicateAck(a)));
		});
		const phase1Ms = performance.now() - t0;

		// Phase 2, later: gateway retries of delivered callbacks (fresh timestamp and signature, same body),
		// and replays of delivered callbacks byte for byte (same headers, still inside the tolerance window) —
		// of deliveries the trigger took: replaying one it never took would be a legitimate first delivery.
		const replayOf = shuffle(indices.slice(TWICE_AT_ONCE + TWICE_LATER), 11)
			.filter((index) => {
				const first = firstDeliveries.get(index)!.answer;
				return first.status === 200 && !isDuplicateAck(first);
			})
			.slice(0, BAD.replay);
		const phase2: Array<() => Promise<void>> = [
			...twiceLater.map((index) => async () => {
				const answer = await post(url, signed(bodies[index]));
				genuineAnswers.push(answer);
				if (answer.status === 200 && !isDuplicateAck(answer)) started.push(answer);
			}),
			...inFlight.map((index) => async () => {
				inFlightRetries.push(await post(url, signed(bodies[index])));
			}),
			...replayOf.map((index) => async () => {
				badAnswers.get('replay')!.push(await post(url, firstDeliveries.get(index)!.delivery));
			}),
		];
		await mapConcurrent(shuffle(phase2, 13), SENDERS, (task) => task());
		const sent = genuineAnswers.length + [...badAnswers.values()].reduce((n, a) => n + a.length, 0);
		note(
			`trigger_load: ${GENUINE} genuine callbacks, ${TWICE_AT_ONCE} delivered twice at once and ${TWICE_LATER} again later, ${Object.values(BAD).reduce((a, b) => a + b, 0)} bad; ${sent} requests, ${SENDERS} senders; phase 1 took ${(phase1Ms / 1000).toFixed(1)} s`,
		);

		// Wait until n8n has finished and saved every execution: the count unchanged for 5 s, none running.
		let executions = await allExecutions(api, created.id);
		let stableSince = Date.now();
		const deadline = Date.now() + 300000;
		while (Date.now() < deadline) {
			await sleep(1000);
			const now = await allExecutions(api, created.id);
			const running = now.some((e) => e.status === 'running' || e.status === 'new');
			if (now.length !== executions.length || running) stableSince = Date.now();
			executions = now;
			if (Date.now() - stableSince >= 5000) break;
		}

		// Which payment each execution was for, from its saved run data.
		const perReference = new Map<string, number>();
		const unreadable: string[] = [];
		await mapConcurrent(executions, 8, async (e) => {
			const full = await api.execution(e.id);
			const refs = new Set(
				JSON.stringify(full).match(new RegExp(`LOAD-${run}-[A-Za-z]*-?\\d+`, 'g')) ?? [],
			);
			if (refs.size !== 1) {
				unreadable.push(e.id);
				return;
			}
			const [ref] = [...refs];
			perReference.set(ref, (perReference.get(ref) ?? 0) + 1);
		});
		const genuineRefs = bodies.map((_, i) => `LOAD-${run}-${i}`);
		const missing = genuineRefs.filter((r) => !perReference.has(r)).length;
		const twice = [...perReference.values()].filter((n) => n > 1).length;
		const foreign = [...perReference.keys()].filter((r) => !/^LOAD-[^-]+-\d+$/.test(r)).length;
		const notSuccess = executions.filter((e) => e.status !== 'success').length;

		// A twin answered in-flight is not refused when its retry is acknowledged (as a duplicate).
		const retriedOk = inFlightRetries.filter((a) => a.status === 200).length;
		const genuineRefused =
			genuineAnswers.filter((a) => a.status !== 200 && !isInFlight(a)).length +
			(inFlight.length - retriedOk);
		const badStatus = (kind: BadKind) => badAnswers.get(kind)!.map((a) => a.status);
		const count401 = (kind: BadKind) => badStatus(kind).filter((s) => s === 401).length;
		const signatureBad: BadKind[] = ['forged', 'tampered', 'stale', 'future', 'missingHeaders'];
		const badAccepted =
			signatureBad.reduce(
				(n, kind) => n + badStatus(kind).filter((s) => s >= 200 && s < 300).length,
				0,
			) + badAnswers.get('replay')!.filter((a) => a.status === 200 && !isDuplicateAck(a)).length;
		const badNot401 = signatureBad.reduce(
			(n, kind) => n + badStatus(kind).filter((s) => s !== 401).length,
			0,
		);
		for (const kind of Object.keys(BAD) as BadKind[]) {
			const statuses = new Map<number, number>();
			for (const s of badStatus(kind)) statuses.set(s, (statuses.get(s) ?? 0) + 1);
			note(`trigger_load: ${kind}: ${[...statuses].map(([s, n]) => `${n}x HTTP ${s}`).join(', ')}`);
		}
		note(
			`trigger_load: genuine deliveries ${genuineAnswers.length}: ${genuineAnswers.filter((a) => a.status === 200 && !isDuplicateAck(a)).length} acknowledged as new, ${genuineAnswers.filter(isDuplicateAck).length} as duplicate, ${genuineRefused} refused`,
		);
		note(
			`trigger_load: ${inFlight.length} twins answered 503 in-flight; their retries: ${retriedOk} acknowledged (${inFlightRetries.filter(isDuplicateAck).length} as duplicate)`,
		);
		const unexpected = [
			...genuineAnswers.filter((a) => a.status !== 200 && !isInFlight(a)),
			...inFlightRetries.filter((a) => a.status !== 200),
			...signatureBad.flatMap((kind) => badAnswers.get(kind)!.filter((a) => a.status !== 401)),
		];
		for (const a of unexpected.slice(0, 10)) {
			note(
				`trigger_load: unexpected answer at ${a.at.toFixed(1)} s: HTTP ${a.status} ${a.body.slice(0, 200)}`,
			);
		}
		if (unexpected.length > 0) {
			const lines = n8n
				.logs()
				.split('\n')
				.filter((l) => /webhook|error|warn/i.test(l));
			for (const line of lines.slice(-8)) note(`trigger_load: n8n log: ${line.slice(0, 300)}`);
		}
		note(
			`trigger_load: n8n executions ${executions.length} (${notSuccess} not successful, ${unreadable.length} without exactly one reference); references missing ${missing}, started twice ${twice}, not genuine ${foreign}`,
		);

		result(
			'trigger_load.executions',
			executions.length,
			String(GENUINE),
			executions.length === GENUINE,
		);
		result('trigger_load.references_missing', missing, '0', missing === 0);
		result('trigger_load.references_started_twice', twice, '0', twice === 0);
		result(
			'trigger_load.executions_not_genuine',
			foreign + unreadable.length,
			'0',
			foreign + unreadable.length === 0,
		);
		result('trigger_load.executions_not_successful', notSuccess, '0', notSuccess === 0);
		result('trigger_load.genuine_not_acknowledged', genuineRefused, '0', genuineRefused === 0);
		result(
			'trigger_load.acknowledged_as_new',
			started.length,
			String(GENUINE),
			started.length === GENUINE,
		);
		result('trigger_load.bad_accepted', badAccepted, '0', badAccepted === 0);
		result('trigger_load.bad_signature_not_401', badNot401, '0', badNot401 === 0);
		result(
			'trigger_load.forged_401',
			count401('forged'),
			String(BAD.forged),
			count401('forged') === BAD.forged,
		);
		result(
			'trigger_load.tampered_401',
			count401('tampered'),
			String(BAD.tampered),
			count401('tampered') === BAD.tampered,
		);
		result(
			'trigger_load.stale_401',
			count401('stale'),
			String(BAD.stale),
			count401('stale') === BAD.stale,
		);
		result(
			'trigger_load.future_401',
			count401('future'),
			String(BAD.future),
			count401('future') === BAD.future,
		);
		result(
			'trigger_load.missing_headers_401',
			count401('missingHeaders'),
			String(BAD.missingHeaders),
			count401('missingHeaders') === BAD.missingHeaders,
		);
		const replaysDup = badAnswers.get('replay')!.filter(isDuplicateAck).length;
		result(
			'trigger_load.replays_acknowledged_as_duplicate',
			replaysDup,
			String(BAD.replay),
			replaysDup === BAD.replay,
		);
	} finally {
		process.removeListener('SIGINT', stopOnSignal);
		process.removeListener('SIGTERM', stopOnSignal);
		agent.destroy();
		await n8n.stop();
	}
}

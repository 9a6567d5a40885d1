// Bench 3: waiting for a payment. Payment: Wait for Completion (long polls) versus what users build
// with a Wait node: Get Status, and while PENDING wait 1 s and ask again. 20 payments each, all running
// at once (each a one-item workflow through n8n-core's engine), completing 5-20 s after the start
// (settled through the sandbox's resolve endpoint); the gateway holds a long poll for 30 s, longer than
// any payment takes. Measured from the sandbox's own request log and the status record's completedAt.
// The polling loop is modelled as one Get Status run, then 1 s of sleep, as n8n's Wait node does
// in-process for waits under 65 s; the Wait and If nodes themselves are not run.
import axios from 'axios';

import { startSandbox } from '../sandbox';
import type { SandboxHandle } from '../sandbox';
import { loadFixture, runWorkflow } from './engine';
import { note, percentile, result, sum } from './lib';

const PAYMENTS = 20;
const FINAL = new Set(['COMPLETED', 'FAILED']);

type Credentials = Record<string, Record<string, string>>;

async function pendingPayment(sandbox: SandboxHandle, i: number): Promise<string> {
	const m = sandbox.merchant;
	const created = await axios.post(
		`${m.baseUrl}/api/payments/${m.tokenId}/pay`,
		{
			amount: 100 + i,
			description: `Wait ${i}`,
			callbackUrl: 'http://127.0.0.1:9/unused',
			key: `wait${i}x${Date.now().toString(36)}`,
			payload: { billingAddress: { email: 'bench@example.com' } },
		},
		{ auth: { username: m.clientId, password: m.clientSecret } },
	);
	const reference = created.data.data.reference as string;
	// A number ending in 3: the simulated payer never answers, so only the resolve below settles it.
	await axios.post(`${m.baseUrl}/pay/${reference}/process`, {
		type: 'MPESA',
		payment: { mobile: '254712345673' },
	});
	return reference;
}

/** The node: one Wait for Completion run; resolves when the node's output exists. */
async function viaNode(
	credentials: Credentials,
	reference: string,
): Promise<{ at: number; requests: number }> {
	const run = await runWorkflow(
		loadFixture('payment-wait-for-completion.json', {
			ITEMS: JSON.stringify([{ paymentId: reference, timeout: 60 }]),
			ON_ERROR: 'stopWorkflow',
		}),
		{ credentials },
	);
	const at = Date.now();
	if (run.error) throw run.error;
	const out = run.output('Little Pay')[0].json;
	if (!FINAL.has(String(out.status)) || out.timedOut !== false)
		throw new Error(`wait for ${reference} ended ${JSON.stringify(out)}`);
	return { at, requests: Number(out.requests) };
}

/** The baseline: Get Status, then 1 s of waiting while PENDING. */
async function viaPolling(
	credentials: Credentials,
	reference: string,
): Promise<{ at: number; requests: number }> {
	for (let requests = 1; ; requests++) {
		const run = await runWorkflow(
			loadFixture('payment-get-status.json', {
				ITEMS: JSON.stringify([{ paymentId: reference }]),
				ON_ERROR: 'stopWorkflow',
			}),
			{ credentials },
		);
		if (run.error) throw run.error;
		if (FINAL.has(String(run.output('Little Pay')[0].json.status)))
			return { at: Date.now(), requests };
		await new Promise((r) => setTimeout(r, 1000));
	}
}

/** Runs bench 3 and prints its RESULT lines. */
export async function benchWaiting(): Promise<void> {
	const sandbox = await startSandbox({
		port: 0,
		quiet: true,
		pinDelayMs: 100,
		longPollTimeoutMs: 30000,
	});
	try {
		const credentials = {
			littlePayApiKeyApi: { apiKey: sandbox.merchant.apiKey, baseUrl: sandbox.baseUrl },
		};
		const refs: string[] = [];
		for (let i = 0; i < 2 * PAYMENTS; i++) refs.push(await pendingPayment(sandbox, i));
		const { seq: logStart } = {
			seq: Number(
				(
					(await axios.get(`${sandbox.baseUrl}/sandbox/requests`)).data.data.requests as Array<{
						seq: number;
					}>
				).at(-1)?.seq ?? 0,
			),
		};
		// Even payments are waited on by the node, odd ones by the loop; settle times spread over 5-20 s.
		const settleAfterMs = refs.map((_, i) => 5000 + Math.round((15000 * i) / (refs.length - 1)));
		const started = Date.now();
		const runs = refs.map((ref, i) =>
			i % 2 === 0 ? viaNode(credentials, ref) : viaPolling(credentials, ref),
		);
		const resolves = refs.map(
			(ref, i) =>
				new Promise<void>((resolve, reject) =>
					setTimeout(() => {
						axios
							.post(`${sandbox.baseUrl}/sandbox/payments/${ref}/resolve`, { status: 'COMPLETED' })
							.then(() => resolve(), reject);
					}, settleAfterMs[i]),
				),
		);
		const outcomes = await Promise.all(runs);
		await Promise.all(resolves);
		note(
			`waiting: ${PAYMENTS} payments per side, all at once, settled 5-20 s after the start; done in ${((Date.now() - started) / 1000).toFixed(1)} s`,
		);

		const ledger = (await axios.get(`${sandbox.baseUrl}/sandbox/ledger`)).data.data
			.intents as Array<{ reference: string; completedAt: string | null }>;
		const completedAt = new Map(
			ledger.map((i) => [i.reference, i.completedAt ? Date.parse(i.completedAt) : NaN]),
		);
		const log = (
			await axios.get(`${sandbox.baseUrl}/sandbox/requests`, { params: { since: logStart } })
		).data.data.requests as Array<{ method: string; path: string }>;
		const sent = (ref: string) =>
			log.filter((r) => r.method === 'GET' && r.path === `/api/payments-v2/${ref}`).length;

		const side = (parity: number) => {
			const idx = refs.map((_, i) => i).filter((i) => i % 2 === parity);
			const delays = idx.map((i) => outcomes[i].at - (completedAt.get(refs[i]) ?? NaN));
			const requests = idx.map((i) => sent(refs[i]));
			const reported = idx.map((i) => outcomes[i].requests);
			return { delays, requests, reported };
		};
		const node = side(0);
		const poll = side(1);
		const nodeAvg = sum(node.requests) / PAYMENTS;
		const pollAvg = sum(poll.requests) / PAYMENTS;
		note(
			`waiting: gateway saw per payment: node ${node.requests.join(',')}; polling ${poll.requests.join(',')}`,
		);
		note(`waiting: the node's own requests field: ${node.reported.join(',')}`);
		note(
			`waiting: delay status change -> output (ms): node p50=${percentile(node.delays, 0.5)} max=${Math.max(...node.delays)}; polling p50=${percentile(poll.delays, 0.5)} max=${Math.max(...poll.delays)}`,
		);
		result('waiting.node_requests_per_payment', nodeAvg, '<=2', nodeAvg <= 2);
		result('waiting.polling_requests_per_payment', pollAvg, 'baseline', true);
		const nodeP50 = percentile(node.delays, 0.5);
		result('waiting.node_output_delay_p50_ms', nodeP50, '<100ms', nodeP50 < 100, 'ms');
		result(
			'waiting.polling_output_delay_p50_ms',
			percentile(poll.delays, 0.5),
			'baseline',
			true,
			'ms',
		);
		const mismatched = node.requests.filter((n, k) => n !== node.reported[k]).length;
		result('waiting.node_requests_field_matches_gateway', mismatched, '0', mismatched === 0);
	} finally {
		await sandbox.close();
	}
}

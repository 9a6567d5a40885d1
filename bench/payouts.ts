// Bench 2: a payout run. 1,000 disbursements through Disbursement: Create (n8n-core's engine via the test
// harness) with 100 ms of gateway latency on every API request (a sandbox fault rule), Concurrency 10
// versus Concurrency 1 in the same run; and the output must keep input order and pairedItem.
// Rounds: c10, c1, c10 (c1 alone takes ~100 s, so it runs once; c10 is averaged around it).
import { performance } from 'node:perf_hooks';

import axios from 'axios';

import { startSandbox } from '../sandbox';
import { loadFixture, runWorkflow } from './engine';
import { note, result } from './lib';

const PAYOUTS = 1000;
const LATENCY_MS = 100;

interface Payout {
	method: string;
	amount: number;
	to: string;
	key: string;
	concurrency: number;
}

/** Runs bench 2 and prints its RESULT lines. */
export async function benchPayouts(): Promise<void> {
	const sandbox = await startSandbox({ port: 0, quiet: true, pinDelayMs: 60000 });
	try {
		const m = sandbox.merchant;
		const credentials = { littlePayApiKeyApi: { apiKey: m.apiKey, baseUrl: m.baseUrl } };
		await axios.post(`${sandbox.baseUrl}/sandbox/faults`, {
			rules: [{ pathPrefix: '/api/', latencyMs: LATENCY_MS }],
		});
		// Each payout has its own number and amount, so a misplaced output is visible, and each run
		// its own payout IDs (keys), so every run pays again.
		let runs = 0;
		// Keys from the data (the safe default: each looked up before it is paid), or generated per
		// execution (a first execution has nothing to look up: one round trip per payout, the baseline).
		const items = (concurrency: number, generated = false): Payout[] => {
			runs++;
			return Array.from({ length: PAYOUTS }, (_, i) => ({
				method: 'MPESA',
				amount: 100 + i,
				to: `2547${String(10000000 + i * 7919).slice(-8)}`,
				key: generated ? '' : `bench${runs}x${i}`,
				concurrency,
			}));
		};
		const requestCount = async (): Promise<number> =>
			Number((await axios.get(`${sandbox.baseUrl}/sandbox/stats`)).data.data.requests);

		let badOrder = 0;
		let badPairing = 0;
		let lastInput: Payout[] = [];
		const runOnce = async (
			concurrency: number,
			generated = false,
			input = items(concurrency, generated),
			expected = 'accepted',
		): Promise<number> => {
			lastInput = input;
			const started = performance.now();
			const run = await runWorkflow(
				loadFixture('disbursement-create.json', {
					ITEMS: JSON.stringify(input),
					ON_ERROR: 'stopWorkflow',
				}),
				{ credentials },
			);
			const ms = performance.now() - started;
			if (run.error) throw run.error;
			const out = run.output('Little Pay');
			if (out.length !== input.length)
				throw new Error(
					`concurrency ${concurrency}: ${out.length} outputs for ${input.length} payouts`,
				);
			out.forEach((o, i) => {
				if (
					o.json.to !== input[i].to ||
					o.json.amount !== input[i].amount ||
					o.json.outcome !== expected
				)
					badOrder++;
				const paired = o.pairedItem as { item?: number } | undefined;
				if (paired?.item !== i) badPairing++;
			});
			return ms;
		};

		let before = await requestCount();
		const c10a = await runOnce(10);
		const mappedRequests = (await requestCount()) - before;
		const c1 = await runOnce(1);
		const c10b = await runOnce(10);
		const c10 = (c10a + c10b) / 2;
		// The same run again (the same keys): every payout is found by its key, none is sent.
		before = await requestCount();
		await runOnce(10, false, lastInput, 'pending');
		const rerunRequests = (await requestCount()) - before;
		// The baseline: generated keys in a first execution, looked up by nobody.
		before = await requestCount();
		const oneTrip = await runOnce(10, true);
		const generatedRequests = (await requestCount()) - before;
		note(
			`payouts: concurrency 10 with keys from the data (looked up ahead, 50 at once): ${(c10 / 1000).toFixed(1)} s; generated keys (no lookup): ${(oneTrip / 1000).toFixed(1)} s`,
		);
		const vsOneTrip = c10 / oneTrip;
		result('payouts.c10_seconds_vs_one_round_trip', vsOneTrip, '<=1.25', vsOneTrip <= 1.25, 'x');
		result('payouts.requests_per_payout.mapped_first_run', mappedRequests / PAYOUTS, 'info', true);
		result('payouts.requests_per_payout.mapped_rerun', rerunRequests / PAYOUTS, 'info', true);
		result(
			'payouts.requests_per_payout.generated_first_run',
			generatedRequests / PAYOUTS,
			'info',
			true,
		);
		note(
			`payouts: ${PAYOUTS} payouts, ${LATENCY_MS} ms latency; concurrency 10: ${(c10a / 1000).toFixed(1)} s and ${(c10b / 1000).toFixed(1)} s, concurrency 1: ${(c1 / 1000).toFixed(1)} s`,
		);
		const ledger = (await axios.get(`${sandbox.baseUrl}/sandbox/ledger`)).data.data
			.disbursements as unknown[];
		note(`payouts: the sandbox ledger holds ${ledger.length} payouts for ${4 * PAYOUTS} paid runs`);
		// Concurrency 10 against 1, both with keys from the data. At Concurrency 1 the look-ups run ahead of
		// the payouts and hide behind them; at 10 they add up to 25% (the line above guards that), so the 8x
		// that one round trip per payout reaches (2026-11-23: 8.7x) becomes 8 / 1.25 = 6.4x here.
		const speedup = c1 / c10;
		result('payouts.speedup_c10_vs_c1', speedup, '>=6.4', speedup >= 6.4, 'x');
		result('payouts.outputs_out_of_order', badOrder, '0', badOrder === 0);
		result('payouts.pairedItem_wrong', badPairing, '0', badPairing === 0);
		result(
			'payouts.ledger_count_matches',
			ledger.length === 4 * PAYOUTS ? 1 : 0,
			'1',
			ledger.length === 4 * PAYOUTS,
		);
	} finally {
		await sandbox.close();
	}
}

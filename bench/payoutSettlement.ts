// Bench payoutSettlement (issue 20): 200 payouts through Disbursement: Create with Wait for Result "Until
// Settled" and Concurrency 10 (n8n-core's engine via the harness), each settling 1-30 s after it is created
// (the sandbox draws each payout's time). Measured from the sandbox's own log and ledger: lookups per payout
// while waiting, the time until every outcome is known against the slowest settlement, and payouts the wait
// created (must be none).
import { performance } from 'node:perf_hooks';

import axios from 'axios';

import { startSandbox } from '../sandbox';
import { loadFixture, runWorkflow } from './engine';
import { note, result } from './lib';

const PAYOUTS = 200;
const SETTLE = { minMs: 1000, maxMs: 30000 };

interface Logged {
	method: string;
	path: string;
	at: string;
	status: number;
}

interface Settled {
	key: string;
	status: string;
	createdAt: string;
	settledAt: string | null;
}

/** Runs the payoutSettlement bench and prints its RESULT lines. */
export async function benchPayoutSettlement(): Promise<void> {
	const sandbox = await startSandbox({ port: 0, quiet: true, payoutSettleMs: SETTLE });
	try {
		const m = sandbox.merchant;
		const credentials = { littlePayApiKeyApi: { apiKey: m.apiKey, baseUrl: m.baseUrl } };
		// Last digits 0 and 4-9 pay, 1 and 2 fail (3, which never settles, is left out).
		const digits = ['0', '1', '2', '4', '5', '6', '7', '8', '9'];
		const items = Array.from({ length: PAYOUTS }, (_, i) => ({
			method: 'MPESA',
			amount: 100 + i,
			to: `25471${String(i).padStart(6, '0')}${digits[i % digits.length]}`,
			key: `settle${i}`,
			concurrency: 10,
			wait: true,
			waitTimeout: 300,
		}));
		const started = Date.now();
		const t0 = performance.now();
		const run = await runWorkflow(
			loadFixture('disbursement-create.json', {
				ITEMS: JSON.stringify(items),
				ON_ERROR: 'stopWorkflow',
			}),
			{ credentials },
		);
		const elapsedMs = performance.now() - t0;
		if (run.error) throw run.error;
		const out = run.output('Little Pay').map((o) => o.json);

		const get = async (path: string) => (await axios.get(`${sandbox.baseUrl}${path}`)).data.data;
		const requests = (await get('/sandbox/requests')).requests as Logged[];
		const ledger = (await get('/sandbox/ledger')).disbursements as Settled[];
		const settleMs = ledger
			.filter((d) => d.settledAt)
			.map((d) => Date.parse(String(d.settledAt)) - Date.parse(d.createdAt));
		const slowestMs = Math.max(...settleMs);
		const posts = requests.filter((r) => r.method === 'POST' && r.path === '/api/disbursements');
		// The wait looks payouts up by the id Little Pay gave them; the create itself looks each key
		// from the data up once before sending (counted apart: it is not part of the wait).
		const ids = new Set(out.map((o) => `/api/disbursements/${String(o.id)}`));
		const lookups = requests.filter((r) => r.method === 'GET' && ids.has(r.path));
		const keyChecks = requests.filter(
			(r) => r.method === 'GET' && /^\/api\/disbursements\/settle\d+$/.test(r.path),
		);
		const firstLookup = Math.min(...lookups.map((r) => Date.parse(r.at)));
		// Anything created once the wait has begun, or beyond the 200 the run was asked for.
		const createdByWait =
			posts.filter((r) => Date.parse(r.at) >= firstLookup).length +
			Math.max(0, ledger.length - PAYOUTS);
		const known = out.filter((o) => o.outcome === 'completed' || o.outcome === 'failed').length;
		const lastPostAt = Math.max(...posts.map((r) => Date.parse(r.at))) - started;
		note(
			`payoutSettlement: ${PAYOUTS} payouts settling ${SETTLE.minMs / 1000}-${SETTLE.maxMs / 1000} s after creation (slowest ${(slowestMs / 1000).toFixed(1)} s), Concurrency 10: all sent after ${(lastPostAt / 1000).toFixed(1)} s, every outcome known after ${(elapsedMs / 1000).toFixed(1)} s; ${known} completed or failed, ${out.filter((o) => o.timedOut === true).length} timed out; ${lookups.length} lookups while waiting, ${keyChecks.length} key checks before sending, ${posts.length} creates, ${ledger.length} payouts in the ledger`,
		);
		const perPayout = lookups.length / PAYOUTS;
		result('payoutSettlement.lookups_per_payout', perPayout, '<=4', perPayout <= 4);
		const ratio = elapsedMs / slowestMs;
		result('payoutSettlement.known_vs_slowest_settlement', ratio, '<=1.25x', ratio <= 1.25, 'x');
		result('payoutSettlement.outcomes_unknown', PAYOUTS - known, '0', known === PAYOUTS);
		result('payoutSettlement.created_by_wait', createdByWait, '0', createdByWait === 0);
	} finally {
		await sandbox.close();
	}
}

// Example 12 (payroll over queue-mode workers) in a queue-mode cluster, for test/e2e/payrollQueue.e2e.test.ts
// and bench/payrollQueue.ts: the workflow imported with its chunk URL on a webhook process, payrolls loaded
// through its own Load a Payroll webhook, and the sandbox ledger counted by key. Never shipped.
import axios from 'axios';
import { parse as parseFlatted } from 'flatted';

import type { N8nApi } from './n8n';
import { loadExample, waitFor } from './n8nRuns';
import { createPayrollTables } from './payrollTable';

const EXAMPLE = '12-payroll-over-workers.json';

/** Example 12 imported and active in an n8n, and where to call it. */
export interface PayrollWorkflow {
	id: string;
	tableId: string;
	outcomesTableId: string;
	/** Webhook base URLs (`http://host:port`) the payroll is started and loaded through. */
	webhookUrls: string[];
}

/** A payroll row as a bookkeeper's sheet has it. */
export interface PayrollRow {
	payoutId: string;
	name: string;
	phone: string;
	amount: number;
	currency: string;
}

/**
 * `count` rows of payroll `payrollId` (letters and digits): payout IDs `<payrollId>e<i>`, numbers of their own
 * ending in 0 (the sandbox pays those) within `block` (keeps two payrolls' numbers apart).
 */
export function payrollRows(payrollId: string, count: number, block = 0): PayrollRow[] {
	return Array.from({ length: count }, (_, i) => ({
		payoutId: `${payrollId}e${i + 1}`,
		name: `Employee ${i + 1}`,
		phone: `2547${String(block * 200000 + i).padStart(7, '0')}0`,
		amount: 1000 + (i % 500),
		currency: 'KES',
	}));
}

/**
 * Creates the payroll table, imports example 12 with the API key credential, its chunk URL pointed at
 * `webhookUrls[0]`, activates it and waits until every webhook process serves it.
 */
export async function importPayrollWorkflow(
	api: N8nApi,
	apiKeyId: string,
	webhookUrls: string[],
): Promise<PayrollWorkflow> {
	const tables = await createPayrollTables(api);
	const workflow = loadExample(EXAMPLE, {
		API_KEY_CREDENTIAL_ID: apiKeyId,
		PAYROLL_TABLE_ID: tables.payrollId,
		PAYROLL_OUTCOMES_TABLE_ID: tables.payrollOutcomesId,
	});
	const text = JSON.stringify(workflow).split('http://127.0.0.1:5678').join(webhookUrls[0]);
	const { id, versionId } = await api.createWorkflow(JSON.parse(text) as Record<string, unknown>);
	await api.activateWorkflow(id, versionId);
	// Probe with the read-only GET: an empty POST would run the load or the start.
	for (const url of webhookUrls)
		await waitFor(`the payroll summary webhook on ${url}`, async () => {
			const res = await axios.get(`${url}/webhook/littlepay-payroll-summary`, {
				params: { payrollId: 'none' },
				validateStatus: () => true,
			});
			return res.status === 200 ? true : undefined;
		});
	return { id, tableId: tables.payrollId, outcomesTableId: tables.payrollOutcomesId, webhookUrls };
}

/** Loads a payroll through the workflow's Load a Payroll webhook (once per payroll ID); resolves when written. */
export async function loadPayroll(
	webhookUrl: string,
	payrollId: string,
	rows: PayrollRow[],
): Promise<void> {
	await axios.post(
		`${webhookUrl}/webhook/littlepay-payroll-load`,
		{ payrollId, rows },
		{ timeout: 600000, maxBodyLength: Infinity },
	);
}

/** Starts a payroll through Start the Payroll; resolves with its answer (the summary) and HTTP status. */
export async function startPayroll(
	webhookUrl: string,
	body: { payrollId: string; chunkSize?: number; staleClaimMinutes?: number },
): Promise<{ status: number; summary: Record<string, unknown> }> {
	const res = await axios.post(`${webhookUrl}/webhook/littlepay-payroll`, body, {
		timeout: 3600000,
		validateStatus: () => true,
	});
	return { status: res.status, summary: res.data as Record<string, unknown> };
}

/** The payroll's summary as the workflow's GET webhook answers it. */
export async function payrollSummary(
	webhookUrl: string,
	payrollId: string,
): Promise<Record<string, unknown>> {
	const res = await axios.get(`${webhookUrl}/webhook/littlepay-payroll-summary`, {
		params: { payrollId },
		timeout: 120000,
	});
	return res.data as Record<string, unknown>;
}

/** How many payouts the sandbox ledger holds per key (what the gateway really got). */
export async function ledgerCountByKey(sandboxUrl: string): Promise<Map<string, number>> {
	const ledger = (await axios.get(`${sandboxUrl}/sandbox/ledger`)).data.data
		.disbursements as Array<{
		key?: string;
	}>;
	const counts = new Map<string, number>();
	for (const d of ledger) if (d.key) counts.set(d.key, (counts.get(d.key) ?? 0) + 1);
	return counts;
}

/** Of the payroll's keys: how many the ledger holds once, twice or more, and not at all. */
export function paidOnce(
	counts: Map<string, number>,
	rows: PayrollRow[],
): { once: number; twiceOrMore: string[]; unpaid: string[] } {
	let once = 0;
	const twiceOrMore: string[] = [];
	const unpaid: string[] = [];
	for (const row of rows) {
		const n = counts.get(row.payoutId) ?? 0;
		if (n === 1) once++;
		else if (n === 0) unpaid.push(row.payoutId);
		else twiceOrMore.push(row.payoutId);
	}
	return { once, twiceOrMore, unpaid };
}

/** The execution ids a worker's log says it ran. */
export function executionsRunBy(logs: string): Set<string> {
	return new Set([...logs.matchAll(/Worker started execution (\d+)/g)].map((m) => m[1]));
}

/** How long each named node ran in an execution (n8n's executionTime, ms) and how many items it output. */
export async function nodeTimes(
	api: N8nApi,
	executionId: string,
	names: string[],
): Promise<Record<string, { ms: number; items: number }>> {
	const full = await api.execution(executionId);
	const data = parseFlatted(String(full.data)) as {
		resultData?: {
			runData?: Record<
				string,
				Array<{ executionTime?: number; data?: { main?: Array<unknown[] | null> } }>
			>;
		};
	};
	const out: Record<string, { ms: number; items: number }> = {};
	for (const name of names) {
		const runs = data.resultData?.runData?.[name] ?? [];
		out[name] = {
			ms: runs.reduce((sum, r) => sum + (r.executionTime ?? 0), 0),
			items: runs.reduce((sum, r) => sum + (r.data?.main?.[0]?.length ?? 0), 0),
		};
	}
	return out;
}

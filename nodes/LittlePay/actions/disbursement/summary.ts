import type { IDataObject, NodeExecutionHint } from 'n8n-workflow';

import { isUnsettled } from '../../helpers/payoutOutcome';
import type { RefusedPayout } from './run';

/**
 * A payout run's figures, the first thing a bookkeeper reads after a run: what was sent now, what was
 * found already sent, what failed or was refused, what is still pending, the totals and fees per
 * currency, and the rows to act on with their 1-based row and key. A dry run gives the same figures
 * for what it would send.
 */

/** How many rows to act on the summary lists; the counts cover them all. */
const ACT_ON_LISTED = 100;

function round2(n: number): number {
	return Math.round(n * 100) / 100;
}

/** What each item of the run came to, as the summary counts it. */
export interface RunRow {
	/** The item's output (undefined for an item that failed under Continue On Fail). */
	result: IDataObject | undefined;
	/** The run's check refused it (nothing was sent). */
	refused?: RefusedPayout;
	/** Why the item failed after the check, when it did. */
	error?: string;
	/** The row's key, when it failed. */
	key?: string | null;
}

interface Totals {
	count: number;
	amount: number;
	fees: number;
}

function money(amount: number, currency: string): string {
	return `${currency} ${amount.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

/**
 * The run's summary item. In a dry run `count` and the totals are what would be sent now; in a real run
 * what was sent now (a payout found under its key is `alreadyExisted`, and not in the totals).
 */
export function runSummary(rows: RunRow[], checkOnly: boolean): IDataObject {
	const byCurrency: Record<string, Totals> = {};
	const actOn: IDataObject[] = [];
	let alreadyExisted = 0;
	let completed = 0;
	let pending = 0;
	let failed = 0;
	let errors = 0;
	const refusedRows: IDataObject[] = [];
	rows.forEach(({ result, refused, error, key }, itemIndex) => {
		const row = itemIndex + 1;
		// A limit's refusal as data (refused: true, sent: false) sent nothing, like a row the check refused.
		const refusedAsData = result?.refused === true && result.sent === false;
		if (refused || refusedAsData || (checkOnly && result && result.valid !== true)) {
			const reason = refused?.reason ?? result?.reason ?? null;
			const refusedKey = refused?.key ?? result?.key ?? null;
			refusedRows.push({
				row,
				key: refusedKey,
				field: refused?.field ?? result?.field ?? null,
				reason,
				amount: result?.amount ?? null,
				to: result?.to ?? null,
			});
			actOn.push({ row, key: refusedKey, outcome: 'refused', reason });
			return;
		}
		if (!result) {
			errors++;
			actOn.push({ row, key: key ?? null, outcome: 'error', reason: error ?? null });
			return;
		}
		if (result.alreadyExisted === true) alreadyExisted++;
		if (!checkOnly) {
			if (result.outcome === 'completed') completed++;
			else if (result.outcome === 'failed') {
				failed++;
				actOn.push({ row, key: result.key ?? null, outcome: 'failed', reason: result.reason });
			} else if (isUnsettled(result.outcome)) pending++;
		}
		if (result.alreadyExisted === true) return;
		const currency = String(result.currency);
		const totals = (byCurrency[currency] ??= { count: 0, amount: 0, fees: 0 });
		totals.count++;
		totals.amount = round2(totals.amount + Number(result.amount));
		totals.fees = round2(totals.fees + (typeof result.fee === 'number' ? result.fee : 0));
	});
	const currencies = Object.keys(byCurrency);
	const single = currencies.length === 1 ? byCurrency[currencies[0]] : undefined;
	const count = currencies.reduce((n, c) => n + byCurrency[c].count, 0);
	const outcomes = checkOnly ? {} : { completed, pending, failed };
	return {
		summary: true,
		checkOnly,
		rows: rows.length,
		count,
		alreadyExisted,
		...outcomes,
		refused: refusedRows.length,
		errors,
		currency: single ? currencies[0] : null,
		totalAmount: single ? single.amount : currencies.length === 0 ? 0 : null,
		totalFees: single ? single.fees : currencies.length === 0 ? 0 : null,
		byCurrency,
		rowsToActOn: actOn.slice(0, ACT_ON_LISTED),
		rowsToActOnNotListed: Math.max(0, actOn.length - ACT_ON_LISTED),
		refusedRows,
	};
}

/** The summary in one sentence, shown above the node's output so nobody has to page to find it. */
export function summaryHint(summary: IDataObject): NodeExecutionHint {
	const byCurrency = summary.byCurrency as Record<string, Totals>;
	const totals = Object.entries(byCurrency)
		.map(([currency, t]) => `${money(t.amount, currency)}, fees ${money(t.fees, currency)}`)
		.join('; ');
	const sent = summary.checkOnly
		? `Check only, nothing sent: ${String(summary.count)} would be paid`
		: `${String(summary.count)} sent now`;
	const parts = [
		`${sent}${totals === '' ? '' : ` (${totals})`}`,
		`${String(summary.alreadyExisted)} found already sent`,
	];
	if (!summary.checkOnly) parts.push(`${String(summary.failed)} failed`);
	parts.push(`${String(summary.refused)} refused`);
	if (Number(summary.errors) > 0) parts.push(`${String(summary.errors)} errors`);
	if (!summary.checkOnly) parts.push(`${String(summary.pending)} pending`);
	const actOn = summary.rowsToActOn as IDataObject[];
	const listed = actOn
		.slice(0, 10)
		.map((row) => `row ${String(row.row)}${row.key ? ` (${String(row.key)})` : ''}`);
	const more = actOn.length + Number(summary.rowsToActOnNotListed) - listed.length;
	const act =
		listed.length === 0
			? ''
			: `. To act on: ${listed.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
	return {
		message: `Payout run: ${parts.join(', ')}${act}`,
		type: actOn.length > 0 ? 'warning' : 'info',
		location: 'outputPane',
	};
}

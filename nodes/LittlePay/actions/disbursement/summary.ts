import type { IDataObject, NodeExecutionHint } from 'n8n-workflow';

import { isUnsettled, PAY_AGAIN_STEP } from '../../helpers/payoutOutcome';
import type { RefusedPayout } from './run';

/**
 * A payout run's figures, the payroll's page a bookkeeper reads after a run: what the rows asked, what
 * is paid so far, what was sent now, what was found already sent, what failed or was refused, what is
 * still pending, the fees per currency, and the rows to act on with their 1-based row, key and what to
 * do. A dry run gives the same figures for what it would send.
 */

/** How many rows to act on the summary lists; the counts cover them all. */
const ACT_ON_LISTED = 100;

/** How many rows to act on the hint names; the Summary item lists more. */
const ACT_ON_IN_HINT = 10;

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
	/** The row's key, when it failed or was not reached. */
	key?: string | null;
	/** It failed with its outcome unknown: the payout may be at Little Pay (money/claim.ts). */
	unknown?: boolean;
	/** The run stopped before this row was done (a fault at another row, On Error: Stop). */
	notReached?: boolean;
}

/** What to do about a row whose outcome is unknown: look it up, never pay it blind. */
const UNKNOWN_STEP =
	'It may be at Little Pay: look the key up with Payout: Reconcile before paying it again; a re-run looks it up first';

/** Rows and money of one kind in one currency. */
interface Totals {
	count: number;
	amount: number;
	fees: number;
}

/** A currency's payroll: what the rows asked and where that money stands. */
interface Payroll {
	asked: Totals;
	paidSoFar: Totals;
	sentNow: Totals;
	foundAlreadySent: Totals;
	failed: Totals;
}

function money(amount: number, currency: string): string {
	return `${currency} ${amount.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

function add(totals: Totals, result: IDataObject): void {
	totals.count++;
	totals.amount = round2(totals.amount + Number(result.amount));
	totals.fees = round2(totals.fees + (typeof result.fee === 'number' ? result.fee : 0));
}

const none = (): Totals => ({ count: 0, amount: 0, fees: 0 });

/** What to do about a row still pending: it is at Little Pay, so paying it again could pay twice. */
const PENDING_STEP =
	'Not settled yet: do not pay it again; look it up later with Payout: Reconcile (or Wait for Settlement)';

/**
 * The run's summary item. In a dry run `count` and the totals are what would be sent now; in a real run
 * what was sent now and did not settle failed (a payout found under its key is `alreadyExisted`, and
 * not in them). `payroll` gives, per currency, what the rows asked, what is paid so far (completed,
 * sent now or found), sent now, found already sent and failed, each with its count, amount and fees.
 */
export function runSummary(rows: RunRow[], checkOnly: boolean): IDataObject {
	const byCurrency: Record<string, Totals> = {};
	const payroll: Record<string, Payroll> = {};
	const actOn: IDataObject[] = [];
	let alreadyExisted = 0;
	let completed = 0;
	let pending = 0;
	let failed = 0;
	let errors = 0;
	let notReached = 0;
	const notReachedRows: IDataObject[] = [];
	const refusedRows: IDataObject[] = [];
	rows.forEach(({ result, refused, error, key, unknown, notReached: stopped }, itemIndex) => {
		const row = itemIndex + 1;
		// A limit's refusal as data (refused: true, sent: false) sent nothing, like a row the check refused.
		const refusedAsData = result?.refused === true && result.sent === false;
		if (refused || refusedAsData || (checkOnly && result && result.valid !== true)) {
			const reason = refused?.reason ?? result?.reason ?? null;
			const refusedKey = refused?.key ?? result?.key ?? null;
			refusedRows.push({
				row,
				key: refusedKey,
				field: (refused?.field ?? result?.field) || null,
				reason,
				amount: result?.amount ?? null,
				to: result?.to ?? null,
			});
			actOn.push({ row, key: refusedKey, outcome: 'refused', reason });
			return;
		}
		if (!result && stopped) {
			notReached++;
			notReachedRows.push({ row, key: key ?? null });
			return;
		}
		if (!result) {
			errors++;
			actOn.push(
				unknown
					? {
							row,
							key: key ?? null,
							outcome: 'unknown',
							reason: error ?? null,
							nextStep: UNKNOWN_STEP,
						}
					: { row, key: key ?? null, outcome: 'error', reason: error ?? null },
			);
			return;
		}
		const currency = String(result.currency);
		const books = (payroll[currency] ??= {
			asked: none(),
			paidSoFar: none(),
			sentNow: none(),
			foundAlreadySent: none(),
			failed: none(),
		});
		add(books.asked, result);
		if (result.outcome === 'failed') {
			// Nobody was paid: it is neither sent nor found, whatever this run did (or, in a dry run, found
			// under its key: the real run would count it failed too).
			failed++;
			add(books.failed, result);
			actOn.push({
				row,
				key: result.key ?? null,
				outcome: 'failed',
				reason: result.reason ?? null,
				nextStep: result.nextStep ?? `Nothing was paid: ${PAY_AGAIN_STEP}`,
			});
			return;
		}
		if (!checkOnly) {
			if (result.outcome === 'completed') {
				completed++;
				add(books.paidSoFar, result);
			} else if (isUnsettled(result.outcome)) {
				pending++;
				// Accepted and not waited for is every row of a Don't Wait run: the count says so. A
				// payout looked up and still pending is a row to come back to.
				if (result.outcome === 'pending')
					actOn.push({
						row,
						key: result.key ?? null,
						outcome: 'pending',
						reason: 'Little Pay has not settled it yet',
						nextStep: PENDING_STEP,
					});
			}
		}
		if (result.alreadyExisted === true) {
			alreadyExisted++;
			add(books.foundAlreadySent, result);
			return;
		}
		add(books.sentNow, result);
		add((byCurrency[currency] ??= none()), result);
	});
	const currencies = Object.keys(byCurrency);
	const single = currencies.length === 1 ? byCurrency[currencies[0]] : undefined;
	const count = currencies.reduce((n, c) => n + byCurrency[c].count, 0);
	const outcomes = checkOnly ? { failed } : { completed, pending, failed };
	return {
		summary: true,
		checkOnly,
		rows: rows.length,
		count,
		alreadyExisted,
		...outcomes,
		refused: refusedRows.length,
		errors,
		...(notReached > 0
			? { notReached, rowsNotReached: notReachedRows.slice(0, ACT_ON_LISTED) }
			: {}),
		currency: single ? currencies[0] : null,
		totalAmount: single ? single.amount : currencies.length === 0 ? 0 : null,
		totalFees: single ? single.fees : currencies.length === 0 ? 0 : null,
		byCurrency,
		// A dry run pays nothing and settles nothing: what would be sent and what was found.
		payroll: checkOnly
			? Object.fromEntries(
					Object.entries(payroll).map(
						([currency, { asked, sentNow, foundAlreadySent, failed: foundFailed }]) => [
							currency,
							{ asked, sentNow, foundAlreadySent, failed: foundFailed },
						],
					),
				)
			: payroll,
		rowsToActOn: actOn.slice(0, ACT_ON_LISTED),
		rowsToActOnNotListed: Math.max(0, actOn.length - ACT_ON_LISTED),
		refusedRows,
	};
}

/** "KES 1,250.00, fees KES 20.00; UGX ..." for one kind of a payroll's totals; '' when there is none. */
function amounts(summary: IDataObject, kind: keyof Payroll, fees: boolean): string {
	const payroll = (summary.payroll ?? {}) as Record<string, Payroll>;
	return Object.entries(payroll)
		.filter(([, books]) => books[kind].count > 0)
		.map(([currency, books]) => {
			const totals = books[kind];
			return `${money(totals.amount, currency)}${fees ? `, fees ${money(totals.fees, currency)}` : ''}`;
		})
		.join('; ');
}

function counted(count: unknown, what: string, totals: string): string {
	return `${String(count)} ${what}${totals === '' ? '' : ` (${totals})`}`;
}

/**
 * The summary in lines: the payroll's figures, what is paid so far, then each row to act on on a line
 * of its own with its reason, then what to do for each kind of row.
 */
export function summaryLines(summary: IDataObject): string[] {
	const parts: string[] = [];
	if (summary.checkOnly) {
		parts.push(
			`Check only, nothing sent: ${counted(summary.count, 'would be paid', amounts(summary, 'sentNow', true))}`,
			counted(
				summary.alreadyExisted,
				'found already sent',
				amounts(summary, 'foundAlreadySent', false),
			),
		);
		// A payout found failed paid nobody: said (and listed to act on) only when there is one.
		if (Number(summary.failed) > 0)
			parts.push(counted(summary.failed, 'found failed', amounts(summary, 'failed', false)));
	} else {
		parts.push(
			counted(summary.count, 'sent now', amounts(summary, 'sentNow', true)),
			counted(
				summary.alreadyExisted,
				'found already sent',
				amounts(summary, 'foundAlreadySent', false),
			),
			counted(summary.failed, 'failed', amounts(summary, 'failed', false)),
		);
	}
	parts.push(`${String(summary.refused)} refused`);
	const errors = Number(summary.errors);
	if (errors > 0) parts.push(`${errors} error${errors === 1 ? '' : 's'}`);
	if (!summary.checkOnly) parts.push(`${String(summary.pending)} pending`);
	if (Number(summary.notReached) > 0)
		parts.push(`${String(summary.notReached)} not reached (the run stopped)`);
	const lines = [`Payout run: ${parts.join(', ')}.`];
	if (!summary.checkOnly) {
		const paid = amounts(summary, 'paidSoFar', true);
		const asked = amounts(summary, 'asked', false);
		const payroll = Object.values((summary.payroll ?? {}) as Record<string, Payroll>);
		const askedRows = payroll.reduce((n, books) => n + books.asked.count, 0);
		lines.push(
			`Paid so far: ${counted(summary.completed, summary.completed === 1 ? 'row completed' : 'rows completed', paid)}, of ${counted(askedRows, askedRows === 1 ? 'row asked' : 'rows asked', asked)}.`,
		);
	}
	const notReachedRows = (summary.rowsNotReached ?? []) as IDataObject[];
	if (notReachedRows.length > 0) {
		const named = notReachedRows
			.slice(0, ACT_ON_IN_HINT)
			.map((row) => `${String(row.row)}${row.key ? ` (${String(row.key)})` : ''}`);
		const more = Number(summary.notReached) - named.length;
		lines.push(
			`Not reached, nothing sent for them: row${named.length === 1 ? '' : 's'} ${named.join(', ')}${more > 0 ? ` and ${more} more` : ''}.`,
		);
	}
	const actOn = summary.rowsToActOn as IDataObject[];
	if (actOn.length === 0) return lines;
	lines.push('To act on:');
	// Each row on a line of its own with its own reason: the hint reads as the list of what to fix.
	for (const row of actOn.slice(0, ACT_ON_IN_HINT)) {
		const reason = row.outcome === 'pending' ? null : row.reason;
		const outcome = row.outcome === 'unknown' ? 'outcome unknown' : String(row.outcome);
		lines.push(
			`Row ${String(row.row)}${row.key ? ` (${String(row.key)})` : ''} ${outcome}${typeof reason === 'string' && reason !== '' ? `: ${reason}` : ''}`,
		);
	}
	const more = actOn.length + Number(summary.rowsToActOnNotListed) - ACT_ON_IN_HINT;
	if (more > 0)
		lines.push(`... and ${more} more (the Summary item lists the first ${ACT_ON_LISTED})`);
	if (actOn.some((row) => row.outcome === 'failed'))
		lines.push(`Failed: nobody was paid; ${PAY_AGAIN_STEP}.`);
	if (actOn.some((row) => row.outcome === 'pending'))
		lines.push(
			'Pending: do not pay again; look it up later with Payout: Reconcile (or Wait for Settlement).',
		);
	if (actOn.some((row) => row.outcome === 'unknown'))
		lines.push(`Outcome unknown: ${UNKNOWN_STEP}.`);
	if (actOn.some((row) => row.outcome === 'refused'))
		lines.push('Refused: nothing was sent for it; fix the row and run again.');
	// An error may have been a payout whose answer was lost: it is looked up, never assumed unsent.
	if (actOn.some((row) => row.outcome === 'error'))
		lines.push(
			'Error: read it; if it says the outcome is unknown, look the key up with Payout: Reconcile before paying; else fix the row and run again.',
		);
	return lines;
}

/**
 * The summary for n8n's panels: both the output panel's hints and the error panel's description render
 * sanitised HTML, where a line break shows as a space, so the lines end in <br> and a row's "<" is text.
 */
export function summaryHtml(summary: IDataObject): string {
	return summaryLines(summary)
		.map((line) => line.replace(/</g, '&lt;'))
		.join('<br>\n');
}

/** The summary shown above the node's output so nobody has to page to find it. */
export function summaryHint(summary: IDataObject): NodeExecutionHint {
	return {
		message: summaryHtml(summary),
		type: (summary.rowsToActOn as IDataObject[]).length > 0 ? 'warning' : 'info',
		location: 'outputPane',
	};
}

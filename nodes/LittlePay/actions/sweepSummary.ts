import type { IDataObject, IExecuteFunctions, NodeExecutionHint } from 'n8n-workflow';

import { runChoice } from '../item';
import type { RowKey, RunEnd } from './common';

// A sweep's counts first (both Reconciles): how many rows came out with each outcome, the rows to act
// on, as a hint above the output and, with Output Summary, the Summary output's one item.

/** Every outcome a sweep's row can have, in the order its summary counts them. */
const OUTCOMES = [
	'completed',
	'pending',
	'failed',
	'mismatch',
	'unverified',
	'not-found',
	'invalid-input',
] as const;

/** How many rows to act on the Summary item lists, and the hint names; the counts cover them all. */
const ACT_ON_LISTED = 100;
const ACT_ON_IN_HINT = 10;

/**
 * A sweep's counts first, for a bookkeeper who reconciles 300 rows and must not page through 12 pages
 * to find the five that are not completed: how many rows came out with each outcome, and each row to
 * act on with its 1-based row, key and next step. A row that failed under Continue On Fail (Little Pay
 * down, a credential) is an error row.
 */
export function sweepSummary(
	rowKey: RowKey,
	results: Array<IDataObject | undefined>,
	failures: Array<IDataObject | undefined>,
): IDataObject {
	const counts: Record<string, number> = Object.fromEntries(OUTCOMES.map((o) => [o, 0]));
	let errors = 0;
	const actOn: IDataObject[] = [];
	// Holes (none expected after a full run) are visited too: every input row is counted.
	Array.from(results, (result, itemIndex) => {
		const row = itemIndex + 1;
		if (!result) {
			errors++;
			const failure = failures[itemIndex];
			actOn.push({
				row,
				key: failure?.[rowKey.field] ?? null,
				outcome: 'error',
				nextStep: failure?.error ?? null,
			});
			return;
		}
		const outcome = String(result.outcome);
		counts[outcome] = (counts[outcome] ?? 0) + 1;
		if (outcome === 'completed') return;
		actOn.push({
			row,
			key: result[rowKey.field] ?? null,
			outcome,
			nextStep: result.nextStep ?? null,
		});
	});
	return {
		summary: true,
		rows: results.length,
		completed: counts.completed,
		pending: counts.pending,
		failed: counts.failed,
		mismatch: counts.mismatch,
		unverified: counts.unverified,
		notFound: counts['not-found'],
		invalidInput: counts['invalid-input'],
		errors,
		rowsToActOn: actOn.slice(0, ACT_ON_LISTED),
		rowsToActOnNotListed: Math.max(0, actOn.length - ACT_ON_LISTED),
	};
}

/** The sweep's counts in one sentence, then the rows to act on: shown above the node's output. */
export function sweepHint(summary: IDataObject, things: string): NodeExecutionHint {
	const parts = [
		`${String(summary.completed)} completed`,
		`${String(summary.pending)} pending`,
		`${String(summary.failed)} failed`,
		`${String(summary.mismatch)} mismatch`,
		`${String(summary.unverified)} unverified`,
		`${String(summary.notFound)} not found`,
	];
	if (Number(summary.invalidInput) > 0) parts.push(`${String(summary.invalidInput)} invalid`);
	if (Number(summary.errors) > 0)
		parts.push(`${String(summary.errors)} error${summary.errors === 1 ? '' : 's'}`);
	const actOn = summary.rowsToActOn as IDataObject[];
	const lines = [`Reconcile, ${String(summary.rows)} ${things}: ${parts.join(', ')}.`];
	if (actOn.length > 0) {
		lines.push("To act on (each row's nextStep says what to do):");
		// One row a line: n8n renders a hint as sanitised HTML, where a line break is a space.
		for (const row of actOn.slice(0, ACT_ON_IN_HINT))
			lines.push(
				`Row ${String(row.row)}${typeof row.key === 'string' && row.key !== '' ? ` (${row.key})` : ''} ${String(row.outcome)}`,
			);
		const more = actOn.length + Number(summary.rowsToActOnNotListed) - ACT_ON_IN_HINT;
		if (more > 0)
			lines.push(`... and ${more} more (the Summary item lists the first ${ACT_ON_LISTED})`);
	}
	return {
		message: lines.map((line) => line.replace(/</g, '&lt;')).join('<br>\n'),
		type: actOn.length > 0 ? 'warning' : 'info',
		location: 'outputPane',
	};
}

/**
 * What a sweep does once every row is looked up: its counts above the output and, with Options >
 * Output Summary, as the Summary output's one item (through the node's exit, like every row).
 */
export function sweepEnd(
	context: IExecuteFunctions,
	rowKey: RowKey,
	things: string,
	results: Array<IDataObject | undefined>,
	failures: Array<IDataObject | undefined>,
): RunEnd {
	const summary = sweepSummary(rowKey, results, failures);
	// One row needs no overview: its own outcome is the first column.
	if (results.length > 1) context.addExecutionHints(sweepHint(summary, things));
	if (runChoice<unknown>(context, 'options.runSummaryOutput', false) !== true) return {};
	return {
		second: [{ json: summary, pairedItem: results.map((_, index) => ({ item: index })) }],
	};
}

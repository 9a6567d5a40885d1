import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { UnknownOutcomeError } from '../../errors';
import { isUnsettled } from '../../helpers/payoutOutcome';
import { itemScope, runChoice } from '../../item';
import { keyIsGenerated } from '../../money/keys';
import { isToolCall } from '../../money/memory';
import { stopLookingAhead } from '../../money/lookAhead';
import type { RunEnd } from '../common';
import { isCheckOnly, isWaiting, LOOKUPS_AT_ONCE } from './choices';
import { runCheckOf } from './run';
import { readSettleTimeout, waitForSettlement } from './settlement';
import { runSummary, summaryHint, summaryHtml } from './summary';
import type { RunRow } from './summary';

// How a payout run ends: the wait for its own payouts, its summary (a hint, the Summary output), or,
// when a fault stopped it after sending, the summary in the error's description.

/** What each row of the run came to, for its summary. */
function runRows(
	context: IExecuteFunctions,
	results: Array<IDataObject | undefined>,
	failures: Array<IDataObject | undefined>,
): RunRow[] {
	const refused = runCheckOf(context)?.refused;
	return results.map((result, itemIndex) => {
		const failure = failures[itemIndex];
		return {
			result,
			refused: refused?.get(itemIndex),
			error: typeof failure?.error === 'string' ? failure.error : undefined,
			key: typeof failure?.key === 'string' ? failure.key : null,
		};
	});
}

/**
 * Until Settled waits for the run's own payouts together; then the run's summary is shown above the
 * output and, with Output Run Summary, is the second output's one item. A dry run without that output
 * keeps its summary as the last item, as before.
 */
export async function afterItems(
	this: IExecuteFunctions,
	results: Array<IDataObject | undefined>,
	failures: Array<IDataObject | undefined>,
): Promise<RunEnd> {
	stopLookingAhead(this);
	const checkOnly = isCheckOnly(this);
	if (!checkOnly && isWaiting(this)) {
		// Only what this run sent is waited for: a payout found under its key (alreadyExisted) comes out
		// as its record stands now, so a re-run that sends nothing does not wait the timeout again.
		const payouts = results.flatMap((result, itemIndex) =>
			result && result.alreadyExisted !== true ? [{ itemIndex, result }] : [],
		);
		await waitForSettlement(this, payouts, readSettleTimeout(this, 0), LOOKUPS_AT_ONCE);
		// Not waited for: timedOut says, as for the others, whether it was still unsettled when the run ended.
		for (const result of results)
			if (result?.alreadyExisted === true) result.timedOut = isUnsettled(result.outcome);
	}
	// An AI tool's call is one payout, and its answer says what happened (sent, or refused: true).
	if (isToolCall(this)) return {};
	const summary = runSummary(runRows(this, results, failures), checkOnly);
	this.addExecutionHints(summaryHint(summary));
	const item = { json: summary, pairedItem: results.map((_, index) => ({ item: index })) };
	if (runChoice<unknown>(this, 'options.runSummaryOutput', false) === true)
		return { second: [item] };
	return checkOnly ? { append: [item] } : {};
}

/**
 * A fault after sending started (a lost answer, a 5xx, a key that holds another payout) stops the run
 * (On Error: Stop): n8n then keeps no output, so the error's description carries the run's summary,
 * the payroll's figures up to the stop, and whether running it again could pay any of them twice.
 */
export function describeFailure(
	this: IExecuteFunctions,
	failure: unknown,
	results: Array<IDataObject | undefined>,
): void {
	stopLookingAhead(this);
	if (isCheckOnly(this) || !(failure instanceof Error)) return;
	if (results.every((result) => result === undefined)) return;
	const { context, itemIndex } = failure as {
		context?: { itemIndex?: unknown };
		itemIndex?: unknown;
	};
	const at = context?.itemIndex ?? itemIndex;
	const failedAt = typeof at === 'number' ? at : undefined;
	const refused = runCheckOf(this)?.refused;
	// Rows the run never reached are holes in `results`: Array.from visits them too.
	const keyOf = (itemIndex: number) => runCheckOf(this)?.ready.get(itemIndex)?.key ?? null;
	const rows: RunRow[] = Array.from(results, (result, itemIndex) => ({
		result,
		refused: refused?.get(itemIndex),
		...(result === undefined && itemIndex === failedAt
			? {
					// The line names the row already.
					error: failure.message.replace(/^Row \d+: /, ''),
					key: keyOf(itemIndex),
					unknown: failure instanceof UnknownOutcomeError,
				}
			: { notReached: result === undefined, key: result === undefined ? keyOf(itemIndex) : null }),
	}));
	const summary = runSummary(rows, false);
	const generated = keyIsGenerated(itemScope(this, 0));
	const stopped = `The run stopped here.<br>\n${summaryHtml(summary)}<br>\n`;
	const again = generated
		? 'Retry this execution from the Executions list: it reuses the keys it generated and pays none of them twice (running the workflow again would pay them again).'
		: 'Running it again pays none of them twice: each row is looked up under its key first.';
	const error = failure as Error & { description?: string | null };
	error.description = [error.description, stopped + again].filter(Boolean).join(' ');
}

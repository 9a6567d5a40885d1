import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { isUnsettled, updatePayoutItem } from '../../helpers/payoutOutcome';
import { pauseUnlessCancelled } from '../../transport';
import { getPayoutRecord } from '../../transport/gateway';
import { forEachAtMost } from '../../helpers/pool';
import { invalidInput, cancelledError } from '../../errors';
import { forgetFailedMoves } from '../../money/days';

/** The first lookup comes 2 s after the wait starts; each pause then doubles, up to 60 s. */
export const FIRST_LOOKUP_DELAY_MS = 2000;
export const MAX_LOOKUP_DELAY_MS = 60000;

/** The wait's timeout, shared by Create (Until Settled) and Wait for Settlement. */
export const settleTimeoutField: INodeProperties = {
	displayName: 'Timeout (Seconds)',
	name: 'waitTimeoutSeconds',
	type: 'number',
	typeOptions: { minValue: 1 },
	default: 300,
	hint: 'Payouts still pending then come out with outcome pending and timedOut: true',
	description:
		'How long the whole run waits for its payouts to settle. For waits of hours or days, end the run and use Wait for Settlement later with the IDs or keys.',
};

/** Reads the wait's timeout: seconds, more than 0 (an expression may give a string). */
export function readSettleTimeout(context: IExecuteFunctions, itemIndex: number): number {
	const value = context.getNodeParameter('waitTimeoutSeconds', itemIndex, 300);
	const seconds = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0) {
		invalidInput(
			context.getNode(),
			itemIndex,
			'Timeout (Seconds)',
			`must be a number of seconds above 0 (got ${JSON.stringify(value)})`,
			'Enter how long to wait for the payouts to settle, e.g. 300',
		);
	}
	return seconds;
}

const WAIT_CANCELLED = 'Execution cancelled while waiting for payouts';

/** A payout a run waits for: its item, and its output item, which the wait updates in place. */
export interface AwaitedPayout {
	itemIndex: number;
	result: IDataObject;
}

/**
 * Waits for a whole run's payouts together: one loop for the run, not one per item. Each round
 * looks up only the payouts still unsettled (at most `concurrency` at once), 2 s after the start
 * and then with the pause doubling up to 60 s, and a last round at the timeout. Lookups are reads,
 * so a lost answer is simply asked again next round; nothing here can create a payout. Payouts
 * still unsettled at the timeout come out `pending` with `timedOut: true`; the others with
 * `timedOut: false`. Cancelling the execution ends the wait at once.
 */
export async function waitForSettlement(
	context: IExecuteFunctions,
	payouts: AwaitedPayout[],
	timeoutSeconds: number,
	concurrency: number,
): Promise<void> {
	const deadline = Date.now() + Math.max(0, timeoutSeconds) * 1000;
	let delay = FIRST_LOOKUP_DELAY_MS;
	let waiting = payouts.filter((p) => isUnsettled(p.result.outcome));
	while (waiting.length > 0) {
		const remaining = deadline - Date.now();
		if (remaining <= 0) break;
		await pauseUnlessCancelled(context, Math.min(delay, remaining), WAIT_CANCELLED);
		delay = Math.min(delay * 2, MAX_LOOKUP_DELAY_MS);
		await forEachAtMost(waiting, concurrency, async (payout) => {
			const idOrKey = String(payout.result.id ?? payout.result.key);
			try {
				updatePayoutItem(payout.result, await getPayoutRecord(context, payout.itemIndex, idOrKey));
			} catch {
				// No answer or an error answer: still unknown, asked again next round.
				if (context.getExecutionCancelSignal()?.aborted)
					throw cancelledError(context, WAIT_CANCELLED);
			}
		});
		if (context.getExecutionCancelSignal()?.aborted) throw cancelledError(context, WAIT_CANCELLED);
		waiting = waiting.filter((p) => isUnsettled(p.result.outcome));
	}
	for (const payout of payouts) {
		const timedOut = isUnsettled(payout.result.outcome);
		if (timedOut) payout.result.outcome = 'pending';
		payout.result.timedOut = timedOut;
	}
	// Little Pay's records say these failed: nobody was paid, so they stop counting in the day totals.
	const failed = payouts.filter((p) => p.result.outcome === 'failed' && p.result.key);
	if (failed.length > 0)
		await forgetFailedMoves(
			context,
			failed[0].itemIndex,
			'payout',
			failed.map((p) => String(p.result.key)),
		);
}

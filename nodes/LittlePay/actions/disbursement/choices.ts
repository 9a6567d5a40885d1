import type { IExecuteFunctions } from 'n8n-workflow';

import { runChoice } from '../../item';

// A payout run's choices for the whole run, read once from item 0 (item.ts runChoice).

/** How many payouts a waiting run looks up at once: reads, safe to overlap, bounded for the gateway. */
export const LOOKUPS_AT_ONCE = 10;

/** Whether this node run only checks its rows (a dry run): a choice for the whole run. */
export function isCheckOnly(context: IExecuteFunctions): boolean {
	return runChoice<unknown>(context, 'checkOnly', false) === true;
}

/** Whether this node run waits for its payouts to settle (Until Settled). */
export function isWaiting(context: IExecuteFunctions): boolean {
	return runChoice<unknown>(context, 'waitForResult', 'no') === 'untilSettled';
}

/** Whether this node run pays a row again under <key>r2… when its payout settled failed. */
export function paysAgainIfFailed(context: IExecuteFunctions): boolean {
	return runChoice<unknown>(context, 'options.payAgainIfFailed', false) === true;
}

import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import {
	isUnsettled,
	outcomeOfCreation,
	outcomeOfRecord,
	payoutItem,
} from '../../helpers/payoutOutcome';
import { enforceLimits } from '../../money/reserve';
import { expectSuccess } from '../../transport';
import { payoutPath, payoutRecordRequest } from '../../transport/gateway';
import { concurrencyOption, optionsCollection, showFor } from '../common';
import { itemScope } from '../../item';
import type { Item } from '../../item';
import type { OperationMeta, RunEnd } from '../common';
import { payoutAmountField, payoutCurrencyField, keyFields, recipientFields } from './fields';
import { checkPayoutRow } from './preview';
import { checkedPayout, checkPayoutRun, refusedRunError, runCheckOf } from './run';
import { readSettleTimeout, settleTimeoutField, waitForSettlement } from './settlement';
import { runSummary, summaryHint, summaryHtml } from './summary';
import type { RunRow } from './summary';
import { createOnce, stopLookingAhead } from '../../money/once';
import { keyIsGenerated } from '../../money/keys';
import { isToolCall } from '../../money/memory';
import { currentAttempt } from './attempts';

/** How many payouts a waiting run looks up at once: reads, safe to overlap, bounded for the gateway. */
export const LOOKUPS_AT_ONCE = 10;

const CONCURRENCY = concurrencyOption(
	1,
	'How many payouts to send at once (1-10); output order always matches input order. Waiting looks up to 10 at once.',
);

/** What the registry knows of this operation (actions/registry.ts). */
export const meta: OperationMeta = {
	concurrency: CONCURRENCY,
	subtitle: 'Pay Out · Payout',
	// A dry run moves no money: its canvas says so.
	subtitleWhen: { parameter: 'checkOnly', value: true, subtitle: 'Check Only · Payout' },
	rowKey: { parameter: 'key', field: 'key' },
	moves: 'payout',
	toolSummary:
		'Pays money out to a mobile money wallet with Little Pay and returns the payout status and fee.',
};

export const description: INodeProperties[] = showFor('disbursement', 'create', [
	payoutAmountField,
	payoutCurrencyField,
	...recipientFields,
	...keyFields,
	{
		displayName: 'Check Only (Dry Run)',
		name: 'checkOnly',
		type: 'boolean',
		default: false,
		description:
			'Whether to only check every row (number, network limits, fee, key) and add one summary item, sending nothing',
	},
	{
		displayName:
			'Check only: nothing is sent. Each row comes out with valid and, when it would be refused, the reason; one summary item follows with the count, total amount, total fees and the refused rows.',
		name: 'checkOnlyNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { checkOnly: [true] } },
	},
	{
		displayName: 'Wait for Result',
		name: 'waitForResult',
		type: 'options',
		options: [
			{
				name: "Don't Wait",
				value: 'no',
				description:
					'Return once Little Pay has accepted each payout (outcome accepted); look it up later with Get or Wait for Settlement',
			},
			{
				name: 'Until Settled (up to a Timeout)',
				value: 'untilSettled',
				description:
					"Look the run's unsettled payouts up together until each has completed or failed, or the timeout passes",
			},
		],
		default: 'no',
		hint: 'A payout settles after Little Pay accepts it, and Little Pay does not call back for payouts',
		description: 'Whether to wait until each payout has completed or failed',
		displayOptions: { hide: { checkOnly: [true] } },
	},
	{
		...settleTimeoutField,
		// One payout that never settles holds the whole run until the timeout, with nothing on screen:
		// a minute shows the settled ones promptly; the rest are for Wait for Settlement later.
		default: 60,
		hint: 'Waits only for payouts this run sends (a re-run waits for none it finds under their keys). Still pending then: outcome pending, timedOut: true; look them up later with Wait for Settlement',
		displayOptions: { show: { waitForResult: ['untilSettled'] }, hide: { checkOnly: [true] } },
	},
	optionsCollection([
		{
			displayName: 'Check Limits and Fee First',
			name: 'checkLimits',
			type: 'boolean',
			default: true,
			description:
				"Whether to read the charges table first, refuse amounts outside the network's minimum and maximum, and show the fee",
		},
		CONCURRENCY,
		{
			displayName: 'Pay Again If Failed',
			name: 'payAgainIfFailed',
			type: 'boolean',
			default: false,
			description:
				"Whether to pay a row again when its payout settled failed (nobody was paid), under the key (your key)r2, then (your key)r3: each attempt's key is looked up first, so running this twice pays each failed row at most once more. Paid and pending rows are left alone.",
		},
		{
			displayName: 'Output Run Summary',
			name: 'runSummaryOutput',
			type: 'boolean',
			default: false,
			description:
				"Whether to add a second output, Summary, with one item: sent now, found already sent, failed, refused, pending, totals and fees per currency, and the rows to act on. The summary is always shown above the node's output.",
		},
	]),
]);

// Dry run, waiting and paying again are choices for the whole run (one summary, one wait), read from
// item 0 once per node run: every row asks, and each read costs n8n a parameter resolution.
interface RunChoices {
	checkOnly: boolean;
	waiting: boolean;
	payAgain: boolean;
}

const choicesOfRun = new WeakMap<IExecuteFunctions, RunChoices>();

function choices(context: IExecuteFunctions): RunChoices {
	let found = choicesOfRun.get(context);
	if (!found) {
		found = {
			checkOnly: context.getNodeParameter('checkOnly', 0, false) === true,
			waiting: context.getNodeParameter('waitForResult', 0, 'no') === 'untilSettled',
			payAgain: context.getNodeParameter('options.payAgainIfFailed', 0, false) === true,
		};
		choicesOfRun.set(context, found);
	}
	return found;
}

function isCheckOnly(context: IExecuteFunctions): boolean {
	return choices(context).checkOnly;
}

function isWaiting(context: IExecuteFunctions): boolean {
	return choices(context).waiting;
}

function paysAgainIfFailed(context: IExecuteFunctions): boolean {
	return choices(context).payAgain;
}

/**
 * Checks every row before any is sent (run.ts), its key looked up too (50 at once): with refused rows
 * and On Error: Stop the run stops here, having sent nothing, and its error lists them. The lookups
 * are the ones each payout then takes before sending, unless another execution held its key since.
 */
export async function beforeItems(this: IExecuteFunctions): Promise<void> {
	// An AI tool's call is one payout, which the money guard lets through (or not) before it is checked.
	if (isToolCall(this)) return;
	const checkOnly = isCheckOnly(this);
	const check = await checkPayoutRun(this, checkOnly, paysAgainIfFailed(this));
	// A dry run reports refused rows as rows; a real run sends nothing unless told to go on. One row
	// fails on its own, as any operation's item.
	const run = this.getInputData().length > 1;
	if (run && !checkOnly && check.refused.size > 0 && !this.continueOnFail()) {
		stopLookingAhead(this);
		throw refusedRunError(this, check);
	}
}

/** Pays out to a mobile money wallet once per key (or, in a dry run, only checks the row). */
export async function execute(this: IExecuteFunctions, item: Item): Promise<IDataObject> {
	if (isCheckOnly(this)) return await checkPayoutRow(item, paysAgainIfFailed(this));
	return await payOut(this, item).catch(async (error: unknown) => {
		// The run stops at this row: no more lookups for rows that will not be paid.
		if (!this.continueOnFail()) stopLookingAhead(this);
		return await Promise.reject(error as Error);
	});
}

async function payOut(context: IExecuteFunctions, item: Item): Promise<IDataObject> {
	const { request, fee, found, ...checked } = await checkedPayout(item, false);
	let { key, checkFirst } = checked;
	// The wait runs after every payout is sent: a bad timeout must stop the run before any is.
	if (isWaiting(context)) readSettleTimeout(context, 0);
	const attempt =
		paysAgainIfFailed(context) && !keyIsGenerated(item)
			? await currentAttempt(item, key, request)
			: undefined;
	if (attempt) {
		key = attempt.key;
		checkFirst = true;
	}
	const { method, amount, currency, to } = request;
	const itemIndex = item.index;
	// A payout found under its key is not sent again, so it takes no room under the limits (a re-run of
	// a sheet whose rows were paid pays the rest up to the limits).
	if (found !== true && attempt?.record === undefined) {
		await enforceLimits(context, itemIndex, {
			kind: 'payout',
			amount,
			currency,
			network: method,
			recipient: to,
		});
	}
	const { response, outcome } = await createOnce(
		context,
		{
			credential: 'littlePayApiKeyApi',
			method: 'POST',
			path: payoutPath(),
			body: { amount, method, currency, key, details: { to, accountType: 'MOBILE' } },
			disbursement: true,
			itemIndex,
		},
		{
			request: payoutRecordRequest(itemIndex, key),
			key,
			checkFirst,
			expected: { amount, method, currency, to },
		},
		// "payout" is the one word a run's messages use (the API's own name is disbursement).
		'payout',
	);
	const data = expectSuccess(context, response, itemIndex);
	const known = { key, method, amount, currency, to, fee };
	// A creation answer says accepted at most; a record found under the key says where it stands.
	const payout =
		outcome === 'created'
			? payoutItem(data, outcomeOfCreation(data.status), known)
			: payoutItem(data, outcomeOfRecord(data.status), known);
	// Whether this run sent the payout is what a re-run is read for: it comes right after the outcome.
	const result: IDataObject = {
		id: payout.id,
		key: payout.key,
		outcome: payout.outcome,
		alreadyExisted: outcome === 'existed',
		...payout,
	};
	if (attempt && attempt.attempt > 1) {
		result.attempt = attempt.attempt;
		result.failedBefore = attempt.failedBefore;
	}
	if (outcome === 'recovered') result.recovered = true;
	return result;
}

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
	if (this.getNodeParameter('options.runSummaryOutput', 0, false) === true)
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
	const rows: RunRow[] = Array.from(results, (result, itemIndex) => ({
		result,
		refused: refused?.get(itemIndex),
		...(result === undefined && itemIndex === failedAt
			? { error: failure.message, key: runCheckOf(this)?.ready.get(itemIndex)?.key ?? null }
			: { notReached: result === undefined }),
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

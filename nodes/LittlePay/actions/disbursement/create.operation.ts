import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { outcomeOfCreation, outcomeOfRecord, payoutItem } from '../../helpers/payoutOutcome';
import { forgetFailedMoves } from '../../money/days';
import { enforceLimits } from '../../money/reserve';
import { expectSuccess } from '../../transport';
import { payoutPath, payoutRecordRequest } from '../../transport/gateway';
import { concurrencyOption, optionsCollection, showFor } from '../common';
import type { Item } from '../../item';
import type { OperationMeta } from '../common';
import { payoutAmountField, payoutCurrencyField, keyFields, recipientFields } from './fields';
import { checkPayoutRow } from './preview';
import { isCheckOnly, isWaiting, paysAgainIfFailed } from './choices';
import { checkedPayout, checkPayoutRun } from './run';
import { refusedRunError } from './refusals';
import { readSettleTimeout, settleTimeoutField } from './settlement';
import { createOnce } from '../../money/once';
import { stopLookingAhead } from '../../money/lookAhead';
import { keyIsGenerated } from '../../money/keys';
import { isToolCall } from '../../money/memory';
import { currentAttempt } from './attempts';

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
		// Little Pay's records say those attempts failed: nobody was paid, so they stop counting.
		await forgetFailedMoves(context, item.index, 'payout', attempt.failedBefore);
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
			key,
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
			record: 'payout',
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

export { afterItems, describeFailure } from './runEnd';

import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

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
import type { Item } from '../../item';
import type { OperationMeta } from '../common';
import { limitRefusal, quoteFor } from './charges';
import {
	payoutAmountField,
	currencyField,
	keyFields,
	readPayoutRequest,
	recipientFields,
} from './fields';
import { checkPayoutRow, previewSummary } from './preview';
import { readSettleTimeout, settleTimeoutField, waitForSettlement } from './settlement';
import { createOnce, lookUpAhead } from '../../money/once';
import { payoutKey } from '../../money/keys';
import { itemScope } from '../../item';

/** How many payouts a waiting run looks up at once: reads, safe to overlap, bounded for the gateway. */
export const LOOKUPS_AT_ONCE = 10;

/** Key lookups ahead of a run's payouts: reads, run wider than the payouts themselves. */
export const LOOKUPS_AHEAD_AT_ONCE = 50;

/** What the registry knows of this operation (actions/registry.ts). */
export const meta: OperationMeta = {
	subtitle: 'Pay Out · Disbursement',
	// A dry run moves no money: its canvas says so.
	subtitleWhen: { parameter: 'checkOnly', value: true, subtitle: 'Check Only · Disbursement' },
	rowKey: { parameter: 'key', field: 'key' },
	moves: 'payout',
	toolSummary:
		'Pays money out to a mobile money wallet with Little Pay and returns the payout status and fee.',
};

export const description: INodeProperties[] = showFor('disbursement', 'create', [
	payoutAmountField,
	currencyField,
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
		concurrencyOption(
			1,
			'How many payouts to send at once (1-10); output order always matches input order. Waiting looks up to 10 at once.',
		),
	]),
]);

// Dry run and waiting are one choice for the whole run (one summary, one wait), read from item 0.
function isCheckOnly(context: IExecuteFunctions): boolean {
	return context.getNodeParameter('checkOnly', 0, false) === true;
}

function isWaiting(context: IExecuteFunctions): boolean {
	return context.getNodeParameter('waitForResult', 0, 'no') === 'untilSettled';
}

/** Payouts are sent one at a time unless Options > Concurrency says more. */
export function concurrency(this: IExecuteFunctions): number {
	return this.getNodeParameter('options.concurrency', 0, 1) as number;
}

/** The key lookup a payout makes before it is sent, and whether it makes one (money/keys.ts). */
function keyLookup(item: Item) {
	const { key, checkFirst } = payoutKey(item);
	return { request: payoutRecordRequest(item.index, key), key, checkFirst };
}

/**
 * Starts looking up, 50 at once, the keys the run's payouts will look up before sending, while the
 * payouts go out: a first run then takes about one round trip per payout. Rows that fail their checks
 * are left to fail on their own.
 */
export async function beforeItems(this: IExecuteFunctions): Promise<void> {
	if (isCheckOnly(this)) return;
	const lookups = [];
	for (let itemIndex = 0; itemIndex < this.getInputData().length; itemIndex++) {
		try {
			// Only rows that pass the checks made before sending: a refused row sends nothing at all.
			const item = itemScope(this, itemIndex);
			const { method, amount } = readPayoutRequest(item);
			const lookup = keyLookup(item);
			if (!lookup.checkFirst) continue;
			if (item.param<boolean>('options.checkLimits', true)) {
				const quote = await quoteFor(item, method, amount);
				if (limitRefusal(method, amount, quote)) continue;
			}
			lookups.push(lookup);
		} catch {
			// The row's own run reports what is wrong with it, before anything is sent.
		}
	}
	lookUpAhead(this, lookups, LOOKUPS_AHEAD_AT_ONCE);
}

/** Pays out to a mobile money wallet once per key (or, in a dry run, only checks the row). */
export async function execute(this: IExecuteFunctions, item: Item): Promise<IDataObject> {
	if (isCheckOnly(this)) return await checkPayoutRow(item);
	const request = readPayoutRequest(item);
	const lookup = keyLookup(item);
	const { key } = lookup;
	// The wait runs after every payout is sent: a bad timeout must stop the run before any is.
	if (isWaiting(this)) readSettleTimeout(this, 0);
	let fee: number | null = null;
	if (item.param<boolean>('options.checkLimits', true)) {
		const quote = await quoteFor(item, request.method, request.amount);
		const refusal = limitRefusal(request.method, request.amount, quote);
		if (refusal) item.fail('Amount', refusal, 'Split the payout or pick another network');
		fee = quote.fee;
	}
	const { method, amount, currency, to } = request;
	const itemIndex = item.index;
	await enforceLimits(this, itemIndex, {
		kind: 'payout',
		amount,
		currency,
		network: method,
		recipient: to,
	});
	const { response, outcome } = await createOnce(
		this,
		{
			credential: 'littlePayApiKeyApi',
			method: 'POST',
			path: payoutPath(),
			body: { amount, method, currency, key, details: { to, accountType: 'MOBILE' } },
			disbursement: true,
			itemIndex,
		},
		{ ...lookup, expected: { amount, method, currency, to } },
		'disbursement',
	);
	const data = expectSuccess(this, response, itemIndex);
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
	if (outcome === 'recovered') result.recovered = true;
	return result;
}

/** A dry run adds its summary; Until Settled waits for the whole run's payouts together. */
export async function afterItems(
	this: IExecuteFunctions,
	results: Array<IDataObject | undefined>,
): Promise<INodeExecutionData[]> {
	if (isCheckOnly(this)) return [previewSummary(results)];
	if (!isWaiting(this)) return [];
	// Only what this run sent is waited for: a payout found under its key (alreadyExisted) comes out
	// as its record stands now, so a re-run that sends nothing does not wait the timeout again.
	const payouts = results.flatMap((result, itemIndex) =>
		result && result.alreadyExisted !== true ? [{ itemIndex, result }] : [],
	);
	await waitForSettlement(this, payouts, readSettleTimeout(this, 0), LOOKUPS_AT_ONCE);
	// Not waited for: timedOut says, as for the others, whether it was still unsettled when the run ended.
	for (const result of results)
		if (result?.alreadyExisted === true) result.timedOut = isUnsettled(result.outcome);
	return [];
}

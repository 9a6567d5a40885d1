import type { IExecuteFunctions } from 'n8n-workflow';

import { ItemInputError, MoneyRefusal, nodeError, refusalOf, rowOf } from '../../errors';
import { itemScope, runState } from '../../item';
import type { Item } from '../../item';
import { outcomeOfRecord } from '../../helpers/payoutOutcome';
import { payoutKey } from '../../money/keys';
import { differingFields } from '../../money/once';
import { answersAhead, lookUpAhead } from '../../money/lookAhead';
import { checkRunLimits } from '../../money/reserve';
import { isSuccess } from '../../money/send';
import { payoutRecordRequest } from '../../transport/gateway';
import { isNotARecord, readPayoutRecord } from '../../transport/records';
import { attemptKey, MAX_ATTEMPTS } from './attempts';
import { limitRefusal, quoteFor } from './charges';
import { readPayoutRequest } from './fields';
import type { PayoutRequest } from './fields';
import { forgetFailedMoves } from '../../money/days';

/**
 * A payout run is checked whole before anything is sent: every row's number, network, amount within
 * the network's limits, fee and key, the keys unique within the run, and the Spending Limits for the
 * run's count and total. A bookkeeper reading "error" assumes nobody was paid; with On Error: Stop that
 * is now true, and the error lists every refused row.
 */

/** What splitting an amount over a network's maximum takes: each part is a payout of its own. */
export const SPLIT_ADVICE =
	'Split the payout into parts within the limits, each a row with its own payout ID (key), or pick another network';

/** Key lookups ahead of a run's payouts: reads, run wider than the payouts themselves. */
export const LOOKUPS_AHEAD_AT_ONCE = 50;

/** A row checked before the run sends anything, ready to send. */
export interface CheckedPayout {
	request: PayoutRequest;
	key: string;
	/** Whether the key is looked up before sending (money/keys.ts). */
	checkFirst: boolean;
	fee: number | null;
	/**
	 * Little Pay already holds this very payout under the key (looked up before the run): the row is
	 * found, not sent, so it counts against no Spending Limit.
	 */
	found?: boolean;
	/** The found payout failed: it paid nobody (a dry run counts it failed, as the real run does). */
	foundFailed?: boolean;
}

/** A row the run's check refused: nothing is sent for it. */
export interface RefusedPayout {
	itemIndex: number;
	/** 1-based, as a person counts rows. */
	row: number;
	/** The row's key as given, even when something else about the row is wrong. */
	key: string | null;
	field: string | null;
	reason: string;
	error: Error;
}

/** The run's check: each row is either ready or refused. */
export interface RunCheck {
	ready: Map<number, CheckedPayout>;
	refused: Map<number, RefusedPayout>;
}

function givenKey(item: Item): string | null {
	try {
		const key = item.param<unknown>('key', null);
		return key === null || key === undefined || String(key).trim() === '' ? null : String(key);
	} catch {
		return null;
	}
}

function refusedRow(item: Item, error: ItemInputError | MoneyRefusal, field?: string) {
	const reason = error instanceof MoneyRefusal ? error.refusal.reason : error.reason;
	return {
		itemIndex: item.index,
		row: item.index + 1,
		key: givenKey(item),
		field: field ?? (error instanceof ItemInputError ? (error.field ?? null) : null),
		reason,
		error,
	};
}

/** Checks one row as Pay Out would before sending it: a bad value refuses the row. */
async function checkRow(item: Item, alwaysQuote: boolean): Promise<CheckedPayout> {
	const request = readPayoutRequest(item);
	const { key, checkFirst } = payoutKey(item);
	let fee: number | null = null;
	if (alwaysQuote || item.param<boolean>('options.checkLimits', true)) {
		const quote = await quoteFor(item, request.method, request.amount);
		const refusal = limitRefusal(request.method, request.amount, quote);
		if (refusal) item.fail('Amount', refusal, SPLIT_ADVICE);
		fee = quote.fee;
	}
	return { request, key, checkFirst, fee };
}

/**
 * Checks every row of a payout run before any is sent and keeps the result for the run's items. A
 * failure that is not a bad row (the charges table cannot be read) fails the run, as before any send.
 * A dry run always checks the network's limits and fee; a real run unless Check Limits is off.
 */
export async function checkPayoutRun(
	context: IExecuteFunctions,
	alwaysQuote: boolean,
	payAgain: boolean,
): Promise<RunCheck> {
	const ready = new Map<number, CheckedPayout>();
	const refused = new Map<number, RefusedPayout>();
	const items = context.getInputData();
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const item = itemScope(context, itemIndex);
		const refusal = await refusalOf(async () => {
			ready.set(itemIndex, await checkRow(item, alwaysQuote));
		}, ItemInputError);
		if (refusal) refused.set(itemIndex, refusedRow(item, refusal));
	}
	const refuse = async (itemIndex: number, reason: string, fix: string) => {
		const item = itemScope(context, itemIndex);
		const refusal = await refusalOf(() => item.fail('Key', reason, fix), ItemInputError);
		ready.delete(itemIndex);
		if (refusal) refused.set(itemIndex, refusedRow(item, refusal));
	};
	const keyOf = (itemIndex: number) => ready.get(itemIndex)?.key ?? refused.get(itemIndex)?.key;
	// A key given twice (a copied ID) refuses the later rows, whether or not the first is refused: one
	// payout per key, so the later row would be reported as the first row's payout and nobody paid.
	// Letter case is not told apart: Little Pay does not say whether EMP1 and emp1 are one key.
	const firstRowOfKey = new Map<string, number>();
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const key = keyOf(itemIndex);
		if (key === undefined || key === null) continue;
		const first = firstRowOfKey.get(key.toLowerCase());
		if (first === undefined) {
			firstRowOfKey.set(key.toLowerCase(), itemIndex);
			continue;
		}
		if (!ready.has(itemIndex)) continue;
		const firstKey = String(keyOf(first));
		await refuse(
			itemIndex,
			firstKey === key
				? `"${key}" is also the key of ${rowOf(first).toLowerCase()}: Little Pay keeps one payout per key, so this row would be reported as that row's payout, and nobody paid`
				: `"${key}" differs from the key of ${rowOf(first).toLowerCase()} ("${firstKey}") only by letter case: Little Pay may take them as one key, so this row could be reported as that row's payout, and nobody paid`,
			'Give each row its own payout ID (a copied ID?); each part of a split payout needs an ID of its own',
		);
	}
	if (payAgain) await refuseAttemptKeys(items.length, keyOf, ready, refuse);
	await refuseKeysHoldingAnother(context, ready, refuse, payAgain);
	// A row found paid under its key (a re-run) is not sent again, so it takes no room under the limits.
	const overLimits = await checkRunLimits(
		context,
		'payout',
		[...ready]
			.filter(([, payout]) => payout.found !== true)
			.map(([itemIndex, { request }]) => ({
				itemIndex,
				request: {
					kind: 'payout',
					amount: request.amount,
					currency: request.currency,
					network: request.method,
					recipient: request.to,
				},
			})),
	);
	for (const [itemIndex, refusal] of overLimits) {
		ready.delete(itemIndex);
		const field = refusal.refusal.limit?.label ?? 'Spending Limits';
		refused.set(itemIndex, refusedRow(itemScope(context, itemIndex), refusal, field));
	}
	const check = { ready, refused: new Map([...refused].sort(([a], [b]) => a - b)) };
	runState(context).payoutCheck = check;
	return check;
}

type Refuse = (itemIndex: number, reason: string, fix: string) => Promise<void>;

/**
 * With Pay Again If Failed, a row pays again under `<key>r2` ... `<key>r9`: a row whose own key is one
 * of another row's attempt keys would share that row's payout, so it is refused.
 */
async function refuseAttemptKeys(
	rows: number,
	keyOf: (itemIndex: number) => string | null | undefined,
	ready: Map<number, CheckedPayout>,
	refuse: Refuse,
): Promise<void> {
	const attemptOf = new Map<string, { itemIndex: number; attempt: number }>();
	for (let itemIndex = 0; itemIndex < rows; itemIndex++) {
		const key = keyOf(itemIndex);
		if (key === undefined || key === null) continue;
		for (let attempt = 2; attempt <= MAX_ATTEMPTS; attempt++)
			attemptOf.set(attemptKey(key, attempt).toLowerCase(), { itemIndex, attempt });
	}
	for (const [itemIndex, { key }] of [...ready]) {
		const owner = attemptOf.get(key.toLowerCase());
		if (!owner || owner.itemIndex === itemIndex) continue;
		await refuse(
			itemIndex,
			`"${key}" is the key ${rowOf(owner.itemIndex).toLowerCase()} is paid again under (Pay Again If Failed, attempt ${owner.attempt}): the two rows would share one payout`,
			"Give this row a payout ID that is not another row's ID followed by r and a number, or run it without Pay Again If Failed",
		);
	}
}

/**
 * Looks every row's key up before anything is sent (the same reads each payout then takes as its
 * lookup): a key that already holds a different payout refuses its row now, so a run that would stop
 * at that row pays nobody; a key that holds this very payout marks the row found. With Pay Again If
 * Failed a failed payout under the key is neither: the row is paid again under its next attempt key.
 */
async function refuseKeysHoldingAnother(
	context: IExecuteFunctions,
	ready: Map<number, CheckedPayout>,
	refuse: Refuse,
	payAgain: boolean,
): Promise<void> {
	const lookups = [...ready]
		.filter(([, payout]) => payout.checkFirst)
		.map(([itemIndex, { key }]) => ({ key, request: payoutRecordRequest(itemIndex, key) }));
	if (lookups.length === 0) return;
	lookUpAhead(context, lookups, LOOKUPS_AHEAD_AT_ONCE);
	const answers = await answersAhead(context);
	for (const [itemIndex, payout] of [...ready]) {
		const answer = answers.get(payout.key);
		if (!answer || !isSuccess(answer)) continue;
		// An answer that does not prove this key's payout decides nothing: not found, not another's.
		const record = readPayoutRecord(answer.data, payout.key);
		if (isNotARecord(record)) {
			await refuse(
				itemIndex,
				`Little Pay's answer for key ${payout.key} is not its record: ${record.notARecord}`,
				`Nothing was sent for this row. Check key ${payout.key} in the dashboard, then run again.`,
			);
			continue;
		}
		if (payAgain && outcomeOfRecord(answer.data.status) === 'failed') {
			// It paid nobody: it stops counting under the day limits the run is checked against next.
			await forgetFailedMoves(context, itemIndex, 'payout', [payout.key]);
			continue;
		}
		const { amount, method, currency, to } = payout.request;
		const differences = differingFields({ amount, method, currency, to }, answer.data);
		if (differences.length === 0) {
			payout.found = true;
			if (outcomeOfRecord(record.status) === 'failed') payout.foundFailed = true;
			continue;
		}
		await refuse(
			itemIndex,
			`"${payout.key}" already belongs to a different payout (${differences.join('; ')})`,
			'Little Pay keeps one payout per key and this row asks for another one. Use a new key for a new payout, or correct the row if it is the same one.',
		);
	}
}

/**
 * A row's payout as checked before the run: ready to send, or the row's own refusal (thrown). An AI
 * tool's call is not checked before (the money guard decides first whether it may move money at all),
 * so it is checked here.
 */
export async function checkedPayout(item: Item, alwaysQuote: boolean): Promise<CheckedPayout> {
	const check = runCheckOf(item.context);
	if (!check) return await checkRow(item, alwaysQuote);
	const refused = check.refused.get(item.index);
	if (refused) throw refused.error;
	const ready = check.ready.get(item.index);
	if (!ready) throw nodeError(item.context.getNode(), `${rowOf(item.index)} was not checked`);
	return ready;
}

/** The run's check, once it is made (the summary reads which rows were refused). */
export function runCheckOf(context: IExecuteFunctions): RunCheck | undefined {
	return runState(context).payoutCheck as RunCheck | undefined;
}

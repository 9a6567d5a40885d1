import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { itemError, throwUnknownOutcome } from '../errors';
import { sameNumber } from '../helpers/validation';
import type { LittlePayRequest, LittlePayResponse } from '../transport';
import { isNotARecord, readPaymentRecord, readPayoutRecord } from '../transport/records';
import { sendClaimed, throwKeyUnknown, withKeyClaim } from './claim';
import type { KeyClaim } from './claim';
import { takeLookedUpAhead } from './lookAhead';
import { describeAnswer, isSuccess, knownAnswer, recoveryRead } from './send';

// Keyed creates (intents, payouts) exactly once: the key claimed in this process (claim.ts), looked
// up first when it may exist (ahead of the run: lookAhead.ts), the answer compared with the request, a
// lost answer found by the key or reported unknown, never sent again (send.ts).

function comparable(value: unknown): string | number {
	if (typeof value === 'number') return value;
	// Numbers may come back as strings; a phone number may or may not carry its "+".
	const text = String(value).trim().replace(/^\+/, '');
	const asNumber = Number(text);
	if (text !== '' && Number.isFinite(asNumber)) return asNumber;
	return text.toLowerCase();
}

/**
 * The fields of an existing record that differ from what this request asks for, as
 * "amount 500 there, 700 here". Fields the record does not carry are not compared: Little Pay's
 * documented records hold fewer fields than the requests.
 */
export function differingFields(expected: IDataObject, record: IDataObject): string[] {
	const differences: string[] = [];
	for (const [field, ours] of Object.entries(expected)) {
		const theirs = record[field];
		if (theirs === undefined || theirs === null || ours === undefined) continue;
		// Little Pay may show the payee's number masked (2547•••••670): its visible digits must agree.
		if (
			comparable(theirs) !== comparable(ours) &&
			!(field === 'to' && sameNumber(String(theirs), String(ours)))
		) {
			differences.push(`${field} ${String(theirs)} there, ${String(ours)} here`);
		}
	}
	return differences;
}

/** How createOnce finds an earlier create with the same key, and whether it is this same request. */
export interface CreateLookup {
	request: LittlePayRequest;
	key: string;
	/** Look the key up before sending: a retried execution may have created it already. */
	checkFirst: boolean;
	/** The request's fields as the record shows them, to tell this request from another one. */
	expected: IDataObject;
	/** Which record the lookup reads: it must prove its key, status and amount, or it proves nothing. */
	record: 'payment' | 'payout';
}

/** What createOnce did: sent it, found it after an unknown outcome, or found it already there. */
export type CreateOutcome = 'created' | 'recovered' | 'existed';

/** Returns a found record when it is the same request; fails the item naming the fields that differ. */
function sameRequest(
	context: IExecuteFunctions,
	found: LittlePayResponse,
	lookup: CreateLookup,
	what: string,
	itemIndex: number,
): LittlePayResponse {
	// A record that does not show this key's status and amount is no evidence that it was sent: never
	// "the same request", never a reason to send again either; the outcome stays unknown.
	const read =
		lookup.record === 'payout'
			? readPayoutRecord(found.data, lookup.key)
			: readPaymentRecord(found.data, lookup.key);
	if (isNotARecord(read))
		throwUnknownOutcome(
			context,
			itemIndex,
			what,
			`Little Pay's answer for key ${lookup.key} is not its record: ${read.notARecord}`,
			`Nothing was sent again. Check key ${lookup.key} in the dashboard before retrying.`,
		);
	const differences = differingFields(lookup.expected, found.data);
	if (differences.length > 0) {
		itemError(
			context.getNode(),
			itemIndex,
			`Key "${lookup.key}" already belongs to a different ${what} (${differences.join('; ')})`,
			`Little Pay keeps one ${what} per key and this item asks for another one. Use a new key for a new ${what}, or correct the item if it is the same one.`,
		);
	}
	return found;
}

/**
 * Creates something that moves money, exactly once. Under the key's claim in this process, the key
 * is looked up first when it may exist (a re-run, another execution held it, or an earlier send's
 * outcome is unknown), then sent once. A 409 is looked up and, when the record is the same request,
 * is the answer. An unknown outcome (Stop, no answer, a server error) is looked up and never sent
 * again: a 404 then means "not committed yet" as much as "not sent", so the item says the outcome is
 * unknown and what to do. A record that differs from the request fails the item.
 */
export async function createOnce(
	context: IExecuteFunctions,
	create: LittlePayRequest,
	lookup: CreateLookup | undefined,
	what: string,
): Promise<{ response: LittlePayResponse; outcome: CreateOutcome }> {
	if (!lookup) return await createAndRecover(context, create, undefined, what, undefined);
	return await withKeyClaim(context, lookup.key, what, async (claim) =>
		createAndRecover(context, create, lookup, what, claim),
	);
}

async function createAndRecover(
	context: IExecuteFunctions,
	create: LittlePayRequest,
	lookup: CreateLookup | undefined,
	what: string,
	claim: KeyClaim | undefined,
): Promise<{ response: LittlePayResponse; outcome: CreateOutcome }> {
	const { itemIndex } = create;
	if (lookup && claim && (lookup.checkFirst || claim.waited || claim.unknownSince !== undefined)) {
		const fresh = claim.waited || claim.unknownSince !== undefined;
		const found =
			(fresh ? undefined : await takeLookedUpAhead(context, lookup.key, what)) ??
			(await recoveryRead(context, lookup.request, what, lookup.key));
		if (isSuccess(found)) {
			claim.known();
			return { response: sameRequest(context, found, lookup, what, itemIndex), outcome: 'existed' };
		}
		if (found.statusCode !== 404) {
			throwUnknownOutcome(
				context,
				itemIndex,
				what,
				`the lookup of key ${lookup.key} answered HTTP ${found.statusCode}`,
				'Check the key in the dashboard before retrying.',
			);
		}
		if (claim.unknownSince !== undefined) {
			throwKeyUnknown(
				context,
				itemIndex,
				what,
				lookup.key,
				`an earlier send of it got no answer at ${new Date(claim.unknownSince).toISOString()} and Little Pay shows nothing under it yet`,
			);
		}
	}
	const first = await sendClaimed(context, create, claim, what, lookup?.key);
	const firstAnswer = knownAnswer(first);
	if (firstAnswer && (firstAnswer.statusCode !== 409 || !lookup))
		return { response: firstAnswer, outcome: 'created' };
	if (!lookup) {
		throwUnknownOutcome(
			context,
			itemIndex,
			what,
			describeAnswer(first),
			`Check in the dashboard whether the ${what} exists before retrying.`,
		);
	}
	const found = await recoveryRead(context, lookup.request, what, lookup.key);
	if (isSuccess(found)) {
		claim?.known();
		return {
			response: sameRequest(context, found, lookup, what, itemIndex),
			outcome: firstAnswer ? 'existed' : 'recovered',
		};
	}
	if (firstAnswer || found.statusCode !== 404) {
		throwUnknownOutcome(
			context,
			itemIndex,
			what,
			`lookup answered HTTP ${found.statusCode}`,
			'Check the key in the dashboard before retrying.',
		);
	}
	// Nothing under the key yet proves nothing: the first request may still be committed. Never resent.
	throwKeyUnknown(
		context,
		itemIndex,
		what,
		lookup.key,
		`${describeAnswer(first)}, and Little Pay shows nothing under it yet`,
	);
}

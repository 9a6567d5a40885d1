import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { expectSuccess, paymentStatusPath } from '../transport';
import type { LittlePayRequest } from '../transport';
import { COMMIT_WINDOW_MINUTES, sendClaimed, withKeyClaim } from './claim';
import { describeAnswer, knownAnswer, recoveryRead } from './send';
import { processPaymentPath } from '../transport/gateway';
import { isNotARecord, readPaymentRecord } from '../transport/records';
import { notARecordError } from '../errors';

// One prompt per intent and network: the payment's status record settles whether the payer was asked.

/**
 * The attempt that settles whether a payment of this provider was already asked for: the intent is
 * paid, or its latest attempt is of this provider (waiting, completed or failed). Undefined when a
 * new attempt may be sent.
 */
function existingAttempt(record: IDataObject, provider: unknown): IDataObject | undefined {
	const attempts = (Array.isArray(record.attempts) ? record.attempts : []) as IDataObject[];
	const latest = attempts[attempts.length - 1];
	if (record.status === 'COMPLETED') return { status: 'COMPLETED', provider: latest?.provider };
	if (latest && latest.provider === provider) return latest;
	return undefined;
}

/** What processOnce settled: the prompt's answer, or the status record's word for it. */
export interface PromptOutcome {
	data: IDataObject;
	recovered: boolean;
	alreadyPrompted?: boolean;
	/** The prompt's answer was lost and the record shows no attempt yet: it may still reach the payer. */
	promptOutcomeUnknown?: boolean;
}

/** Refusals of a second prompt that mean the payer was already asked (or has paid). */
const ALREADY_ASKED = new Set(['ALREADY_PAID', 'ATTEMPT_IN_PROGRESS']);

/**
 * Sends POST /pay/{reference}/process once. An intent can be paid only once (Little Pay refuses a
 * second payment), and a payer must be asked only once: the intent's reference is held in this
 * process from reading the record to the prompt's answer, so two executions never both prompt. When
 * the intent existed already (`checkFirst`), another execution held it, or the outcome is unknown,
 * the status record decides first: paid, or an attempt of this provider waiting or settled, means it
 * was asked for. A lost answer with no attempt on record yet is never sent again: the first prompt may
 * still reach the payer, so it comes back PENDING with promptOutcomeUnknown.
 */
export async function processOnce(
	context: IExecuteFunctions,
	itemIndex: number,
	reference: string,
	body: IDataObject,
	cardData = false,
	checkFirst = false,
): Promise<PromptOutcome> {
	return await withKeyClaim(context, reference, 'prompt', async (claim) => {
		const statusRequest: LittlePayRequest = {
			credential: 'littlePayApiKeyApi',
			method: 'GET',
			path: paymentStatusPath(reference),
			itemIndex,
		};
		// What the status record says was already asked of this provider (a read that decides: never blind).
		// A record that does not prove this payment's status is no evidence of "no attempt": the item
		// fails with nothing sent rather than prompt the payer again on it.
		const attemptOnRecord = async () => {
			const data = expectSuccess(
				context,
				await recoveryRead(context, statusRequest, 'payment'),
				itemIndex,
			);
			const record = readPaymentRecord(data, reference);
			if (isNotARecord(record)) notARecordError(context, itemIndex, 'payment', record.notARecord);
			return existingAttempt(record.data, body.type);
		};
		const alreadyAsked = (attempt: IDataObject): PromptOutcome => {
			claim.known();
			const provider = attempt.provider ?? body.type;
			const message = `Not asked again: this intent already has a ${String(provider)} payment attempt (${String(attempt.status)})`;
			return {
				data: { status: attempt.status, message, provider, reference },
				recovered: false,
				alreadyPrompted: true,
			};
		};
		const unknownPrompt = (why: string): PromptOutcome => ({
			data: {
				status: 'PENDING',
				message: `${why}, and Little Pay shows no ${String(body.type)} attempt on intent ${reference} yet: ${cardData ? 'the charge may still go through' : 'the payer may still get the prompt'}, so it was not sent again. Check the payment's status (Payment: Get Status) before asking again; a re-run after ${COMMIT_WINDOW_MINUTES} minutes reads the record first.`,
				provider: body.type,
				reference,
			},
			recovered: false,
			promptOutcomeUnknown: true,
		});
		if (checkFirst || claim.waited || claim.unknownSince !== undefined) {
			const attempt = await attemptOnRecord();
			if (attempt) return alreadyAsked(attempt);
			if (claim.unknownSince !== undefined)
				return unknownPrompt('An earlier prompt for this intent got no answer');
		}
		const request: LittlePayRequest = {
			credential: 'littlePayApiKeyApi',
			method: 'POST',
			path: processPaymentPath(reference),
			body,
			itemIndex,
			cardData,
		};
		const first = await sendClaimed(context, request, claim, 'payment', reference);
		const firstAnswer = knownAnswer(first);
		if (firstAnswer) {
			// The intent existed: another execution's prompt may have got there first. Its record is the answer.
			if (checkFirst && ALREADY_ASKED.has(String(firstAnswer.data.code))) {
				const attempt = await attemptOnRecord();
				if (attempt) return alreadyAsked(attempt);
			}
			return { data: expectSuccess(context, firstAnswer, itemIndex, cardData), recovered: false };
		}
		const attempt = await attemptOnRecord();
		if (attempt) {
			claim.known();
			const message = 'Recovered from the status record (the first answer was lost)';
			return {
				data: { status: attempt.status, message, provider: body.type, reference },
				recovered: true,
			};
		}
		return unknownPrompt(`The prompt's answer was lost (${describeAnswer(first)})`);
	});
}

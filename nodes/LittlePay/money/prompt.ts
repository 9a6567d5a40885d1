import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { expectSuccess, paymentStatusPath, sendOnce } from '../transport';
import type { LittlePayRequest } from '../transport';
import { throwUnknownOutcome } from '../errors';
import { describeAnswer, knownAnswer, recoveryRead } from './send';
import { processPaymentPath } from '../transport/gateway';

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

/**
 * Sends POST /pay/{reference}/process once. An intent can be paid only once (Little Pay refuses a
 * second payment), and a payer must be asked only once: when the outcome is unknown, or before
 * sending when `checkFirst` is set (the intent existed already), the status record decides. Paid,
 * or an attempt of this provider waiting or settled, means it was asked for; otherwise it is sent.
 */
export async function processOnce(
	context: IExecuteFunctions,
	itemIndex: number,
	reference: string,
	body: IDataObject,
	cardData = false,
	checkFirst = false,
): Promise<{ data: IDataObject; recovered: boolean; alreadyPrompted?: boolean }> {
	const statusRequest: LittlePayRequest = {
		credential: 'littlePayApiKeyApi',
		method: 'GET',
		path: paymentStatusPath(reference),
		itemIndex,
	};
	// What the status record says was already asked of this provider (a read that decides: never blind).
	const attemptOnRecord = async () =>
		existingAttempt(
			expectSuccess(context, await recoveryRead(context, statusRequest, 'payment'), itemIndex),
			body.type,
		);
	if (checkFirst) {
		const attempt = await attemptOnRecord();
		if (attempt) {
			const provider = attempt.provider ?? body.type;
			const message = `Not asked again: this intent already has a ${String(provider)} payment attempt (${String(attempt.status)})`;
			return {
				data: { status: attempt.status, message, provider, reference },
				recovered: false,
				alreadyPrompted: true,
			};
		}
	}
	const request: LittlePayRequest = {
		credential: 'littlePayApiKeyApi',
		method: 'POST',
		path: processPaymentPath(reference),
		body,
		itemIndex,
		cardData,
	};
	const firstAnswer = knownAnswer(await sendOnce(context, request));
	if (firstAnswer)
		return { data: expectSuccess(context, firstAnswer, itemIndex, cardData), recovered: false };
	const attempt = await attemptOnRecord();
	if (attempt) {
		const message = 'Recovered from the status record (the first answer was lost)';
		return {
			data: { status: attempt.status, message, provider: body.type, reference },
			recovered: true,
		};
	}
	const second = await sendOnce(context, request);
	const secondAnswer = knownAnswer(second);
	if (!secondAnswer)
		throwUnknownOutcome(
			context,
			itemIndex,
			'payment',
			describeAnswer(second),
			'Check the payment status before trying again',
		);
	return { data: expectSuccess(context, secondAnswer, itemIndex, cardData), recovered: false };
}

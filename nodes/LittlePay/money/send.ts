import type { IExecuteFunctions } from 'n8n-workflow';

import { throwUnknownOutcome } from '../errors';
import { isLost, readLittlePay } from '../transport';
import type { LittlePayRequest, LittlePayResponse, LostAnswer } from '../transport';

// The skeleton every money move is sent through (createOnce, processOnce, sendRefundOnce): a known answer
// settles it; no answer or a server error leaves the outcome unknown, and a read of the record
// (recoveryRead) may find it. Never sent again: a gateway still working on it answers the read 404.

/**
 * The answer to a request that moves money when it settles the outcome; undefined for no answer at
 * all or a server error, which a gateway or proxy may return after the payment was committed.
 */
export function knownAnswer(result: LittlePayResponse | LostAnswer): LittlePayResponse | undefined {
	return isLost(result) || result.statusCode >= 500 ? undefined : result;
}

export function describeAnswer(result: LittlePayResponse | LostAnswer): string {
	return isLost(result) ? result.reason : `HTTP ${result.statusCode}`;
}

/**
 * A read made to recover an unknown outcome; when it gets no answer either (or the execution is
 * stopped during it), the outcome stays unknown and the error names the key when there is one.
 */
export async function recoveryRead(
	context: IExecuteFunctions,
	request: LittlePayRequest,
	what: string,
	key?: string,
): Promise<LittlePayResponse> {
	try {
		// More patience than an ordinary read: the answer decides whether money moved.
		return await readLittlePay(context, request, 5);
	} catch {
		// Never "try again" here: the first request may have gone through, and a retry could pay twice.
		const cancelled = context.getExecutionCancelSignal()?.aborted === true;
		throwUnknownOutcome(
			context,
			request.itemIndex,
			what,
			`${cancelled ? 'execution cancelled during the lookup' : 'the lookup got no answer either'}${key === undefined ? '' : `; key ${key}`}`,
			`Check in the dashboard whether the ${what} exists before retrying: the first request may have gone through.`,
		);
	}
}

export function isSuccess(response: LittlePayResponse): boolean {
	return response.statusCode >= 200 && response.statusCode < 300;
}

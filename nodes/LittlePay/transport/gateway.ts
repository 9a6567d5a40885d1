import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { expectSuccess, paymentStatusPath, readLittlePay } from './index';

/** Reads a payment status record by reference or key, optionally holding one long poll. */
export async function getPaymentRecord(
	context: IExecuteFunctions,
	itemIndex: number,
	paymentId: string,
	longPoll: boolean,
	timeoutMs = 60000,
): Promise<IDataObject> {
	const response = await readLittlePay(context, {
		credential: 'littlePayApiKeyApi',
		method: 'GET',
		path: paymentStatusPath(paymentId),
		qs: longPoll ? { longPoll: true } : undefined,
		timeoutMs,
		itemIndex,
	});
	return expectSuccess(context, response, itemIndex);
}

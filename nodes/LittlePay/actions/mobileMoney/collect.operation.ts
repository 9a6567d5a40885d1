import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { processOnce } from '../../transport';
import { showFor } from '../common';
import {
	longPollTimeoutField,
	pauseFields,
	pauseForCallback,
	pauseForIntent,
	readPause,
	waitForPaymentField,
} from '../payment/pause';
import { waitForFinalStatus } from '../payment/waitForCompletion.operation';
import { createIntent, intentFields } from '../paymentIntent/create.operation';
import { payerFields, readPayer } from './fields';

export const description: INodeProperties[] = showFor('mobileMoney', 'collect', [
	...intentFields,
	...payerFields,
	waitForPaymentField('longPoll'),
	longPollTimeoutField,
	...pauseFields,
]);

/** Creates an intent, sends the PIN prompt and waits for the final status as the user chose. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const mode = this.getNodeParameter('waitForPayment', itemIndex, 'longPoll') as string;
	// The payer and the pause settings are validated first, so a bad item creates no intent.
	const { network, mobile } = readPayer(this, itemIndex);
	const pause = mode === 'pause' ? readPause(this, itemIndex) : undefined;
	const intent = await createIntent(this, itemIndex, 'collect', mobile, pause, network);
	// An open intent of an earlier execution calls back elsewhere: settled is the answer, else an error.
	if (pause && intent.alreadyExisted) {
		return {
			...(await pauseForIntent(this, itemIndex, intent, pause.timeoutMinutes)),
			mobile,
			network,
		};
	}
	const reference = String(intent.reference);
	// An intent that existed already may have prompted the payer: the status record decides first.
	const intentFound = intent.recovered === true || intent.alreadyExisted === true;
	const {
		data: prompt,
		recovered,
		alreadyPrompted,
	} = await processOnce(
		this,
		itemIndex,
		reference,
		{ type: network, payment: { mobile } },
		false,
		intentFound,
	);
	const result: IDataObject = {
		reference,
		key: intent.key,
		checkoutUrl: intent.checkoutUrl,
		mobile,
		network,
		status: prompt.status,
		message: prompt.message,
	};
	if (intent.recovered || recovered) result.recovered = true;
	if (intent.alreadyExisted) result.alreadyExisted = true;
	if (alreadyPrompted) result.alreadyPrompted = true;
	if (pause) return await pauseForCallback(this, itemIndex, result, pause.timeoutMinutes);
	if (mode !== 'longPoll') return result;
	const final = await waitForFinalStatus(
		this,
		itemIndex,
		reference,
		this.getNodeParameter('waitTimeoutSeconds', itemIndex, 300) as number,
	);
	// The final record's message says why a payment failed; the prompt's notice is stale by then.
	return {
		...result,
		status: final.status,
		message: final.message ?? result.message,
		amount: final.amount,
		timedOut: final.timedOut,
	};
}

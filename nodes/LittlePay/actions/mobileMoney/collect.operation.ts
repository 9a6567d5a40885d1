import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { processOnce } from '../../transport';
import { showFor } from '../common';
import { waitTimeoutField } from '../payment/fields';
import { waitForFinalStatus } from '../payment/waitForCompletion.operation';
import { createIntent, intentFields } from '../paymentIntent/create.operation';
import { payerFields, readPayer } from './fields';

export const description: INodeProperties[] = showFor('mobileMoney', 'collect', [
	...intentFields,
	...payerFields,
	{
		displayName: 'Wait for Completion',
		name: 'wait',
		type: 'boolean',
		default: true,
		description:
			'Whether to wait for the payer to answer the PIN prompt and return the final status',
	},
	{ ...waitTimeoutField, displayOptions: { show: { wait: [true] } } },
]);

/** Creates an intent, sends the PIN prompt and optionally waits for the final status. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	// The payer is validated first, so a bad number creates no intent.
	const { network, mobile } = readPayer(this, itemIndex);
	const intent = await createIntent(this, itemIndex, 'collect', mobile);
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
	if (!(this.getNodeParameter('wait', itemIndex, true) as boolean)) return result;
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

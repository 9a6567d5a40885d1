import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { enforceLimits } from '../../money/reserve';
import { showFor } from '../common';
import type { Item } from '../../item';
import type { OperationMeta } from '../common';
import { payerFields, readPayer } from './fields';
import { processOnce } from '../../money/prompt';

/** What the registry knows of this operation (actions/registry.ts). */
export const meta: OperationMeta = {
	subtitle: 'PIN Prompt · Mobile Money',
	rowKey: { parameter: 'reference', field: 'reference' },
	moves: 'payment',
	toolSummary:
		'Sends a mobile money PIN prompt for an existing Little Pay payment intent, by its reference.',
};

export const description: INodeProperties[] = showFor('mobileMoney', 'requestPayment', [
	{
		displayName: 'Intent Reference',
		name: 'reference',
		type: 'string',
		required: true,
		default: '',
		description: 'Reference returned when the intent was created',
	},
	...payerFields,
]);

/** Sends the PIN prompt for an existing intent, unless it already has an attempt of this network. */
export async function execute(this: IExecuteFunctions, item: Item): Promise<IDataObject> {
	const itemIndex = item.index;
	const { network, mobile } = readPayer(item);
	const reference = item.text('reference', 'Intent Reference');
	await enforceLimits(this, itemIndex, { kind: 'payment', network, intentReference: reference });
	// The intent exists already, so it may have an attempt (an earlier run, Retry On Fail, a retried
	// execution): the status record is read first and a payer who was asked is not asked again.
	const { data, recovered, alreadyPrompted, promptOutcomeUnknown } = await processOnce(
		this,
		itemIndex,
		reference,
		{ type: network, payment: { mobile } },
		false,
		true,
	);
	return {
		reference,
		network,
		mobile,
		...data,
		...(recovered ? { recovered } : {}),
		...(alreadyPrompted ? { alreadyPrompted } : {}),
		...(promptOutcomeUnknown ? { promptOutcomeUnknown } : {}),
	};
}

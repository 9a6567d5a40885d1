import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { failureFields, failureOfText } from '../../helpers/failures';
import { enforceLimits } from '../../money/reserve';
import { showFor } from '../common';
import type { Item } from '../../item';
import type { OperationMeta } from '../common';
import { intentReferenceField } from './fields';
import { processOnce } from '../../money/prompt';

/** What the registry knows of this operation (actions/registry.ts). */
export const meta: OperationMeta = {
	subtitle: 'Card 5/5 · Charge Card',
	rowKey: { parameter: 'reference', field: 'reference' },
	moves: 'payment',
	toolSummary:
		'Charges the card of an existing Little Pay payment intent after its 3-D Secure steps, by its reference.',
};

export const description: INodeProperties[] = showFor('card', 'processPayment', [
	intentReferenceField,
]);

/** Charges the card after enrolment (and step-up when it was asked for). A decline is an output, not an error. */
export async function execute(this: IExecuteFunctions, item: Item): Promise<IDataObject> {
	const itemIndex = item.index;
	const reference = item.text('reference', 'Intent Reference');
	await enforceLimits(this, itemIndex, {
		kind: 'payment',
		network: 'CARDS',
		intentReference: reference,
	});
	const { data, recovered, promptOutcomeUnknown } = await processOnce(
		this,
		itemIndex,
		reference,
		{ type: 'CARDS' },
		true,
	);
	return {
		reference,
		...data,
		...(data.status === 'FAILED' ? failureFields(failureOfText(data.message)) : {}),
		...(recovered ? { recovered } : {}),
		...(promptOutcomeUnknown ? { promptOutcomeUnknown } : {}),
	};
}

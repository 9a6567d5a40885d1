import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { requireText } from '../../helpers/validation';
import { enforceLimits } from '../../money/guard';
import { showFor } from '../common';
import { intentReferenceField } from './fields';
import { processOnce } from '../../money/once';

/** The canvas subtitle, in words. */
export const subtitle = 'Card 5/5 · Charge Card';

/** Continue On Fail names a failed row by this parameter, as `reference`. */
export const rowKey = { parameter: 'reference', field: 'reference' } as const;

/** It moves money: the money rules (keys, limits, the tool switch) apply. */
export const moves = 'payment' as const;

/** What the tool does, first in its default description. */
export const toolSummary =
	'Charges the card of an existing Little Pay payment intent after its 3-D Secure steps, by its reference.';

export const description: INodeProperties[] = showFor('card', 'processPayment', [
	intentReferenceField,
]);

/** Charges the card after enrolment (and step-up when it was asked for). A decline is an output, not an error. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const reference = requireText(
		this.getNode(),
		itemIndex,
		this.getNodeParameter('reference', itemIndex),
		'Intent Reference',
	);
	await enforceLimits(this, itemIndex, {
		kind: 'payment',
		network: 'CARDS',
		intentReference: reference,
	});
	const { data, recovered } = await processOnce(
		this,
		itemIndex,
		reference,
		{ type: 'CARDS' },
		true,
	);
	return { reference, ...data, ...(recovered ? { recovered } : {}) };
}

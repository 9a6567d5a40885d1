import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { throwUnknownOutcome } from '../../errors';
import type { Item } from '../../item';
import { expectSuccess, isLost, sendOnce } from '../../transport';

export const intentReferenceField: INodeProperties = {
	displayName: 'Intent Reference',
	name: 'reference',
	type: 'string',
	required: true,
	default: '',
	hint: 'The reference Payment Intent: Create returned for this checkout',
	description: 'Reference returned when the payment intent was created',
};

export const accessTokenField: INodeProperties = {
	displayName: 'Access Token',
	name: 'accessToken',
	type: 'string',
	typeOptions: { password: true },
	required: true,
	default: '',
	hint: 'The accessToken in the output of the previous card step',
	description:
		'The JWT Little Pay returned for this step (accessToken of step 1 for the device check, of step 3 for the bank check)',
};

/** Says where a page operation's HTML goes: n8n serves it with Respond to Webhook. */
export function respondToWebhookNotice(page: string): INodeProperties {
	return {
		displayName: `This node returns the ${page} as the html field of its output. Serve it to the payer with a Respond to Webhook node after it: Respond With Text, Response Body {{ $json.html }}, header Content-Type text/html.`,
		name: 'respondNotice',
		type: 'notice',
		default: '',
	};
}

/**
 * Sends one card step to Little Pay, once: no money moves, but a card is never resent blindly, so a
 * lost answer fails the item with `check`; errors never echo the card data.
 */
export async function sendCardStep(
	item: Item,
	path: string,
	body: IDataObject,
	what: string,
	check: string,
): Promise<IDataObject> {
	const { context, index: itemIndex } = item;
	const answer = await sendOnce(context, {
		credential: 'littlePayApiKeyApi',
		method: 'POST',
		path,
		body,
		itemIndex,
		cardData: true,
	});
	if (isLost(answer)) throwUnknownOutcome(context, itemIndex, what, answer.reason, check);
	return expectSuccess(context, answer, itemIndex, true);
}

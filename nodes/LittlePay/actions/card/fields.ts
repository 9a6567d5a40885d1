import type { IDataObject, INodeProperties } from 'n8n-workflow';

import { itemError, throwUnknownOutcome } from '../../errors';
import type { Item } from '../../item';
import { expectSuccess, gatewayOf, isLost, sendOnce } from '../../transport';

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
		displayName: `This node returns the ${page} as the html field of its output. Serve it to the payer with a Respond to Webhook node after it: Respond With Text, Response Body {{ $json.html }}, headers Content-Type text/html, X-Frame-Options DENY and X-Content-Type-Options nosniff (so no other site can frame the page; n8n drops a workflow's own Content-Security-Policy).`,
		name: 'respondNotice',
		type: 'notice',
		default: '',
	};
}

/**
 * A URL a page sends the payer's browser to with a JWT or the device fields: https only, except while
 * the API key credential points at a sandbox (which runs over plain http beside n8n).
 */
export async function pageUrl(item: Item, name: string, field: string): Promise<string> {
	const url = item.url(name, field);
	if (new URL(url).protocol === 'https:') return url;
	if ((await gatewayOf(item.context, item.index)) === 'sandbox') return url;
	return itemError(
		item.context.getNode(),
		item.index,
		`${field} must be an https address: the page sends the payer's browser there with the payment's token`,
		`Use the https address (n8n's Production URL behind TLS). Plain http is accepted only while the API key credential points at a sandbox.`,
	);
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

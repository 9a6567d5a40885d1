import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { buildStepUpPage } from '../../helpers/html';
import { optionsCollection, showFor } from '../common';
import type { Item } from '../../item';
import type { OperationMeta } from '../common';
import { accessTokenField, intentReferenceField, pageUrl, respondToWebhookNotice } from './fields';

/** What the registry knows of this operation (actions/registry.ts). */
export const meta: OperationMeta = {
	subtitle: 'Card 4/5 · Bank Check Page',
	rowKey: { parameter: 'reference', field: 'reference' },
};

export const description: INodeProperties[] = showFor('card', 'buildStepUpPage', [
	respondToWebhookNotice("bank's check page"),
	{
		...intentReferenceField,
		description: 'Reference of the payment intent, sent as MD; without it the payment fails',
	},
	{
		displayName: 'Step-Up URL',
		name: 'stepUpUrl',
		type: 'string',
		required: true,
		default: '',
		hint: 'The stepUpUrl in the output of step 3, when its action is AUTHENTICATE',
		description: "Address of the bank's page where the payer confirms the payment",
	},
	accessTokenField,
	optionsCollection([
		{
			displayName: 'Show in an Iframe',
			name: 'inIframe',
			type: 'boolean',
			default: false,
			description:
				"Whether to show the bank's page inside this page instead of replacing it; the redirect after the check then happens in the iframe",
		},
	]),
]);

/** Returns the HTML of the step-up page for Respond to Webhook. */
export async function execute(this: IExecuteFunctions, item: Item): Promise<IDataObject> {
	const reference = item.text('reference', 'Intent Reference');
	const stepUpUrl = await pageUrl(item, 'stepUpUrl', 'Step-Up URL');
	const accessToken = item.text('accessToken', 'Access Token');
	const html = buildStepUpPage({
		stepUpUrl,
		accessToken,
		reference,
		inIframe: item.param<IDataObject>('options', {}).inIframe === true,
	});
	return { reference, html };
}

import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { buildDeviceDataCollectionPage, COLLECTION_ORIGINS } from '../../helpers/html';
import { requireText, validateAmount, validateUrl } from '../../helpers/validation';
import { optionsCollection, showFor } from '../common';
import type { Item } from '../../item';
import type { OperationMeta } from '../common';
import { accessTokenField, intentReferenceField, pageUrl, respondToWebhookNotice } from './fields';

/** What the registry knows of this operation (actions/registry.ts). */
export const meta: OperationMeta = {
	subtitle: 'Card 2/5 · Device Check Page',
	rowKey: { parameter: 'reference', field: 'reference' },
};

export const description: INodeProperties[] = showFor('card', 'buildDeviceDataCollectionPage', [
	respondToWebhookNotice('device check page'),
	intentReferenceField,
	{
		displayName: 'Device Data Collection URL',
		name: 'deviceDataCollectionUrl',
		type: 'string',
		required: true,
		default: '',
		hint: 'The deviceDataCollectionUrl in the output of step 1',
		description:
			"Address of the card network's device check, which the page loads in a hidden frame",
	},
	accessTokenField,
	{
		displayName: 'Continue URL',
		name: 'continueUrl',
		type: 'string',
		required: true,
		default: '',
		hint: 'The Production URL of the Webhook that runs step 3 (Check Enrolment)',
		description:
			"Where the payer's browser posts reference, sessionId and its screen and language fields when the check is done",
	},
	optionsCollection([
		{
			displayName: 'Custom Origin',
			name: 'customOrigin',
			type: 'string',
			default: '',
			placeholder: 'https://centinelapistag.cardinalcommerce.com',
			displayOptions: { show: { messageOrigin: ['custom'] } },
			description: 'Scheme, host and port the message must come from',
		},
		{
			displayName: 'Message Origin',
			name: 'messageOrigin',
			type: 'options',
			options: [
				{
					name: 'From the Collection URL',
					value: 'auto',
					description: 'Works for test, production and the sandbox',
				},
				{ name: 'Test (Cardinal Staging)', value: 'test', description: COLLECTION_ORIGINS.test },
				{
					name: 'Production (Cardinal)',
					value: 'production',
					description: COLLECTION_ORIGINS.production,
				},
				{ name: 'Custom', value: 'custom' },
			],
			default: 'auto',
			description:
				'Who may send the "check done" message to the page; messages from any other origin are ignored',
		},
		{
			displayName: 'Timeout (Seconds)',
			name: 'timeoutSeconds',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 60 },
			default: 10,
			description: 'How long the page waits for the device check before going on without it',
		},
	]),
]);

/** The message origin to trust, from the user's choice. */
function messageOriginFor(item: Item, collectionUrl: string): string {
	const options = item.param<IDataObject>('options', {});
	const choice = String(options.messageOrigin ?? 'auto');
	if (choice === 'test' || choice === 'production') return COLLECTION_ORIGINS[choice];
	if (choice === 'custom') {
		const origin = item.check(() => requireText(options.customOrigin ?? '', 'Custom Origin'));
		const custom = item.check(() => validateUrl(origin, 'Custom Origin'));
		return new URL(custom).origin;
	}
	return new URL(collectionUrl).origin;
}

/** Returns the HTML of the device data collection page for Respond to Webhook. */
export async function execute(this: IExecuteFunctions, item: Item): Promise<IDataObject> {
	const reference = item.text('reference', 'Intent Reference');
	const deviceDataCollectionUrl = item.url('deviceDataCollectionUrl', 'Device Data Collection URL');
	const accessToken = item.text('accessToken', 'Access Token');
	const continueUrl = await pageUrl(item, 'continueUrl', 'Continue URL');
	const timeoutSeconds = item.check(() =>
		validateAmount(
			item.param<IDataObject>('options', {}).timeoutSeconds ?? 10,
			'Timeout (Seconds)',
		),
	);
	const messageOrigin = messageOriginFor(item, deviceDataCollectionUrl);
	const html = buildDeviceDataCollectionPage({
		deviceDataCollectionUrl,
		accessToken,
		messageOrigin,
		reference,
		continueUrl,
		timeoutMs: Math.round(timeoutSeconds * 1000),
	});
	return { reference, messageOrigin, html };
}

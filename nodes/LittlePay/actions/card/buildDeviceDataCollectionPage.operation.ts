import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { buildDeviceDataCollectionPage, COLLECTION_ORIGINS } from '../../helpers/html';
import { requireText, validateAmount, validateUrl } from '../../helpers/validation';
import { optionsCollection, showFor } from '../common';
import type { OperationMeta } from '../common';
import { accessTokenField, intentReferenceField, respondToWebhookNotice } from './fields';

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
function messageOriginFor(
	context: IExecuteFunctions,
	itemIndex: number,
	collectionUrl: string,
): string {
	const options = context.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const choice = String(options.messageOrigin ?? 'auto');
	if (choice === 'test' || choice === 'production') return COLLECTION_ORIGINS[choice];
	if (choice === 'custom') {
		const custom = validateUrl(
			context.getNode(),
			itemIndex,
			requireText(context.getNode(), itemIndex, options.customOrigin ?? '', 'Custom Origin'),
			'Custom Origin',
		);
		return new URL(custom).origin;
	}
	return new URL(collectionUrl).origin;
}

/** Returns the HTML of the device data collection page for Respond to Webhook. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const node = this.getNode();
	const reference = requireText(
		node,
		itemIndex,
		this.getNodeParameter('reference', itemIndex),
		'Intent Reference',
	);
	const deviceDataCollectionUrl = validateUrl(
		node,
		itemIndex,
		this.getNodeParameter('deviceDataCollectionUrl', itemIndex) as string,
		'Device Data Collection URL',
	);
	const accessToken = requireText(
		node,
		itemIndex,
		this.getNodeParameter('accessToken', itemIndex),
		'Access Token',
	);
	const continueUrl = validateUrl(
		node,
		itemIndex,
		this.getNodeParameter('continueUrl', itemIndex) as string,
		'Continue URL',
	);
	const timeoutSeconds = validateAmount(
		node,
		itemIndex,
		(this.getNodeParameter('options', itemIndex, {}) as IDataObject).timeoutSeconds ?? 10,
		'Timeout (Seconds)',
	);
	const messageOrigin = messageOriginFor(this, itemIndex, deviceDataCollectionUrl);
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

import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../common';
import * as buildDeviceDataCollectionPage from './buildDeviceDataCollectionPage.operation';
import * as buildStepUpPage from './buildStepUpPage.operation';
import * as checkEnrolment from './checkEnrolment.operation';
import * as getDeviceDataCollectionToken from './getDeviceDataCollectionToken.operation';
import * as processPayment from './processPayment.operation';

export const operations = {
	getDeviceDataCollectionToken,
	buildDeviceDataCollectionPage,
	checkEnrolment,
	buildStepUpPage,
	processPayment,
};

/** What the panel shows for the resource before its operation's fields: the operation selector first. */
export const header: INodeProperties[] = [
	operationSelector('card', [
		{
			name: 'Get Device Data Collection Token',
			value: 'getDeviceDataCollectionToken',
			action: 'Send the card details (step 1 of 5)',
			description: 'Step 1 of 5: send the card to Little Pay and get a token for the device check',
		},
		{
			name: 'Build Device Data Collection Page',
			value: 'buildDeviceDataCollectionPage',
			action: 'Build the device check page (step 2 of 5)',
			description: "Step 2 of 5: HTML for Respond to Webhook that checks the payer's browser",
		},
		{
			name: 'Check Enrolment',
			value: 'checkEnrolment',
			action: 'Ask whether the bank wants a check (step 3 of 5)',
			description: "Step 3 of 5: ask whether the payer's bank wants to confirm the payment",
		},
		{
			name: 'Build Step-Up Page',
			value: 'buildStepUpPage',
			action: 'Build the bank check page (step 4 of 5)',
			description: 'Step 4 of 5, only when the bank asks: HTML for Respond to Webhook',
		},
		{
			name: 'Process Payment',
			value: 'processPayment',
			action: 'Charge the card (step 5 of 5)',
			description: 'Step 5 of 5: charge the card; a decline is status FAILED, not an error',
		},
	]),
	{
		displayName:
			"A card payment takes five steps, each a Little Pay node in a chain of Webhook and Respond to Webhook nodes: 1 send the card, 2 serve the device check page, 3 check enrolment, 4 serve the bank's check page when asked, 5 charge the card. Here the card passes through n8n, which stores it (PCI scope SAQ D): example 13, a sandbox demo, wires all five. For live cards send the payer to Little Pay's hosted checkout instead (example 2).",
		name: 'cardStepsNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { resource: ['card'] } },
	},
];

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

export const description: INodeProperties[] = [
	operationSelector('card', [
		{
			name: 'Get Device Data Collection Token',
			value: 'getDeviceDataCollectionToken',
			action: 'Get a device data collection token',
			description:
				'Send the card details and get the token for device data collection (3-D Secure step 1)',
		},
		{
			name: 'Build Device Data Collection Page',
			value: 'buildDeviceDataCollectionPage',
			action: 'Build the device data collection page',
			description:
				'HTML that collects device data in a hidden iframe and posts the result to your next webhook',
		},
		{
			name: 'Check Enrolment',
			value: 'checkEnrolment',
			action: 'Check card enrolment',
			description: 'Ask whether the card needs step-up authentication before payment',
		},
		{
			name: 'Build Step-Up Page',
			value: 'buildStepUpPage',
			action: 'Build the step-up page',
			description: 'HTML that sends the payer to their bank to confirm the payment',
		},
		{
			name: 'Process Payment',
			value: 'processPayment',
			action: 'Process a card payment',
			description: 'Charge the card; a decline is returned as status FAILED',
		},
	]),
	...getDeviceDataCollectionToken.description,
	...buildDeviceDataCollectionPage.description,
	...checkEnrolment.description,
	...buildStepUpPage.description,
	...processPayment.description,
];

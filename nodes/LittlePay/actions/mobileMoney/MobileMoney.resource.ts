import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../common';
import * as collect from './collect.operation';
import * as requestPayment from './requestPayment.operation';

export const operations = { collect, requestPayment };

/** What the panel shows for the resource before its operation's fields: the operation selector first. */
export const header: INodeProperties[] = [
	operationSelector('mobileMoney', [
		{
			name: 'Collect',
			value: 'collect',
			action: 'Collect a mobile money payment',
			description: 'Create an intent, send the PIN prompt and optionally wait for the result',
		},
		{
			name: 'Request Payment',
			value: 'requestPayment',
			action: 'Request a mobile money payment',
			description: 'Send the PIN prompt for an existing intent',
		},
	]),
];

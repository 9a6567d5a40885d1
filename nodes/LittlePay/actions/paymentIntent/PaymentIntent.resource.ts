import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../common';
import * as create from './create.operation';

export const operations = { create };

/** What the panel shows for the resource before its operation's fields: the operation selector first. */
export const header: INodeProperties[] = [
	operationSelector('paymentIntent', [
		{
			name: 'Create',
			value: 'create',
			action: 'Create a payment intent',
			description: 'Create a payment request and get its reference and checkout URL',
		},
	]),
];

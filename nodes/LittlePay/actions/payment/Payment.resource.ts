import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../common';
import * as getStatus from './getStatus.operation';
import * as reconcile from './reconcile.operation';
import * as waitForCompletion from './waitForCompletion.operation';

export const operations = { getStatus, reconcile, waitForCompletion };

/** What the panel shows for the resource before its operation's fields: the operation selector first. */
export const header: INodeProperties[] = [
	operationSelector('payment', [
		{
			name: 'Get Status',
			value: 'getStatus',
			action: 'Get the status of a payment',
			description: 'Read the payment status record by reference or key',
		},
		{
			name: 'Reconcile',
			value: 'reconcile',
			action: 'Reconcile payments with Little Pay',
			description:
				'Sweep payments your records show open: where each stands now, what changed, nothing sent',
		},
		{
			name: 'Wait for Completion',
			value: 'waitForCompletion',
			action: 'Wait for a payment to complete',
			description: 'Wait until the payment is COMPLETED or FAILED, or a timeout',
		},
	]),
];

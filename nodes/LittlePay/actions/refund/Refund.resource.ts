import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../common';
import * as create from './create.operation';

export const operations = { create };

/** What the panel shows for the resource before its operation's fields: the operation selector first. */
export const header: INodeProperties[] = [
	operationSelector('refund', [
		{
			name: 'Create',
			value: 'create',
			action: 'Create a refund',
			description: 'Refund a completed payment, fully or partly',
		},
	]),
];

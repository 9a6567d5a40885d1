import type { INodeProperties } from 'n8n-workflow';

import { operationSelector } from '../common';
import * as create from './create.operation';
import * as get from './get.operation';
import * as getCharges from './getCharges.operation';
import * as quoteFee from './quoteFee.operation';
import * as reconcile from './reconcile.operation';
import * as waitForSettlement from './waitForSettlement.operation';

export const operations = { create, get, getCharges, quoteFee, reconcile, waitForSettlement };

/** What the panel shows for the resource before its operation's fields: the operation selector first. */
export const header: INodeProperties[] = [
	operationSelector('disbursement', [
		{
			name: 'Pay Out',
			value: 'create',
			action: 'Pay out to a mobile money wallet',
			description: 'Pay out to a mobile money wallet, check a run first, or wait until it settles',
		},
		{
			name: 'Get',
			value: 'get',
			action: 'Get a payout',
			description: 'Read where a payout stands by ID or key',
		},
		{
			name: 'Get Charges',
			value: 'getCharges',
			action: 'Get the charges table of every network',
			description:
				'The whole table: every network with its limits and fee tiers. To price one payout, use Quote Fee.',
		},
		{
			name: 'Quote Fee',
			value: 'quoteFee',
			action: 'Quote the fee of one payout',
			description:
				'The fee for one amount on one network and whether it is within the limits, without paying. Whole table: Get Charges.',
		},
		{
			name: 'Reconcile',
			value: 'reconcile',
			action: 'Reconcile payouts',
			description:
				'Sweep payouts your records show open: one row per payout with outcome and fee, never stopping on an unknown key',
		},
		{
			name: 'Wait for Settlement',
			value: 'waitForSettlement',
			action: 'Wait for payouts to settle',
			description: 'Wait until payouts of an earlier run have completed or failed, by ID or key',
		},
	]),
];

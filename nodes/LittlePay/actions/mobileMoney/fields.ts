import type { INodeProperties } from 'n8n-workflow';

import type { Item } from '../../item';
import type { MobileNetwork } from '../../helpers/validation';
import { nationalNumberCountryField, NETWORK_OPTIONS } from '../common';

export const payerFields: INodeProperties[] = [
	{
		displayName: 'Network',
		name: 'network',
		type: 'options',
		options: NETWORK_OPTIONS,
		default: 'MPESA',
		description: 'Mobile money network of the payer',
	},
	{
		displayName: 'Mobile Number',
		name: 'mobile',
		type: 'string',
		required: true,
		default: '',
		placeholder: '+254712345678',
		hint: 'The PIN prompt goes to this number; 0712345678 is read with the Country below',
		description:
			'Payer number; +254 712 345 678, 254712345678 or 0712345678 (with Country) are accepted',
	},
	nationalNumberCountryField,
];

/** Reads and normalises the payer's network and number of one item. */
export function readPayer(item: Item): { network: MobileNetwork; mobile: string } {
	const network = item.network('network');
	return { network, mobile: item.phone('mobile', 'Mobile Number', network) };
}

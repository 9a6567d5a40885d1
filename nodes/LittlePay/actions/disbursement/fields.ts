import type { INodeProperties } from 'n8n-workflow';

import { validateAmount, validateCurrencyFor, validateRecordId } from '../../helpers/validation';
import type { MobileNetwork } from '../../helpers/validation';
import type { Item } from '../../item';
import {
	amountField,
	CURRENCY_OPTIONS,
	currencyField,
	nationalNumberCountryField,
	NETWORK_OPTIONS,
} from '../common';

/** The amount of a payout, with its unit visible under the field. */
export const payoutAmountField = amountField(
	'Amount the recipient gets, as in the network limits and fees of Get Charges. M-Pesa pays whole shillings.',
);

/** A payout's currency: those of the countries the networks serve (no USD: wallets hold local money). */
export const payoutCurrencyField: INodeProperties = {
	...currencyField,
	options: CURRENCY_OPTIONS.filter((option) => option.value !== 'USD'),
	description: 'Currency of the amount',
};

export const networkField: INodeProperties = {
	displayName: 'Network',
	name: 'method',
	type: 'options',
	options: NETWORK_OPTIONS,
	default: 'MPESA',
	description: 'Mobile money network of the recipient',
};

/** Recipient: network, number and the country national numbers belong to. */
export const recipientFields: INodeProperties[] = [
	networkField,
	{
		displayName: 'Destination Number',
		name: 'to',
		type: 'string',
		required: true,
		default: '',
		placeholder: '+254712345678',
		hint: '+254 712 345 678, 254712345678, or 0712345678 with Country',
		description: "Recipient's mobile money wallet",
	},
	nationalNumberCountryField,
];

/** Where each payout's key comes from: the row (safe to run again) or the execution (not). */
export const keyFields: INodeProperties[] = [
	{
		displayName: 'Payout Key',
		name: 'keySource',
		type: 'options',
		options: [
			{
				name: 'From Your Data (Recommended)',
				value: 'mapped',
				description:
					"Each row's own ID, such as its payout ID: any later run of the same row finds its payout instead of paying again",
			},
			{
				name: 'Generate a Key per Execution',
				value: 'generated',
				description:
					'Running the workflow again pays every row again; only retries of a failed execution reuse the keys',
			},
		],
		default: 'mapped',
		builderHint: {
			propertyHint:
				"Keep 'mapped' and map each row's own payout ID into Key: a generated key pays every row again when the workflow runs again",
		},
		// A choice, not a value: an expression here would hide the Key field it decides on.
		noDataExpression: true,
		description:
			'Little Pay keeps one payout per key, so the key is what makes a payout happen once',
		// As an AI tool each call gets its own key from the call itself (money/guard.ts).
		displayOptions: { hide: { '@tool': [true] } },
	},
	{
		displayName: 'Key',
		name: 'key',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. {{ $json.payoutId }}',
		hint: "Map each row's own ID, e.g. {{ $json.payoutId }} (letters and digits). Running the workflow again then pays nobody twice.",
		builderHint: {
			propertyHint:
				"Map the row's stable payout ID (letters and digits), never a timestamp or random value: the key is what makes each payout happen once",
		},
		description:
			'Your unique ID for this payout, such as the payout row ID; 8-12 letters and digits recommended',
		displayOptions: { show: { keySource: ['mapped'] }, hide: { '@tool': [true] } },
	},
	{
		displayName:
			'No key from your data: every execution generates new keys. Retry On Fail and Retry from the Executions list reuse them, but running this workflow again, or Execute step, pays every row again. Map a payout ID for runs you may repeat.',
		name: 'generatedKeyNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { keySource: ['generated'] }, hide: { '@tool': [true] } },
	},
];

/** A payout as the user asked for it, validated: nothing is sent for an item that fails here. */
export interface PayoutRequest {
	method: MobileNetwork;
	amount: number;
	currency: string;
	to: string;
}

/**
 * Reads and validates one item's payout (network, amount, currency, number): the amount in plain
 * digits with at most the currency's decimals, and the currency the one the number's wallet holds.
 */
export function readPayoutRequest(item: Item): PayoutRequest {
	const method = item.network('method');
	const given = item.param('amount');
	const currency = item.currency();
	const amount = item.check(() => validateAmount(given, 'Amount', currency));
	const to = item.phone('to', 'Destination Number', method);
	item.check(() => validateCurrencyFor(currency, to, method));
	return { method, amount, currency, to };
}

/** The payout to look up, shared by Get and Wait for Settlement. */
export const payoutIdField: INodeProperties = {
	displayName: 'ID or Key',
	name: 'disbursementId',
	type: 'string',
	required: true,
	default: '',
	placeholder: 'e.g. {{ $json.key }}',
	hint: 'The id Little Pay returned, or your key, e.g. {{ $json.key }} from an earlier payout run',
	description: 'Which payout to look up',
};

/** Reads the payout id or key of one item. */
export function readPayoutId(item: Item): string {
	const id = item.text('disbursementId', 'ID or Key');
	return item.check(() => validateRecordId(id, 'ID or Key'));
}

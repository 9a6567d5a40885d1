import type { INodeProperties } from 'n8n-workflow';

import { callbackUrlNoticeHides } from '../../helpers/gateway';
import { MAX_EXPIRES_IN_MINUTES } from '../../helpers/validation';
import { amountField, currencyField, optionsCollection } from '../common';

/** The amount of an intent, with its unit visible under the field. */
export const intentAmountField = amountField(
	'Amount to collect. Little Pay accepts decimals; M-Pesa rounds them to whole shillings.',
);

/** Amount, currency and the order description: what the payer sees and pays. */
export const intentBusinessFields: INodeProperties[] = [
	intentAmountField,
	currencyField,
	{
		displayName: 'Description',
		name: 'description',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'Order 1001',
		description: 'What the payment is for, shown to the payer and returned in the status record',
	},
];

/** Where Little Pay reports the result, and the merchant's key of the intent. */
export const intentCallbackAndKeyFields: INodeProperties[] = [
	{
		displayName: 'Callback URL',
		name: 'callbackUrl',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'https://your-n8n/webhook/.../littlepay',
		hint: 'Usually the Production URL of a Little Pay Trigger workflow',
		description:
			'URL Little Pay calls with the result of the payment. To pause in Payment: Wait for Completion instead, use {{ $execution.resumeUrl }}.',
		// When pausing, the callback goes to the execution's own resume URL.
		displayOptions: { hide: { waitForPayment: ['pause'] } },
	},
	{
		displayName:
			"This Callback URL is plain http or an IP address: fine for the sandbox on this machine, but Little Pay calls back only a public https address it can reach from the internet, never localhost or a private network (10.x, 172.16-31.x, 192.168.x), https or not. Going live: set n8n's WEBHOOK_URL to a public https address and use the trigger's Production URL (README: Going live).",
		name: 'privateCallbackUrlNotice',
		type: 'notice',
		default: '',
		// Shown for a typed http:// address or an https IP address (callbackUrlNoticeHides says why);
		// an expression, or a private name, is judged at run time, with a warning when Little Pay is the
		// gateway.
		displayOptions: {
			hide: { waitForPayment: ['pause'], callbackUrl: callbackUrlNoticeHides() },
		},
	},
	{
		displayName: 'Key',
		name: 'key',
		type: 'string',
		default: '',
		placeholder: 'order1001',
		hint: 'Map your order number (letters and digits) so no new run can charge twice. Empty generates one.',
		builderHint: {
			propertyHint:
				'Map the order ID here (letters and digits only, e.g. {{ $json.orderId }}): Little Pay keeps one payment per key, so running the workflow again charges nobody twice',
		},
		description:
			'Your unique alphanumeric ID for this payment (8-12 characters recommended). An empty Key is generated so that Retry On Fail and Retry from the Executions list reuse it, but a new execution makes new ones.',
	},
	{
		displayName:
			'Key is empty: every execution generates a new key, so running this workflow again (or Execute step, or a re-sent trigger) creates a new intent and can charge the payer again. Map your order number, e.g. {{ $json.orderId }}.',
		name: 'emptyKeyNotice',
		type: 'notice',
		default: '',
		// Shown while Key is empty; a mapped expression or a typed key hides it.
		displayOptions: { hide: { key: [{ _cnd: { exists: true } }] } },
	},
];

/** Billing details Little Pay passes to card checks; optional, so they sit in Options. */
const billingOptions: INodeProperties[] = [
	{
		displayName: 'Billing Address Line',
		name: 'address1',
		type: 'string',
		default: '',
		description: 'Street address of the payer; complete billing data helps card payments pass',
	},
	{
		displayName: 'Billing City',
		name: 'locality',
		type: 'string',
		default: '',
		description: 'City or town of the payer',
	},
	{
		displayName: 'Billing Country',
		name: 'country',
		type: 'string',
		default: '',
		placeholder: 'KE',
		description: 'ISO two-letter country code of the payer',
	},
	{
		displayName: 'Billing First Name',
		name: 'firstName',
		type: 'string',
		default: '',
	},
	{
		displayName: 'Billing Last Name',
		name: 'lastName',
		type: 'string',
		default: '',
	},
	{
		displayName: 'Billing Postal Code',
		name: 'postalCode',
		type: 'string',
		default: '',
	},
	{
		displayName: 'Billing State or County',
		name: 'administrativeArea',
		type: 'string',
		default: '',
		description: 'State, county or province of the payer',
	},
];

const intentOptions: INodeProperties[] = [
	{
		displayName: 'Authentication Redirect URL',
		name: 'authenticationRedirectUrl',
		type: 'string',
		default: '',
		description: "Where the payer goes after the bank's 3-D Secure check (card payments)",
	},
	...billingOptions,
	{
		displayName: 'Custom Data (JSON)',
		name: 'customData',
		type: 'json',
		default: '{}',
		description: 'Any JSON you attach to the payment',
	},
	{
		displayName: 'Expires In (Minutes)',
		name: 'expiresAt',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: MAX_EXPIRES_IN_MINUTES, numberPrecision: 0 },
		default: 30,
		description: 'Whole minutes until the intent expires, from 1 to 43200 (30 days)',
	},
	{
		displayName: 'Return URL',
		name: 'returnUrl',
		type: 'string',
		default: '',
		description: 'Where the payer goes after paying on the hosted checkout page',
	},
];

/** Sorts collection options by display name, as n8n lists them. */
export function byDisplayName(options: INodeProperties[]): INodeProperties[] {
	return [...options].sort((a, b) => a.displayName.localeCompare(b.displayName));
}

/** The one Options collection of an intent-creating operation, with extra options of that operation. */
export function intentOptionsCollection(extra: INodeProperties[] = []): INodeProperties {
	return optionsCollection(byDisplayName([...intentOptions, ...extra]));
}

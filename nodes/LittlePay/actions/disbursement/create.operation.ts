import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import {
	invalidInput,
	normalizeMobileNumber,
	requireText,
	validateAmount,
	validateNetwork,
} from '../../helpers/validation';
import { enforceLimits } from '../../money/guard';
import { createOnce, expectSuccess } from '../../transport';
import { COUNTRY_OPTIONS, isExecutionRetry, keyForItem, NETWORK_OPTIONS, showFor } from '../common';
import { quoteFor } from './charges';

export const networkAndAmountFields: INodeProperties[] = [
	{
		displayName: 'Network',
		name: 'method',
		type: 'options',
		options: NETWORK_OPTIONS,
		default: 'MPESA',
		description: 'Mobile money network of the recipient',
	},
	{
		displayName: 'Amount',
		name: 'amount',
		type: 'number',
		required: true,
		default: 0,
		description:
			"Amount to send in the currency's main unit, not cents: 500 is KES 500, as in the network limits and fees of Get Charges. M-Pesa pays whole shillings.",
	},
];

export const description: INodeProperties[] = showFor('disbursement', 'create', [
	...networkAndAmountFields,
	{
		displayName: 'Destination Number',
		name: 'to',
		type: 'string',
		required: true,
		default: '',
		placeholder: '+254712345678',
		description: 'Recipient wallet; +254 712 345 678, 254712345678 or 0712345678 (with Country)',
	},
	{
		displayName: 'Country',
		name: 'country',
		type: 'options',
		options: COUNTRY_OPTIONS,
		default: 'KE',
		description: 'Used only for numbers typed in national form, starting with 0',
	},
	{
		displayName: 'Currency',
		name: 'currency',
		type: 'string',
		default: 'KES',
		description: 'Currency code',
	},
	{
		displayName: 'Key',
		name: 'key',
		type: 'string',
		default: '',
		description:
			'Your unique ID for this payout; map one from your data, such as the payout row ID, so no re-run can pay twice. Empty generates one that Retry On Fail and Retry from the Executions list reuse, but a new execution makes new ones.',
	},
	{
		displayName: 'Check Limits and Fee First',
		name: 'checkLimits',
		type: 'boolean',
		default: true,
		description:
			"Whether to read the charges table first, refuse amounts outside the network's minimum and maximum, and show the fee",
	},
	{
		displayName: 'Concurrency',
		name: 'concurrency',
		type: 'number',
		typeOptions: { minValue: 1, maxValue: 10 },
		default: 1,
		description: 'How many payouts to send at once (1-10); output order always matches input order',
	},
]);

/** Pays out to a mobile money wallet, once. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const node = this.getNode();
	const method = validateNetwork(node, itemIndex, this.getNodeParameter('method', itemIndex));
	const amount = validateAmount(node, itemIndex, this.getNodeParameter('amount', itemIndex));
	const to = normalizeMobileNumber(
		node,
		itemIndex,
		this.getNodeParameter('to', itemIndex),
		method,
		this.getNodeParameter('country', itemIndex, 'KE') as string,
		'Destination Number',
	);
	const currency = requireText(
		node,
		itemIndex,
		this.getNodeParameter('currency', itemIndex, 'KES'),
		'Currency',
	);
	const { key } = keyForItem(
		this,
		itemIndex,
		this.getNodeParameter('key', itemIndex, ''),
		'disbursement',
	);
	let fee: number | null | undefined;
	if (this.getNodeParameter('checkLimits', itemIndex, true) as boolean) {
		const quote = await quoteFor(this, itemIndex, method, amount);
		if (amount < quote.minimumAmount || amount > quote.maximumAmount) {
			invalidInput(
				node,
				itemIndex,
				'Amount',
				`${amount} is outside the ${method} limits ${quote.minimumAmount}-${quote.maximumAmount}`,
				'Split the payout or pick another network',
			);
		}
		fee = quote.fee;
	}
	await enforceLimits(this, itemIndex, {
		kind: 'payout',
		amount,
		currency,
		network: method,
		recipient: to,
	});
	const { response, outcome } = await createOnce(
		this,
		{
			credential: 'littlePayApiKeyApi',
			method: 'POST',
			path: '/api/disbursements',
			body: { amount, method, currency, key, details: { to, accountType: 'MOBILE' } },
			disbursement: true,
			itemIndex,
		},
		{
			request: {
				credential: 'littlePayApiKeyApi',
				method: 'GET',
				path: `/api/disbursements/${key}`,
				disbursement: true,
				itemIndex,
			},
			key,
			checkFirst: isExecutionRetry(this),
			expected: { amount, method, currency, to },
		},
		'disbursement',
	);
	const data = expectSuccess(this, response, itemIndex);
	const result: IDataObject = {
		id: data.id,
		key: data.key ?? key,
		status: data.status,
		message: data.message ?? null,
		method,
		to,
		amount,
		currency,
	};
	if (fee !== undefined) result.fee = fee;
	if (outcome === 'recovered') result.recovered = true;
	if (outcome === 'existed') result.alreadyExisted = true;
	return result;
}

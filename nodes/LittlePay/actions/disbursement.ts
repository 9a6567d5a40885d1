import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { invalidInput, normalizeMobileNumber, requireText, validateAmount } from '../helpers/validation';
import type { MobileNetwork } from '../helpers/validation';
import { expectSuccess, readLittlePay } from '../transport';
import { COUNTRY_OPTIONS, createOnce, keyForItem, NETWORK_OPTIONS, showFor } from './common';

export const disbursementOperations: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { resource: ['disbursement'] } },
	options: [
		{ name: 'Create', value: 'create', action: 'Create a disbursement', description: 'Pay out to a mobile money wallet' },
		{ name: 'Get', value: 'get', action: 'Get a disbursement', description: 'Read a disbursement by ID or key' },
		{ name: 'Get Charges', value: 'getCharges', action: 'Get withdrawal charges', description: 'List networks, limits and fee tiers' },
		{ name: 'Quote Fee', value: 'quoteFee', action: 'Quote the fee of a disbursement', description: 'Fee and limits for an amount on a network, without paying' },
	],
	default: 'create',
};

export const disbursementFields: INodeProperties[] = [
	...showFor('disbursement', ['create', 'quoteFee'], [
		{ displayName: 'Network', name: 'method', type: 'options', options: NETWORK_OPTIONS, default: 'MPESA', description: 'Mobile money network of the recipient' },
		{ displayName: 'Amount', name: 'amount', type: 'number', required: true, default: 0, description: 'Amount to send, in the currency unit' },
	]),
	...showFor('disbursement', ['create'], [
		{ displayName: 'Destination Number', name: 'to', type: 'string', required: true, default: '', placeholder: '+254712345678', description: 'Recipient wallet; +254 712 345 678, 254712345678 or 0712345678 (with Country)' },
		{ displayName: 'Country', name: 'country', type: 'options', options: COUNTRY_OPTIONS, default: 'KE', description: 'Used only for numbers typed in national form, starting with 0' },
		{ displayName: 'Currency', name: 'currency', type: 'string', default: 'KES', description: 'Currency code' },
		{ displayName: 'Key', name: 'key', type: 'string', default: '', description: 'Your unique ID for this payout. Empty generates one that stays the same when n8n retries this item, so a retry cannot pay twice.' },
		{ displayName: 'Check Limits and Fee First', name: 'checkLimits', type: 'boolean', default: true, description: "Whether to read the charges table first, refuse amounts outside the network's minimum and maximum, and show the fee" },
		{ displayName: 'Concurrency', name: 'concurrency', type: 'number', typeOptions: { minValue: 1, maxValue: 10 }, default: 1, description: 'How many payouts to send at once (1-10); output order always matches input order' },
	]),
	...showFor('disbursement', ['get'], [
		{ displayName: 'ID or Key', name: 'disbursementId', type: 'string', required: true, default: '', description: 'The ID returned at creation, or your key' },
	]),
];

interface NetworkLimits {
	minimumAmount: number;
	maximumAmount: number;
	fee: number | null;
}

/** Reads the withdrawal charges table. */
async function getCharges(context: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const response = await readLittlePay(context, { credential: 'littlePayApiKeyApi', method: 'GET', path: '/api/disbursements/charges', disbursement: true, itemIndex });
	return expectSuccess(context, response, itemIndex);
}

/** Looks up a network's limits and the fee tier for an amount (the first tier at or above it). */
export function quoteFromCharges(charges: IDataObject, network: string, amount: number): NetworkLimits | undefined {
	const networks = (Array.isArray(charges.networks) ? charges.networks : []) as IDataObject[];
	const entry = networks.find((n) => n.id === network);
	if (!entry) return undefined;
	const tiers = ((Array.isArray(charges.charges) ? charges.charges : []) as IDataObject[])
		.filter((c) => c.networkId === network)
		.sort((a, b) => Number(a.amount) - Number(b.amount));
	const tier = tiers.find((t) => amount <= Number(t.amount));
	return { minimumAmount: Number(entry.minimumAmount), maximumAmount: Number(entry.maximumAmount), fee: tier ? Number(tier.charges) : null };
}

/** Runs a Disbursement operation for one item. */
export async function executeDisbursement(context: IExecuteFunctions, itemIndex: number, operation: string): Promise<IDataObject> {
	const node = context.getNode();
	if (operation === 'getCharges') return getCharges(context, itemIndex);
	if (operation === 'get') {
		const id = requireText(node, itemIndex, context.getNodeParameter('disbursementId', itemIndex), 'ID or Key');
		const response = await readLittlePay(context, { credential: 'littlePayApiKeyApi', method: 'GET', path: `/api/disbursements/${encodeURIComponent(id)}`, disbursement: true, itemIndex });
		return expectSuccess(context, response, itemIndex);
	}
	const method = context.getNodeParameter('method', itemIndex) as MobileNetwork;
	const amount = validateAmount(node, itemIndex, context.getNodeParameter('amount', itemIndex));
	if (operation === 'quoteFee') {
		const quote = quoteFromCharges(await getCharges(context, itemIndex), method, amount);
		if (!quote) invalidInput(node, itemIndex, 'Network', `${method} is not in the charges table`, 'Pick a network Little Pay lists in Get Charges');
		return { method, amount, ...quote, withinLimits: amount >= quote.minimumAmount && amount <= quote.maximumAmount };
	}

	const to = normalizeMobileNumber(node, itemIndex, context.getNodeParameter('to', itemIndex) as string, method, context.getNodeParameter('country', itemIndex, 'KE') as string, 'Destination Number');
	const currency = requireText(node, itemIndex, context.getNodeParameter('currency', itemIndex, 'KES'), 'Currency');
	const key = keyForItem(context, itemIndex, context.getNodeParameter('key', itemIndex, '') as string, 'disbursement');
	let fee: number | null | undefined;
	if (context.getNodeParameter('checkLimits', itemIndex, true) as boolean) {
		const quote = quoteFromCharges(await getCharges(context, itemIndex), method, amount);
		if (!quote) invalidInput(node, itemIndex, 'Network', `${method} is not in the charges table`, 'Pick a network Little Pay lists in Get Charges');
		if (amount < quote.minimumAmount || amount > quote.maximumAmount) {
			invalidInput(node, itemIndex, 'Amount', `${amount} is outside the ${method} limits ${quote.minimumAmount}-${quote.maximumAmount}`, 'Split the payout or pick another network');
		}
		fee = quote.fee;
	}
	const { response, recovered } = await createOnce(
		context,
		{ credential: 'littlePayApiKeyApi', method: 'POST', path: '/api/disbursements', body: { amount, method, currency, key, details: { to, accountType: 'MOBILE' } }, disbursement: true, itemIndex },
		{ credential: 'littlePayApiKeyApi', method: 'GET', path: `/api/disbursements/${key}`, disbursement: true, itemIndex },
		'disbursement',
	);
	const data = expectSuccess(context, response, itemIndex);
	const result: IDataObject = { id: data.id, key: data.key ?? key, status: data.status, message: data.message ?? null, method, to, amount, currency };
	if (fee !== undefined) result.fee = fee;
	if (recovered) result.recovered = true;
	return result;
}

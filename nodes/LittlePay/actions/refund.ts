import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { requireText, validateAmount, validateUrl } from '../helpers/validation';
import { expectSuccess } from '../transport';
import { createOnce, showFor } from './common';
import { getPaymentStatus, paymentIdField } from './payment';

export const refundOperations: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { resource: ['refund'] } },
	options: [{ name: 'Create', value: 'create', action: 'Create a refund', description: 'Refund a completed payment, fully or partly' }],
	default: 'create',
};

export const refundFields: INodeProperties[] = showFor('refund', ['create'], [
	paymentIdField,
	{
		displayName: 'Refund',
		name: 'refundType',
		type: 'options',
		options: [
			{ name: 'Full Amount', value: 'full', description: 'The amount from the payment status record' },
			{ name: 'Partial Amount', value: 'partial' },
		],
		default: 'full',
	},
	{ displayName: 'Amount', name: 'amount', type: 'number', default: 0, displayOptions: { show: { refundType: ['partial'] } }, description: 'Amount to refund; several partial refunds may add up to the paid amount' },
	{ displayName: 'Reason', name: 'reason', type: 'string', default: '', description: 'Why the payment is refunded' },
	{ displayName: 'Callback URL', name: 'refundCallbackUrl', type: 'string', default: '', description: 'URL Little Pay calls when a refund answered PENDING completes (for a Little Pay Trigger add ?token=...)' },
]);

/** Creates a refund. Never resent automatically: no endpoint can tell whether a lost one happened. */
export async function executeRefund(context: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const node = context.getNode();
	const paymentId = requireText(node, itemIndex, context.getNodeParameter('paymentId', itemIndex), 'Reference or Key');
	const refundType = context.getNodeParameter('refundType', itemIndex) as string;
	const reason = context.getNodeParameter('reason', itemIndex, '') as string;
	const callbackUrl = context.getNodeParameter('refundCallbackUrl', itemIndex, '') as string;
	let amount: number;
	if (refundType === 'partial') {
		amount = validateAmount(node, itemIndex, context.getNodeParameter('amount', itemIndex));
	} else {
		const record = await getPaymentStatus(context, itemIndex, paymentId, false);
		amount = validateAmount(node, itemIndex, record.amount, 'Amount (from the payment record)');
	}
	const body: IDataObject = { amount };
	if (reason) body.reason = reason;
	if (callbackUrl) body.callbackUrl = validateUrl(node, itemIndex, callbackUrl, 'Callback URL');
	const { response } = await createOnce(context, { credential: 'littlePayApiKeyApi', method: 'POST', path: `/api/refund/${encodeURIComponent(paymentId)}`, body, itemIndex }, undefined, 'refund');
	const data = expectSuccess(context, response, itemIndex);
	return { paymentId, amount, status: data.status, message: data.message };
}

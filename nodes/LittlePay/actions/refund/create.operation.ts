import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { invalidInput, requireText, validateAmount, validateUrl } from '../../helpers/validation';
import { enforceLimits } from '../../money/guard';
import { createOnce, expectSuccess, throwUnknownOutcome } from '../../transport';
import { sentRecordFor, showFor } from '../common';
import { paymentIdField } from '../payment/fields';
import { getPaymentStatus } from '../payment/getStatus.operation';

export const description: INodeProperties[] = showFor('refund', 'create', [
	paymentIdField,
	{
		displayName: 'Refund',
		name: 'refundType',
		type: 'options',
		options: [
			{
				name: 'Full Amount',
				value: 'full',
				description:
					'What is still refundable: the paid amount from the status record, less any refunded amount it reports',
			},
			{ name: 'Partial Amount', value: 'partial' },
		],
		default: 'full',
	},
	{
		displayName: 'Amount',
		name: 'amount',
		type: 'number',
		default: 0,
		displayOptions: { show: { refundType: ['partial'] } },
		description:
			"Amount to refund in the currency's main unit, as the payment's amount: 500 is KES 500, not cents. Several partial refunds may add up to the paid amount.",
	},
	{
		displayName: 'Reason',
		name: 'reason',
		type: 'string',
		default: '',
		description: 'Why the payment is refunded',
	},
	{
		displayName: 'Callback URL',
		name: 'refundCallbackUrl',
		type: 'string',
		default: '',
		description:
			'URL Little Pay calls when a refund answered PENDING completes (for a Little Pay Trigger add ?token=...)',
	},
]);

/**
 * Creates a refund. Never resent automatically: no endpoint can tell whether a lost one happened.
 * Every way n8n re-runs the item (Retry On Fail, retrying the execution) finds the refund the first
 * attempt sent in the execution's context and returns it instead of refunding twice.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const node = this.getNode();
	const paymentId = requireText(
		node,
		itemIndex,
		this.getNodeParameter('paymentId', itemIndex),
		'Reference or Key',
	);
	const refundType = this.getNodeParameter('refundType', itemIndex) as string;
	const reason = this.getNodeParameter('reason', itemIndex, '') as string;
	const callbackUrl = this.getNodeParameter('refundCallbackUrl', itemIndex, '') as string;
	// Inputs are checked before the status lookup, so a bad item sends nothing at all.
	if (callbackUrl) validateUrl(node, itemIndex, callbackUrl, 'Callback URL');
	const partialAmount =
		refundType === 'partial'
			? validateAmount(node, itemIndex, this.getNodeParameter('amount', itemIndex))
			: undefined;
	// A refund has no key: what an earlier attempt of this execution sent is in its flow context.
	const sent = sentRecordFor(this, itemIndex, 'refund');
	if (!sent.known) {
		invalidInput(
			node,
			itemIndex,
			'Refund',
			'cannot be sent in this retried execution: its first attempt left no record of the refunds it sent',
			'The first attempt stopped before any Little Pay node ran, n8n stopped mid-run, or an older version of this node ran. Check the payment in the Little Pay dashboard and refund what is missing in a new execution.',
		);
	}
	const earlier = sent.get();
	if (earlier?.answer) return { ...earlier.answer, alreadyRefunded: true };
	if (earlier) {
		throwUnknownOutcome(
			this,
			itemIndex,
			'refund',
			'an earlier attempt of this execution sent it and got no answer',
			'Check the payment in the Little Pay dashboard before refunding again: the refund may have gone through.',
		);
	}
	let amount: number;
	if (partialAmount !== undefined) {
		amount = partialAmount;
	} else {
		const record = await getPaymentStatus(this, itemIndex, paymentId, false);
		const paid = validateAmount(node, itemIndex, record.amount, 'Amount (from the payment record)');
		// "Full" means what is still refundable when the record says how much was refunded already.
		const refunded = Number(record.refundedAmount ?? 0);
		amount = Number.isFinite(refunded) ? paid - refunded : paid;
		if (amount <= 0) {
			invalidInput(
				node,
				itemIndex,
				'Refund',
				`cannot refund the full amount: all ${paid} of this payment was refunded already`,
				'Nothing is left to refund',
			);
		}
	}
	const body: IDataObject = { amount };
	if (reason) body.reason = reason;
	if (callbackUrl) body.callbackUrl = callbackUrl;
	await enforceLimits(this, itemIndex, { kind: 'refund', amount, paymentId });
	sent.set({});
	const { response } = await createOnce(
		this,
		{
			credential: 'littlePayApiKeyApi',
			method: 'POST',
			path: `/api/refund/${encodeURIComponent(paymentId)}`,
			body,
			itemIndex,
		},
		undefined,
		'refund',
	);
	if (response.statusCode >= 400) sent.set(undefined); // refused: nothing was refunded
	const data = expectSuccess(this, response, itemIndex);
	const answer = { paymentId, amount, status: data.status, message: data.message };
	sent.set({ answer });
	return answer;
}

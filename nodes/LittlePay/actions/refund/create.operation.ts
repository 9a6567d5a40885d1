import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { warnIfUnreachable } from '../../flows/output';

import { validateAmount, validateUrl } from '../../helpers/validation';
import { enforceLimits } from '../../money/reserve';
import { optionsCollection, showFor } from '../common';
import type { Item } from '../../item';
import type { OperationMeta } from '../common';
import { paymentIdField, readPaymentId } from '../payment/fields';
import { getPaymentRecord } from '../../transport/gateway';
import { earlierRefund, sendRefundOnce } from '../../money/refunds';
import { failureFields, failureOfText } from '../../helpers/failures';

/** What the registry knows of this operation (actions/registry.ts). */
export const meta: OperationMeta = {
	subtitle: 'Create · Refund',
	rowKey: { parameter: 'paymentId', field: 'reference' },
	moves: 'refund',
	toolSummary:
		'Refunds a completed Little Pay payment, by its reference or key; never more than was paid less what was refunded.',
};

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
				description: 'What is still refundable, read from the status record',
			},
			{
				name: 'Partial Amount',
				value: 'partial',
				description: 'The amount you enter; several may add up to the paid amount',
			},
		],
		default: 'full',
	},
	{
		displayName: 'Amount',
		name: 'amount',
		type: 'number',
		default: 0,
		displayOptions: { show: { refundType: ['partial'] } },
		hint: "In the payment's currency, main unit, not cents: 500 = KES 500",
		description:
			"Amount to refund in the payment's currency: 500 is KES 500 for a KES payment. Several partial refunds may add up to the paid amount.",
	},
	optionsCollection([
		{
			displayName: 'Callback URL',
			name: 'callbackUrl',
			type: 'string',
			default: '',
			description:
				"URL Little Pay calls when a refund answered PENDING settles; for a Little Pay Trigger, its Production URL with ?token= and the trigger's Refund Callback Token",
		},
		{
			displayName: 'Reason',
			name: 'reason',
			type: 'string',
			default: '',
			description: 'Why the payment is refunded, kept with the refund',
		},
	]),
]);

/**
 * Creates a refund. Never resent automatically: no endpoint can tell whether a lost one happened.
 * Every way n8n re-runs the item (Retry On Fail, retrying the execution) finds the refund the first
 * attempt sent in the execution's context and returns it instead of refunding twice.
 */
export async function execute(this: IExecuteFunctions, item: Item): Promise<IDataObject> {
	const itemIndex = item.index;
	const paymentId = readPaymentId(item);
	const refundType = item.param<string>('refundType');
	const options = item.param<IDataObject>('options', {});
	const reason = String(options.reason ?? '');
	const callbackUrl = String(options.callbackUrl ?? '');
	// Inputs are checked before the status lookup, so a bad item sends nothing at all.
	if (callbackUrl) {
		item.check(() => validateUrl(callbackUrl, 'Callback URL'));
		await warnIfUnreachable(item, callbackUrl);
	}
	const partialAmount = refundType === 'partial' ? item.amount('amount') : undefined;
	// A refund has no key: what an earlier attempt of this execution sent is in its flow context.
	const earlier = earlierRefund(item);
	if (earlier) return earlier;
	// The status record names the payment in the output (reference, key, currency) whichever of
	// reference or key the item gave, and gives the amount of a full refund. A read, safe to repeat.
	const record = await getPaymentRecord(this, itemIndex, paymentId, false);
	let amount: number;
	if (partialAmount !== undefined) {
		amount = partialAmount;
	} else {
		const paid = item.check(() =>
			validateAmount(record.amount, 'Amount (from the payment record)'),
		);
		// "Full" means what is still refundable when the record says how much was refunded already.
		const refunded = Number(record.refundedAmount ?? 0);
		amount = Number.isFinite(refunded) ? paid - refunded : paid;
		if (amount <= 0) {
			item.fail(
				'Refund',
				`cannot refund the full amount: all ${paid} of this payment was refunded already`,
				'Nothing is left to refund',
			);
		}
	}
	const body: IDataObject = { amount };
	if (reason) body.reason = reason;
	if (callbackUrl) body.callbackUrl = callbackUrl;
	await enforceLimits(this, itemIndex, { kind: 'refund', amount, paymentId, record });
	return await sendRefundOnce(item, paymentId, body, (data) => ({
		// One vocabulary with the other operations: the payment is `reference` and `key` everywhere.
		reference: record.reference ?? paymentId,
		key: record.key ?? null,
		amount,
		currency: record.currency ?? null,
		status: data.status,
		message: data.message,
		reason: reason === '' ? null : reason,
		// A refund Little Pay answers FAILED is a 2xx: the code says nothing was refunded.
		...(data.status === 'FAILED' ? failureFields(failureOfText(data.message)) : {}),
	}));
}

import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { BILLING_ADDRESS_FIELDS } from '../../helpers/validation';
import { failureFields, failureOfText } from '../../helpers/failures';
import { paymentState } from '../../helpers/paymentState';
import { getPaymentRecord } from '../../transport/gateway';
import {
	expectedFields,
	optionsCollection,
	readExpected,
	reconciliationFields,
	showFor,
} from '../common';
import { differingFields } from '../../money/once';
import type { OperationMeta, RowKey, RunEnd } from '../common';
import type { Item } from '../../item';
import { sweepConcurrency, sweepEnd, sweepOptions, sweepRow } from '../sweep';
import type { SweepAnswer } from '../sweep';
import { paymentIdField, readPaymentId } from './fields';

const rowKey: RowKey = { parameter: 'paymentId', field: 'reference' };

const CONCURRENCY = sweepConcurrency('payments');

/** What the registry knows of this operation (actions/registry.ts). */
export const meta: OperationMeta = {
	concurrency: CONCURRENCY,
	subtitle: 'Reconcile · Payment',
	rowKey,
};

export const description: INodeProperties[] = showFor('payment', 'reconcile', [
	{
		...paymentIdField,
		hint: 'One item per payment your records still show open, e.g. {{ $json.reference }} of a Data Table row. Act on outcome: completed (ship), failed (final: close), pending (leave open: a failed try the payer can repeat is pending), mismatch (not this row’s payment), not-found (check the reference)',
	},
	{
		displayName: 'Status You Recorded',
		name: 'knownStatus',
		type: 'string',
		default: '',
		placeholder: 'e.g. {{ $json.status }}',
		hint: "Your record's status (usually PENDING): changed: true means the payment is final and Little Pay's status differs, so update your record",
		description:
			'What your own record says of the payment; empty means you recorded nothing, and every final payment found is a change',
	},
	...expectedFields('payment'),
	optionsCollection(sweepOptions('payments', CONCURRENCY)),
]);

/** The payment's final event, as the trigger names it; null while it can still change. */
function eventOf(state: string): string | null {
	if (state === 'completed') return 'payment.completed';
	if (state === 'failed') return 'payment.failed';
	return null;
}

const NEXT_STEP = {
	completed: 'Paid: fulfil the order (once) and mark your record COMPLETED',
	failed: 'It can no longer be paid: close your record as FAILED',
	pending:
		'Not final: leave your record open; the payer can still pay (the callback or the next sweep will say)',
};

/** Where one payment stands, in the trigger's vocabulary, read from its status record. */
async function lookUpPayment(
	context: IExecuteFunctions,
	itemIndex: number,
	paymentId: string,
	known: string,
): Promise<SweepAnswer> {
	const record = await getPaymentRecord(context, itemIndex, paymentId, false);
	const state = paymentState(record);
	const payment = (record.payment ?? {}) as IDataObject;
	const address = ((record.payload as IDataObject | undefined)?.billingAddress ??
		{}) as IDataObject;
	const billingAddress: IDataObject = {};
	for (const field of BILLING_ADDRESS_FIELDS) billingAddress[field] = address[field] ?? null;
	const status = String(record.status ?? '').toUpperCase();
	const outcome = state === 'payable' ? 'pending' : state;
	return {
		outcome,
		payable: state === 'payable',
		nextStep: NEXT_STEP[outcome],
		fields: {
			event: eventOf(state),
			kind: 'payment',
			reference: record.reference ?? paymentId,
			key: record.key ?? null,
			status,
			...(status === 'FAILED' ? failureFields(failureOfText(record.message)) : {}),
			amount: record.amount ?? null,
			...reconciliationFields(record),
			provider: payment.provider ?? null,
			message: record.message ?? null,
			billingAddress,
			knownStatus: known === '' ? null : known,
			// Only a final status is a change to record: a FAILED try the payer can repeat is not.
			changed: state !== 'payable' && status !== known,
			checkedAt: new Date().toISOString(),
		},
	};
}

/**
 * Looks one payment up and says where it stands, for the payments a workflow started whose callback
 * may never come: a sweep reads, it never creates, prompts or refunds. `final` is true once the payment
 * can no longer change (COMPLETED, or FAILED after the intent expired); one row out per row in.
 */
export async function execute(this: IExecuteFunctions, item: Item): Promise<IDataObject> {
	const itemIndex = item.index;
	return await sweepRow(
		this,
		itemIndex,
		rowKey,
		async () => {
			const paymentId = readPaymentId(item);
			const known = String(this.getNodeParameter('knownStatus', itemIndex, '') ?? '')
				.trim()
				.toUpperCase();
			const answer = await lookUpPayment(this, itemIndex, paymentId, known);
			answer.differences = differingFields(readExpected(item), answer.fields);
			answer.mismatchStep =
				"Not this row's payment, whatever its status: do not ship or mark it paid; check the row's reference";
			return answer;
		},
		true,
	);
}

/** Once every row is looked up: the counts first, above the output and on the optional Summary output. */
export async function afterItems(
	this: IExecuteFunctions,
	results: Array<IDataObject | undefined>,
	failures: Array<IDataObject | undefined>,
): Promise<RunEnd> {
	return await Promise.resolve(sweepEnd(this, rowKey, 'payments', results, failures));
}

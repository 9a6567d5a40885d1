import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { BILLING_ADDRESS_FIELDS } from '../../helpers/validation';
import { failureFields, failureOfText } from '../../helpers/failures';
import { paymentState } from '../../helpers/paymentState';
import { getPaymentRecord } from '../../transport/gateway';
import { concurrencyOption, optionsCollection, reconciliationFields, showFor } from '../common';
import type { OperationMeta } from '../common';
import { paymentIdField, readPaymentId } from './fields';

/** What the registry knows of this operation (actions/registry.ts). */
export const meta: OperationMeta = {
	subtitle: 'Reconcile · Payment',
	rowKey: { parameter: 'paymentId', field: 'reference' },
};

export const description: INodeProperties[] = showFor('payment', 'reconcile', [
	{
		...paymentIdField,
		hint: 'One item per payment your records still show open, e.g. {{ $json.reference }} of a Data Table row',
	},
	{
		displayName: 'Status You Recorded',
		name: 'knownStatus',
		type: 'string',
		default: '',
		placeholder: 'e.g. {{ $json.status }}',
		hint: "Your record's status (usually PENDING): the output says changed: true where Little Pay's differs",
		description:
			'What your own record says of the payment; empty means you recorded nothing, and every payment found is a change',
	},
	optionsCollection([
		concurrencyOption(
			10,
			'How many payments to look up at once (1-10); lookups are reads. Output order always matches input order.',
		),
	]),
]);

/** Lookups are reads: 10 at once unless Options > Concurrency says fewer. */
export function concurrency(this: IExecuteFunctions): number {
	return this.getNodeParameter('options.concurrency', 0, 10) as number;
}

/** The payment's final event, as the trigger names it; null while it can still change. */
function eventOf(state: string): string | null {
	if (state === 'completed') return 'payment.completed';
	if (state === 'failed') return 'payment.failed';
	return null;
}

/**
 * Looks one payment up and says where it stands, in the trigger's vocabulary, for the payments a
 * workflow started whose callback may never come: a sweep reads, it never creates, prompts or refunds.
 * `final` is true once the payment can no longer change (COMPLETED, or FAILED after the intent expired).
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const paymentId = readPaymentId(this, itemIndex);
	const known = String(this.getNodeParameter('knownStatus', itemIndex, '') ?? '')
		.trim()
		.toUpperCase();
	const record = await getPaymentRecord(this, itemIndex, paymentId, false);
	const state = paymentState(record);
	const payment = (record.payment ?? {}) as IDataObject;
	const address = ((record.payload as IDataObject | undefined)?.billingAddress ??
		{}) as IDataObject;
	const billingAddress: IDataObject = {};
	for (const field of BILLING_ADDRESS_FIELDS) billingAddress[field] = address[field] ?? null;
	const status = String(record.status ?? '').toUpperCase();
	return {
		event: eventOf(state),
		kind: 'payment',
		reference: record.reference ?? paymentId,
		key: record.key ?? null,
		status,
		final: state !== 'payable',
		...(status === 'FAILED'
			? { payable: state === 'payable', ...failureFields(failureOfText(record.message)) }
			: {}),
		amount: record.amount ?? null,
		...reconciliationFields(record),
		provider: payment.provider ?? null,
		message: record.message ?? null,
		billingAddress,
		knownStatus: known === '' ? null : known,
		changed: status !== known,
		checkedAt: new Date().toISOString(),
	};
}

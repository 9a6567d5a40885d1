import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { runGuarded } from '../money/guard';
import * as card from './card/Card.resource';
import type { Operation } from './common';
import * as disbursement from './disbursement/Disbursement.resource';
import * as mobileMoney from './mobileMoney/MobileMoney.resource';
import * as payment from './payment/Payment.resource';
import * as paymentIntent from './paymentIntent/PaymentIntent.resource';
import * as refund from './refund/Refund.resource';

const RESOURCES: Record<string, { operations: Record<string, Operation> }> = {
	card,
	disbursement,
	mobileMoney,
	payment,
	paymentIntent,
	refund,
};

/** Operations with a Concurrency option the router reads (payout operations give their own). */
const CONCURRENT_OPERATIONS = new Set(['payment:getStatus']);

/**
 * The parameter that names an item's row for each operation: the Key of what it creates, or the
 * reference (or key) of the payment it acts on. Continue On Fail copies it onto the error item, so
 * a failed row can be matched to the order or payout it came from.
 */
const ROW_KEY_PARAMETER: Record<string, { parameter: string; field: 'key' | 'reference' | 'id' }> =
	{
		'paymentIntent:create': { parameter: 'key', field: 'key' },
		'mobileMoney:collect': { parameter: 'key', field: 'key' },
		'mobileMoney:requestPayment': { parameter: 'reference', field: 'reference' },
		'payment:getStatus': { parameter: 'paymentId', field: 'reference' },
		'payment:waitForCompletion': { parameter: 'paymentId', field: 'reference' },
		'refund:create': { parameter: 'paymentId', field: 'reference' },
		'card:getDeviceDataCollectionToken': { parameter: 'reference', field: 'reference' },
		'card:buildDeviceDataCollectionPage': { parameter: 'reference', field: 'reference' },
		'card:checkEnrolment': { parameter: 'reference', field: 'reference' },
		'card:buildStepUpPage': { parameter: 'reference', field: 'reference' },
		'card:processPayment': { parameter: 'reference', field: 'reference' },
		'disbursement:create': { parameter: 'key', field: 'key' },
		'disbursement:get': { parameter: 'disbursementId', field: 'id' },
	};

/** The value that names an item's row, or null when it is empty or cannot be read. */
function rowKeyOf(
	context: IExecuteFunctions,
	operation: string,
	itemIndex: number,
): IDataObject | undefined {
	const row = ROW_KEY_PARAMETER[operation];
	if (!row) return undefined;
	let value: unknown;
	try {
		value = context.getNodeParameter(row.parameter, itemIndex, '');
	} catch {
		// A broken expression is what failed the item; the error says so.
		value = '';
	}
	const text = value === undefined || value === null ? '' : String(value).trim();
	return { [row.field]: text === '' ? null : text };
}

/** The Concurrency of an operation: in its Options collection, or a field of its own (payouts). */
function concurrencyOf(context: IExecuteFunctions): number {
	const inOptions = context.getNodeParameter('options.concurrency', 0, null) as number | null;
	const value = inOptions ?? (context.getNodeParameter('concurrency', 0, 1) as number);
	return Math.min(10, Math.max(1, Math.floor(Number(value) || 1)));
}

/**
 * The item loop: every output item is paired with its input, Continue On Fail puts the error
 * on the item, and payout runs and status lookups may process items concurrently while keeping output order.
 * Then what the run shares (a payout run's wait, a dry run's summary) runs once over all results.
 */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	if (items.length === 0) return [[]];
	// Resource and operation take no expressions, so they are the same for every item.
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const run = RESOURCES[resource]?.operations[operation];
	if (!run)
		throw new NodeOperationError(this.getNode(), `Unknown operation ${resource}: ${operation}`);
	const concurrency = run.concurrency
		? Math.min(10, Math.max(1, Math.floor(Number(run.concurrency.call(this)) || 1)))
		: CONCURRENT_OPERATIONS.has(`${resource}:${operation}`)
			? concurrencyOf(this)
			: 1;
	const output = new Array<INodeExecutionData>(items.length);
	let next = 0;
	let failure: unknown;
	const failed = new Set<INodeExecutionData>();
	const worker = async () => {
		// After a failure no new item starts (no payout is sent after the node has failed), but
		// items already in flight finish, so none is left in an unknown state.
		while (next < items.length && failure === undefined) {
			const itemIndex = next++;
			try {
				output[itemIndex] = {
					json: await runGuarded(this, `${resource}:${operation}`, itemIndex, async () =>
						run.execute.call(this, itemIndex),
					),
					pairedItem: { item: itemIndex },
				};
			} catch (error) {
				if (!this.continueOnFail()) {
					failure ??= error;
					return;
				}
				const message = error instanceof Error ? error.message : String(error);
				const description = (error as { description?: unknown }).description;
				// Messages say "Item 3" (n8n's 0-based index); row is the 1-based line a person counts.
				output[itemIndex] = {
					json: {
						error: message,
						description: description ?? null,
						...rowKeyOf(this, `${resource}:${operation}`, itemIndex),
						itemIndex,
						row: itemIndex + 1,
					},
					pairedItem: { item: itemIndex },
				};
				failed.add(output[itemIndex]);
			}
		}
	};
	await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
	if (failure !== undefined) throw failure;
	if (!run.afterItems) return [output];
	const results = output.map((item) => (failed.has(item) ? undefined : item.json));
	return [[...output, ...(await run.afterItems.call(this, results))]];
}

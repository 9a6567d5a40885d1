import { NodeOperationError } from 'n8n-workflow';
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

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

/** Operations with a Concurrency option: payout runs, and status lookups (reads, safe to overlap). */
const CONCURRENT_OPERATIONS = new Set(['disbursement:create', 'payment:getStatus']);

/**
 * The item loop: every output item is paired with its input, Continue On Fail puts the error
 * on the item, and payout runs and status lookups may process items concurrently while keeping output order.
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
	const concurrency = CONCURRENT_OPERATIONS.has(`${resource}:${operation}`)
		? Math.min(10, Math.max(1, Math.floor(this.getNodeParameter('concurrency', 0, 1) as number)))
		: 1;
	const output = new Array<INodeExecutionData>(items.length);
	let next = 0;
	let failure: unknown;
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
				output[itemIndex] = {
					json: { error: message, description: description ?? null },
					pairedItem: { item: itemIndex },
				};
			}
		}
	};
	await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
	if (failure !== undefined) throw failure;
	return [output];
}

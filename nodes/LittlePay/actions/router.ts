import { nodeError } from '../errors';
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { runGuarded } from '../money/guard';
import { concurrencyOf, itemScope, rowKeyOf } from '../item';
import { findOperation } from './registry';
import { failureFields, failureOfError } from '../helpers/failures';
import { forEachAtMost } from '../helpers/pool';
import { openExit } from '../flows/output';
import type { Exit } from '../flows/output';

/**
 * The item loop: every output item is paired with its input, Continue On Fail puts the error
 * on the item, and payout runs and status lookups may process items concurrently while keeping output order.
 * Then what the run shares (a payout run's wait, a dry run's summary) runs once over all results.
 * Everything the run outputs or fails with, the whole-run refusal too, leaves through its exit.
 */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	if (items.length === 0) return [[]];
	const exit = await openExit(this);
	try {
		return await runItems(this, exit);
	} catch (error) {
		throw exit.error(error);
	}
}

async function runItems(context: IExecuteFunctions, exit: Exit): Promise<INodeExecutionData[][]> {
	const items = context.getInputData();
	// Resource and operation take no expressions, so they are the same for every item.
	const resource = context.getNodeParameter('resource', 0) as string;
	const operation = context.getNodeParameter('operation', 0) as string;
	const run = findOperation(resource, operation);
	if (!run) throw nodeError(context.getNode(), `Unknown operation ${resource}: ${operation}`);
	const concurrency = concurrencyOf(context, run.meta);
	if (run.beforeItems) await run.beforeItems.call(context);
	const output = new Array<INodeExecutionData>(items.length);
	let failure: unknown;
	const failed = new Set<INodeExecutionData>();
	// After a failure no new item starts (no payout is sent after the node has failed), but items
	// already in flight finish, so none is left in an unknown state.
	const runItem = async (_item: INodeExecutionData, itemIndex: number) => {
		try {
			output[itemIndex] = {
				json: await runGuarded(
					context,
					`${resource}:${operation}`,
					run.meta.moves,
					itemIndex,
					async () => run.execute.call(context, itemScope(context, itemIndex)),
				),
				pairedItem: { item: itemIndex },
			};
		} catch (error) {
			if (!context.continueOnFail()) {
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
					...rowKeyOf(context, run.meta.rowKey, itemIndex),
					itemIndex,
					row: itemIndex + 1,
					...failureFields(failureOfError(error)),
				},
				pairedItem: { item: itemIndex },
			};
			failed.add(output[itemIndex]);
		}
	};
	await forEachAtMost(items, concurrency, runItem, () => failure !== undefined);
	const results = output.map((item) => (item && !failed.has(item) ? item.json : undefined));
	if (failure !== undefined) {
		run.describeFailure?.call(context, failure, results);
		throw failure;
	}
	if (!run.afterItems) return [exit.rows(output)];
	const failures = output.map((item) => (failed.has(item) ? item.json : undefined));
	const end = await run.afterItems.call(context, results, failures);
	const main = exit.rows([...output, ...(end.append ?? [])]);
	return end.second ? [main, exit.rows(end.second)] : [main];
}

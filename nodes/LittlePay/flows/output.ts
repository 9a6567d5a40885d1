import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { isPrivateUrl, unreachableCallbackWarning } from '../helpers/gateway';
import { protectRow, protectText } from '../helpers/payerData';
import { gatewayOf, payerSettings } from '../transport';

/**
 * What every output row of the action node gets on its way out, whatever the operation: payer and
 * payee details as the API key credential's Payer Details says (with `contactHash` when it holds a
 * Matching Secret), and `gateway`, which gateway answered (`littlepay` or `sandbox`, from the
 * credential's Base URL), so a run against a sandbox left in a live workflow shows in every row.
 */
export async function finishRows(
	context: IExecuteFunctions,
	rows: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const gateway = await gatewayOf(context, 0);
	const settings = await payerSettings(context, 0);
	for (const row of rows) {
		if (!row?.json) continue;
		row.json = protectRow(row.json, settings) as IDataObject;
		if (gateway !== undefined) row.json.gateway = gateway;
	}
	return rows;
}

/**
 * The error a node run fails with, its message and description treated as Payer Details says: an
 * error is stored with the execution like any output (a duplicate check names the numbers it compared).
 */
export async function protectError(context: IExecuteFunctions, error: unknown): Promise<unknown> {
	if (!(error instanceof Error)) return error;
	const { mode } = await payerSettings(context, 0);
	error.message = protectText(error.message, mode);
	const withDescription = error as Error & { description?: unknown };
	if (typeof withDescription.description === 'string')
		withDescription.description = protectText(withDescription.description, mode);
	return error;
}

const warned = new WeakMap<IExecuteFunctions, Set<string>>();

/**
 * Shows a warning in the node's output panel (an n8n execution hint), once per node run however many
 * items cause it: what a panel cannot know before the run (the credential's gateway) is said here.
 */
export function warnOnce(context: IExecuteFunctions, message: string | undefined): void {
	if (message === undefined) return;
	let said = warned.get(context);
	if (!said) {
		said = new Set();
		warned.set(context, said);
	}
	if (said.has(message)) return;
	said.add(message);
	context.addExecutionHints({ message, type: 'warning', location: 'outputPane' });
}

/**
 * Warns when Little Pay is asked to call back an address it cannot reach (this machine, a private
 * network) while the API key credential points at Little Pay. Nothing is refused: the sandbox runs
 * beside n8n, and a long poll still learns the result; only the callback will never arrive.
 */
export async function warnIfUnreachable(
	context: IExecuteFunctions,
	itemIndex: number,
	callbackUrl: string,
): Promise<void> {
	if (!isPrivateUrl(callbackUrl)) return;
	warnOnce(context, unreachableCallbackWarning(callbackUrl, await gatewayOf(context, itemIndex)));
}

import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	NodeExecutionHint,
} from 'n8n-workflow';

import { CARD_PARAMETERS } from '../helpers/card';
import type { CardValues } from '../helpers/card';
import { isPrivateUrl, unreachableCallbackWarning } from '../helpers/gateway';
import { protectOutput, toolAnswerSettings } from '../helpers/payerData';
import type { OutputContext, PayerSettings } from '../helpers/payerData';
import { gatewayWordsOf } from '../errors';
import { isToolCall } from '../money/memory';
import { gatewayOf, gatewaySentTo, payerSettings } from '../transport';
import { itemScope, runState } from '../item';
import type { Item } from '../item';

/**
 * The action node's one exit: every output row, the error a run fails with, every execution hint,
 * the item a pause leaves with n8n and a tool's answer pass through it, and so through
 * protectOutput with the API key credential's Payer Details (and contactHash with a Matching Secret).
 * Rows also get `gateway`, which gateway answered (`littlepay` or `sandbox`, from the address the run's
 * requests went to; the credential's Base URL before any), so a run against a sandbox left in a live
 * workflow shows in every row.
 */
export interface Exit {
	/** Output rows (each answering its paired input item), protected in place. */
	rows(rows: INodeExecutionData[]): INodeExecutionData[];
	/** One output row answering input item `itemIndex` (a paused item). */
	row(json: IDataObject, itemIndex?: number): IDataObject;
	/** The error a node run fails with: the same instance, every field n8n stores protected. */
	error(error: unknown): unknown;
}

/** The card values a card operation's items carry, read only for the card resource. */
function cardValuesOf(context: IExecuteFunctions, itemIndexes: number[]): CardValues[] {
	if (context.getNode().parameters.resource !== 'card') return [];
	return itemIndexes.map((itemIndex) => {
		const item = itemScope(context, itemIndex);
		const read = (name: string) => {
			try {
				return String(item.param(name, '') ?? '');
			} catch {
				return '';
			}
		};
		return {
			number: read(CARD_PARAMETERS.number),
			cvv: read(CARD_PARAMETERS.cvv),
			expiry: read(CARD_PARAMETERS.expiry),
		};
	});
}

function itemIndexOfError(error: unknown): number | undefined {
	const at = (error as { context?: { itemIndex?: unknown } } | undefined)?.context?.itemIndex;
	const own = (error as { itemIndex?: unknown } | undefined)?.itemIndex;
	const index = typeof at === 'number' ? at : own;
	return typeof index === 'number' ? index : undefined;
}

/**
 * A gateway error leaves in the package's words; Little Pay's own words (free text that may name a
 * payee) are added only when the credential's Payer Details is Full, the merchant's ask for everything.
 */
function withGatewayWords(error: unknown, settings: PayerSettings): unknown {
	const words = gatewayWordsOf(error);
	if (words === undefined || settings.mode !== 'full' || !(error instanceof Error)) return error;
	const before = error.message;
	error.message = `${before}: ${words}`;
	if (typeof error.stack === 'string') error.stack = error.stack.replace(before, error.message);
	return error;
}

/**
 * Opens the node run's exit: reads the credential's setting and gateway (before any request) once, and puts the exit in
 * front of the context's execution hints, so a hint any code adds leaves through it too.
 */
export async function openExit(context: IExecuteFunctions): Promise<Exit> {
	const gateway = await gatewayOf(context, 0);
	// An AI tool's answer goes to the model: numbers to their last digits, whatever the setting.
	const credentialSettings = await payerSettings(context, 0);
	const settings = isToolCall(context)
		? toolAnswerSettings(credentialSettings)
		: credentialSettings;
	const count = context.getInputData().length;
	const cardOf = (itemIndex: number | undefined): CardValues[] =>
		cardValuesOf(
			context,
			itemIndex !== undefined ? [itemIndex] : [...Array(Math.min(count, 20)).keys()],
		);
	// The only call of protectOutput in the action node (test/house/exit.test.ts).
	const leave = <T>(value: T, about: OutputContext, itemIndex?: number): T =>
		protectOutput(value, settings, { ...about, cards: cardOf(itemIndex) });
	const row = (json: IDataObject, itemIndex?: number): IDataObject => {
		const input = itemIndex !== undefined ? context.getInputData()[itemIndex]?.json : undefined;
		const out = leave(json, { row: true, input }, itemIndex);
		// Where this run's requests went by now (the Disbursement Base URL for payouts), else the credential's.
		const answered = gatewaySentTo(context) ?? gateway;
		if (answered !== undefined) out.gateway = answered;
		return out;
	};
	const exit: Exit = {
		rows(rows) {
			for (const item of rows) {
				if (!item?.json) continue;
				const paired = item.pairedItem;
				const itemIndex =
					typeof paired === 'object' && paired !== null && !Array.isArray(paired)
						? paired.item
						: undefined;
				item.json = row(item.json, itemIndex);
			}
			return rows;
		},
		row,
		error: (error) => leave(withGatewayWords(error, settings), {}, itemIndexOfError(error)),
	};
	const addHints = context.addExecutionHints.bind(context);
	context.addExecutionHints = (...hints: NodeExecutionHint[]) =>
		addHints(...hints.map((hint) => leave(hint, {})));
	runState(context).exit = exit;
	return exit;
}

/** The exit the router opened for this node run (opened here for a caller outside the router). */
export async function exitOf(context: IExecuteFunctions): Promise<Exit> {
	return (runState(context).exit as Exit | undefined) ?? (await openExit(context));
}

/**
 * Shows a warning in the node's output panel (an n8n execution hint), once per node run however many
 * items cause it: what a panel cannot know before the run (the credential's gateway) is said here.
 */
export function warnOnce(context: IExecuteFunctions, message: string | undefined): void {
	if (message === undefined) return;
	const run = runState(context);
	const said = (run.warned ??= new Set<string>());
	if (said.has(message)) return;
	said.add(message);
	context.addExecutionHints({ message, type: 'warning', location: 'outputPane' });
}

/**
 * Warns when Little Pay is asked to call back an address it cannot reach (this machine, a private
 * network) while the API key credential points at Little Pay. Nothing is refused: the sandbox runs
 * beside n8n, and a long poll still learns the result; only the callback will never arrive.
 */
export async function warnIfUnreachable(item: Item, callbackUrl: string): Promise<void> {
	if (!isPrivateUrl(callbackUrl)) return;
	const gateway = await gatewayOf(item.context, item.index);
	warnOnce(item.context, unreachableCallbackWarning(callbackUrl, gateway));
}

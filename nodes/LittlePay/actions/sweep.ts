import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { failureFields, failureOfError } from '../helpers/failures';
import { concurrencyOption } from './common';
import { rowKeyOf } from '../item';
import type { RowKey } from './common';

/**
 * What a sweep (Payment: Reconcile, Disbursement: Reconcile) does the same way for every row: one
 * output row per input row, in order, whatever Little Pay answers. A sweep runs on a schedule over the
 * merchant's open records; one typo or one row from another environment must not stop it, or every
 * paid order behind that row stays unshipped until a person removes it.
 */

/** Where a row stands after a sweep: the one value a workflow branches on. */
export type SweepOutcome =
	| 'completed'
	| 'failed'
	| 'pending'
	| 'mismatch'
	| 'unverified'
	| 'not-found'
	| 'invalid-input';

/** What the sweep learned of one row: its outcome and Little Pay's fields. */
export interface SweepAnswer {
	outcome: 'completed' | 'failed' | 'pending';
	/** Present for payments: whether the payer can still pay (a FAILED try is not the end). */
	payable?: boolean;
	nextStep: string;
	fields: IDataObject;
	/**
	 * How the record found differs from what the merchant's row expects ("amount 750 there, 500 here"):
	 * any difference makes the row a mismatch, never completed, so a copied ID is not booked as paid.
	 */
	differences?: string[];
	/** The next step of a mismatch, in the words of the thing swept. */
	mismatchStep?: string;
	/**
	 * What could not be compared with the merchant's row although nothing visible differs (a masked
	 * expected number, a national one with no country): the row is unverified, never completed, since
	 * the money may have gone to another wallet.
	 */
	unverified?: string[];
	/** The next step of an unverified row, in the words of the thing swept. */
	unverifiedStep?: string;
}

/** A sweep's Options > Concurrency: lookups are reads, 10 at once unless it says fewer. */
export function sweepConcurrency(things: string): INodeProperties {
	return concurrencyOption(
		10,
		`How many ${things} to look up at once (1-10); lookups are reads. Output order always matches input order.`,
	);
}

/**
 * The Options every sweep has: how many rows at once, whether a problem row stops it, the input's
 * fields, and a Summary output with the sweep's counts.
 */
export function sweepOptions(things: string, concurrency: INodeProperties): INodeProperties[] {
	return [
		concurrency,
		{
			displayName: 'Fail on Unknown or Bad Rows',
			name: 'failOnRowProblem',
			type: 'boolean',
			default: false,
			description: `Whether to stop the node on a row Little Pay does not know or a row with a bad value, instead of outputting that row with outcome not-found or invalid-input and going on with the other ${things}`,
		},
		{
			displayName: 'Include Input Fields',
			name: 'includeInputFields',
			type: 'boolean',
			default: true,
			description:
				"Whether to copy each input item's own fields (your order ID, the Data Table row's ID) onto its output row; Little Pay's fields win where names are equal",
		},
		{
			displayName: 'Output Summary',
			name: 'runSummaryOutput',
			type: 'boolean',
			default: false,
			description: `Whether to add a second output, Summary, with one item: how many ${things} came out completed, pending, failed, mismatch, unverified and not-found, and the rows to act on. The counts are always shown above the node's output.`,
		},
	];
}

/** The answer each problem row gets: what went wrong, and the outcome a workflow branches on. */
function problemRow(error: unknown, itemIndex: number): IDataObject | undefined {
	const code = failureOfError(error);
	if (code !== 'not-found' && code !== 'invalid-input') return undefined;
	const message = error instanceof Error ? error.message : String(error);
	const description = (error as { description?: unknown }).description;
	return {
		outcome: code,
		final: false,
		nextStep: failureFields(code).nextStep,
		error: message,
		description: description ?? null,
		...failureFields(code),
		itemIndex,
		row: itemIndex + 1,
	};
}

/**
 * Runs one row of a sweep: `lookUp` reads Little Pay; the row comes out as `outcome`, `final`, (`payable`),
 * `nextStep` first, then the input's own fields, then Little Pay's. An unknown reference or a bad value
 * is an outcome of its own (not-found, invalid-input) unless Fail on Unknown or Bad Rows is on; any other
 * failure (credentials, Little Pay down, a cancelled run) fails as in every operation.
 */
export async function sweepRow(
	context: IExecuteFunctions,
	itemIndex: number,
	rowKey: RowKey,
	lookUp: () => Promise<SweepAnswer>,
	hasPayable = false,
): Promise<IDataObject> {
	const includeInput = context.getNodeParameter(
		'options.includeInputFields',
		itemIndex,
		true,
	) as boolean;
	const input = includeInput ? (context.getInputData()[itemIndex]?.json ?? {}) : {};
	let answer: SweepAnswer | undefined;
	let failure: unknown;
	try {
		answer = await lookUp();
	} catch (error) {
		failure = error;
	}
	let head: IDataObject;
	let fields: IDataObject;
	// Where the row sits in the input (a problem row's row and itemIndex): under the merchant's own
	// fields, so a column of the sheet named row keeps its value on every outcome alike.
	let position: IDataObject = {};
	if (answer?.differences?.length) {
		// Not the row's record: whatever its status, acting on it would book someone else's money.
		head = {
			outcome: 'mismatch',
			final: false,
			...(answer.payable !== undefined ? { payable: false } : {}),
			nextStep: `${answer.mismatchStep ?? 'Not this row’s record'}: ${answer.differences.join('; ')}`,
		};
		fields = { ...answer.fields, recordOutcome: answer.outcome, mismatch: answer.differences };
	} else if (answer?.unverified?.length) {
		// Nothing visible differs, but the record may be another wallet's: never booked as paid.
		head = {
			outcome: 'unverified',
			final: false,
			...(answer.payable !== undefined ? { payable: false } : {}),
			nextStep: `${answer.unverifiedStep ?? 'Could not be checked against your record'}: ${answer.unverified.join('; ')}`,
		};
		fields = { ...answer.fields, recordOutcome: answer.outcome, unverified: answer.unverified };
	} else if (answer) {
		head = {
			outcome: answer.outcome,
			final: answer.outcome !== 'pending',
			...(answer.payable !== undefined ? { payable: answer.payable } : {}),
			nextStep: answer.nextStep,
		};
		fields = answer.fields;
	} else {
		const failOnProblem = context.getNodeParameter(
			'options.failOnRowProblem',
			itemIndex,
			false,
		) as boolean;
		const problem = failOnProblem ? undefined : problemRow(failure, itemIndex);
		// Credentials, Little Pay down, a cancelled run: the node fails as every operation does.
		if (!problem) throw failure;
		const { outcome, final, nextStep, row, itemIndex: index, ...rest } = problem;
		// Every row of a payment sweep has payable; for a row Little Pay does not know, it is unknown.
		head = { outcome, final, ...(hasPayable ? { payable: null } : {}), nextStep };
		position = { row, itemIndex: index };
		fields = { ...rowKeyOf(context, rowKey, itemIndex), ...rest };
	}
	// The outcome leads (the columns a person reads first), the merchant's row follows, and where a
	// name is in both, Little Pay's value and the sweep's head win; the row's position never does.
	return { ...head, ...position, ...input, ...fields, ...head };
}

export { sweepEnd } from './sweepSummary';

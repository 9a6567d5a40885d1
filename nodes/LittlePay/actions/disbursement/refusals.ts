import type { IExecuteFunctions } from 'n8n-workflow';

import { nodeError } from '../../errors';
import type { RefusedPayout, RunCheck } from './run';

// The words of a refused run: each refused row and its own fix, one a line, in the error that stops
// the run before anything is sent.

/** How many refused rows an error lists before it says "and N more". */
const LISTED = 20;

/** One line of a refusal list: "Row 42 (key po1042): Destination Number must have 9 digits ...". */
export function refusalLine(row: RefusedPayout): string {
	return `Row ${row.row}${row.key === null ? '' : ` (key ${row.key})`}: ${row.reason}`;
}

/** The fix a refused row's error gives, when it gives one. */
export function fixOf(row: RefusedPayout): string | undefined {
	const fix = (row.error as { description?: unknown }).description;
	return typeof fix === 'string' && fix.trim() !== '' ? fix.trim() : undefined;
}

function sentence(text: string): string {
	return /[.!?]$/.test(text) ? text : `${text}.`;
}

/**
 * Each refused row and its own fix in one sentence that stands alone, so twenty rows never leave a
 * bookkeeper matching fixes to rows: "Row 45 (key nov27e0045): Amount ... comma: write 1500. To fix:
 * ...". A fix given in full above is named by its row, so twenty missing digits are not twenty paragraphs.
 */
export function refusalsWithFixes(rows: RefusedPayout[]): string[] {
	const firstRowOfFix = new Map<string, number>();
	return rows.map((row) => {
		const fix = fixOf(row);
		const first = fix === undefined ? undefined : firstRowOfFix.get(fix);
		if (fix !== undefined && first === undefined) firstRowOfFix.set(fix, row.row);
		const advice =
			fix === undefined
				? ''
				: ` To fix: ${first === undefined ? sentence(fix) : `as for row ${first}.`}`;
		return `${sentence(refusalLine(row))}${advice}`;
	});
}

/** Text for n8n's error panel, which renders the description as sanitised HTML: a row's "<" is text. */
function html(text: string): string {
	return text.replace(/</g, '&lt;');
}

/**
 * The error that stops a run with refused rows before anything is sent: it says nothing was paid and
 * lists the refused rows (the first 20, then how many more), one a line, each with its own fix. n8n
 * 2.41's error panel renders the description as sanitised HTML, so the lines end in <br>: a plain
 * line break shows as a space and runs the rows together.
 */
export function refusedRunError(context: IExecuteFunctions, check: RunCheck) {
	const refused = [...check.refused.values()];
	const rows = context.getInputData().length;
	const listed = refusalsWithFixes(refused.slice(0, LISTED));
	if (refused.length > LISTED) listed.push(`... and ${refused.length - LISTED} more`);
	return nodeError(
		context.getNode(),
		`Nothing was paid: ${refused.length} of ${rows} rows ${refused.length === 1 ? 'is' : 'are'} refused`,
		{
			description: [
				...listed,
				'',
				"Fix these rows and run again: no payout of this run was sent. To pay the other rows now and get the refused ones as error items, set the node's Settings > On Error to Continue.",
			]
				.map(html)
				.join('<br>\n'),
		},
	);
}

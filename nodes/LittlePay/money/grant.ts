import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { momentIn } from '../helpers/wallTime';
import { refuseMove } from '../errors';
import { isToolCall } from './memory';
import type { MoveKind } from './moves';

// The credential's agent grant (the owner's mandate): which money moves AI tools may make, until when.

/** Whether the credential's agent grant binds this move: a tool's, or every move if the owner said so. */
export function grantApplies(context: IExecuteFunctions, data: IDataObject): boolean {
	return data.agentGrant === true && (isToolCall(context) || data.grantBindsWorkflows === true);
}

const GRANT_KIND: Record<MoveKind, string> = {
	payment: 'collect payments',
	payout: 'pay out',
	refund: 'refund',
};

/**
 * The moment (UNIX milliseconds) a grant's Valid Until ends, read in the account's time zone (its
 * credential's Day Time Zone, never the workflow's) as the trigger reads dates (helpers/wallTime.ts): a
 * date alone is valid through that day; a date and time without a zone is the account's wall clock; one with a zone is that instant. Infinity when empty (no
 * end); NaN when it names no date, and then the grant is over (fail closed).
 */
export function grantEnd(validUntil: string, timeZone: string): number {
	const until = validUntil.trim();
	if (until === '') return Infinity;
	const zone = () => timeZone;
	const named = momentIn(until, zone);
	if (Number.isNaN(named) || !/^\d{4}-\d{2}-\d{2}$/.test(until)) return named;
	const [year, month, day] = until.split('-').map(Number);
	const nextDay = new Date(Date.UTC(year, month - 1, day + 1)).toISOString().slice(0, 10);
	return momentIn(nextDay, zone) - 1;
}

/** Whether a grant's Valid Until has passed or names no date (grantEnd). */
export function grantExpired(validUntil: string, timeZone: string, now = new Date()): boolean {
	const end = grantEnd(validUntil, timeZone);
	return Number.isNaN(end) || now.getTime() > end;
}

/**
 * Refuses a move the credential's agent grant does not cover: past its Valid Until (in the account's
 * `timeZone`), or not granted.
 */
export function checkGrant(
	context: IExecuteFunctions,
	itemIndex: number,
	data: IDataObject,
	kind: MoveKind,
	timeZone: string,
): void {
	const node = context.getNode();
	const validUntil = typeof data.grantValidUntil === 'string' ? data.grantValidUntil : '';
	if (grantExpired(validUntil, timeZone))
		refuseMove(
			node,
			itemIndex,
			Number.isNaN(grantEnd(validUntil, timeZone))
				? `The agent grant's Valid Until "${validUntil}" on the credential is not a date (YYYY-MM-DD, with a time if wanted): no AI tool may move money with it`
				: `The agent grant on the credential ended on ${validUntil} (${timeZone}): no AI tool may move money with it`,
			{
				field: 'grantValidUntil',
				label: 'Agent Grant: Valid Until',
				value: [validUntil],
				setOn: 'credential',
			},
			'Tell the user that the owner has to renew the grant; nothing was sent',
		);
	const moves = Array.isArray(data.grantMoves) ? data.grantMoves.map(String) : [];
	if (!moves.includes(kind))
		refuseMove(
			node,
			itemIndex,
			`The agent grant on the credential does not let an AI tool ${GRANT_KIND[kind]}`,
			{ field: 'grantMoves', label: 'Agent Grant: Money Moves', value: moves, setOn: 'credential' },
			'Tell the user that a person has to do this; nothing was sent',
		);
}

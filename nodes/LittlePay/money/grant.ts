import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

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
 * Whether a grant's Valid Until has passed, in the workflow's time zone: a date alone is valid through
 * that day; a date and time without a zone is the workflow's wall clock; one with a zone is that instant.
 */
export function grantExpired(validUntil: string, timeZone: string, now = new Date()): boolean {
	const until = validUntil.trim();
	if (until === '') return false;
	if (/(Z|[+-]\d{2}:?\d{2})$/.test(until)) return now.getTime() > Date.parse(until);
	const parts = Object.fromEntries(
		new Intl.DateTimeFormat('en-CA', {
			timeZone,
			year: 'numeric',
			month: '2-digit',
			day: '2-digit',
			hour: '2-digit',
			minute: '2-digit',
			second: '2-digit',
			hourCycle: 'h23',
		})
			.formatToParts(now)
			.map(({ type, value }) => [type, value]),
	);
	const local = `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}`;
	if (/^\d{4}-\d{2}-\d{2}$/.test(until)) return local.slice(0, 10) > until;
	return local > until.replace(' ', 'T').slice(0, 19);
}

/** Refuses a move the credential's agent grant does not cover: past its Valid Until, or not granted. */
export function checkGrant(
	context: IExecuteFunctions,
	itemIndex: number,
	data: IDataObject,
	kind: MoveKind,
): void {
	const node = context.getNode();
	const validUntil = typeof data.grantValidUntil === 'string' ? data.grantValidUntil : '';
	if (grantExpired(validUntil, context.getTimezone()))
		refuseMove(
			node,
			itemIndex,
			`The agent grant on the credential ended on ${validUntil} (${context.getTimezone()}): no AI tool may move money with it`,
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

import type { IDataObject, IExecuteFunctions, INode } from 'n8n-workflow';

import { itemError, refuseMove } from '../errors';
import type { AppliedLimit } from '../errors';
import { formatMoney as format, fromMinorUnits, toMinorUnits } from '../helpers/amounts';
import { credentialData, currentCredentialData } from '../transport';
import { LIMITS } from './limits';
import { CREDENTIAL_MAX_BY_KIND, labelOf } from './limitWords';
import type { Checked, Limit, Refuse } from './limits';
import { accountOf } from './account';
import type { Account } from './account';
import { daySpent, notePassed, withDay } from './days';
import { checkGrant, grantApplies } from './grant';
import type { LimitSet, LimitSource, MoneyMove, MoveKind, SpentSoFar } from './moves';

// A source's limits (the node's Spending Limits, the API-key credential) read and checked against a move.

/**
 * Whether a stored parameter value is an n8n expression. n8n stores those as text starting with "=",
 * and its Workflow constructor drops that "=" from fields marked noDataExpression, except from a lone
 * $fromAI() placeholder: so text with "{{" counts too.
 */
export function isExpression(value: unknown): boolean {
	return typeof value === 'string' && (value.startsWith('=') || value.includes('{{'));
}

const splitList = (text: string) =>
	text
		.split(/[,;\n]/)
		.map((entry) => entry.trim())
		.filter((entry) => entry !== '');

/** Reads one stored limit: undefined for none; a bad value fails the item naming the limit and where it is set. */
function parse(value: unknown, limit: Limit, label: string, where: string, fail: Refuse) {
	if (limit.list === 'upper') {
		const list = (Array.isArray(value) ? value.map(String) : splitList(String(value ?? ''))).map(
			(v) => v.trim().toUpperCase(),
		);
		return list.length > 0 ? list : undefined;
	}
	if (limit.list === 'recipients') {
		const entries = splitList(String(value ?? ''));
		if (entries.length === 0) return undefined;
		const fix = 'Write numbers with their country code, e.g. ';
		return entries.map((entry) => {
			if (!/^\+?[\d\s().*-]+$/.test(entry) || entry.replace(/[^\d]/g, '') === '')
				fail(
					`${label} in ${where} has an entry that is not a number or pattern (${JSON.stringify(entry)})`,
					`${fix}+254712345670, and use * for any digits, e.g. 2547*`,
				);
			const pattern = entry.replace(/[^\d*]/g, '');
			if (pattern.startsWith('0'))
				fail(
					`${label} in ${where} has a number without its country code (${JSON.stringify(entry)})`,
					`${fix}254712345670 instead of 0712345670`,
				);
			return pattern;
		});
	}
	if (value === undefined || value === null || value === '') return undefined;
	const number = typeof value === 'string' ? Number(value) : value;
	if (typeof number !== 'number' || !Number.isFinite(number) || number < 0)
		fail(
			`${label} in ${where} must be a number of 0 or more (got ${JSON.stringify(value)})`,
			"Enter the limit as a plain number in the currency's main unit; 0 means no limit",
		);
	return number === 0 ? undefined : number;
}

/** Reads one source's limits from its values (parameters or credential fields), checking each. */
function readLimits(
	node: INode,
	itemIndex: number,
	source: LimitSource,
	values: IDataObject,
	kind: MoveKind,
	grant = false,
): LimitSet {
	const where = source === 'node' ? 'the Spending Limits' : 'the Little Pay (API Key) credential';
	const fail: Refuse = (message, fix) => itemError(node, itemIndex, message, fix);
	const limits: LimitSet = { source, values: {} };
	for (const limit of LIMITS) {
		if (source === 'credential' && !limit.credential) continue;
		if (limit.grant && (source === 'node' || !grant)) continue;
		if (limit.list === 'recipients' && kind !== 'payout') continue;
		const label = labelOf(limit, source, kind);
		limits.values[limit.name] = parse(values[limit.name], limit, label, where, fail);
	}
	return limits;
}

/**
 * The node's Spending Limits, read from the node's stored parameters rather than evaluated: a limit
 * must be a fixed value, since an expression could be steered by the data or by a model ($fromAI).
 * n8n's noDataExpression only hides the expression switch in the editor, so this is checked here.
 */
function nodeLimits(
	context: IExecuteFunctions,
	itemIndex: number,
	kind: MoveKind,
	account: Account,
): LimitSet {
	const node = context.getNode();
	const raw = node.parameters.spendingLimits;
	const fix =
		'Spending limits must be fixed values: switch the field from Expression to Fixed and type the limit';
	if (isExpression(raw))
		itemError(node, itemIndex, 'Spending Limits is an expression, which a limit may not be', fix);
	const limits = (typeof raw === 'object' && raw !== null ? raw : {}) as IDataObject;
	for (const [name, value] of Object.entries(limits)) {
		const values = Array.isArray(value) ? value : [value];
		if (values.some(isExpression)) {
			const label = LIMITS.find((limit) => limit.name === name)?.label ?? name;
			itemError(
				node,
				itemIndex,
				`${label} in Spending Limits is an expression, which a limit may not be`,
				fix,
			);
		}
	}
	return withDay(
		context,
		account,
		`node:${context.getWorkflow().id ?? ''}|${node.id}`,
		readLimits(node, itemIndex, 'node', limits, kind),
	);
}

/**
 * The node's and the API-key credential's limits, in that order. With the credential's Pause Money
 * Moves on, every money move is refused here, before any other check: enforceLimits and a payout run's
 * checkRunLimits read these limits before anything is sent, so the whole run stops. The day totals are
 * the account's (money/account.ts): every credential holding its key, in its calendar.
 */
export async function limitSetsOf(
	context: IExecuteFunctions,
	itemIndex: number,
	kind: MoveKind,
): Promise<[LimitSet, LimitSet]> {
	const { limits, account } = await credentialLimits(context, itemIndex, kind);
	return [nodeLimits(context, itemIndex, kind, account), limits];
}

/** The limits on the API-key credential (read once per node run, like every credential field), and its account. */
async function credentialLimits(
	context: IExecuteFunctions,
	itemIndex: number,
	kind: MoveKind,
): Promise<{ limits: LimitSet; account: Account }> {
	const data = await credentialData(context, 'littlePayApiKeyApi', itemIndex);
	refuseIfPaused(context, itemIndex, data);
	const account = await accountOf(context, itemIndex);
	const maxAmount = data[CREDENTIAL_MAX_BY_KIND[kind][0]];
	const grant = grantApplies(context, data);
	if (grant) checkGrant(context, itemIndex, data, kind, account.timeZone);
	const limits = withDay(
		context,
		account,
		`account:${account.id}`,
		readLimits(context.getNode(), itemIndex, 'credential', { ...data, maxAmount }, kind, grant),
	);
	return { limits, account };
}

/** Refuses the move when the credential's fields have Pause Money Moves on. */
function refuseIfPaused(context: IExecuteFunctions, itemIndex: number, data: IDataObject): void {
	// Only a stored true pauses: a credential saved before the switch existed has no value, and moves.
	if (data.pauseMoneyMoves !== true) return;
	const name = context.getNode().credentials?.littlePayApiKeyApi?.name ?? '';
	refuseMove(
		context.getNode(),
		itemIndex,
		`Pause Money Moves is on in the credential ${name}: no payment, payout or refund is sent until a person turns it off`,
		{ field: 'pauseMoneyMoves', label: 'Pause Money Moves', value: true, setOn: 'credential' },
		'Tell the user that the account owner has paused money moves; nothing was sent',
	);
}

/**
 * Refuses a money move about to be sent when Pause Money Moves is on now: read from the credential as
 * stored, not the node run's copy, so a switch turned while a run goes on stops the next send.
 */
export async function refuseWhilePaused(
	context: IExecuteFunctions,
	itemIndex: number,
): Promise<void> {
	if (!context.getNode().credentials?.littlePayApiKeyApi) return;
	refuseIfPaused(
		context,
		itemIndex,
		await currentCredentialData(context, 'littlePayApiKeyApi', itemIndex),
	);
}

/** Whether a set holds any limit at all. */
export function hasLimits(limits: LimitSet): boolean {
	return Object.values(limits.values).some((value) => value !== undefined);
}

/** The limits in the order refusals are decided in. */
const BY_CHECK = [...LIMITS].sort((a, b) => a.checkedAt - b.checkedAt);

/**
 * Checks one move against one limit set and what was already moved under it; throws a MoneyRefusal
 * naming the limit that applied. Nothing is sent before this passes.
 */
export function checkLimits(
	node: INode,
	itemIndex: number,
	move: MoneyMove,
	limits: LimitSet,
	spent: SpentSoFar,
): void {
	const on = limits.source === 'node' ? "this node's Spending Limits" : 'the credential';
	const sofar: SpentSoFar = { ...spent };
	if (limits.day) Object.assign(sofar, daySpent(limits.day, itemIndex, move));
	if (limits.grantDay) sofar.grantDay = daySpent(limits.grantDay, itemIndex, move).day;
	const checked: Checked = { move, spent: sofar, on, word: move.kind };
	for (const limit of BY_CHECK) {
		const value = limits.values[limit.name];
		if (value === undefined) continue;
		const applied: AppliedLimit = {
			field: limit.name,
			label: labelOf(limit, limits.source, move.kind),
			value,
			setOn: limits.source,
		};
		limit.check(value, checked, (reason, fix) => refuseMove(node, itemIndex, reason, applied, fix));
	}
	// A payout run's check counts the rows it let through against the next rows' day limits.
	notePassed(limits.day, itemIndex, move);
	notePassed(limits.grantDay, itemIndex, move);
}

/** Refuses a refund above what is still refundable on the payment (paid less refunded). */
export function checkRefundable(node: INode, itemIndex: number, move: MoneyMove): void {
	if (move.kind !== 'refund' || move.refundable === undefined) return;
	// In minor units: 1000 paid less 999.9 refunded leaves 0.1, not 0.10000000000002274.
	const refundable = toMinorUnits(move.refundable, move.currency);
	if (toMinorUnits(move.amount, move.currency) > refundable) {
		const left = fromMinorUnits(Math.max(0, refundable), move.currency);
		refuseMove(
			node,
			itemIndex,
			`${format(move.amount, move.currency)} is more than the ${format(left, move.currency)} still refundable on payment ${move.paymentId} (paid less already refunded)`,
			{ field: 'refundable', label: 'Still Refundable', value: left, setOn: 'gateway record' },
			'Refund at most what is still refundable; look the payment up for its amount and refunds',
		);
	}
}

import type { INodeProperties } from 'n8n-workflow';

import type { MoneyMove, SpentSoFar } from './moves';
import { formatMoney as format, fromMinorUnits, toMinorUnits } from '../helpers/amounts';
import { NETWORK_AND_CARD_OPTIONS } from '../helpers/lists';

// Every spending limit, named once (LIMITS): its panel field, how a stored value is read, what the tool
// description says of it and the check of a move against it. Reading a source's limits and checking a
// move against them is limitSets.ts.

/** What a check reads besides its own limit's value. */
export interface Checked {
	move: MoneyMove;
	spent: SpentSoFar;
	/** "this node's Spending Limits" or "the credential". */
	on: string;
	/** "payment", "payout", "refund". */
	word: string;
}

/** Refuses the move under the limit being checked: the reason and the fix. */
export type Refuse = (reason: string, fix: string) => never;

/**
 * One spending limit, named once: its panel field, how a stored value is read (a bad one fails the
 * item), what the tool description says of it, and the check of a move against it.
 */
export interface Limit {
	name: string;
	label: string;
	field: Omit<INodeProperties, 'displayName' | 'name'>;
	/** The list limits; the others are numbers where 0 means no limit. */
	list?: 'upper' | 'recipients';
	/** On the credential too (not the chat-session ones, which only an AI Agent's tool has). */
	credential: boolean;
	/** Part of the credential's agent grant only (not on the node), bound where the grant applies. */
	grant?: boolean;
	/** Its part of "Limits in force" in the tool description, an expression over `l` (the node's limits). */
	inForce: string;
	/** Refusals are decided in this order: what may move before how much, counts before totals. */
	checkedAt: number;
	check(value: number | string[], checked: Checked, refuse: Refuse): void;
}

const amountField = (description: string, precision = 2): Limit['field'] => ({
	type: 'number',
	typeOptions: { minValue: 0, numberPrecision: precision },
	default: 0,
	description,
});

/** Count and total limits of one period: this execution (a tool window) or this chat session. */
function periodChecks(period: keyof SpentSoFar, words: string) {
	const count: Limit['check'] = (max, { move, spent, on }, refuse) => {
		const sofar = spent[period];
		// A recipient's day limits bind payouts only: other moves have no recipient.
		if (!sofar || (period === 'recipientDay' && move.recipient === undefined)) return;
		const count = sofar.count + 1;
		if (count > (max as number))
			refuse(
				`This would be money move ${count} in ${words}; at most ${max} are allowed (set on ${on})`,
				`Nothing more can be sent in ${words}; have a person make this one`,
			);
	};
	const total: Limit['check'] = (max, { move, spent, on }, refuse) => {
		// In minor units: ten payouts of 100.10 add up to exactly 1001, not 1001.0000000000001.
		const currency = move.currency;
		const sofar = spent[period];
		if (!sofar || (period === 'recipientDay' && move.recipient === undefined)) return;
		const already = toMinorUnits(sofar.totals[currency.toUpperCase()] ?? 0, currency);
		const amount = toMinorUnits(move.amount, currency);
		const cap = toMinorUnits(max as number, currency);
		const main = (minor: number) => format(fromMinorUnits(minor, currency), currency);
		if (already + amount > cap)
			refuse(
				`${main(amount)} would bring the total of ${words} to ${main(already + amount)}, above the maximum of ${main(cap)} (set on ${on}; ${main(already)} already moved)`,
				`At most ${main(Math.max(0, cap - already))} more can be moved in ${words}`,
			);
	};
	return { count, total };
}

const execution = periodChecks('execution', 'this execution');
const session = periodChecks('session', 'this chat session');
const day = periodChecks('day', 'one day');
const recipientDay = periodChecks('recipientDay', 'one day to this recipient');
const grantDay = periodChecks('grantDay', 'one day under the agent grant');

/** What every day limit's panel text says of where its running total is kept. */
const DAY_NOTE =
	"Counted per calendar day of the credential's Day Time Zone (Africa/Nairobi unless set), in this n8n process's memory: exact within one n8n, each queue-mode worker counts its own (see the docs), a restart starts the day afresh";

/** Whether a normalised number matches an allowlist pattern (digits, `*` for any digits). */
export function recipientAllowed(recipient: string, patterns: string[]): boolean {
	return patterns.some((pattern) =>
		new RegExp(`^${pattern.replace(/\*/g, '\\d*')}$`).test(recipient),
	);
}

/** The Allowed Recipients check, worded for where the list is set. */
const recipientsCheck =
	(where: string): Limit['check'] =>
	(patterns, { move, on }, refuse) => {
		if (move.recipient !== undefined && !recipientAllowed(move.recipient, patterns as string[]))
			refuse(
				`${move.recipient} is not on the list of recipients this payout may go to (set on ${where}${on})`,
				'Pay only numbers on the allowlist, or ask the workflow owner to add this one',
			);
	};

/** Every spending limit, in the order a bad value is reported and the tool description lists them. */
export const LIMITS: Limit[] = [
	{
		name: 'maxAmount',
		label: 'Max Amount',
		field: amountField(
			"The largest single payment, payout or refund, in the currency's main unit (1500 = KES 1,500); 0 = no limit",
		),
		credential: true,
		inForce: "if (l.maxAmount) parts.push('at most ' + l.maxAmount + ' per call');",
		checkedAt: 3,
		check: (max, { move, on, word }, refuse) => {
			const cap = max as number;
			if (toMinorUnits(move.amount, move.currency) > toMinorUnits(cap, move.currency))
				refuse(
					`${format(move.amount, move.currency)} is above the maximum of ${format(cap, move.currency)} per ${word} (set on ${on})`,
					`Ask for ${format(cap, move.currency)} or less, or have a person make this ${word}`,
				);
		},
	},
	{
		name: 'maxTotalPerExecution',
		label: 'Max Total per Execution',
		field: amountField(
			'The most this node may move in one execution, per currency, in the main unit; 0 = no limit',
		),
		credential: true,
		inForce:
			"if (l.maxTotalPerExecution) parts.push('at most ' + l.maxTotalPerExecution + ' in total per agent run (over MCP: per hour), per currency');",
		checkedAt: 5,
		check: execution.total,
	},
	{
		name: 'maxCountPerExecution',
		label: 'Max Count per Execution',
		field: amountField('How many money moves this node may make in one execution; 0 = no limit', 0),
		credential: true,
		inForce:
			"if (l.maxCountPerExecution) parts.push('at most ' + l.maxCountPerExecution + (l.maxCountPerExecution === 1 ? ' call that moves' : ' calls that move') + ' money per agent run (over MCP: per hour)');",
		checkedAt: 4,
		check: execution.count,
	},
	{
		name: 'maxTotalPerSession',
		label: 'Max Total per Chat Session',
		field: amountField(
			"As an AI Agent's tool: the most this node may move in one chat session, per currency, in the main unit (kept in this n8n process for 24 hours); a run without a chat session counts as one session. 0 = no limit.",
		),
		credential: false,
		inForce:
			"if (l.maxTotalPerSession) parts.push('at most ' + l.maxTotalPerSession + ' in total per chat session, per currency');",
		checkedAt: 7,
		check: session.total,
	},
	{
		name: 'maxCountPerSession',
		label: 'Max Count per Chat Session',
		field: amountField(
			"As an AI Agent's tool: how many money moves this node may make in one chat session, over all its messages (kept in this n8n process for 24 hours); a run without a chat session counts as one session. 0 = no limit.",
			0,
		),
		credential: false,
		inForce:
			"if (l.maxCountPerSession) parts.push('at most ' + l.maxCountPerSession + (l.maxCountPerSession === 1 ? ' call that moves' : ' calls that move') + ' money per chat session');",
		checkedAt: 6,
		check: session.count,
	},
	{
		name: 'maxTotalPerDay',
		label: 'Max Total per Day',
		field: amountField(
			`The most that may be moved in one day, per currency, in the main unit; 0 = no limit. ${DAY_NOTE}.`,
		),
		credential: true,
		inForce:
			"if (l.maxTotalPerDay) parts.push('at most ' + l.maxTotalPerDay + ' in total per day, per currency');",
		checkedAt: 9,
		check: day.total,
	},
	{
		name: 'maxCountPerDay',
		label: 'Max Count per Day',
		field: amountField(
			`How many money moves may be made in one day; 0 = no limit. ${DAY_NOTE}.`,
			0,
		),
		credential: true,
		inForce:
			"if (l.maxCountPerDay) parts.push('at most ' + l.maxCountPerDay + (l.maxCountPerDay === 1 ? ' call that moves' : ' calls that move') + ' money per day');",
		checkedAt: 8,
		check: day.count,
	},
	{
		name: 'maxTotalPerRecipientPerDay',
		label: 'Max Total per Recipient per Day',
		field: amountField(
			`Payouts: the most one number may be paid in one day, per currency, in the main unit; 0 = no limit. ${DAY_NOTE}.`,
		),
		credential: true,
		inForce:
			"if (l.maxTotalPerRecipientPerDay) parts.push('at most ' + l.maxTotalPerRecipientPerDay + ' per recipient per day, per currency');",
		checkedAt: 10,
		check: recipientDay.total,
	},
	{
		name: 'allowedCurrencies',
		label: 'Allowed Currencies',
		field: {
			type: 'string',
			default: '',
			placeholder: 'KES, UGX',
			description: 'Currency codes this node may move money in, separated by commas',
		},
		list: 'upper',
		credential: true,
		inForce: "if (l.allowedCurrencies) parts.push('currencies ' + l.allowedCurrencies);",
		checkedAt: 0,
		check: (list, { move, on, word }, refuse) => {
			const allowed = list as string[];
			if (!allowed.includes(move.currency.toUpperCase()))
				refuse(
					`${move.currency} is not an allowed currency for this ${word} (allowed by ${on}: ${allowed.join(', ')})`,
					'Use an allowed currency, or ask the workflow owner to allow this one',
				);
		},
	},
	{
		name: 'allowedNetworks',
		label: 'Allowed Networks',
		field: {
			type: 'multiOptions',
			options: NETWORK_AND_CARD_OPTIONS,
			default: [],
			description:
				'Networks this node may charge or pay out on; a payment intent whose payer picks on the checkout page has no network to check',
		},
		list: 'upper',
		credential: true,
		inForce:
			"if (l.allowedNetworks && l.allowedNetworks.length) parts.push('networks ' + l.allowedNetworks.join(', '));",
		checkedAt: 1,
		check: (list, { move, on, word }, refuse) => {
			const allowed = list as string[];
			if (move.network && !allowed.includes(move.network.toUpperCase()))
				refuse(
					`${move.network} is not an allowed network for this ${word} (allowed by ${on}: ${allowed.join(', ')})`,
					'Use an allowed network, or ask the workflow owner to allow this one',
				);
		},
	},
	{
		name: 'allowedRecipients',
		label: 'Allowed Recipients',
		field: {
			type: 'string',
			typeOptions: { rows: 3 },
			default: '',
			placeholder: '+254712345670, 2547123456*',
			description:
				'Payouts only: the numbers this node may pay, with country code, separated by commas or new lines; * stands for any digits (2547* = every number starting 2547)',
		},
		list: 'recipients',
		credential: true,
		inForce:
			"if (l.allowedRecipients) parts.push('only to these numbers: ' + String(l.allowedRecipients).split(/[,;\\n]/).map(s => s.trim()).filter(s => s).join(', '));",
		checkedAt: 2,
		check: recipientsCheck(''),
	},
	{
		name: 'grantRecipients',
		label: 'Agent Grant: Recipients',
		field: { type: 'string', default: '' },
		list: 'recipients',
		credential: true,
		grant: true,
		inForce: '',
		checkedAt: 2,
		check: recipientsCheck('the agent grant of '),
	},
	{
		name: 'grantMaxTotalPerDay',
		label: 'Agent Grant: Max Total per Day',
		field: amountField(''),
		credential: true,
		grant: true,
		inForce: '',
		checkedAt: 11,
		check: grantDay.total,
	},
];

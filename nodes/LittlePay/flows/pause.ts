import type { IDataObject, INodeProperties } from 'n8n-workflow';

import {
	pastedKeyNotice,
	pastedKeyWarning,
	signatureOptionFields,
} from '../callbacks/callbackRequest';
import { exitOf, warnIfUnreachable, warnOnce } from './output';
import { gatewayOf } from '../transport';
import { paymentState } from '../helpers/paymentState';
import { getPaymentRecord } from '../transport/gateway';
import { nodeError } from '../errors';
import type { Item } from '../item';

/** How the node waits for the payer: not at all, holding a long poll, or paused in n8n's database. */
export function waitForPaymentField(
	defaultMode: 'no' | 'longPoll',
	displayName: string,
	withoutWaiting = true,
): INodeProperties {
	const options = [
		{
			name: 'Hold the Connection (Long Poll)',
			value: 'longPoll',
			description: 'Wait in this node for a payer who answers within minutes',
		},
		{
			name: 'Pause Until Little Pay Calls Back',
			value: 'pause',
			description: 'Free the execution for hours or days; one payment per execution',
		},
	];
	if (withoutWaiting) {
		options.unshift({
			name: "Don't Wait",
			value: 'no',
			description: 'Return as soon as the PIN prompt is sent',
		});
	}
	return {
		displayName,
		name: 'waitForPayment',
		type: 'options',
		default: defaultMode,
		description: 'Whether and how to wait until the payer has paid or failed',
		options,
	};
}

const pauseOnly = { show: { waitForPayment: ['pause'] } };

/** What the pause does in one operation: each operation explains only its own pause. */
export function pauseNotice(text: string): INodeProperties {
	return {
		displayName: text,
		name: 'pauseNotice',
		type: 'notice',
		default: '',
		displayOptions: pauseOnly,
	};
}

/** Said while the pause's Options > Public Key holds a pasted key (see pastedKeyNotice). */
export const pauseKeyNotice = pastedKeyNotice({ waitForPayment: ['pause'] });

/** How long a pause lasts: visible, because the intent's checkout stops being payable then too. */
export const pauseTimeoutFields: INodeProperties[] = [
	{
		displayName: 'Pause Timeout',
		name: 'pauseTimeout',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 24,
		hint: 'At the timeout the execution goes on with timedOut: true',
		description:
			'How long to wait for the callback; an intent created here expires then too unless Expires In is set',
		displayOptions: pauseOnly,
	},
	{
		displayName: 'Pause Timeout Unit',
		name: 'pauseTimeoutUnit',
		type: 'options',
		default: 'hours',
		options: [
			{ name: 'Minutes', value: 'minutes' },
			{ name: 'Hours', value: 'hours' },
			{ name: 'Days', value: 'days' },
		],
		displayOptions: pauseOnly,
	},
];

/**
 * The technical knobs of waiting, for an operation's Options collection: the long poll's timeout,
 * and the callback verification settings of the pause (the trigger's, with the same defaults).
 */
export const waitOptions: INodeProperties[] = [
	{
		displayName: 'Long Poll Timeout (Seconds)',
		name: 'waitTimeoutSeconds',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 300,
		description:
			'How long to hold the connection for a final status before returning with timedOut: true',
		displayOptions: { show: { '/waitForPayment': ['longPoll'] } },
	},
	...signatureOptionFields.map((field) => ({
		...field,
		displayOptions: { show: { '/waitForPayment': ['pause'] } },
	})),
];

/** The long poll's timeout from an operation's Options collection. */
export function longPollTimeoutSeconds(item: Item): number {
	const options = item.param<IDataObject>('options', {});
	return (options.waitTimeoutSeconds as number | undefined) ?? 300;
}

const MINUTES: Record<string, number> = { minutes: 1, hours: 60, days: 1440 };
/** Thirty days: longer waits belong to a trigger workflow that correlates by key. */
export const MAX_PAUSE_MINUTES = 30 * 1440;

/** Reads and checks the pause settings of one item before anything is sent. */
export function readPause(item: Item, field = 'Wait for Payment'): { timeoutMinutes: number } {
	const count = item.context.getInputData().length;
	if (count > 1) {
		item.fail(
			field,
			`"Pause Until Little Pay Calls Back" takes one payment per execution, and this run has ${count} items`,
			'An execution resumes once, so pause one payment per execution: start one execution per payment (e.g. a Webhook per order), or choose the long poll.',
		);
	}
	const amount = Number(item.param('pauseTimeout', 24));
	const unit = String(item.param('pauseTimeoutUnit', 'hours'));
	const timeoutMinutes = amount * (MINUTES[unit] ?? NaN);
	if (
		!Number.isFinite(timeoutMinutes) ||
		timeoutMinutes < 1 ||
		timeoutMinutes > MAX_PAUSE_MINUTES
	) {
		item.fail(
			'Pause Timeout',
			`must be from 1 minute to 30 days (got ${amount} ${unit})`,
			'Set a timeout between 1 minute and 30 days',
		);
	}
	return { timeoutMinutes };
}

/** The execution's own resume URL (with n8n's resume token where n8n issues one). */
export function resumeUrlOf(item: Item): string {
	return String(item.context.evaluateExpression('{{ $execution.resumeUrl }}', item.index));
}

/**
 * Puts the execution to wait until the callback or the timeout. The node's input item becomes what
 * n8n passes on if the timeout comes first (n8n resumes a timed-out wait without running the node,
 * as for its Wait node), and is the state the resume webhook checks the callback against.
 */
export async function pauseForCallback(
	item: Item,
	payment: IDataObject,
	timeoutMinutes: number,
): Promise<IDataObject> {
	const { context, index: itemIndex } = item;
	// What the panel could not know: whether Little Pay can reach the resume URL and verify with the key.
	await warnIfUnreachable(item, resumeUrlOf(item));
	const options = item.param<IDataObject>('options', {});
	warnOnce(context, pastedKeyWarning(options.publicKey, await gatewayOf(context, itemIndex)));
	const pausedAt = new Date();
	const waitTill = new Date(pausedAt.getTime() + timeoutMinutes * 60_000);
	const pending: IDataObject = {
		...payment,
		status: 'PENDING',
		timedOut: true,
		pausedAt: pausedAt.toISOString(),
		waitedSeconds: timeoutMinutes * 60,
		message:
			'No callback from Little Pay before the timeout: look the status up (Payment: Get Status) to decide',
	};
	const waiting = context.getExecuteData().data.main[0];
	if (!waiting) {
		throw nodeError(context.getNode(), 'The node has no input to pause with', { itemIndex });
	}
	// n8n keeps this item for the whole wait and passes it on at the timeout without running the
	// node, so it leaves through the exit like any output row.
	const exit = await exitOf(context);
	waiting[itemIndex] = { json: exit.row(pending, itemIndex), pairedItem: { item: itemIndex } };
	await context.putExecutionToWait(waitTill);
	return {
		...pending,
		timedOut: false,
		waitedSeconds: 0,
		message: `Paused until Little Pay calls back, at most until ${waitTill.toISOString()}`,
	};
}

/**
 * Pauses for an intent just created with this execution's resume URL. An intent that existed
 * already (a mapped key used before, a retried execution) calls back another execution's resume
 * URL, so it is looked up instead: settled is the answer, still open is an item error.
 */
export async function pauseForIntent(
	item: Item,
	intent: IDataObject,
	timeoutMinutes: number,
): Promise<IDataObject> {
	if (intent.alreadyExisted) {
		const record = await getPaymentRecord(
			item.context,
			item.index,
			String(intent.reference),
			false,
		);
		if (paymentState(record) !== 'payable') {
			return { ...intent, status: record.status, amount: record.amount, timedOut: false };
		}
		item.fail(
			'Key',
			`"${String(intent.key)}" belongs to an open payment intent created by an earlier execution, whose resume URL Little Pay will call instead of this one's`,
			'Use a new key to pause for a new payment, or wait for this one with Wait for Payment: Hold the Connection, Payment: Wait for Completion, or a Little Pay Trigger workflow',
		);
	}
	return await pauseForCallback(item, intent, timeoutMinutes);
}

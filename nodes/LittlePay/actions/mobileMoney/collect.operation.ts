import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { reconciliationFields, showFor } from '../common';
import type { Item } from '../../item';
import type { OperationMeta } from '../common';
import {
	longPollTimeoutSeconds,
	pauseForCallback,
	pauseKeyNotice,
	pauseForIntent,
	pauseNotice,
	pauseTimeoutFields,
	readPause,
	waitForPaymentField,
	waitOptions,
} from '../../flows/pause';
import { payableField, waitForFinalStatus } from '../../flows/waitForPayment';
import { createIntent } from '../../flows/createIntent';
import { expiryAfterMinutes } from '../../helpers/paymentState';
import {
	intentBusinessFields,
	intentCallbackAndKeyFields,
	intentOptionsCollection,
} from '../paymentIntent/fields';
import { payerFields, readPayer } from './fields';
import { processOnce } from '../../money/prompt';

/** What the registry knows of this operation (actions/registry.ts). */
export const meta: OperationMeta = {
	subtitle: 'Collect · Mobile Money',
	rowKey: { parameter: 'key', field: 'key' },
	moves: 'payment',
	toolSummary:
		"Charges a payer's mobile money wallet with Little Pay: sends a PIN prompt to their phone and returns the payment status.",
	createsIntent: true,
};

export const description: INodeProperties[] = showFor('mobileMoney', 'collect', [
	...intentBusinessFields,
	...payerFields,
	...intentCallbackAndKeyFields,
	waitForPaymentField('longPoll', 'Wait for Payment'),
	pauseNotice(
		'After the PIN prompt is sent the execution pauses, holding nothing, until the payment ends: COMPLETED, or FAILED once the intent can no longer be paid (a failed prompt keeps it waiting while the payer can still pay on the checkout page). This node sets that callback itself. At the timeout it goes on with timedOut: true and status PENDING: look the payment up there with Payment: Get Status.',
	),
	...pauseTimeoutFields,
	pauseKeyNotice,
	intentOptionsCollection([
		{
			displayName: 'Billing Email',
			name: 'email',
			type: 'string',
			placeholder: 'name@email.com',
			default: '',
			description:
				"Payer's email for the billing address; the Mobile Number is sent as the billing phone",
		},
		...waitOptions,
	]),
]);

/** Creates an intent, sends the PIN prompt and waits for the final status as the user chose. */
export async function execute(this: IExecuteFunctions, item: Item): Promise<IDataObject> {
	const itemIndex = item.index;
	const mode = item.param<string>('waitForPayment', 'longPoll');
	// The payer and the pause settings are validated first, so a bad item creates no intent.
	const { network, mobile } = readPayer(item);
	const pause = mode === 'pause' ? readPause(item) : undefined;
	const intent = await createIntent(item, 'collect', mobile, pause, network);
	const expiresAt = intentExpiresAt(item, pause);
	// An open intent of an earlier execution calls back elsewhere: settled is the answer, else an error.
	if (pause && intent.alreadyExisted) {
		return {
			...(await pauseForIntent(item, intent, pause.timeoutMinutes)),
			mobile,
			network,
		};
	}
	const reference = String(intent.reference);
	// An intent that existed already may have prompted the payer: the status record decides first.
	const intentFound = intent.recovered === true || intent.alreadyExisted === true;
	const {
		data: prompt,
		recovered,
		alreadyPrompted,
		promptOutcomeUnknown,
	} = await processOnce(
		this,
		itemIndex,
		reference,
		{ type: network, payment: { mobile } },
		false,
		intentFound,
	);
	const result: IDataObject = {
		reference,
		key: intent.key,
		checkoutUrl: intent.checkoutUrl,
		network,
		mobile,
		status: prompt.status,
		message: prompt.message,
		amount: intent.amount,
		...reconciliationFields({
			...prompt,
			currency: intent.currency,
			description: intent.description,
		}),
	};
	if (intent.recovered || recovered) result.recovered = true;
	if (intent.alreadyExisted) result.alreadyExisted = true;
	if (alreadyPrompted) result.alreadyPrompted = true;
	if (promptOutcomeUnknown) result.promptOutcomeUnknown = true;
	// The pause waits for the payment's end: a failed prompt keeps it waiting while the intent can
	// still be paid (its checkout page), since a later payment calls back this execution only.
	if (pause) {
		return await pauseForCallback(
			item,
			{ ...result, ...(expiresAt ? { expiresAt } : {}) },
			pause.timeoutMinutes,
		);
	}
	if (mode !== 'longPoll') return result;
	// The long poll reports the prompt's answer, a failure too, at once (with payable: true): the
	// payer cannot pay again without a new prompt or the link, and a later payment calls back the
	// Callback URL, so nothing is lost by returning.
	const final = await waitForFinalStatus(item, reference, longPollTimeoutSeconds(item), {
		failedAttemptEnds: true,
		expiresAt,
	});
	// The final record's message says why a payment failed; the prompt's notice is stale by then.
	const settled = reconciliationFields(final);
	return {
		...result,
		status: final.status,
		message: final.message ?? result.message,
		amount: final.amount ?? result.amount,
		currency: settled.currency ?? result.currency,
		description: settled.description ?? result.description,
		providerReference: settled.providerReference ?? result.providerReference,
		paidAt: settled.paidAt,
		...payableField(final, expiresAt),
		timedOut: final.timedOut,
	};
}

/**
 * When the intent just created stops being payable: its Expires In, else the pause's timeout (set on
 * the intent by createIntent), else Little Pay's default of 30 minutes. Counted from now, after the
 * create answered, so the node never thinks an intent expired before the gateway does.
 */
function intentExpiresAt(
	item: Item,
	pause: { timeoutMinutes: number } | undefined,
): string | undefined {
	const options = item.param<IDataObject>('options', {});
	const minutes =
		typeof options.expiresAt === 'number'
			? options.expiresAt
			: pause
				? Math.ceil(pause.timeoutMinutes)
				: 30;
	return Number.isFinite(minutes) ? expiryAfterMinutes(minutes) : undefined;
}

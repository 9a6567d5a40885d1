import type {
	IDataObject,
	IHookFunctions,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { heldAlerts, noteVerified, refuseAndAlert } from './alerts';
import type { AlertChoices } from './alerts';
import { authorizeCallback, confirmWithStatus } from './authorize';
import { callbackEventId, callbackToItem, parseCallback } from './callbackEvent';
import { checkCallbackSignature, rawCallbackBody } from './callbackRequest';
import { admitOnce, triggerIdOf } from './eventMemory';
import { PRODUCTION_URL_NOTE, productionUrlNote } from './productionUrl';
import { webhookGateway, webhookPayerSettings } from '../transport';
import { protectRow } from '../helpers/payerData';

/** Seconds a gateway is asked to wait when its key could not be fetched to check the signature. */
const KEY_RETRY_AFTER_SECONDS = 30;

/** The trigger's Refund Callback Token, read here alone: at activation and for each callback. */
export function refundTokenOf(context: IHookFunctions | IWebhookFunctions): string {
	return context.getNodeParameter('refundToken', '') as string;
}

/**
 * Whether the trigger confirms callbacks with the merchant's own account (on unless turned off), read
 * here alone: at activation and for each callback.
 */
export function confirmsWithAccount(context: IHookFunctions | IWebhookFunctions): boolean {
	return context.getNodeParameter('confirmWithStatusApi', true) as boolean;
}

/**
 * The Little Pay Trigger's answer to one call: refused (nothing starts), acknowledged (an event it does
 * not listen to, or a copy of one already accepted), or accepted with the one item the workflow gets.
 * Verification first (signature, or a refund's token), then the events filter, then Confirm With
 * Status API, whose record pins the event's id and its money fields; only then the event memory.
 */
export async function answerTriggerCallback(
	context: IWebhookFunctions,
): Promise<IWebhookResponseData> {
	const req = context.getRequestObject();
	// The settings a refusal's alert needs, read here with the trigger's other parameters.
	const choices: AlertChoices = {
		refusedOutput: context.getNodeParameter('refusedOutput', false) as boolean,
		confirmWithStatusApi: confirmsWithAccount(context),
	};
	const rawBody = await rawCallbackBody(context);
	if (!rawBody || rawBody.length === 0)
		return await refuseAndAlert(context, choices, 400, 'empty-body', undefined);

	const callback = parseCallback(rawBody);
	if ('error' in callback)
		return await refuseAndAlert(context, choices, 400, callback.error, undefined);

	const triggerId = triggerIdOf(context);
	const authorization = await authorizeCallback(callback, {
		verifySignatures: context.getNodeParameter('verifySignatures', true) as boolean,
		signed: req.headers['x-littlepay-signature'] !== undefined,
		checkSignature: async () =>
			await checkCallbackSignature(
				context,
				rawBody,
				(context.getNodeParameter('options', {}) ?? {}) as IDataObject,
			),
		refundToken: refundTokenOf(context),
		givenToken: typeof req.query?.token === 'string' ? req.query.token : '',
	});
	if (!authorization.ok)
		return await refuseAndAlert(
			context,
			choices,
			authorization.status,
			authorization.reason,
			callback.body,
			authorization.status === 503 ? KEY_RETRY_AFTER_SECONDS : undefined,
		);
	// Genuine callbacks still verify with the key: a bad signature after this is not a rotated key.
	if (authorization.verified === 'signature' && authorization.verifiedKey !== 'previous')
		noteVerified(triggerId, Date.now());
	let verified = authorization.verified;

	const events = context.getNodeParameter('events', ['*']) as string[];
	const wanted =
		callback.event !== undefined && (events.includes('*') || events.includes(callback.event));
	if (!wanted)
		return { webhookResponse: { received: true, ignored: callback.event ?? 'not-final' } };

	let confirmation:
		| Extract<Awaited<ReturnType<typeof confirmWithStatus>>, { ok: true }>
		| undefined;
	if (choices.confirmWithStatusApi) {
		const confirmed = await confirmWithStatus(context, callback, verified);
		if (!confirmed.ok)
			return await refuseAndAlert(
				context,
				choices,
				confirmed.status,
				confirmed.reason,
				callback.body,
				undefined,
				confirmed.detail,
			);
		confirmation = confirmed;
		verified = confirmed.verified;
	}

	// n8n answers 2xx only after it has recorded the execution (n8n 2.x, as for its own Webhook
	// node): the event counts as seen only then, so a redelivery after any failure before runs.
	const eventId = callbackEventId(callback, confirmation?.pinned);
	const notNow = admitOnce(context, triggerId, eventId);
	if (notNow) return notNow;

	const options = context.getNodeParameter('options', {}) as IDataObject;
	const item = protectRow(
		callbackToItem(
			callback,
			{
				verified,
				verifiedKey: authorization.verifiedKey ?? null,
				// The gateway whose key verified it: Little Pay's published key is Little Pay's whatever
				// the credential points at; any other key is the credential's gateway's.
				gateway:
					authorization.verifiedKey === 'published' ? 'littlepay' : await webhookGateway(context),
				includeRaw: options.includeRawBody === true,
			},
			eventId,
			confirmation?.record.data,
			confirmation?.fields,
		),
		await webhookPayerSettings(context),
	) as IDataObject;
	if (confirmation) item.statusConfirmed = confirmation.statusConfirmed;
	// Refusals held since an alert whose window has passed go out with this callback (Refused output).
	const held = choices.refusedOutput ? heldAlerts(triggerId, Date.now()) : [];
	const note = productionUrlNote(context);
	return {
		webhookResponse: { received: true, event: callback.event, eventId },
		workflowData: [
			[
				{ json: item, ...(note ? { [PRODUCTION_URL_NOTE]: note } : {}) },
				...held.map((json) => ({ json })),
			],
		],
	};
}

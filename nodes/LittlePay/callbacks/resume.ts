import type {
	IDataObject,
	IExecuteFunctions,
	IWebhookDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { failureFields, failureOfText } from '../helpers/failures';
import { paymentState } from '../helpers/paymentState';
import type { PaymentState } from '../helpers/paymentState';
import { authorizeCallback } from './authorize';
import { callbackEventId, callbackToItem, parseCallback } from './callbackEvent';
import type { ParsedCallback } from './callbackEvent';
import {
	checkCallbackSignature,
	rawCallbackBody,
	refuseCallback as refuse,
} from './callbackRequest';
import { fetchPaymentStatus } from '../transport/gateway';
import { isNotARecord } from '../transport/records';
import { webhookGateway, webhookPayerSettings } from '../transport';
import { protectRow } from '../helpers/payerData';

/**
 * The resume webhook n8n calls when Little Pay posts to an execution's resume URL. Like n8n's Wait
 * node and its send-and-wait operations, it is a restart webhook: nothing is registered anywhere,
 * and n8n only listens on it for executions this node has put to wait.
 */
export const resumeWebhooks: IWebhookDescription[] = [
	{
		name: 'default',
		httpMethod: 'POST',
		responseMode: 'onReceived',
		// Empty, so n8n answers with webhook()'s small JSON (after it has recorded the resumption)
		// instead of its default 'firstEntryJson'.
		responseData: '',
		path: '',
		restartWebhook: true,
		isFullPath: true,
	},
];

/** A webhook context whose item is the paused payment (n8n provides it on resume calls). */
type ResumeContext = IWebhookFunctions & Pick<IExecuteFunctions, 'evaluateExpression'>;

/**
 * Where the paused payment stands after a FAILED callback, judged by the status record: the callback
 * alone cannot tell a failed attempt (the payer may try again on the same checkout page) from the end
 * of the payment. Undefined when the record cannot be read now.
 */
async function judgeFailedCallback(
	context: ResumeContext,
	reference: string,
): Promise<{ state: PaymentState; message: unknown } | undefined> {
	let record: Awaited<ReturnType<typeof fetchPaymentStatus>>;
	try {
		record = await fetchPaymentStatus(context, reference);
	} catch {
		return undefined;
	}
	// An answer that proves nothing is "cannot read now": the pause goes on.
	if (!record || isNotARecord(record)) return undefined;
	const knownExpiresAt = context.evaluateExpression('{{ $json.expiresAt ?? "" }}', 0);
	return {
		state: paymentState(record.data, Date.now(), knownExpiresAt),
		message: record.data.message,
	};
}

/**
 * Resumes a paused execution with Little Pay's callback, verified exactly as the trigger verifies
 * it: signed over the raw body, within the timestamp window, for the paused intent, and final.
 * Anything else is refused and the execution keeps waiting. A FAILED callback ends the pause only
 * when the payment can no longer be paid; while the payer can still try again it is acknowledged
 * and the pause goes on, so the payment that follows still reaches this execution.
 */
export async function resumeOnCallback(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const context = this as ResumeContext;
	const rawBody = await rawCallbackBody(context);
	if (!rawBody || rawBody.length === 0) return refuse(context, 400, 'empty-body');
	const parsed = parseCallback(rawBody);
	const authorization = await authorizeCallback(parsed, {
		verifySignatures: true,
		signed: true,
		checkSignature: async () =>
			await checkCallbackSignature(
				context,
				rawBody,
				(context.getNodeParameter('options', {}) ?? {}) as IDataObject,
			),
		refundToken: '',
		givenToken: '',
	});
	// No key to check with now (the gateway could not be asked): delivered again later.
	if (!authorization.ok)
		return refuse(
			context,
			authorization.status,
			authorization.reason,
			authorization.status === 503 ? 30 : undefined,
		);
	if ('error' in parsed || parsed.kind !== 'payment') {
		return refuse(context, 400, 'not-a-payment-callback');
	}
	let callback: ParsedCallback = parsed;
	const expected = String(context.evaluateExpression('{{ $json.reference }}', 0));
	if (callback.body.reference !== expected) return refuse(context, 401, 'other-payment');
	// Not settled yet: acknowledged, and the execution keeps waiting for the final callback.
	if (callback.event === undefined)
		return { webhookResponse: { received: true, ignored: 'not-final' } };
	let payable: IDataObject = {};
	if (callback.event === 'payment.failed') {
		const judged = await judgeFailedCallback(context, expected);
		// Not 2xx: the gateway delivers again later, when the record can be read.
		if (judged === undefined) return refuse(context, 503, 'status-unavailable', 30);
		const { state } = judged;
		if (state === 'payable') {
			return { webhookResponse: { received: true, ignored: 'payer-can-still-pay' } };
		}
		// Callbacks can arrive out of order: the record says the payment completed meanwhile.
		if (state === 'completed') {
			callback = {
				...callback,
				event: 'payment.completed',
				body: { ...callback.body, status: 'COMPLETED' },
			};
		} else payable = { payable: false, ...failureFields(failureOfText(judged.message)) };
	}
	const pausedAt = Date.parse(String(context.evaluateExpression('{{ $json.pausedAt }}', 0)));
	const waitedSeconds = Number.isFinite(pausedAt)
		? Math.max(0, Math.round((Date.now() - pausedAt) / 1000))
		: null;
	return {
		webhookResponse: { received: true, event: callback.event },
		workflowData: [
			[
				{
					json: protectRow(
						{
							...callbackToItem(
								callback,
								{
									verified: 'signature',
									verifiedKey: authorization.verifiedKey ?? null,
									gateway: await webhookGateway(context),
								},
								callbackEventId(callback),
							),
							...payable,
							timedOut: false,
							waitedSeconds,
						},
						await webhookPayerSettings(context),
					) as IDataObject,
				},
			],
		],
	};
}

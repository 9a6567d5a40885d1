import { sleep } from 'n8n-workflow';

import type {
	ICredentialsDecrypted,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
} from 'n8n-workflow';

import { gatewayOfBaseUrl } from '../helpers/gateway';
import { namesOneRecord } from '../helpers/validation';
import type { PayerSettings } from '../helpers/payerData';
import type { GatewayName } from '../helpers/gateway';
import {
	cancelledError,
	itemError,
	noCredentialError,
	notARecordNameError,
	throwGatewayError,
} from '../errors';
import type { GatewayAnswer, LittlePayCredential } from '../errors';
import { baseUrlOf, payerSettingsOf, perRunCache, withoutTrailingSlash } from './credential';
import { isRedirect, redirectError } from './redirect';

export type { LittlePayCredential } from '../errors';
export { baseUrlOf, payerSettingsOf, perRunCache } from './credential';
export {
	getFromWebhook,
	readFromWebhook,
	webhookBaseUrl,
	webhookGateway,
	webhookPayerSettings,
} from './webhook';

export interface LittlePayRequest {
	credential: LittlePayCredential;
	method: IHttpRequestMethods;
	path: string;
	body?: IDataObject;
	qs?: IDataObject;
	/** Disbursement paths may live on their own host. */
	disbursement?: boolean;
	timeoutMs?: number;
	itemIndex: number;
	/** The request carries card data: errors must not echo any part of the answer that could hold it. */
	cardData?: boolean;
}

/**
 * An answer: the status code, the envelope's data, the credential it was sent with and `gateway`, the
 * gateway at the address the request went to (the Disbursement Base URL for payouts).
 */
export type LittlePayResponse = GatewayAnswer & { gateway: GatewayName };

/** No answer came back (connection lost, timeout): the request may or may not have taken effect. */
export interface LostAnswer {
	lost: true;
	reason: string;
}

/** Whether a send ended without an answer. */
export function isLost(result: LittlePayResponse | LostAnswer): result is LostAnswer {
	return 'lost' in result;
}

/** A credential as read once for a node run: what the request helper needs, and the base URLs. */
interface RunCredential {
	decrypted: ICredentialsDecrypted;
	baseUrl: string;
	disbursementBaseUrl: string;
}

/** Little Pay's payment status path, by reference or key: the one place it is spelled. */
export function paymentStatusPath(paymentId: string): string {
	return `/api/payments-v2/${recordSegment(paymentId)}`;
}

/**
 * A path segment that names one payment or payout, and nothing else: a value that cannot (`..`, which
 * a URL resolves to the parent path, even written `%2E%2E`) throws before any request is built.
 */
export function recordSegment(value: string): string {
	if (!namesOneRecord(value)) throw notARecordNameError();
	return encodeURIComponent(value);
}

async function readCredential(
	context: IExecuteFunctions,
	type: LittlePayCredential,
	itemIndex: number,
): Promise<RunCredential> {
	if (!context.getNode().credentials?.[type]) noCredentialError(context.getNode(), type, itemIndex);
	const data = await context.getCredentials(type, itemIndex);
	const details = context.getNode().credentials?.[type];
	const baseUrl = baseUrlOf(data);
	const disbursementBaseUrl = data.disbursementBaseUrl
		? withoutTrailingSlash(data.disbursementBaseUrl)
		: baseUrl;
	return {
		decrypted: { id: details?.id ?? '', name: details?.name ?? type, type, data },
		baseUrl,
		disbursementBaseUrl,
	};
}

// Reading a credential decrypts it (and resolves its expressions), which in n8n costs more than a
// request to a nearby gateway: each node run reads each credential once and hands the decrypted copy
// to n8n's request helper, which then applies the credential's own `authenticate` as usual.
const credentialsForRun = perRunCache<RunCredential>();

function credentialFor(
	context: IExecuteFunctions,
	type: LittlePayCredential,
	itemIndex: number,
): Promise<RunCredential> {
	return credentialsForRun(context, type, () => readCredential(context, type, itemIndex));
}

/**
 * The credential's fields as stored now, past the node run's copy: for a switch a person turns while a
 * run goes on (Pause Money Moves). A read decrypts the credential again, so only a send that moves money
 * makes one.
 */
export async function currentCredentialData(
	context: IExecuteFunctions,
	type: LittlePayCredential,
	itemIndex: number,
): Promise<IDataObject> {
	return await context.getCredentials(type, itemIndex);
}

/** The credential's fields for this node run, read (and decrypted) once per run. */
export async function credentialData(
	context: IExecuteFunctions,
	type: LittlePayCredential,
	itemIndex: number,
): Promise<IDataObject> {
	return (await credentialFor(context, type, itemIndex)).decrypted.data ?? {};
}

// The gateways this node run's requests were addressed to, recorded as each is sent (an unanswered
// payout may still have been paid there): the label names where money could have moved.
const sentTo = new WeakMap<IExecuteFunctions, Set<GatewayName>>();

/** The gateway this node run's requests went to so far (`littlepay` when any went there); undefined before any. */
export function gatewaySentTo(context: IExecuteFunctions): GatewayName | undefined {
	const sent = sentTo.get(context);
	if (!sent?.size) return undefined;
	return sent.has('littlepay') ? 'littlepay' : 'sandbox';
}

/**
 * Which gateway answered this node run (`littlepay` when any request went to Little Pay's address,
 * the Disbursement Base URL for payouts), for every output that reports a money move; before any
 * request, the gateway of the credential's Base URL. Undefined when the node has no API key credential
 * or it cannot be read.
 */
export async function gatewayOf(
	context: IExecuteFunctions,
	itemIndex: number,
): Promise<GatewayName | undefined> {
	if (!context.getNode().credentials?.littlePayApiKeyApi) return undefined;
	const sent = gatewaySentTo(context);
	if (sent) return sent;
	try {
		return gatewayOfBaseUrl(
			baseUrlOf(await credentialData(context, 'littlePayApiKeyApi', itemIndex)),
		);
	} catch {
		// The item that needs the credential reports why it cannot be read; the label is only a label.
		return undefined;
	}
}

/** The payer-details setting of the node's API key credential, for this node run. */
export async function payerSettings(
	context: IExecuteFunctions,
	itemIndex: number,
): Promise<PayerSettings> {
	if (!context.getNode().credentials?.littlePayApiKeyApi) return payerSettingsOf(undefined);
	try {
		return payerSettingsOf(await credentialData(context, 'littlePayApiKeyApi', itemIndex));
	} catch {
		// Unreadable: the safer default (masked), never the full details.
		return payerSettingsOf(undefined);
	}
}

/**
 * Sends one request and returns the status code with the envelope's data, never retrying. A redirect
 * is refused, never followed (it would carry the API key, and a 307 the card or payout, elsewhere).
 */
export async function sendOnce(
	context: IExecuteFunctions,
	request: LittlePayRequest,
): Promise<LittlePayResponse | LostAnswer> {
	const credential = await credentialFor(context, request.credential, request.itemIndex);
	const baseUrl = request.disbursement ? credential.disbursementBaseUrl : credential.baseUrl;
	const url = `${baseUrl}${request.path}`;
	const gateway = gatewayOfBaseUrl(baseUrl);
	let sent = sentTo.get(context);
	if (!sent) sentTo.set(context, (sent = new Set()));
	sent.add(gateway);
	let response: { statusCode: number; body: unknown; headers?: IDataObject };
	try {
		response = (await context.helpers.httpRequestWithAuthentication.call(
			context,
			request.credential,
			{
				method: request.method,
				url,
				body: request.body,
				qs: request.qs,
				json: true,
				timeout: request.timeoutMs ?? 30000,
				ignoreHttpStatusErrors: true,
				returnFullResponse: true,
				disableFollowRedirect: true,
				abortSignal: context.getExecutionCancelSignal(),
			},
			{ credentialsDecrypted: credential.decrypted },
		)) as { statusCode: number; body: unknown; headers?: IDataObject };
	} catch (error) {
		if (context.getExecutionCancelSignal()?.aborted) {
			throw cancelledError(context, 'Execution cancelled', request.itemIndex);
		}
		return { lost: true, reason: error instanceof Error ? error.message : String(error) };
	}
	if (isRedirect(response.statusCode)) {
		const field =
			request.disbursement && credential.disbursementBaseUrl !== credential.baseUrl
				? 'Disbursement Base URL'
				: 'Base URL';
		const target = { method: request.method, url, field };
		throw redirectError(context.getNode(), response, target, request.itemIndex);
	}
	const body = (response.body ?? {}) as IDataObject;
	const data = (
		typeof body.data === 'object' && body.data !== null ? body.data : body
	) as IDataObject;
	return {
		statusCode: response.statusCode,
		data,
		credential: request.credential,
		asked: `${request.method} ${request.path}`,
		gateway,
	};
}

/** Whether a read is worth asking again: no answer, rate limited, or a server error. */
export function isRetryable(result: LittlePayResponse | LostAnswer): boolean {
	return isLost(result) || result.statusCode === 429 || result.statusCode >= 500;
}

/**
 * Sleeps, but returns at once when the execution is cancelled (then throws `message`). n8n 2.x's sleep
 * takes the signal itself; racing the signal as well keeps the wait cancellable on n8n 1.x. The one
 * pause of every retry and wait: reads, the long poll and the payout settlement loop.
 */
export async function pauseUnlessCancelled(
	context: IExecuteFunctions,
	ms: number,
	message = 'Execution cancelled',
	itemIndex?: number,
): Promise<void> {
	const signal = context.getExecutionCancelSignal();
	if (!signal) {
		await sleep(ms);
		return;
	}
	if (signal.aborted) throw cancelledError(context, message, itemIndex);
	let onAbort = () => {};
	const aborted = new Promise<void>((resolve) => {
		onAbort = resolve;
		signal.addEventListener('abort', onAbort, { once: true });
	});
	try {
		await Promise.race([sleep(ms, signal).catch(() => undefined), aborted]);
	} finally {
		signal.removeEventListener('abort', onAbort);
	}
	if (signal.aborted) throw cancelledError(context, message, itemIndex);
}

/** Reads from Little Pay, retrying 429, 5xx and lost answers with backoff (reads are safe to repeat). */
export async function readLittlePay(
	context: IExecuteFunctions,
	request: LittlePayRequest,
	attempts = 3,
): Promise<LittlePayResponse> {
	for (let attempt = 1; ; attempt++) {
		const result = await sendOnce(context, request);
		if (!isRetryable(result) || attempt >= attempts) {
			if (!isLost(result)) return result;
			itemError(
				context.getNode(),
				request.itemIndex,
				`Little Pay did not answer (${result.reason})`,
				'Check the Base URL in the credentials and that Little Pay is reachable, then try again',
			);
		}
		await pauseUnlessCancelled(context, 250 * 2 ** (attempt - 1), undefined, request.itemIndex);
	}
}

/** Returns data of a 2xx answer, or throws the mapped gateway error. */
export function expectSuccess(
	context: IExecuteFunctions,
	response: LittlePayResponse,
	itemIndex: number,
	cardData = false,
): IDataObject {
	if (response.statusCode < 200 || response.statusCode >= 300)
		throwGatewayError(context, response, itemIndex, cardData);
	return response.data;
}

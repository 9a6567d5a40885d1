import { sleep } from 'n8n-workflow';

import type {
	ICredentialsDecrypted,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	IWebhookFunctions,
} from 'n8n-workflow';

import { gatewayOfBaseUrl } from '../helpers/gateway';
import { payerDetailsOf } from '../helpers/payerData';
import type { PayerSettings } from '../helpers/payerData';
import type { GatewayName } from '../helpers/gateway';
import { cancelledError, itemError, noCredentialError, throwGatewayError } from '../errors';
import type { GatewayAnswer, LittlePayCredential } from '../errors';

export type { LittlePayCredential } from '../errors';

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

/** An answer: the status code, the envelope's data and the credential it was sent with. */
export type LittlePayResponse = GatewayAnswer;

/** No answer came back (connection lost, timeout): the request may or may not have taken effect. */
export interface LostAnswer {
	lost: true;
	reason: string;
}

/** Whether a send ended without an answer. */
export function isLost(result: LittlePayResponse | LostAnswer): result is LostAnswer {
	return 'lost' in result;
}

/**
 * A cache that lives for one node run (keyed on its execute context): each name is loaded once and
 * shared by the run's items; a failed load is forgotten, so the next item reports its own error.
 */
export function perRunCache<T>(): (
	context: IExecuteFunctions,
	name: string,
	load: () => Promise<T>,
) => Promise<T> {
	const byRun = new WeakMap<IExecuteFunctions, Map<string, Promise<T>>>();
	return async (context, name, load) => {
		let entries = byRun.get(context);
		if (!entries) {
			entries = new Map();
			byRun.set(context, entries);
		}
		let entry = entries.get(name);
		if (!entry) {
			entry = load();
			entries.set(name, entry);
			const forget = entries;
			entry.catch(() => forget.delete(name));
		}
		return entry;
	};
}

/** A credential as read once for a node run: what the request helper needs, and the base URLs. */
interface RunCredential {
	decrypted: ICredentialsDecrypted;
	baseUrl: string;
	disbursementBaseUrl: string;
}

const withoutTrailingSlash = (url: unknown) => String(url).replace(/\/+$/, '');

/** A credential's payments base URL: Little Pay's own unless the credential names another. */
export function baseUrlOf(data: IDataObject): string {
	return withoutTrailingSlash(data.baseUrl || 'https://pay.little.africa');
}

const webhookReads = new WeakMap<IWebhookFunctions, Promise<IDataObject>>();

/**
 * The API key credential as one webhook call reads it: n8n decrypts a credential on every read, and a
 * callback asks for it up to four times (its key, the gateway's name, the payer details, a status
 * check), so a burst of callbacks reads it once per call.
 */
function webhookCredential(context: IWebhookFunctions): Promise<IDataObject> {
	let read = webhookReads.get(context);
	if (!read) {
		read = context.getCredentials<IDataObject>('littlePayApiKeyApi');
		webhookReads.set(context, read);
	}
	return read;
}

/** The API key credential's Base URL, as a webhook (the trigger, a resumed pause) reads it. */
export async function webhookBaseUrl(context: IWebhookFunctions): Promise<string> {
	return baseUrlOf(await webhookCredential(context));
}

/** Little Pay's payment status path, by reference or key: the one place it is spelled. */
export function paymentStatusPath(paymentId: string): string {
	return `/api/payments-v2/${encodeURIComponent(paymentId)}`;
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

/** The credential's fields for this node run, read (and decrypted) once per run. */
export async function credentialData(
	context: IExecuteFunctions,
	type: LittlePayCredential,
	itemIndex: number,
): Promise<IDataObject> {
	return (await credentialFor(context, type, itemIndex)).decrypted.data ?? {};
}

/**
 * Which gateway the node's API key credential points at (`littlepay` or `sandbox`), for every output
 * that reports a money move; undefined when the node has no such credential or it cannot be read.
 */
export async function gatewayOf(
	context: IExecuteFunctions,
	itemIndex: number,
): Promise<GatewayName | undefined> {
	if (!context.getNode().credentials?.littlePayApiKeyApi) return undefined;
	try {
		return gatewayOfBaseUrl(
			baseUrlOf(await credentialData(context, 'littlePayApiKeyApi', itemIndex)),
		);
	} catch {
		// The item that needs the credential reports why it cannot be read; the label is only a label.
		return undefined;
	}
}

/**
 * From a webhook call (the trigger, the pause): the gateway the API key credential points at, whose
 * key verifies callbacks; Little Pay's when no credential is selected (its published key verifies).
 */
export async function webhookGateway(context: IWebhookFunctions): Promise<GatewayName> {
	if (!context.getNode().credentials?.littlePayApiKeyApi) return 'littlepay';
	return gatewayOfBaseUrl(baseUrlOf(await webhookCredential(context)));
}

/** What the API key credential says about payer details in outputs (its defaults without one). */
export function payerSettingsOf(data: IDataObject | undefined): PayerSettings {
	return {
		mode: payerDetailsOf(data?.payerDetails),
		secret: typeof data?.matchingSecret === 'string' ? data.matchingSecret : '',
	};
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

/** From a webhook call: the payer-details setting of the API key credential (the default without one). */
export async function webhookPayerSettings(context: IWebhookFunctions): Promise<PayerSettings> {
	if (!context.getNode().credentials?.littlePayApiKeyApi) return payerSettingsOf(undefined);
	return payerSettingsOf(await webhookCredential(context));
}

/** Sends one request and returns the status code with the envelope's data, never retrying. */
export async function sendOnce(
	context: IExecuteFunctions,
	request: LittlePayRequest,
): Promise<LittlePayResponse | LostAnswer> {
	const credential = await credentialFor(context, request.credential, request.itemIndex);
	const baseUrl = request.disbursement ? credential.disbursementBaseUrl : credential.baseUrl;
	let response: { statusCode: number; body: unknown };
	try {
		response = (await context.helpers.httpRequestWithAuthentication.call(
			context,
			request.credential,
			{
				method: request.method,
				url: `${baseUrl}${request.path}`,
				body: request.body,
				qs: request.qs,
				json: true,
				timeout: request.timeoutMs ?? 30000,
				ignoreHttpStatusErrors: true,
				returnFullResponse: true,
				abortSignal: context.getExecutionCancelSignal(),
			},
			{ credentialsDecrypted: credential.decrypted },
		)) as { statusCode: number; body: unknown };
	} catch (error) {
		if (context.getExecutionCancelSignal()?.aborted) {
			throw cancelledError(context, 'Execution cancelled', request.itemIndex);
		}
		return { lost: true, reason: error instanceof Error ? error.message : String(error) };
	}
	const body = (response.body ?? {}) as IDataObject;
	const data = (
		typeof body.data === 'object' && body.data !== null ? body.data : body
	) as IDataObject;
	return { statusCode: response.statusCode, data, credential: request.credential };
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

/**
 * One GET from a webhook call (the trigger's status check, the pause's resume), with the API key
 * credential as n8n reads it for the call; never retried: a webhook answers while Little Pay waits.
 */
export async function readFromWebhook(
	context: IWebhookFunctions,
	path: string,
): Promise<{ statusCode: number; body: unknown }> {
	return await getFromWebhook(context, `${await webhookBaseUrl(context)}${path}`, 10000);
}

/** One GET of a URL from a webhook call, with the API key credential; never retried. */
export async function getFromWebhook(
	context: IWebhookFunctions,
	url: string,
	timeout: number,
): Promise<{ statusCode: number; body: unknown }> {
	return (await context.helpers.httpRequestWithAuthentication.call(context, 'littlePayApiKeyApi', {
		method: 'GET',
		url,
		json: true,
		timeout,
		ignoreHttpStatusErrors: true,
		returnFullResponse: true,
	})) as { statusCode: number; body: unknown };
}

import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import type {
	ICredentialsDecrypted,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	JsonObject,
} from 'n8n-workflow';

export type LittlePayCredential = 'littlePayBasicApi' | 'littlePayApiKeyApi';

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

export interface LittlePayResponse {
	statusCode: number;
	data: IDataObject;
	/** The credential the request was sent with, so a refusal can name it. */
	credential?: LittlePayCredential;
}

/** No answer came back (connection lost, timeout): the request may or may not have taken effect. */
export interface LostAnswer {
	lost: true;
	reason: string;
}

/** Whether a send ended without an answer. */
export function isLost(result: LittlePayResponse | LostAnswer): result is LostAnswer {
	return 'lost' in result;
}

const HINTS: Record<number, string> = {
	400: 'Little Pay rejected the request body; check the fields named in the message',
	401: 'Check the credentials: client ID/secret for intents, the API key for everything else',
	404: 'No payment or disbursement with this reference or key exists for this merchant',
	409: 'This key was already used; use a new key or look up the existing one',
	422: 'Little Pay refused the request by its rules (expired intent, limits, refund above the paid amount, ...)',
	429: 'Little Pay is rate limiting; wait and try again',
};

/** Masks any run of 12-19 digits (a card number, possibly spaced) down to its last four. */
export function redactCardNumbers(text: string): string {
	return text.replace(
		/\d(?:[ -]?\d){11,18}/g,
		(match) => `**** ${match.replace(/\D/g, '').slice(-4)}`,
	);
}

/**
 * For 401 and 403: which credential Little Pay refused, by the name the editor shows, and where the
 * values come from, as the credential test says it.
 */
function credentialHint(response: LittlePayResponse): string | undefined {
	if ((response.statusCode !== 401 && response.statusCode !== 403) || !response.credential)
		return undefined;
	const help = CREDENTIAL_HELP[response.credential];
	return `Check the credentials: Little Pay refused the ${help.values} of the "${help.name}" credential. ${help.fix}`;
}

/** Turns a Little Pay error answer into a NodeApiError with the gateway's message and a hint. */
export function throwGatewayError(
	context: IExecuteFunctions,
	response: LittlePayResponse,
	itemIndex: number,
	cardData = false,
): never {
	const raw =
		typeof response.data.message === 'string'
			? response.data.message
			: `HTTP ${response.statusCode}`;
	// After a card request only the redacted message and code leave the node, never the raw answer.
	const message = cardData ? redactCardNumbers(raw) : raw;
	const body = cardData
		? ({ message, code: response.data.code ?? null } as JsonObject)
		: (response.data as JsonObject);
	throw new NodeApiError(context.getNode(), body, {
		message: `Little Pay: ${message}`,
		description:
			credentialHint(response) ??
			HINTS[response.statusCode] ??
			'Little Pay answered with an error; try again later',
		httpCode: String(response.statusCode),
		itemIndex,
	});
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

/** What each credential is called in the editor, what it is for, and where its values are. */
const CREDENTIAL_HELP: Record<
	LittlePayCredential,
	{ name: string; usedFor: string; values: string; fix: string }
> = {
	littlePayBasicApi: {
		name: 'Little Pay (Client ID and Secret) API',
		usedFor:
			'Creating a payment intent (Payment Intent: Create, Mobile Money: Collect) signs in with it',
		values: 'Client ID, Client Secret or Token ID',
		fix: 'Open it under Credentials and copy the three values again from the Little Pay dashboard: Merchants, Merchant Settings, Security tab.',
	},
	littlePayApiKeyApi: {
		name: 'Little Pay (API Key) API',
		usedFor: 'Every Little Pay operation reads payments with it',
		values: 'API key',
		fix: 'Open it under Credentials and paste the current key from the Little Pay dashboard: Merchants, Merchant Settings, Security tab (after a rotation only the new key works, and it is shown once).',
	},
};

/**
 * Fails with the credential's editor name when the node has none selected: n8n's own error names
 * the internal type (littlePayBasicApi), which a user never sees anywhere else.
 */
function requireSelectedCredential(
	context: IExecuteFunctions,
	type: LittlePayCredential,
	itemIndex: number,
): void {
	if (context.getNode().credentials?.[type]) return;
	const help = CREDENTIAL_HELP[type];
	throw new NodeOperationError(context.getNode(), `No ${help.name} credential is selected`, {
		itemIndex,
		description: `${help.usedFor}. Open the node and choose one under "Credential for ${help.name}", or create one with the values from the Little Pay dashboard: Merchants, Merchant Settings, Security tab.`,
	});
}

const withoutTrailingSlash = (url: unknown) => String(url).replace(/\/+$/, '');

/** A credential's payments base URL: Little Pay's own unless the credential names another. */
export function baseUrlOf(data: IDataObject): string {
	return withoutTrailingSlash(data.baseUrl || 'https://pay.little.africa');
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
	requireSelectedCredential(context, type, itemIndex);
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
			throw new NodeOperationError(context.getNode(), 'Execution cancelled', {
				itemIndex: request.itemIndex,
			});
		}
		return { lost: true, reason: error instanceof Error ? error.message : String(error) };
	}
	const body = (response.body ?? {}) as IDataObject;
	const data = (
		typeof body.data === 'object' && body.data !== null ? body.data : body
	) as IDataObject;
	return { statusCode: response.statusCode, data, credential: request.credential };
}

/** Reads from Little Pay, retrying 429, 5xx and lost answers with backoff (reads are safe to repeat). */
export async function readLittlePay(
	context: IExecuteFunctions,
	request: LittlePayRequest,
	attempts = 3,
): Promise<LittlePayResponse> {
	for (let attempt = 1; ; attempt++) {
		const result = await sendOnce(context, request);
		if (isLost(result)) {
			if (attempt >= attempts) {
				throw new NodeOperationError(
					context.getNode(),
					`Item ${request.itemIndex}: Little Pay did not answer (${result.reason})`,
					{
						itemIndex: request.itemIndex,
						description:
							'Check the Base URL in the credentials and that Little Pay is reachable, then try again',
					},
				);
			}
		} else if (!(result.statusCode === 429 || result.statusCode >= 500) || attempt >= attempts) {
			return result;
		}
		if (context.getExecutionCancelSignal()?.aborted) {
			throw new NodeOperationError(context.getNode(), 'Execution cancelled', {
				itemIndex: request.itemIndex,
			});
		}
		await sleep(250 * 2 ** (attempt - 1));
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

/** Raises the error for a request whose outcome is unknown, saying what to check before retrying. */
export function throwUnknownOutcome(
	context: IExecuteFunctions,
	itemIndex: number,
	what: string,
	detail: string,
	check: string,
): never {
	throw new NodeOperationError(
		context.getNode(),
		`Item ${itemIndex}: the outcome of the ${what} is unknown (${detail})`,
		{ itemIndex, description: check },
	);
}

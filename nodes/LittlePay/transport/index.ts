import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { differingFields } from '../helpers/validation';
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
		description: HINTS[response.statusCode] ?? 'Little Pay answered with an error; try again later',
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
const CREDENTIAL_HELP: Record<LittlePayCredential, { name: string; usedFor: string }> = {
	littlePayBasicApi: {
		name: 'Little Pay (Client ID and Secret) API',
		usedFor:
			'Creating a payment intent (Payment Intent: Create, Mobile Money: Collect) signs in with it',
	},
	littlePayApiKeyApi: {
		name: 'Little Pay (API Key) API',
		usedFor: 'Every Little Pay operation reads payments with it',
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
		description: `${help.usedFor}. Open the node and choose one under "Credential to connect with", or create one with the values from the Little Pay dashboard: Merchants, Merchant Settings, Security tab.`,
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
	return { statusCode: response.statusCode, data };
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

/** How createOnce finds an earlier create with the same key, and whether it is this same request. */
export interface CreateLookup {
	request: LittlePayRequest;
	key: string;
	/** Look the key up before sending: a retried execution may have created it already. */
	checkFirst: boolean;
	/** The request's fields as the record shows them, to tell this request from another one. */
	expected: IDataObject;
}

/** What createOnce did: sent it, found it after an unknown outcome, or found it already there. */
export type CreateOutcome = 'created' | 'recovered' | 'existed';

/**
 * The answer to a request that moves money when it settles the outcome; undefined for no answer at
 * all or a server error, which a gateway or proxy may return after the payment was committed.
 */
function knownAnswer(result: LittlePayResponse | LostAnswer): LittlePayResponse | undefined {
	return isLost(result) || result.statusCode >= 500 ? undefined : result;
}

function describeAnswer(result: LittlePayResponse | LostAnswer): string {
	return isLost(result) ? result.reason : `HTTP ${result.statusCode}`;
}

/** A read made to recover an unknown outcome; when it gets no answer either, the outcome stays unknown. */
async function recoveryRead(
	context: IExecuteFunctions,
	request: LittlePayRequest,
	what: string,
): Promise<LittlePayResponse> {
	try {
		// More patience than an ordinary read: the answer decides whether money moved.
		return await readLittlePay(context, request, 5);
	} catch {
		// Never "try again" here: the first request may have gone through, and a retry could pay twice.
		throwUnknownOutcome(
			context,
			request.itemIndex,
			what,
			'the lookup got no answer either',
			`Check in the dashboard whether the ${what} exists before retrying: the first request may have gone through.`,
		);
	}
}

function isSuccess(response: LittlePayResponse): boolean {
	return response.statusCode >= 200 && response.statusCode < 300;
}

/** Returns a found record when it is the same request; fails the item naming the fields that differ. */
function sameRequest(
	context: IExecuteFunctions,
	found: LittlePayResponse,
	lookup: CreateLookup,
	what: string,
	itemIndex: number,
): LittlePayResponse {
	const differences = differingFields(lookup.expected, found.data);
	if (differences.length > 0) {
		throw new NodeOperationError(
			context.getNode(),
			`Item ${itemIndex}: Key "${lookup.key}" already belongs to a different ${what} (${differences.join('; ')})`,
			{
				itemIndex,
				description: `Little Pay keeps one ${what} per key and this item asks for another one. Use a new key for a new ${what}, or correct the item if it is the same one.`,
			},
		);
	}
	return found;
}

/**
 * Creates something that moves money, exactly once. In a retried execution the key is looked up
 * first. Then it is sent once; a 409 (the key exists) is looked up and, when the record is the same
 * request, is the answer; an unknown outcome (no answer, or a server error) is looked up and only
 * resent when the lookup proves nothing exists. A record that differs from the request fails the item.
 */
export async function createOnce(
	context: IExecuteFunctions,
	create: LittlePayRequest,
	lookup: CreateLookup | undefined,
	what: string,
): Promise<{ response: LittlePayResponse; outcome: CreateOutcome }> {
	const { itemIndex } = create;
	if (lookup?.checkFirst) {
		const found = await recoveryRead(context, lookup.request, what);
		if (isSuccess(found)) {
			return { response: sameRequest(context, found, lookup, what, itemIndex), outcome: 'existed' };
		}
		if (found.statusCode !== 404) {
			throwUnknownOutcome(
				context,
				itemIndex,
				what,
				`the lookup of key ${lookup.key} answered HTTP ${found.statusCode}`,
				'Check the key in the dashboard before retrying.',
			);
		}
	}
	const first = await sendOnce(context, create);
	const firstAnswer = knownAnswer(first);
	if (firstAnswer && (firstAnswer.statusCode !== 409 || !lookup))
		return { response: firstAnswer, outcome: 'created' };
	if (!lookup) {
		throwUnknownOutcome(
			context,
			itemIndex,
			what,
			describeAnswer(first),
			`Check in the dashboard whether the ${what} exists before retrying.`,
		);
	}
	const found = await recoveryRead(context, lookup.request, what);
	if (isSuccess(found)) {
		return {
			response: sameRequest(context, found, lookup, what, itemIndex),
			outcome: firstAnswer ? 'existed' : 'recovered',
		};
	}
	if (found.statusCode !== 404 || firstAnswer) {
		throwUnknownOutcome(
			context,
			itemIndex,
			what,
			`lookup answered HTTP ${found.statusCode}`,
			'Check the key in the dashboard before retrying.',
		);
	}
	// The lookup proved nothing was created, so sending again cannot pay twice.
	const second = await sendOnce(context, create);
	const secondAnswer = knownAnswer(second);
	if (!secondAnswer) {
		throwUnknownOutcome(
			context,
			itemIndex,
			what,
			describeAnswer(second),
			`Little Pay failed to answer twice. Check in the dashboard whether the ${what} exists before retrying.`,
		);
	}
	return { response: secondAnswer, outcome: 'created' };
}

/**
 * The attempt that settles whether a payment of this provider was already asked for: the intent is
 * paid, or its latest attempt is of this provider (waiting, completed or failed). Undefined when a
 * new attempt may be sent.
 */
function existingAttempt(record: IDataObject, provider: unknown): IDataObject | undefined {
	const attempts = (Array.isArray(record.attempts) ? record.attempts : []) as IDataObject[];
	const latest = attempts[attempts.length - 1];
	if (record.status === 'COMPLETED') return { status: 'COMPLETED', provider: latest?.provider };
	if (latest && latest.provider === provider) return latest;
	return undefined;
}

/**
 * Sends POST /pay/{reference}/process once. An intent can be paid only once (Little Pay refuses a
 * second payment), and a payer must be asked only once: when the outcome is unknown, or before
 * sending when `checkFirst` is set (the intent existed already), the status record decides. Paid,
 * or an attempt of this provider waiting or settled, means it was asked for; otherwise it is sent.
 */
export async function processOnce(
	context: IExecuteFunctions,
	itemIndex: number,
	reference: string,
	body: IDataObject,
	cardData = false,
	checkFirst = false,
): Promise<{ data: IDataObject; recovered: boolean; alreadyPrompted?: boolean }> {
	const statusRequest: LittlePayRequest = {
		credential: 'littlePayApiKeyApi',
		method: 'GET',
		path: paymentStatusPath(reference),
		itemIndex,
	};
	if (checkFirst) {
		const record = expectSuccess(
			context,
			await recoveryRead(context, statusRequest, 'payment'),
			itemIndex,
		);
		const attempt = existingAttempt(record, body.type);
		if (attempt) {
			const provider = attempt.provider ?? body.type;
			const message = `Not asked again: this intent already has a ${String(provider)} payment attempt (${String(attempt.status)})`;
			return {
				data: { status: attempt.status, message, provider, reference },
				recovered: false,
				alreadyPrompted: true,
			};
		}
	}
	const request: LittlePayRequest = {
		credential: 'littlePayApiKeyApi',
		method: 'POST',
		path: `/pay/${encodeURIComponent(reference)}/process`,
		body,
		itemIndex,
		cardData,
	};
	const firstAnswer = knownAnswer(await sendOnce(context, request));
	if (firstAnswer)
		return { data: expectSuccess(context, firstAnswer, itemIndex, cardData), recovered: false };
	const record = expectSuccess(
		context,
		await recoveryRead(context, statusRequest, 'payment'),
		itemIndex,
	);
	const attempt = existingAttempt(record, body.type);
	if (attempt) {
		const message = 'Recovered from the status record (the first answer was lost)';
		return {
			data: { status: attempt.status, message, provider: body.type, reference },
			recovered: true,
		};
	}
	const second = await sendOnce(context, request);
	const secondAnswer = knownAnswer(second);
	if (!secondAnswer)
		throwUnknownOutcome(
			context,
			itemIndex,
			'payment',
			describeAnswer(second),
			'Check the payment status before trying again',
		);
	return { data: expectSuccess(context, secondAnswer, itemIndex, cardData), recovered: false };
}

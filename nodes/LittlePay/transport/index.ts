import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, IHttpRequestMethods, JsonObject } from 'n8n-workflow';

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

/** Turns a Little Pay error answer into a NodeApiError with the gateway's message and a hint. */
export function throwGatewayError(context: IExecuteFunctions, response: LittlePayResponse, itemIndex: number): never {
	const message = typeof response.data.message === 'string' ? response.data.message : `HTTP ${response.statusCode}`;
	throw new NodeApiError(context.getNode(), response.data as JsonObject, {
		message: `Little Pay: ${message}`,
		description: HINTS[response.statusCode] ?? 'Little Pay answered with an error; try again later',
		httpCode: String(response.statusCode),
		itemIndex,
	});
}

async function baseUrlFor(context: IExecuteFunctions, request: LittlePayRequest): Promise<string> {
	const credentials = await context.getCredentials(request.credential, request.itemIndex);
	const base = request.disbursement && credentials.disbursementBaseUrl ? credentials.disbursementBaseUrl : credentials.baseUrl;
	return String(base ?? 'https://pay.little.africa').replace(/\/+$/, '');
}

/** Sends one request and returns the status code with the envelope's data, never retrying. */
export async function sendOnce(context: IExecuteFunctions, request: LittlePayRequest): Promise<LittlePayResponse | LostAnswer> {
	const baseUrl = await baseUrlFor(context, request);
	let response: { statusCode: number; body: unknown };
	try {
		response = (await context.helpers.httpRequestWithAuthentication.call(context, request.credential, {
			method: request.method,
			url: `${baseUrl}${request.path}`,
			body: request.body,
			qs: request.qs,
			json: true,
			timeout: request.timeoutMs ?? 30000,
			ignoreHttpStatusErrors: true,
			returnFullResponse: true,
			abortSignal: context.getExecutionCancelSignal(),
		})) as { statusCode: number; body: unknown };
	} catch (error) {
		if (context.getExecutionCancelSignal()?.aborted) {
			throw new NodeOperationError(context.getNode(), 'Execution cancelled', { itemIndex: request.itemIndex });
		}
		return { lost: true, reason: error instanceof Error ? error.message : String(error) };
	}
	const body = (response.body ?? {}) as IDataObject;
	const data = (typeof body.data === 'object' && body.data !== null ? body.data : body) as IDataObject;
	return { statusCode: response.statusCode, data };
}

/** Reads from Little Pay, retrying 429, 5xx and lost answers with backoff (reads are safe to repeat). */
export async function readLittlePay(context: IExecuteFunctions, request: LittlePayRequest, attempts = 3): Promise<LittlePayResponse> {
	for (let attempt = 1; ; attempt++) {
		const result = await sendOnce(context, request);
		if (isLost(result)) {
			if (attempt >= attempts) {
				throw new NodeOperationError(context.getNode(), `Item ${request.itemIndex}: Little Pay did not answer (${result.reason})`, {
					itemIndex: request.itemIndex,
					description: 'Check the Base URL in the credentials and that Little Pay is reachable, then try again',
				});
			}
		} else if (!(result.statusCode === 429 || result.statusCode >= 500) || attempt >= attempts) {
			return result;
		}
		if (context.getExecutionCancelSignal()?.aborted) {
			throw new NodeOperationError(context.getNode(), 'Execution cancelled', { itemIndex: request.itemIndex });
		}
		await sleep(250 * 2 ** (attempt - 1));
	}
}

/** Returns data of a 2xx answer, or throws the mapped gateway error. */
export function expectSuccess(context: IExecuteFunctions, response: LittlePayResponse, itemIndex: number): IDataObject {
	if (response.statusCode < 200 || response.statusCode >= 300) throwGatewayError(context, response, itemIndex);
	return response.data;
}

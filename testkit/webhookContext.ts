import { EventEmitter } from 'node:events';
import { sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';

import axios from 'axios';
import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { LittlePayTrigger } from '../nodes/LittlePay/LittlePayTrigger.node';

export interface FakeRequest {
	headers: Record<string, string | string[] | undefined>;
	rawBody?: Buffer;
	query?: Record<string, string>;
}

export interface WebhookCall {
	result: IWebhookResponseData;
	/** Status and body the handler wrote itself (refusals); undefined when n8n answers with webhookResponse. */
	response: { status?: number; body?: unknown; headers?: Record<string, string> };
	started: boolean;
	/** For `recording: 'later'`: n8n's answer after recording the execution (true) or failing to (false). */
	finishRecording: (recorded: boolean) => Promise<void>;
}

/**
 * What n8n 2.x does after webhook() returns workflow data: record the execution, then answer 200
 * ('recorded', and the execution runs the trigger's execute()), or answer 500 ('fails', e.g. the
 * database refused the write), or neither yet ('later': the test calls finishRecording itself).
 */
export type Recording = 'recorded' | 'fails' | 'later';

export interface TriggerState {
	staticData: IDataObject;
	workflowId: string;
	statusRecords?: Record<string, IDataObject>;
	statusCalls: string[];
	/** The API key credential selected on the trigger (its Base URL), or none. */
	credential?: { baseUrl: string; payerDetails?: string; matchingSecret?: string; apiKey?: string };
	/** n8n's execution mode: 'manual' while someone tests (Execute step), else 'webhook'. */
	mode?: 'manual' | 'webhook';
	/** The workflow's time zone (n8n's GENERIC_TIMEZONE unless the workflow sets one); UTC unset. */
	timezone?: string;
	/** The trigger's Production URL as n8n builds it from WEBHOOK_URL. */
	productionUrl?: string;
	/** Gateways' published keys by base URL; a URL not listed answers 404, 'down' cannot be reached. */
	gatewayKeys?: Record<string, string | 'down'>;
	keyFetches?: string[];
	/** Warnings execute() showed in the output panel (n8n's execution hints). */
	hints?: string[];
	/** What execute() did with the items of the recorded execution: its outputs, or the error it threw. */
	executed?: { outputs?: unknown[][]; error?: { message: string; description?: string } };
}

/** Creates the per-trigger state that n8n keeps between calls (static data, workflow id). */
export function newTriggerState(statusRecords?: Record<string, IDataObject>): TriggerState {
	return {
		staticData: {},
		workflowId: `wf-${Math.random().toString(36).slice(2)}`,
		statusRecords,
		statusCalls: [],
		keyFetches: [],
	};
}

/** The trigger node as n8n hands it to the node's methods. */
function triggerNode(typeVersion: number, state?: TriggerState) {
	return {
		id: 'trigger-node',
		name: 'Little Pay Trigger',
		type: 'n8n-nodes-littlepay.littlePayTrigger',
		typeVersion,
		...(state?.credential
			? { credentials: { littlePayApiKeyApi: { id: 'cred-1', name: 'Little Pay (API key)' } } }
			: {}),
	};
}

/**
 * Calls the trigger's webhook() the way n8n does, with the given parameters and request; `trigger` may come
 * from another copy of the module (another n8n process, with its own process memory).
 */
export async function callWebhook(
	state: TriggerState,
	params: IDataObject,
	request: FakeRequest,
	typeVersion = 2,
	trigger: Pick<LittlePayTrigger, 'webhook' | 'execute'> = new LittlePayTrigger(),
	recording: Recording = 'recorded',
): Promise<WebhookCall> {
	const response: WebhookCall['response'] = {};
	const res = Object.assign(new EventEmitter(), {
		statusCode: 200,
		status(code: number) {
			response.status = code;
			res.statusCode = code;
			return res;
		},
		setHeader(name: string, value: string) {
			response.headers = { ...response.headers, [name.toLowerCase()]: value };
			return res;
		},
		json(body: unknown) {
			response.body = body;
			res.emit('finish');
			res.emit('close');
			return res;
		},
	});
	// What n8n fills in for a parameter the workflow does not set: the trigger's own defaults.
	const defaults = triggerDefaults();
	const context = {
		getRequestObject: () => ({
			headers: request.headers,
			rawBody: request.rawBody,
			query: request.query ?? {},
		}),
		getResponseObject: () => res,
		getNodeParameter: (name: string, fallback?: unknown) =>
			name in params ? params[name] : name in defaults ? defaults[name] : fallback,
		getWorkflowStaticData: () => state.staticData,
		getWorkflow: () => ({ id: state.workflowId, active: true }),
		getNode: () => triggerNode(typeVersion, state),
		getMode: () => state.mode ?? 'webhook',
		getTimezone: () => state.timezone ?? 'UTC',
		getNodeWebhookUrl: () =>
			state.productionUrl ?? `http://localhost:5678/webhook/${state.workflowId}/littlepay`,
		getCredentials: async () => ({
			apiKey: 'k',
			...state.credential,
			baseUrl: state.credential?.baseUrl ?? 'http://127.0.0.1:1',
		}),
		helpers: {
			httpRequestWithAuthentication: async (_type: string, options: { url: string }) => {
				if (options.url.endsWith('/sandbox/public-key')) {
					(state.keyFetches ??= []).push(options.url);
					const baseUrl = options.url.slice(0, -'/sandbox/public-key'.length);
					// Without a map, the gateway is real (the sandbox): asked over HTTP.
					if (!state.gatewayKeys) {
						const res = await axios.get(options.url, { validateStatus: () => true });
						return { statusCode: res.status, body: res.data as unknown };
					}
					const key = state.gatewayKeys[baseUrl];
					if (key === 'down') throw new Error('connect ECONNREFUSED');
					return key
						? { statusCode: 200, body: { data: { publicKeyPem: key } } }
						: { statusCode: 404, body: { data: { message: 'not found' } } };
				}
				state.statusCalls.push(options.url);
				// Without records, a credential with an API key reads the gateway's (the sandbox's) own.
				if (!state.statusRecords && state.credential?.apiKey) {
					const res = await axios.get(options.url, {
						headers: { 'X-API-KEY': state.credential.apiKey },
						validateStatus: () => true,
					});
					return { statusCode: res.status, body: res.data as unknown };
				}
				const reference = decodeURIComponent(options.url.split('/').pop() ?? '');
				const record = state.statusRecords?.[reference];
				return record
					? { statusCode: 200, body: { date: new Date().toISOString(), data: record } }
					: { statusCode: 404, body: { data: { message: 'not found' } } };
			},
		},
	} as unknown as IWebhookFunctions;
	const result = await trigger.webhook.call(context);
	const started = (result.workflowData?.[0]?.length ?? 0) > 0;
	let answered = false;
	/** n8n's answer: 200 after recording (then the execution runs), or 500 when recording failed. */
	const finishRecording = async (recorded: boolean) => {
		if (answered) return;
		answered = true;
		res.statusCode = recorded ? 200 : 500;
		res.emit('finish');
		res.emit('close');
		if (recorded && started) await runTriggerExecution(state, params, trigger, result, typeVersion);
	};
	if (!started && response.status === undefined) {
		// No execution: n8n sends webhookResponse at once.
		await finishRecording(true);
	} else if (started && recording !== 'later') {
		await finishRecording(recording === 'recorded');
	}
	return { result, response, started, finishRecording };
}

/** Runs the trigger node's execute() as n8n's engine does inside the recorded execution. */
async function runTriggerExecution(
	state: TriggerState,
	params: IDataObject,
	trigger: Pick<LittlePayTrigger, 'execute'>,
	result: IWebhookResponseData,
	typeVersion: number,
): Promise<void> {
	const context = {
		getInputData: () => result.workflowData?.[0] ?? [],
		getWorkflowStaticData: () => state.staticData,
		getWorkflow: () => ({ id: state.workflowId, active: true }),
		getNode: () => triggerNode(typeVersion, state),
		getNodeParameter: (name: string, _index: number, fallback?: unknown) =>
			name in params ? params[name] : fallback,
		getCredentials: async () => ({
			apiKey: 'k',
			...state.credential,
			baseUrl: state.credential?.baseUrl ?? 'http://127.0.0.1:1',
		}),
		addExecutionHints: (...hints: Array<{ message: string }>) =>
			(state.hints ??= []).push(...hints.map((h) => h.message)),
	} as unknown as IExecuteFunctions;
	try {
		state.executed = { outputs: await trigger.execute.call(context) };
	} catch (error) {
		const e = error as { message: string; description?: string };
		state.executed = { error: { message: e.message, description: e.description } };
	}
}

/** A callback request as Little Pay sends it: the raw body, signed over `<timestamp>.<body>` with `privateKey`. */
export function signedCallback(body: object, privateKey: KeyObject, ageSeconds = 0): FakeRequest {
	const raw = JSON.stringify(body);
	const timestamp = String(Math.floor(Date.now() / 1000) - ageSeconds);
	const signature = sign('sha256', Buffer.from(`${timestamp}.${raw}`), privateKey);
	return {
		headers: {
			'x-littlepay-timestamp': timestamp,
			'x-littlepay-signature': signature.toString('base64'),
		},
		rawBody: Buffer.from(raw),
	};
}

/** The trigger's top-level parameter defaults, as n8n fills them in (Options holds the tolerance's). */
export function triggerDefaults(): IDataObject {
	const defaults: IDataObject = { options: { toleranceSeconds: 300 } };
	for (const property of new LittlePayTrigger().description.properties)
		if (property.type !== 'notice' && property.name !== 'options')
			defaults[property.name] = property.default as IDataObject[string];
	return defaults;
}

/** Calls one of the trigger's activation methods (checkExists, create, delete) the way n8n does. */
export async function callHookMethod(
	state: TriggerState,
	method: 'checkExists' | 'create' | 'delete',
	parameters: Record<string, unknown> = {},
): Promise<boolean> {
	const context = {
		getWorkflowStaticData: () => state.staticData,
		getNodeParameter: (name: string, fallback?: unknown) =>
			parameters[name] ?? triggerDefaults()[name] ?? fallback,
		getWorkflow: () => ({ id: state.workflowId, active: true }),
		getNode: () => ({
			id: 'trigger-node',
			name: 'Little Pay Trigger',
			type: 'n8n-nodes-littlepay.littlePayTrigger',
			...(state.credential
				? { credentials: { littlePayApiKeyApi: { id: 'cred-1', name: 'Little Pay (API key)' } } }
				: {}),
		}),
	} as unknown as IHookFunctions;
	return await new LittlePayTrigger().webhookMethods.default[method].call(context);
}

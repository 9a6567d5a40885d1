import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { gatewayOfBaseUrl } from '../helpers/gateway';
import type { GatewayName } from '../helpers/gateway';
import type { PayerSettings } from '../helpers/payerData';
import { baseUrlOf, payerSettingsOf } from './credential';
import { isRedirect, redirectError } from './redirect';

// What a webhook call (the trigger, a resumed pause) reads from Little Pay, with the API key
// credential as n8n reads it for the call.

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

/**
 * From a webhook call (the trigger, the pause): the gateway the API key credential points at, whose
 * key verifies callbacks; Little Pay's when no credential is selected (its published key verifies).
 */
export async function webhookGateway(context: IWebhookFunctions): Promise<GatewayName> {
	if (!context.getNode().credentials?.littlePayApiKeyApi) return 'littlepay';
	return gatewayOfBaseUrl(baseUrlOf(await webhookCredential(context)));
}

/** From a webhook call: the payer-details setting of the API key credential (the default without one). */
export async function webhookPayerSettings(context: IWebhookFunctions): Promise<PayerSettings> {
	if (!context.getNode().credentials?.littlePayApiKeyApi) return payerSettingsOf(undefined);
	return payerSettingsOf(await webhookCredential(context));
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

/**
 * One GET of a URL from a webhook call, with the API key credential; never retried, and a redirect
 * is refused, never followed (it would carry the key elsewhere and take another host's answer).
 */
export async function getFromWebhook(
	context: IWebhookFunctions,
	url: string,
	timeout: number,
): Promise<{ statusCode: number; body: unknown }> {
	const response = (await context.helpers.httpRequestWithAuthentication.call(
		context,
		'littlePayApiKeyApi',
		{
			method: 'GET',
			url,
			json: true,
			timeout,
			ignoreHttpStatusErrors: true,
			returnFullResponse: true,
			disableFollowRedirect: true,
		},
	)) as { statusCode: number; body: unknown; headers?: IDataObject };
	if (isRedirect(response.statusCode))
		throw redirectError(context.getNode(), response, { method: 'GET', url, field: 'Base URL' });
	return { statusCode: response.statusCode, body: response.body };
}

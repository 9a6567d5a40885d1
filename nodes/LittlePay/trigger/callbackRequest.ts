import type { IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { LITTLE_PAY_PUBLIC_KEY_PEM, verifyCallbackSignature } from '../helpers/callbackSignature';
import type { SignatureCheck } from '../helpers/callbackSignature';

/** The callback's body exactly as received: signatures are over these bytes, not re-serialised JSON. */
export async function rawCallbackBody(context: IWebhookFunctions): Promise<Buffer | undefined> {
	const req = context.getRequestObject();
	if (req.rawBody === undefined && typeof req.readRawBody === 'function') await req.readRawBody();
	return req.rawBody;
}

/**
 * Answers a refused callback with a JSON status; nothing starts or resumes. `retryAfterSeconds` tells
 * the gateway when to deliver again, for refusals that are only "not now".
 */
export function refuseCallback(
	context: IWebhookFunctions,
	status: number,
	reason: string,
	retryAfterSeconds?: number,
): IWebhookResponseData {
	const res = context.getResponseObject();
	if (retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(retryAfterSeconds));
	res.status(status).json({ received: false, error: reason });
	return { noWebhookResponse: true };
}

/** Verifies a callback's signature with the node's Public Key and Timestamp Tolerance parameters. */
export function checkCallbackSignature(
	context: IWebhookFunctions,
	rawBody: Buffer,
): SignatureCheck {
	const headers = context.getRequestObject().headers;
	return verifyCallbackSignature({
		rawBody,
		timestampHeader: headers['x-littlepay-timestamp'],
		signatureHeader: headers['x-littlepay-signature'],
		publicKeyPem: context.getNodeParameter('publicKey', LITTLE_PAY_PUBLIC_KEY_PEM) as string,
		toleranceSeconds: context.getNodeParameter('toleranceSeconds', 300) as number,
	});
}

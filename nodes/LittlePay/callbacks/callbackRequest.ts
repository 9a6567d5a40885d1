import type {
	IDataObject,
	INodeProperties,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { LITTLE_PAY_PUBLIC_KEY_PEM, verifyCallbackSignature } from './signature';
import type { SignatureCheck } from './signature';

/** The verification options the trigger and the pause share: the key signatures verify against, and the replay window. */
export const signatureOptionFields: INodeProperties[] = [
	{
		displayName: 'Public Key',
		name: 'publicKey',
		type: 'string',
		typeOptions: { rows: 6 },
		default: LITTLE_PAY_PUBLIC_KEY_PEM,
		description:
			"Little Pay's published RSA public key (PEM) that callback signatures must verify against, used unless you add this option. Set it after a key rotation, or to the sandbox's publicKeyPem.",
	},
	{
		displayName: 'Timestamp Tolerance (Seconds)',
		name: 'toleranceSeconds',
		type: 'number',
		typeOptions: { minValue: 1 },
		default: 300,
		description:
			'How far X-LittlePay-Timestamp may be from now; older or newer callbacks are refused as replays',
	},
];

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

/**
 * Verifies a callback's signature with the Public Key and Timestamp Tolerance of the node's Options
 * collection (the trigger's, or the pause's); unset, they are Little Pay's key and 300 seconds.
 */
export function checkCallbackSignature(
	context: IWebhookFunctions,
	rawBody: Buffer,
): SignatureCheck {
	const headers = context.getRequestObject().headers;
	const options = (context.getNodeParameter('options', {}) ?? {}) as IDataObject;
	const publicKey = typeof options.publicKey === 'string' ? options.publicKey.trim() : '';
	return verifyCallbackSignature({
		rawBody,
		timestampHeader: headers['x-littlepay-timestamp'],
		signatureHeader: headers['x-littlepay-signature'],
		publicKeyPem: publicKey === '' ? LITTLE_PAY_PUBLIC_KEY_PEM : publicKey,
		toleranceSeconds: (options.toleranceSeconds as number | undefined) ?? 300,
	});
}

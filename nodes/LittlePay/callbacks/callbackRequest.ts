import type {
	IDataObject,
	INodeProperties,
	NodeParameterValue,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import {
	LITTLE_PAY_PUBLIC_KEY_PEM,
	sameKey,
	verifyCallbackSignature,
	verifyWithRotation,
} from './signature';
import type { PreviousKey, RotationCheck, SignatureFailure, SignatureInput } from './signature';
import { callbackPublicKey } from './publicKey';
import { momentIn } from '../helpers/wallTime';
import type { KeySource } from './publicKey';
import type { GatewayName } from '../helpers/gateway';

/** The verification options the trigger and the pause share: the key signatures verify against, and the replay window. */
export const signatureOptionFields: INodeProperties[] = [
	{
		displayName: 'Public Key',
		name: 'publicKey',
		type: 'string',
		typeOptions: { rows: 6 },
		default: '',
		placeholder: '-----BEGIN PUBLIC KEY-----',
		hint: "Empty: the key of the gateway the API key credential points at (the sandbox's own, or Little Pay's published key)",
		description:
			"RSA public key (PEM) that callback signatures must verify against. Leave it empty: the node then uses Little Pay's published key, or the local sandbox's key when the credential's Base URL is the sandbox. Paste a key only after Little Pay announces a rotation.",
	},
	{
		displayName: 'Previous Public Key',
		name: 'previousPublicKey',
		type: 'string',
		typeOptions: { rows: 6 },
		default: '',
		placeholder: '-----BEGIN PUBLIC KEY-----',
		hint: 'During a key rotation: callbacks signed with this old key still verify until Accept Previous Key Until, and are refused after it',
		description:
			'The key Little Pay signed with before a rotation it announced. Callbacks in flight during the switch are signed with it; each item says which key verified it (verifiedKey). Remove it once the date has passed.',
	},
	{
		displayName: 'Accept Previous Key Until',
		name: 'previousKeyUntil',
		type: 'dateTime',
		default: '',
		description:
			'Last moment a callback signed with the Previous Public Key is accepted (the time zone of n8n); empty accepts none. After it such callbacks are refused as previous-key-expired.',
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

/**
 * A notice shown while Options > Public Key holds a pasted key (`show` adds the conditions of the
 * panel it sits in): the panel cannot read the credential, so it says what the pasted key does to a
 * credential pointing at Little Pay. The run says it again when that is the case (pastedKeyWarning).
 */
export function pastedKeyNotice(show: Record<string, NodeParameterValue[]> = {}): INodeProperties {
	return {
		displayName:
			"Options > Public Key is set: callbacks must verify against this pasted key, whichever gateway the API key credential points at. With a credential pointing at Little Pay (https://pay.little.africa) leave it empty: Little Pay's published key is used, and switching the credential between the sandbox and Little Pay needs no edit here.",
		name: 'pastedKeyNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { ...show, '/options.publicKey': [{ _cnd: { exists: true } }] } },
	};
}

/**
 * What a run says when a pasted Public Key differs from Little Pay's published key while the API key
 * credential points at Little Pay: real callbacks are signed with the published key, so every one of
 * them would be refused. Undefined when there is nothing to say.
 */
export function pastedKeyWarning(
	pastedPem: unknown,
	gateway: GatewayName | undefined,
): string | undefined {
	const pasted = typeof pastedPem === 'string' ? pastedPem.trim() : '';
	if (gateway !== 'littlepay' || pasted === '' || sameKey(pasted, LITTLE_PAY_PUBLIC_KEY_PEM))
		return undefined;
	return 'Options > Public Key holds a pasted key while the API key credential points at Little Pay: Little Pay signs with its published key, so callbacks that do not verify against the pasted one are refused. Empty Options > Public Key unless Little Pay has announced a new key.';
}

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

/** Which key verified a callback: Little Pay's published key, the sandbox's (fetched from the credential's gateway), Options > Public Key, or Options > Previous Public Key during a rotation. */
export type VerifiedKey = 'published' | 'gateway' | 'pasted' | 'previous';

const KEY_NAMES: Record<KeySource, VerifiedKey> = {
	option: 'pasted',
	gateway: 'gateway',
	published: 'published',
};

/** Why a callback could not be checked or did not verify, or which key verified it. */
export type CallbackSignatureCheck =
	| { ok: true; timestamp: number; verifiedKey: VerifiedKey }
	| {
			ok: false;
			reason:
				| SignatureFailure
				| 'previous-key-expired'
				| 'previous-key-until-unreadable'
				| 'public-key-unavailable';
	  };

/**
 * The previous key of a rotation from the Options, or undefined when none is set. Accept Previous Key
 * Until is read in the workflow's time zone (`timeZone`, asked only for a date without an offset), as
 * the field says, not in the process's; a date it cannot read without guessing accepts nothing.
 */
export function previousKeyOf(
	options: IDataObject,
	timeZone: () => string,
): PreviousKey | undefined {
	const pem = typeof options.previousPublicKey === 'string' ? options.previousPublicKey.trim() : '';
	if (pem === '') return undefined;
	const until = options.previousKeyUntil;
	const text = until === undefined || until === null ? '' : String(until).trim();
	if (text === '') return { publicKeyPem: pem, acceptUntilMs: NaN };
	const acceptUntilMs = momentIn(text, timeZone);
	return { publicKeyPem: pem, acceptUntilMs, unreadableUntil: Number.isNaN(acceptUntilMs) };
}

/**
 * Verifies a callback's signature with the key callbackPublicKey picks (Options > Public Key, else the
 * key of the gateway the API key credential points at, else Little Pay's published key), during a
 * rotation also with Options > Previous Public Key until Accept Previous Key Until, and the Options'
 * Timestamp Tolerance (300 seconds unset). A signature that does not verify against a key fetched
 * from the gateway is checked once more against the gateway's current key: a sandbox started again
 * signs with a new one. Says which key verified it.
 */
export async function checkCallbackSignature(
	context: IWebhookFunctions,
	rawBody: Buffer,
	options: IDataObject,
): Promise<CallbackSignatureCheck> {
	const headers = context.getRequestObject().headers;
	const input = (publicKeyPem: string): SignatureInput => ({
		rawBody,
		timestampHeader: headers['x-littlepay-timestamp'],
		signatureHeader: headers['x-littlepay-signature'],
		publicKeyPem,
		toleranceSeconds: (options.toleranceSeconds as number | undefined) ?? 300,
	});
	const previous = previousKeyOf(options, () => context.getTimezone());
	const named = (check: RotationCheck, source: KeySource): CallbackSignatureCheck =>
		check.ok
			? {
					ok: true,
					timestamp: check.timestamp,
					verifiedKey: check.keyUsed === 'previous' ? 'previous' : KEY_NAMES[source],
				}
			: check;
	// A request without a usable signature is refused before any key is looked up.
	const shape = verifyCallbackSignature(input(LITTLE_PAY_PUBLIC_KEY_PEM));
	if (!shape.ok && shape.reason !== 'bad-signature') return shape;
	const key = await callbackPublicKey(context, options);
	if (!key?.ok) return { ok: false, reason: 'public-key-unavailable' };
	const check = verifyWithRotation(input(key.pem), previous);
	if (check.ok || check.reason !== 'bad-signature' || key.source !== 'gateway')
		return named(check, key.source);
	const newer = await callbackPublicKey(context, options, true);
	return newer?.ok ? named(verifyWithRotation(input(newer.pem), previous), newer.source) : check;
}

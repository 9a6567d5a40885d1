import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { isLittlePayHost } from '../helpers/gateway';
import { getFromWebhook, webhookBaseUrl } from '../transport';
import { LITTLE_PAY_PUBLIC_KEY_PEM, parsePublicKey } from './signature';

/**
 * Where a gateway other than Little Pay's (the local sandbox) publishes the public key it signs
 * callbacks with. Little Pay itself publishes its key in its documentation, not at an address.
 */
export const GATEWAY_SIGNER_PATH = '/sandbox/public-key';

/** How long a fetched key is used before it is fetched again. */
export const KEY_TTL_MS = 10 * 60_000;

/**
 * How soon after a fetch a signature that does not verify may fetch the key again: a sandbox started
 * again signs with a new key, and forged calls must not turn into one fetch each.
 */
export const KEY_REFETCH_AFTER_MS = 10_000;

/** Where the key a callback is checked against came from: the node's Options, the credential's gateway, or Little Pay's published key. */
export type KeySource = 'option' | 'gateway' | 'published';

export type CallbackKey =
	| { ok: true; pem: string; source: KeySource; baseUrl?: string }
	| { ok: false; reason: 'public-key-unavailable'; baseUrl: string };

/** Keys fetched from gateways, by base URL, in this n8n process. */
const fetched = new Map<string, { pem: string; at: number }>();

/** Forgets every fetched key (tests). */
export function forgetFetchedKeys(): void {
	fetched.clear();
}

/** Asks the gateway for the key it signs with; undefined when it publishes none (404, no PEM). */
async function fetchGatewayKey(
	context: IWebhookFunctions,
	baseUrl: string,
): Promise<string | undefined> {
	const response = await getFromWebhook(context, `${baseUrl}${GATEWAY_SIGNER_PATH}`, 5000);
	if (response.statusCode < 200 || response.statusCode >= 300) return undefined;
	const body = (response.body ?? {}) as IDataObject;
	const data = (
		typeof body.data === 'object' && body.data !== null ? body.data : {}
	) as IDataObject;
	const pem = typeof data.publicKeyPem === 'string' ? data.publicKeyPem : undefined;
	return pem !== undefined && parsePublicKey(pem) !== undefined ? pem : undefined;
}

/** Key fetches on their way, by base URL: a burst of first callbacks shares one fetch. */
const fetching = new Map<string, Promise<string | undefined>>();

/** Fetches a gateway's key once however many callbacks ask for it at the same time. */
async function fetchGatewayKeyOnce(
	context: IWebhookFunctions,
	baseUrl: string,
): Promise<string | undefined> {
	let pending = fetching.get(baseUrl);
	if (!pending) {
		pending = fetchGatewayKey(context, baseUrl).finally(() => fetching.delete(baseUrl));
		fetching.set(baseUrl, pending);
	}
	return await pending;
}

/**
 * The key a callback's signature must verify against. Options > Public Key wins when set. Otherwise
 * the gateway the node's API key credential points at decides: Little Pay's live host (or no
 * credential) means Little Pay's published key; another gateway (the local sandbox) is asked for
 * the key it signs with, at its own address, so a new trigger verifies the sandbox's callbacks with
 * nothing pasted. A gateway that publishes no key is taken to sign with Little Pay's; one that
 * cannot be reached gives no key, and the callback is refused with "not now" (503).
 * `refresh` fetches again a key fetched more than KEY_REFETCH_AFTER_MS ago (a signature that did
 * not verify against it); it returns undefined when there is nothing newer to try.
 */
export async function callbackPublicKey(
	context: IWebhookFunctions,
	options: IDataObject,
	refresh = false,
): Promise<CallbackKey | undefined> {
	const option = typeof options.publicKey === 'string' ? options.publicKey.trim() : '';
	if (option !== '') return refresh ? undefined : { ok: true, pem: option, source: 'option' };
	if (!context.getNode().credentials?.littlePayApiKeyApi) {
		return refresh ? undefined : { ok: true, pem: LITTLE_PAY_PUBLIC_KEY_PEM, source: 'published' };
	}
	const baseUrl = await webhookBaseUrl(context);
	if (isLittlePayHost(baseUrl)) {
		return refresh ? undefined : { ok: true, pem: LITTLE_PAY_PUBLIC_KEY_PEM, source: 'published' };
	}
	const now = Date.now();
	const cached = fetched.get(baseUrl);
	if (refresh && (!cached || now - cached.at < KEY_REFETCH_AFTER_MS)) return undefined;
	if (!refresh && cached && now - cached.at < KEY_TTL_MS) {
		return { ok: true, pem: cached.pem, source: 'gateway', baseUrl };
	}
	let pem: string | undefined;
	try {
		pem = (await fetchGatewayKeyOnce(context, baseUrl)) ?? LITTLE_PAY_PUBLIC_KEY_PEM;
	} catch {
		// Not reachable now: no key to check with, so the callback is refused as "not now".
		if (cached)
			return refresh ? undefined : { ok: true, pem: cached.pem, source: 'gateway', baseUrl };
		return { ok: false, reason: 'public-key-unavailable', baseUrl };
	}
	fetched.set(baseUrl, { pem, at: now });
	if (refresh && cached && cached.pem === pem) return undefined;
	return {
		ok: true,
		pem,
		source: pem === LITTLE_PAY_PUBLIC_KEY_PEM ? 'published' : 'gateway',
		baseUrl,
	};
}

import { createPublicKey, verify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';

/** Little Pay's published RSA public key (2048-bit, SPKI PEM) that signs payment callbacks. */
export const LITTLE_PAY_PUBLIC_KEY_PEM = `-----BEGIN PUBLIC KEY-----
MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAlU1L1fPzOO9Y3qFsP9K+
0iqCrN9xpDf/SG7a9O2Ma8mJSpvxpBq2lyjP0ncJiBCqgjMEIQIqWr4fbG7gErJp
MuKobiuGo9zS+CpjCY9tJxQgfx7fAGkL1sKN0E1UR9NqQmIAOEfPLCEbIRDC6n0F
1wpTEPiixmdAsJKm1aWlftubOBQjMlJucnksoXK7LHd5Tc6Pne6UhFNgt24Nt2Tu
zYKeWVtqnlP3cw66FVytrPsynQuVN4s7iQai0HxD4loEuX19hrT2AAFZT5P6xRac
wzb/eBPp3yAa/96JFkG3AcUVrjtHlltNWQ9aWvbA9Qx2BNEEmhkzdWfN/ARwv4Wh
NQIDAQAB
-----END PUBLIC KEY-----`;

export type SignatureFailure =
	| 'missing-signature'
	| 'malformed-signature'
	| 'missing-timestamp'
	| 'malformed-timestamp'
	| 'stale-timestamp'
	| 'future-timestamp'
	| 'missing-raw-body'
	| 'bad-signature'
	| 'bad-public-key';

export type SignatureCheck =
	| { ok: true; timestamp: number }
	| { ok: false; reason: SignatureFailure };

export interface SignatureInput {
	rawBody: Buffer | string | undefined | null;
	timestampHeader: string | string[] | undefined;
	signatureHeader: string | string[] | undefined;
	publicKeyPem: string;
	toleranceSeconds: number;
	nowSeconds?: number;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const UNIX_SECONDS = /^\d{1,12}$/;

/** Returns the single value of a header, or undefined when it is absent or sent more than once. */
function singleHeader(value: string | string[] | undefined): string | undefined {
	if (Array.isArray(value)) return value.length === 1 ? value[0].trim() : undefined;
	return value === undefined ? undefined : value.trim();
}

/** Parses a PEM public key, or returns undefined when it is not one. */
export function parsePublicKey(publicKeyPem: string): KeyObject | undefined {
	for (const pem of [publicKeyPem.trim(), rewrappedPem(publicKeyPem)]) {
		try {
			const key = createPublicKey(pem);
			return key.asymmetricKeyType === 'rsa' ? key : undefined;
		} catch {
			// A key the user pasted wrongly is reported as 'bad-public-key', never thrown at the caller.
		}
	}
	return undefined;
}

/**
 * A pasted public key written again as PEM from its base64 alone: a key pasted on one line with its
 * BEGIN and END lines, or with its line ends lost, is still the same key.
 */
function rewrappedPem(text: string): string {
	const base64 = text.replace(/-----(BEGIN|END) PUBLIC KEY-----/g, '').replace(/\s+/g, '');
	const lines = base64.match(/.{1,64}/g) ?? [];
	return ['-----BEGIN PUBLIC KEY-----', ...lines, '-----END PUBLIC KEY-----'].join('\n');
}

/** Whether two pasted keys are the same key, however their PEM text is wrapped or line-ended. */
export function sameKey(a: string, b: string): boolean {
	const [x, y] = [parsePublicKey(a), parsePublicKey(b)];
	if (!x || !y) return false;
	return x
		.export({ type: 'spki', format: 'der' })
		.equals(y.export({ type: 'spki', format: 'der' }));
}

/**
 * Verifies a Little Pay callback signature: base64 RSA-SHA256 over `<timestamp>.<raw body>`.
 * Works on the raw bytes as received, because re-serialised JSON can differ byte for byte.
 * Never throws: hostile input yields a failure reason.
 */
export function verifyCallbackSignature(input: SignatureInput): SignatureCheck {
	const signature = singleHeader(input.signatureHeader);
	if (!signature) return { ok: false, reason: 'missing-signature' };
	if (!BASE64.test(signature) || signature.length % 4 !== 0) {
		return { ok: false, reason: 'malformed-signature' };
	}
	const timestampText = singleHeader(input.timestampHeader);
	if (!timestampText) return { ok: false, reason: 'missing-timestamp' };
	if (!UNIX_SECONDS.test(timestampText)) return { ok: false, reason: 'malformed-timestamp' };

	// The window bounds replays of a captured callback; the de-duplication memory covers the rest.
	const timestamp = Number(timestampText);
	const now = input.nowSeconds ?? Math.floor(Date.now() / 1000);
	if (timestamp < now - input.toleranceSeconds) return { ok: false, reason: 'stale-timestamp' };
	if (timestamp > now + input.toleranceSeconds) return { ok: false, reason: 'future-timestamp' };

	if (input.rawBody === undefined || input.rawBody === null) {
		return { ok: false, reason: 'missing-raw-body' };
	}
	const body =
		typeof input.rawBody === 'string' ? Buffer.from(input.rawBody, 'utf8') : input.rawBody;
	if (!Buffer.isBuffer(body)) return { ok: false, reason: 'missing-raw-body' };

	const key = parsePublicKey(input.publicKeyPem);
	if (!key) return { ok: false, reason: 'bad-public-key' };

	const signedPayload = Buffer.concat([Buffer.from(`${timestampText}.`, 'utf8'), body]);
	try {
		// RSA verification compares inside OpenSSL; no byte comparison of secrets happens here.
		const valid = verify('sha256', signedPayload, key, Buffer.from(signature, 'base64'));
		return valid ? { ok: true, timestamp } : { ok: false, reason: 'bad-signature' };
	} catch {
		// OpenSSL rejects signatures of the wrong length by throwing: that is a bad signature, not a crash.
		return { ok: false, reason: 'bad-signature' };
	}
}

/** A key a callback may still be signed with after a rotation, and until when it is accepted. */
export interface PreviousKey {
	publicKeyPem: string;
	/** Last moment (UNIX milliseconds) the key is accepted; NaN (no date set) accepts nothing. */
	acceptUntilMs: number;
	/** Whether a date was set that cannot be read without guessing (also accepts nothing). */
	unreadableUntil?: boolean;
}

/** Which key a callback verified against: the one in use, or the previous one during an overlap. */
export type KeyUsed = 'current' | 'previous';

export type RotationCheck =
	| { ok: true; timestamp: number; keyUsed: KeyUsed }
	| {
			ok: false;
			reason: SignatureFailure | 'previous-key-expired' | 'previous-key-until-unreadable';
	  };

/**
 * Verifies a callback against the current key and, during a rotation, a previous key until the date
 * the merchant set: callbacks signed before and during the switch keep verifying, and after the date
 * a callback only the old key verifies is refused as `previous-key-expired` (so the alert can say the
 * date passed, not that the call is forged). Never throws.
 */
export function verifyWithRotation(
	input: SignatureInput,
	previous: PreviousKey | undefined,
	nowMs: number = Date.now(),
): RotationCheck {
	const current = verifyCallbackSignature(input);
	if (current.ok) return { ...current, keyUsed: 'current' };
	if (current.reason !== 'bad-signature' || !previous || previous.publicKeyPem.trim() === '')
		return current;
	const old = verifyCallbackSignature({ ...input, publicKeyPem: previous.publicKeyPem });
	if (!old.ok) return current;
	// A missing date accepts nothing: an old key must never stay valid by oversight.
	if (previous.unreadableUntil === true)
		return { ok: false, reason: 'previous-key-until-unreadable' };
	if (!(nowMs <= previous.acceptUntilMs)) return { ok: false, reason: 'previous-key-expired' };
	return { ...old, keyUsed: 'previous' };
}

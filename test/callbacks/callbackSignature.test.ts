import { generateKeyPairSync, sign } from 'node:crypto';

import {
	LITTLE_PAY_PUBLIC_KEY_PEM,
	parsePublicKey,
	verifyCallbackSignature,
	verifyWithRotation,
} from '../../nodes/LittlePay/callbacks/signature';
import { pastedKeyWarning } from '../../nodes/LittlePay/callbacks/callbackRequest';

const gateway = generateKeyPairSync('rsa', { modulusLength: 2048 });
const attacker = generateKeyPairSync('rsa', { modulusLength: 2048 });
const publicKeyPem = gateway.publicKey.export({ type: 'spki', format: 'pem' }).toString();
const NOW = 1_790_000_000;

const rawBody = '{"reference":"LP-1","status":"COMPLETED","amount":100,  "key":"order12345"}';

function signWith(privateKey: typeof gateway.privateKey, timestamp: number, body: string): string {
	return sign('sha256', Buffer.from(`${timestamp}.${body}`), privateKey).toString('base64');
}

function check(overrides: Partial<Parameters<typeof verifyCallbackSignature>[0]> = {}) {
	return verifyCallbackSignature({
		rawBody,
		timestampHeader: String(NOW),
		signatureHeader: signWith(gateway.privateKey, NOW, rawBody),
		publicKeyPem,
		toleranceSeconds: 300,
		nowSeconds: NOW,
		...overrides,
	});
}

describe('verifyCallbackSignature', () => {
	it('accepts a callback signed by the gateway key, as a string or a Buffer', () => {
		expect(check()).toEqual({ ok: true, timestamp: NOW });
		expect(check({ rawBody: Buffer.from(rawBody) })).toEqual({ ok: true, timestamp: NOW });
	});

	it('refuses a signature made with another key', () => {
		expect(check({ signatureHeader: signWith(attacker.privateKey, NOW, rawBody) })).toEqual({
			ok: false,
			reason: 'bad-signature',
		});
	});

	it('refuses a tampered body', () => {
		expect(check({ rawBody: rawBody.replace('100', '100000') })).toEqual({
			ok: false,
			reason: 'bad-signature',
		});
	});

	it('refuses re-serialised JSON: only the raw bytes verify', () => {
		const reserialised = JSON.stringify(JSON.parse(rawBody));
		expect(reserialised).not.toBe(rawBody);
		expect(check({ rawBody: reserialised })).toEqual({ ok: false, reason: 'bad-signature' });
	});

	it('refuses stale and future timestamps even with a valid signature', () => {
		const old = NOW - 301;
		const future = NOW + 301;
		expect(
			check({
				timestampHeader: String(old),
				signatureHeader: signWith(gateway.privateKey, old, rawBody),
			}),
		).toEqual({ ok: false, reason: 'stale-timestamp' });
		expect(
			check({
				timestampHeader: String(future),
				signatureHeader: signWith(gateway.privateKey, future, rawBody),
			}),
		).toEqual({ ok: false, reason: 'future-timestamp' });
		const edge = NOW - 300;
		expect(
			check({
				timestampHeader: String(edge),
				signatureHeader: signWith(gateway.privateKey, edge, rawBody),
			}).ok,
		).toBe(true);
	});

	it('refuses a signature replayed with a different timestamp', () => {
		expect(check({ timestampHeader: String(NOW - 10) })).toEqual({
			ok: false,
			reason: 'bad-signature',
		});
	});

	it('names missing and malformed headers', () => {
		expect(check({ signatureHeader: undefined })).toEqual({
			ok: false,
			reason: 'missing-signature',
		});
		expect(check({ signatureHeader: 'not base64!' })).toEqual({
			ok: false,
			reason: 'malformed-signature',
		});
		expect(check({ signatureHeader: ['a', 'b'] })).toEqual({
			ok: false,
			reason: 'missing-signature',
		});
		expect(check({ timestampHeader: undefined })).toEqual({
			ok: false,
			reason: 'missing-timestamp',
		});
		expect(check({ timestampHeader: '2026-11-22T10:00:00Z' })).toEqual({
			ok: false,
			reason: 'malformed-timestamp',
		});
		expect(check({ signatureHeader: 'AAAA' })).toEqual({ ok: false, reason: 'bad-signature' });
	});

	it('refuses when the raw body is missing instead of trusting parsed JSON', () => {
		expect(check({ rawBody: undefined })).toEqual({ ok: false, reason: 'missing-raw-body' });
		expect(check({ rawBody: null })).toEqual({ ok: false, reason: 'missing-raw-body' });
	});

	it('reports a public key that is not an RSA PEM', () => {
		expect(check({ publicKeyPem: 'not a key' })).toEqual({ ok: false, reason: 'bad-public-key' });
	});

	it("ships Little Pay's published key as a usable 2048-bit RSA key", () => {
		const key = parsePublicKey(LITTLE_PAY_PUBLIC_KEY_PEM);
		expect(key?.asymmetricKeyDetails?.modulusLength).toBe(2048);
		expect(check({ publicKeyPem: LITTLE_PAY_PUBLIC_KEY_PEM })).toEqual({
			ok: false,
			reason: 'bad-signature',
		});
	});
});

describe('verifyWithRotation: a previous key accepted until a date', () => {
	const next = generateKeyPairSync('rsa', { modulusLength: 2048 });
	const nextPem = next.publicKey.export({ type: 'spki', format: 'pem' }).toString();
	const until = NOW * 1000 + 3600_000;
	// After the rotation the current key is the new one; the gateway's old key is the previous one.
	const previous = { publicKeyPem, acceptUntilMs: until };
	const signedBy = (key: typeof gateway.privateKey) => ({
		rawBody,
		timestampHeader: String(NOW),
		signatureHeader: signWith(key, NOW, rawBody),
		publicKeyPem: nextPem,
		toleranceSeconds: 300,
		nowSeconds: NOW,
	});

	it('accepts the new key as current and the old key as previous before the date', () => {
		expect(verifyWithRotation(signedBy(next.privateKey), previous, NOW * 1000)).toEqual({
			ok: true,
			timestamp: NOW,
			keyUsed: 'current',
		});
		expect(verifyWithRotation(signedBy(gateway.privateKey), previous, until)).toEqual({
			ok: true,
			timestamp: NOW,
			keyUsed: 'previous',
		});
	});

	it('refuses the old key after the date, and without a date, as previous-key-expired', () => {
		expect(verifyWithRotation(signedBy(gateway.privateKey), previous, until + 1)).toEqual({
			ok: false,
			reason: 'previous-key-expired',
		});
		expect(
			verifyWithRotation(
				signedBy(gateway.privateKey),
				{ publicKeyPem, acceptUntilMs: NaN },
				NOW * 1000,
			),
		).toEqual({ ok: false, reason: 'previous-key-expired' });
		// The new key is never affected by the date.
		expect(
			verifyWithRotation(signedBy(next.privateKey), previous, until + 86_400_000),
		).toMatchObject({
			ok: true,
			keyUsed: 'current',
		});
	});

	it('a forged signature stays bad-signature, whatever the previous key', () => {
		expect(verifyWithRotation(signedBy(attacker.privateKey), previous, NOW * 1000)).toEqual({
			ok: false,
			reason: 'bad-signature',
		});
		expect(
			verifyWithRotation(
				signedBy(gateway.privateKey),
				{ publicKeyPem: 'not a key', acceptUntilMs: until },
				NOW * 1000,
			),
		).toEqual({ ok: false, reason: 'bad-signature' });
	});

	it('never lets the previous key rescue a stale, unsigned or tampered call', () => {
		expect(
			verifyWithRotation(
				{ ...signedBy(gateway.privateKey), nowSeconds: NOW + 3600 },
				previous,
				NOW * 1000,
			),
		).toEqual({ ok: false, reason: 'stale-timestamp' });
		expect(
			verifyWithRotation({ ...signedBy(gateway.privateKey), signatureHeader: undefined }, previous),
		).toEqual({ ok: false, reason: 'missing-signature' });
		expect(
			verifyWithRotation(
				{ ...signedBy(gateway.privateKey), rawBody: rawBody.replace('100', '1000') },
				previous,
				NOW * 1000,
			),
		).toEqual({ ok: false, reason: 'bad-signature' });
	});

	it('without a previous key it is the plain verifier', () => {
		expect(verifyWithRotation(signedBy(gateway.privateKey), undefined, NOW * 1000)).toEqual({
			ok: false,
			reason: 'bad-signature',
		});
	});
});

describe('a pasted copy of a key is the key (payday red team #22)', () => {
	const base64 = (pem: string) =>
		pem.replace(/-----(BEGIN|END) PUBLIC KEY-----/g, '').replace(/\s+/g, '');
	const copies = (pem: string) => ({
		'CRLF line ends': pem.replace(/\n/g, '\r\n'),
		'the base64 on one line': `-----BEGIN PUBLIC KEY-----\n${base64(pem)}\n-----END PUBLIC KEY-----`,
		'everything on one line': `-----BEGIN PUBLIC KEY-----${base64(pem)}-----END PUBLIC KEY-----`,
		'spaces around it': `  \n${pem}\n\n `,
	});

	it.each(Object.entries(copies(LITTLE_PAY_PUBLIC_KEY_PEM)))(
		"Little Pay's own key with %s gets no 'not Little Pay's key' warning",
		(_how, pasted) => {
			expect(pastedKeyWarning(pasted, 'littlepay')).toBeUndefined();
		},
	);

	it('another key still gets the warning, and a broken paste too', () => {
		expect(pastedKeyWarning(publicKeyPem, 'littlepay')).toContain('holds a pasted key');
		expect(pastedKeyWarning(LITTLE_PAY_PUBLIC_KEY_PEM.slice(0, 200), 'littlepay')).toContain(
			'holds a pasted key',
		);
	});

	it.each(Object.entries(copies(publicKeyPem)))(
		'a callback verifies against a key pasted with %s',
		(_how, pasted) => {
			expect(check({ publicKeyPem: pasted })).toEqual({ ok: true, timestamp: NOW });
		},
	);
});

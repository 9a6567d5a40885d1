import { generateKeyPairSync, sign } from 'node:crypto';

import fc from 'fast-check';

import { verifyCallbackSignature } from '../../nodes/LittlePay/callbacks/signature';
import { callbackEventId, parseCallback } from '../../nodes/LittlePay/callbacks/callbackEvent';

const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
const NOW = 1_790_000_000;
const RUNS = 10000;

describe('signature verifier under 10,000 hostile inputs', () => {
	it('never throws and never accepts what the gateway did not sign', () => {
		fc.assert(
			fc.property(
				fc.oneof(
					fc.string(),
					fc.uint8Array({ maxLength: 256 }).map((a) => Buffer.from(a)),
					fc.constant(undefined),
				),
				fc.oneof(
					fc.string(),
					fc.integer().map(String),
					fc.constant(undefined),
					fc.array(fc.string()),
				),
				fc.oneof(fc.string(), fc.base64String(), fc.constant(undefined), fc.array(fc.string())),
				(rawBody, timestampHeader, signatureHeader) => {
					const result = verifyCallbackSignature({
						rawBody,
						timestampHeader,
						signatureHeader,
						publicKeyPem,
						toleranceSeconds: 300,
						nowSeconds: NOW,
					});
					expect(result.ok).toBe(false);
				},
			),
			{ numRuns: RUNS },
		);
	});

	it('accepts every genuinely signed body and rejects it after any one-byte change', () => {
		fc.assert(
			fc.property(fc.uint8Array({ minLength: 1, maxLength: 128 }), fc.nat(), (bytes, position) => {
				const body = Buffer.from(bytes);
				const signature = sign(
					'sha256',
					Buffer.concat([Buffer.from(`${NOW}.`), body]),
					privateKey,
				).toString('base64');
				const input = {
					timestampHeader: String(NOW),
					signatureHeader: signature,
					publicKeyPem,
					toleranceSeconds: 300,
					nowSeconds: NOW,
				};
				expect(verifyCallbackSignature({ ...input, rawBody: body }).ok).toBe(true);
				const tampered = Buffer.from(body);
				tampered[position % tampered.length] ^= 0x01;
				expect(verifyCallbackSignature({ ...input, rawBody: tampered }).ok).toBe(false);
			}),
			{ numRuns: 300 },
		);
	});

	it('parses any body into a callback or a reason, without throwing', () => {
		fc.assert(
			fc.property(
				fc.oneof(
					fc.string(),
					fc.json(),
					fc.jsonValue().map((v) => JSON.stringify(v)),
				),
				(raw) => {
					const parsed = parseCallback(raw);
					if (!('error' in parsed)) expect(callbackEventId(parsed)).toMatch(/^[0-9a-f]{32}$/);
				},
			),
			{ numRuns: RUNS },
		);
	});
});

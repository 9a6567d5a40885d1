import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { fetchPaymentStatus } from '../transport/gateway';

import { secretsEqual } from './callbackEvent';
import type { ParsedCallback, Verification } from './callbackEvent';
import type { CallbackSignatureCheck, VerifiedKey } from './callbackRequest';

/** The one decision on a callback: how it was verified, or why it is refused (nothing starts). */
export type Authorization =
	| { ok: true; verified: Verification; verifiedKey?: VerifiedKey }
	| { ok: false; status: number; reason: string };

/** What the decision reads: the trigger's settings and what the request carries. */
export interface CallbackProof {
	/** The trigger's Verify Signatures switch. */
	verifySignatures: boolean;
	/** Whether the request carries X-LittlePay-Signature. */
	signed: boolean;
	/** Checks the signature over the raw body; called only when the signature decides. */
	checkSignature: () => CallbackSignatureCheck | Promise<CallbackSignatureCheck>;
	/** The trigger's Refund Token, and the `token` the request's query gave. */
	refundToken: string;
	givenToken: string;
}

/**
 * Decides whether a callback is Little Pay's. Payment callbacks must be signed (fail closed);
 * refund callbacks may be signed or carry the Refund Token. With Verify Signatures off and no token
 * set, a refund callback is accepted unverified (`none`). With `signed` and Verify Signatures on, the
 * signature alone decides, whatever the body is (the pause's resume, which takes signed calls only).
 */
export async function authorizeCallback(
	callback: ParsedCallback | { error: string },
	proof: CallbackProof,
): Promise<Authorization> {
	const kind = 'error' in callback ? undefined : callback.kind;
	if (proof.verifySignatures && (kind === 'payment' || proof.signed)) {
		const check = await proof.checkSignature();
		if (check.ok) return { ok: true, verified: 'signature', verifiedKey: check.verifiedKey };
		// No key to check with (the gateway could not be asked): "not now", so it is delivered again.
		if (check.reason === 'public-key-unavailable')
			return { ok: false, status: 503, reason: check.reason };
		return { ok: false, status: 401, reason: check.reason };
	}
	if (kind === 'refund') {
		const { refundToken, givenToken } = proof;
		if (refundToken !== '' && givenToken !== '' && secretsEqual(givenToken, refundToken))
			return { ok: true, verified: 'token' };
		if (proof.verifySignatures || refundToken !== '')
			return { ok: false, status: 401, reason: 'missing-or-wrong-token' };
	}
	return { ok: true, verified: 'none' };
}

/**
 * Whether Little Pay's own status record agrees with a callback: a payment callback's status, or for
 * a refund callback a completed payment. A record that cannot be found agrees with nothing.
 */
export function statusConfirms(callback: ParsedCallback, record: IDataObject | undefined): boolean {
	const expected = callback.kind === 'payment' ? String(callback.body.status) : 'COMPLETED';
	return record !== undefined && String(record.status).toUpperCase() === expected.toUpperCase();
}

/**
 * Confirm With Status API: Little Pay's status record when it agrees with the callback; otherwise the
 * refusal, 503 when it cannot be asked now (the gateway delivers again later rather than losing it)
 * or 401 when it does not agree.
 */
export async function confirmWithStatus(
	context: IWebhookFunctions,
	callback: ParsedCallback,
): Promise<{ record: IDataObject } | { status: number; reason: string }> {
	let record: IDataObject | undefined;
	try {
		record = await fetchPaymentStatus(context, String(callback.body.reference));
	} catch {
		return { status: 503, reason: 'status-check-unavailable' };
	}
	if (!record || !statusConfirms(callback, record))
		return { status: 401, reason: 'status-not-confirmed' };
	return { record };
}

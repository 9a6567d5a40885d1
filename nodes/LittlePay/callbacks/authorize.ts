import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { fetchPaymentStatus } from '../transport/gateway';
import { isNotARecord } from '../transport/records';
import { namesOneRecord } from '../helpers/validation';
import type { NotARecord, PaymentRecord } from '../transport/records';

import { secretsEqual } from './callbackEvent';
import { compareWithRecord } from './confirm';
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

/** The fewest characters a Refund Callback Token may have: it travels in URLs, so it must not be guessable. */
export const MIN_REFUND_TOKEN_LENGTH = 16;

/** Whether a Refund Callback Token is set and long enough to vouch for an unsigned refund callback. */
export function refundTokenLongEnough(token: string): boolean {
	return token.length >= MIN_REFUND_TOKEN_LENGTH;
}

/** Why activation refuses the Refund Callback Token (set but too short), with what to do instead. */
export function refundTokenRefusal(
	token: string,
): { message: string; description: string } | undefined {
	if (token === '' || refundTokenLongEnough(token)) return undefined;
	return {
		message: `Refund Callback Token has ${token.length} characters: use at least ${MIN_REFUND_TOKEN_LENGTH}`,
		description:
			'The token travels in the Callback URL (and so in logs and proxies) and is the only proof an unsigned refund callback carries: make it long and random, e.g. 24 letters and digits, or leave it empty to accept only signed refund callbacks.',
	};
}

/**
 * Why activation refuses Confirm With Status API without the API key credential: nothing could ask the
 * merchant's account, so every payment callback would be refused (503) until one is selected.
 */
export function confirmationRefusal(
	confirm: boolean,
	hasApiKeyCredential: boolean,
): { message: string; description: string } | undefined {
	if (!confirm || hasApiKeyCredential) return undefined;
	return {
		message: 'Confirm With Status API needs the Little Pay API key credential',
		description:
			"Little Pay signs every merchant's callbacks with one key, so the trigger looks each payment up in your account before it starts the workflow. Select your API key credential at the top of the trigger (the sandbox's for sandbox callbacks), or turn Confirm With Status API off and check amount and reference in the workflow yourself.",
	};
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
		// A short token is guessable and travels in URLs (logs, proxies): it never vouches for a callback.
		if (
			refundTokenLongEnough(refundToken) &&
			givenToken !== '' &&
			secretsEqual(givenToken, refundToken)
		)
			return { ok: true, verified: 'token' };
		if (proof.verifySignatures || refundToken !== '')
			return { ok: false, status: 401, reason: 'missing-or-wrong-token' };
	}
	return { ok: true, verified: 'none' };
}

/** What Confirm With Status API decided: the item's confirmed fields, or the refusal. */
export type StatusConfirmation =
	| {
			ok: true;
			record: PaymentRecord;
			/** True only when the record shows the event itself (never for a refund.failed). */
			statusConfirmed: boolean;
			verified: Verification;
			/**
			 * What the event is identified by when nothing but the record vouches for it (no signature):
			 * the record's values, not the body's. A signed body is its own identity (undefined).
			 */
			pinned: string[] | undefined;
			fields: IDataObject;
	  }
	| { ok: false; status: number; reason: string; detail?: string };

/** Whether a payment callback says FAILED where the record by reference says otherwise, and has a key to read it by. */
function needsHistory(
	callback: ParsedCallback,
	record: PaymentRecord | NotARecord | undefined,
): record is PaymentRecord {
	return (
		callback.kind === 'payment' &&
		String(callback.body.status).toUpperCase() === 'FAILED' &&
		record !== undefined &&
		!isNotARecord(record) &&
		record.status !== 'FAILED' &&
		record.key !== undefined
	);
}

/**
 * Confirm With Status API: compares the whole callback with Little Pay's status record of its payment
 * (compareWithRecord). A callback the record contradicts is refused (401), as is one the record cannot
 * confirm that nothing else vouches for (no signature, no token); 503 when the status API cannot be
 * asked now (the gateway delivers again later rather than losing it). Only a confirmed event says
 * `statusConfirmed: true`, and only that turns an unverified callback into `status-check`.
 */
export async function confirmWithStatus(
	context: IWebhookFunctions,
	callback: ParsedCallback,
	verified: Verification,
): Promise<StatusConfirmation> {
	// A reference that cannot name one payment (`..`, a path) is the callback's fault: refused, not retried.
	if (!namesOneRecord(String(callback.body.reference)))
		return {
			ok: false,
			status: 401,
			reason: 'status-not-confirmed',
			detail: 'the callback names no payment reference',
		};
	let record: Awaited<ReturnType<typeof fetchPaymentStatus>>;
	try {
		record = await fetchPaymentStatus(context, String(callback.body.reference));
	} catch {
		return { ok: false, status: 503, reason: 'status-check-unavailable' };
	}
	// A 2xx answer that is not the payment's record proves nothing: not now, so it is delivered again.
	if (record !== undefined && isNotARecord(record))
		return {
			ok: false,
			status: 503,
			reason: 'status-check-unavailable',
			detail: `Little Pay's status answer is not a record: ${record.notARecord}`,
		};
	let verdict = compareWithRecord(callback, record, verified === 'signature');
	// A failed attempt's callback after the payer paid: the record by key lists every attempt.
	if (!verdict.agrees && needsHistory(callback, record)) {
		let history: Awaited<ReturnType<typeof fetchPaymentStatus>>;
		try {
			history = await fetchPaymentStatus(context, String(record?.key));
		} catch {
			return { ok: false, status: 503, reason: 'status-check-unavailable' };
		}
		if (history !== undefined && !isNotARecord(history))
			verdict = compareWithRecord(callback, record, verified === 'signature', history);
	}
	if (!verdict.agrees)
		return { ok: false, status: 401, reason: 'status-not-confirmed', detail: verdict.differs };
	if (!verdict.confirmed && verified === 'none')
		return {
			ok: false,
			status: 401,
			reason: 'status-not-confirmed',
			detail:
				"Little Pay's status record cannot show this refund's outcome, and the callback carries no signature or token",
		};
	return {
		ok: true,
		record: record as PaymentRecord,
		statusConfirmed: verdict.confirmed,
		verified: verdict.confirmed && verified === 'none' ? 'status-check' : verified,
		// A signature makes the body's content trustworthy, and Little Pay's retries repeat it: its id stays
		// the body's (as a sweep computes it, example 9). Unsigned, the body is a stranger's to re-date.
		pinned: verified === 'signature' ? undefined : verdict.pinned,
		fields: verdict.fields,
	};
}

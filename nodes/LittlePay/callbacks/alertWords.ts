import type { IDataObject } from 'n8n-workflow';

// What a refused callback's alert says: each reason's likely cause and fix, the key's verdict, the item.

/** One alert per trigger and reason in this window, at most. */
export const ALERT_WINDOW_MS = 5 * 60_000;

/** What an alert reports of the refusals since the last one of its reason. */
export interface RefusalCount {
	/** Refused callbacks since the last alert, this one included. */
	refused: number;
	since: number;
	/** Distinct reference-shaped values of those callbacks, in order, at most ALERT_REFERENCES_LIMIT. */
	references: string[];
	/** Refused callbacks whose reference is not in `references` (none, not reference-shaped, or past the limit). */
	referencesNotListed: number;
}

/** What a refusal most likely means and what to do, by reason. */
const CAUSES: Record<string, { cause: string; fix: string }> = {
	'bad-signature': {
		cause:
			"The signature does not verify against the key: a forged call, or a callback from another gateway than the API key credential's Base URL (the sandbox's callbacks against Little Pay's key, or the other way round)",
		fix: "Select the API key credential of the gateway that calls (the sandbox's, while testing) and leave Options > Public Key empty; after a key rotation Little Pay announces, paste its new key there. Keep Verify Signatures on: off, forged 'paid' callbacks start the workflow",
	},
	'previous-key-expired': {
		cause:
			'The callback verifies only against Options > Previous Public Key, and Accept Previous Key Until has passed (or is empty): Little Pay still signs with the key it rotated away from, or an old callback was replayed',
		fix: 'If Little Pay has not finished its rotation, set Accept Previous Key Until later and look up refusedReferences with Payment: Reconcile; once Little Pay signs with the new key only, remove Previous Public Key',
	},
	'public-key-unavailable': {
		cause:
			'The gateway the API key credential points at could not be asked for the key it signs with, so the signature could not be checked; answered 503, so the gateway delivers it again',
		fix: "Check that the credential's Base URL is reachable from n8n (the sandbox runs?), or paste the gateway's key into Options > Public Key",
	},
	'status-check-unavailable': {
		cause:
			"Little Pay's status API did not answer, so Confirm With Status API could not confirm the callback; answered 503, so Little Pay delivers it again",
		fix: 'Check the API key credential and that its Base URL is reachable from n8n',
	},
	'empty-body': {
		cause: 'A call without a body: not a Little Pay callback',
		fix: "Only Little Pay (or the sandbox) should call this URL: give it as a payment's Callback URL",
	},
	'missing-signature': {
		cause: 'An unsigned call: not from Little Pay, or a proxy strips X-LittlePay-Signature',
		fix: 'Check that proxies in front of n8n pass the X-LittlePay-Signature and X-LittlePay-Timestamp headers',
	},
	'stale-timestamp': {
		cause: 'The callback is older than the Timestamp Tolerance: a replay, or a clock that is off',
		fix: "Check n8n's clock (NTP); raise Options > Timestamp Tolerance only if deliveries are slow",
	},
	'future-timestamp': {
		cause: "The callback's timestamp is in the future: a clock that is off",
		fix: "Check n8n's clock (NTP)",
	},
	'bad-public-key': {
		cause: 'Options > Public Key is not a valid PEM public key, so no callback can verify',
		fix: 'Paste the whole key, from -----BEGIN PUBLIC KEY----- to -----END PUBLIC KEY-----',
	},
	'previous-key-until-unreadable': {
		cause:
			'The callback verifies only against Options > Previous Public Key, and Accept Previous Key Until is not a date the node can read without guessing (01/12/2026 is 1 December in Nairobi and 12 January in New York)',
		fix: 'Write Accept Previous Key Until as 2026-12-01T00:00 (year-month-day; the time zone of the workflow, or add Z or +03:00), or pick it in the date picker',
	},
	'missing-or-wrong-token': {
		cause: 'A refund callback without the Refund Callback Token in its URL, or with another one',
		fix: 'Give refunds the Callback URL with ?token= and the token set on this trigger',
	},
	'status-not-confirmed': {
		cause:
			"Little Pay's status API does not confirm the callback (an unknown payment, or a forged or altered callback)",
		fix: 'Look the reference up in the Little Pay dashboard; if it is genuine, check the API key credential',
	},
};

/** A reference from an unverified body, only if it looks like one (never arbitrary text from a stranger). */
export function safeReference(value: unknown): string | null {
	return typeof value === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(value) ? value : null;
}

/**
 * What a badly signed callback that names a real payment says about the key. `rotated`: the body
 * agrees with Little Pay's record of a payment that has just settled and no callback has verified
 * since the refusals began, so genuine callbacks fail: the key is what fails. `key-works`: callbacks
 * still verify with the key, so this one is forged or replayed. `unsure`: it agrees with the record but
 * nothing tells a rotation from a replay (an older payment, or a record without its completion time).
 */
export type KeyVerdict = 'rotated' | 'key-works' | 'unsure';

const KEY_VERDICTS: Record<KeyVerdict, { cause: string; fix: string }> = {
	rotated: {
		cause:
			"The public key looks rotated or wrong: no callback has verified since these refusals began, and Little Pay's status API shows the payment this badly signed callback reports, as it reports it, settled in the last 5 minutes",
		fix: "Paste Little Pay's current public key into Options > Public Key. Refused callbacks were answered 401 and Little Pay may have stopped delivering them: look up refusedReferences with Payment: Reconcile",
	},
	'key-works': {
		cause:
			'A forged or replayed callback: it names a real payment, but callbacks signed by Little Pay still verify with the key, so the key is not what fails',
		fix: "Change nothing in the key. The payment is as Little Pay's record says (look it up with Payment: Reconcile); keep Verify Signatures on",
	},
	unsure: {
		cause:
			"The signature does not verify, and the body matches a payment in Little Pay's record: a replayed or forged callback, or a rotated key. A callback that verifies afterwards rules out the key",
		fix: 'If no callback has verified for a while and Little Pay announced a new key, paste it into Options > Public Key; look up refusedReferences with Payment: Reconcile',
	},
};

/**
 * The alert item: the reason, what it likely means and the fix, how many were refused since the last
 * alert and their references (at most ALERT_REFERENCES_LIMIT, then a count), the unverified reference
 * of the call that raised it, and when the next alert of this reason can come. Never the body's other
 * fields or its headers. `keyVerdict` says what a badly signed callback naming a real payment tells of
 * the key; `detail` says which field the status record contradicts (never the caller's values). Every
 * reference comes from an unverified body: look it up before acting on it.
 */
export function refusedAlert(
	reason: string,
	count: RefusalCount,
	now: number,
	body: IDataObject | undefined,
	keyVerdict?: KeyVerdict,
	detail?: string,
): IDataObject {
	const known = (keyVerdict && KEY_VERDICTS[keyVerdict]) ??
		CAUSES[reason] ?? {
			cause: 'The callback was refused',
			fix: 'Look at the reason and the trigger settings',
		};
	return {
		refused: true,
		reason,
		likelyCause: detail ? `${known.cause}: ${detail}` : known.cause,
		fix: known.fix,
		refusedSinceLastAlert: count.refused,
		refusedReferences: count.references,
		refusedReferencesNotListed: count.referencesNotListed,
		firstRefusedAt: new Date(count.since).toISOString(),
		alertedAt: new Date(now).toISOString(),
		nextAlertAfter: new Date(now + ALERT_WINDOW_MS).toISOString(),
		unverified: {
			reference: safeReference(body?.reference),
			status: typeof body?.status === 'string' ? body.status.slice(0, 16) : null,
		},
	};
}

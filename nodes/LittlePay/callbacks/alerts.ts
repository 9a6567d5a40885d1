import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { refuseCallback as refuse } from './callbackRequest';
import { fetchPaymentStatus } from '../transport/gateway';
import { parseCallback } from './callbackEvent';
import { compareWithRecord } from './confirm';
import { triggerIdOf } from './eventMemory';

/**
 * Alerts for refused callbacks. A refused callback starts nothing and is answered 401, which is right
 * and silent: when Little Pay rotates its key, every genuine callback is refused and no order ships.
 * With the trigger's Refused output on, the first refusal of each reason in a window starts one
 * execution there, so an operator hears of it within one window; a stranger sending forged calls
 * starts at most one execution per reason per window. Each alert lists the references refused since
 * the previous one, so a sweep can look up every payment whose callback was lost: Little Pay does not
 * document its retries (the sandbox gives up 36 s after the first delivery), so none may come again.
 */

/** One alert per trigger and reason in this window, at most. */
export const ALERT_WINDOW_MS = 5 * 60_000;

/**
 * Distinct references one alert lists, at most: the first refused since the last alert. A flood of
 * forged calls, each with a new reference-shaped value, cannot grow the memory or the alert further;
 * the refusals beyond are counted.
 */
export const ALERT_REFERENCES_LIMIT = 50;

/** Refusals of one reason since its last alert, per trigger and reason, in this n8n process. */
interface AlertWindow {
	alertedAt: number;
	refused: number;
	firstAt: number;
	references: string[];
	notListed: number;
}

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

const windows = new Map<string, AlertWindow>();

/** When a callback last verified with the current key, per trigger, in this n8n process. */
const lastVerified = new Map<string, number>();

/** Notes that a callback verified with the key in use: while they do, the key is not what fails. */
export function noteVerified(triggerId: string, now: number): void {
	lastVerified.set(triggerId, now);
}

/** Counts one refusal into a window, listing its reference while there is room. */
function count(window: AlertWindow, reference: unknown): void {
	window.refused++;
	const safe = safeReference(reference);
	if (safe !== null && window.references.includes(safe)) return;
	if (safe !== null && window.references.length < ALERT_REFERENCES_LIMIT)
		window.references.push(safe);
	else window.notListed++;
}

/** Empties a window at an alert, and returns what the alert reports. */
function takeCount(id: string, window: AlertWindow | undefined, now: number): RefusalCount {
	windows.set(id, { alertedAt: now, refused: 0, firstAt: now, references: [], notListed: 0 });
	return {
		refused: window?.refused ?? 0,
		since: window?.firstAt ?? now,
		references: window?.references ?? [],
		referencesNotListed: window?.notListed ?? 0,
	};
}

/**
 * Counts a refusal with its (unverified) reference; when an alert is due now, returns the refusals
 * since the last alert (this one included) with their references, or undefined while the reason's
 * window is still open: those wait for the next alert.
 */
export function alertDue(
	triggerId: string,
	reason: string,
	now: number,
	reference?: unknown,
): RefusalCount | undefined {
	const id = `${triggerId}|${reason}`;
	const window = windows.get(id);
	if (window && now - window.alertedAt < ALERT_WINDOW_MS) {
		count(window, reference);
		return undefined;
	}
	const pending = window ?? {
		alertedAt: now,
		refused: 0,
		firstAt: now,
		references: [],
		notListed: 0,
	};
	count(pending, reference);
	return takeCount(id, pending, now);
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
function safeReference(value: unknown): string | null {
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

/** Reasons that are only "not now" (a copy still being recorded): never shown as a refusal. */
const NOT_REFUSALS = new Set(['in-flight']);

/**
 * Refuses a callback (nothing of it runs). While someone tests (Execute step: n8n listens and runs
 * the test event as a manual execution) every refusal shows: its item ends the test run with an
 * error naming the reason and the fix, or goes to the Refused output when that is on (no window, and
 * the published alerts' windows are left alone). Published, with Output Refused Callbacks on, a 401
 * raises an alert on the Refused output when its reason's window allows one. For a bad signature with
 * the status API credential at hand, it asks Little Pay whether the payment really is as the body
 * says, and judges the key by whether genuine callbacks still verify (judgeKey). The refusal is still
 * the answer the caller gets.
 */
export async function refuseAndAlert(
	context: IWebhookFunctions,
	status: number,
	reason: string,
	body: IDataObject | undefined,
	retryAfterSeconds?: number,
	detail?: string,
): Promise<IWebhookResponseData> {
	const answer = refuse(context, status, reason, retryAfterSeconds);
	if (NOT_REFUSALS.has(reason)) return answer;
	const testing = context.getMode() === 'manual';
	const alerting = status === 401 && (context.getNodeParameter('refusedOutput', false) as boolean);
	if (!testing && !alerting) return answer;
	const now = Date.now();
	const reference = safeReference(body?.reference);
	const due: RefusalCount | undefined = testing
		? {
				refused: 1,
				since: now,
				references: reference === null ? [] : [reference],
				referencesNotListed: reference === null ? 1 : 0,
			}
		: alertDue(triggerIdOf(context), reason, now, body?.reference);
	if (!due) return answer;
	const keyVerdict =
		reason === 'bad-signature' &&
		(context.getNodeParameter('confirmWithStatusApi', false) as boolean)
			? await judgeKey(context, body, triggerIdOf(context), due.since, now)
			: undefined;
	const item = refusedAlert(reason, due, now, body, keyVerdict, detail);
	return { ...answer, workflowData: [[{ json: { ...item, answered: status } }]] };
}

/**
 * Judges the key for a badly signed callback: undefined when the body does not agree in full with
 * Little Pay's record (then it is plainly not Little Pay's, whatever the key), `key-works` when a
 * callback verified since the refusals began or within one window, `rotated` when none did and the
 * record's payment completed within that window, `unsure` otherwise. A stranger knows a real paid
 * reference and its amount; he cannot make genuine callbacks stop verifying.
 */
async function judgeKey(
	context: IWebhookFunctions,
	body: IDataObject | undefined,
	triggerId: string,
	since: number,
	now: number,
): Promise<KeyVerdict | undefined> {
	const callback = body ? parseCallback(JSON.stringify(body)) : undefined;
	if (!callback || 'error' in callback) return undefined;
	let record: IDataObject | undefined;
	try {
		record = await fetchPaymentStatus(context, String(body?.reference ?? ''));
	} catch {
		return undefined;
	}
	// What the record shows must match; what it does not show (Little Pay documents no currency) is no
	// sign against the key: a rotation must still be recognised against Little Pay's own record.
	if (!compareWithRecord(callback, record, true).agrees) return undefined;
	const verified = lastVerified.get(triggerId);
	if (verified !== undefined && verified >= Math.min(since, now - ALERT_WINDOW_MS))
		return 'key-works';
	const completedAt = Date.parse(String(record?.completedAt ?? ''));
	return now - completedAt <= ALERT_WINDOW_MS ? 'rotated' : 'unsure';
}

/**
 * The alert items due for refusals held since a reason's last alert once its window has passed, for a
 * trigger that has just accepted a callback. After the key is fixed no callback is refused again, so
 * without these the references refused in the minutes after an alert would never reach an operator;
 * tied to accepted callbacks and to the window, there is still at most one alert per reason per window.
 */
export function heldAlerts(triggerId: string, now: number): IDataObject[] {
	const due: IDataObject[] = [];
	for (const [id, window] of windows) {
		const split = id.lastIndexOf('|');
		if (id.slice(0, split) !== triggerId) continue;
		if (window.refused === 0 || now - window.alertedAt < ALERT_WINDOW_MS) continue;
		due.push(refusedAlert(id.slice(split + 1), takeCount(id, window, now), now, undefined));
	}
	return due;
}

import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { refuseCallback as refuse } from './callbackRequest';
import { fetchPaymentStatus } from '../transport/gateway';
import { isNotARecord } from '../transport/records';
import { ALERT_WINDOW_MS, refusedAlert, safeReference } from './alertWords';
import type { KeyVerdict, RefusalCount } from './alertWords';
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

const windows = new Map<string, AlertWindow>();

/** The trigger's settings an alert depends on, read by the trigger's webhook (triggerWebhook.ts). */
export interface AlertChoices {
	/** Output Refused Callbacks: alerts go to the Refused output. */
	refusedOutput: boolean;
	/** Confirm With Status API: a badly signed callback's payment may be looked up to judge the key. */
	confirmWithStatusApi: boolean;
}

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
	choices: AlertChoices,
	status: number,
	reason: string,
	body: IDataObject | undefined,
	retryAfterSeconds?: number,
	detail?: string,
): Promise<IWebhookResponseData> {
	const answer = refuse(context, status, reason, retryAfterSeconds);
	if (NOT_REFUSALS.has(reason)) return answer;
	const testing = context.getMode() === 'manual';
	const alerting = status === 401 && choices.refusedOutput;
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
		reason === 'bad-signature' && choices.confirmWithStatusApi
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
	let answer: Awaited<ReturnType<typeof fetchPaymentStatus>>;
	try {
		answer = await fetchPaymentStatus(context, String(body?.reference ?? ''));
	} catch {
		return undefined;
	}
	// An answer that proves nothing is no evidence of a rotation either way.
	if (answer !== undefined && isNotARecord(answer)) return undefined;
	const record = answer;
	// What the record shows must match; what it does not show (Little Pay documents no currency) is no
	// sign against the key: a rotation must still be recognised against Little Pay's own record.
	if (!compareWithRecord(callback, record, true).agrees) return undefined;
	const verified = lastVerified.get(triggerId);
	if (verified !== undefined && verified >= Math.min(since, now - ALERT_WINDOW_MS))
		return 'key-works';
	const completedAt = Date.parse(String(record?.data.completedAt ?? ''));
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

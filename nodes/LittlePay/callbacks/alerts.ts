import type { IDataObject, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import { refuseCallback as refuse } from './callbackRequest';
import { fetchPaymentStatus } from '../transport/gateway';
import { triggerIdOf } from './eventMemory';

/**
 * Alerts for refused callbacks. A refused callback starts nothing and is answered 401, which is right
 * and silent: when Little Pay rotates its key, every genuine callback is refused and no order ships.
 * With the trigger's Refused output on, the first refusal of each reason in a window starts one
 * execution there, so an operator hears of it within one window; a stranger sending forged calls
 * starts at most one execution per reason per window.
 */

/** One alert per trigger and reason in this window, at most. */
export const ALERT_WINDOW_MS = 5 * 60_000;

/** Refusals of one reason since its last alert, per trigger and reason, in this n8n process. */
const windows = new Map<string, { alertedAt: number; refused: number; firstAt: number }>();

/**
 * Counts a refusal; returns how many of this reason were refused since the last alert (this one
 * included) when an alert is due now, or undefined while the reason's window is still open.
 */
export function alertDue(
	triggerId: string,
	reason: string,
	now: number,
): { refused: number; since: number } | undefined {
	const id = `${triggerId}|${reason}`;
	const window = windows.get(id);
	if (window && now - window.alertedAt < ALERT_WINDOW_MS) {
		window.refused++;
		return undefined;
	}
	const refused = (window?.refused ?? 0) + 1;
	const since = window?.firstAt ?? now;
	windows.set(id, { alertedAt: now, refused: 0, firstAt: now });
	return { refused, since };
}

/** What a refusal most likely means and what to do, by reason. */
const CAUSES: Record<string, { cause: string; fix: string }> = {
	'bad-signature': {
		cause:
			'The signature does not verify against the Public Key: a forged call, or Little Pay signs with another key (rotated, or the sandbox key in production)',
		fix: "Compare Options > Public Key with Little Pay's current published key; after a rotation paste the new one",
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
	'missing-or-wrong-token': {
		cause: 'A refund callback without the Refund Callback Token in its URL, or with another one',
		fix: 'Give refunds the Callback URL with ?token= and the token set on this trigger',
	},
	'status-not-confirmed': {
		cause:
			"Little Pay's status API does not confirm the callback: an unknown payment, or a forged status",
		fix: 'Look the reference up in the Little Pay dashboard; if it is genuine, check the API key credential',
	},
};

/** A reference from an unverified body, only if it looks like one (never arbitrary text from a stranger). */
function safeReference(value: unknown): string | null {
	return typeof value === 'string' && /^[A-Za-z0-9_-]{1,64}$/.test(value) ? value : null;
}

/**
 * The alert item: the reason, what it likely means and the fix, how many were refused since the last
 * alert, and the unverified reference marked as such. Never the body's other fields or its headers.
 * `keyLooksRotated` is true when Little Pay's status API confirms what a badly signed callback says.
 */
export function refusedAlert(
	reason: string,
	count: { refused: number; since: number },
	now: number,
	body: IDataObject | undefined,
	keyLooksRotated?: boolean,
): IDataObject {
	const known = CAUSES[reason] ?? {
		cause: 'The callback was refused',
		fix: 'Look at the reason and the trigger settings',
	};
	const rotated = keyLooksRotated === true;
	return {
		refused: true,
		reason,
		likelyCause: rotated
			? "The public key looks rotated or wrong: Little Pay's status API confirms the payment this badly signed callback reports"
			: known.cause,
		fix: rotated
			? "Paste Little Pay's current public key into Options > Public Key; the refused callbacks are answered 401, so Little Pay may deliver them again"
			: known.fix,
		refusedSinceLastAlert: count.refused,
		firstRefusedAt: new Date(count.since).toISOString(),
		alertedAt: new Date(now).toISOString(),
		unverified: {
			reference: safeReference(body?.reference),
			status: typeof body?.status === 'string' ? body.status.slice(0, 16) : null,
		},
	};
}

/**
 * Refuses a callback (nothing of it runs), and with Output Refused Callbacks on raises an alert on the
 * Refused output when its reason's window allows one. For a bad signature with the status API
 * credential at hand, it asks Little Pay whether the payment really is as the body says: then the
 * public key looks rotated or wrong. The 401 is still the answer the caller gets.
 */
export async function refuseAndAlert(
	context: IWebhookFunctions,
	status: number,
	reason: string,
	body: IDataObject,
): Promise<IWebhookResponseData> {
	const answer = refuse(context, status, reason);
	if (!(context.getNodeParameter('refusedOutput', false) as boolean)) return answer;
	const now = Date.now();
	const due = alertDue(triggerIdOf(context), reason, now);
	if (!due) return answer;
	let keyLooksRotated: boolean | undefined;
	if (
		reason === 'bad-signature' &&
		(context.getNodeParameter('confirmWithStatusApi', false) as boolean)
	) {
		try {
			const record = await fetchPaymentStatus(context, String(body.reference ?? ''));
			keyLooksRotated =
				record !== undefined &&
				String(record.status).toUpperCase() === String(body.status).toUpperCase();
		} catch {
			keyLooksRotated = undefined;
		}
	}
	return {
		...answer,
		workflowData: [[{ json: refusedAlert(reason, due, now, body, keyLooksRotated) }]],
	};
}

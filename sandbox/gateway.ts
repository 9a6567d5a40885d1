// The sandbox's state and business rules: intents, payments, refunds, disbursements, timers and long-poll waiters.
// Handlers in server.ts translate HTTP into calls here; everything here throws SandboxError for client mistakes.
import { randomBytes, randomUUID } from 'node:crypto';
import { TEST_CARDS, validateCard } from './cards';
import type { CallbackSender } from './callbacks';
import {
	SandboxError,
	isObject,
	optionalString,
	requireAmount,
	requireHttpUrl,
	requireObjectBody,
	requireString,
} from './http';
import { feeFor, networkInfo, requireMobile, requireNetwork } from './networks';
import type {
	Attempt,
	BillingAddress,
	CardSession,
	Disbursement,
	Intent,
	MobileNetwork,
	PaymentStatus,
	PayoutSettleMs,
	Refund,
} from './types';

const BILLING_FIELDS: Array<keyof BillingAddress> = [
	'firstName',
	'lastName',
	'address1',
	'locality',
	'administrativeArea',
	'postalCode',
	'country',
	'email',
	'phoneNumber',
];

/** setTimeout cannot wait longer than this (about 24.8 days); longer waits are chained. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The longest expiresAt the sandbox accepts, in minutes: 30 days. */
export const MAX_EXPIRES_AT_MINUTES = 43200;

export interface GatewayOptions {
	pinDelayMs: number;
	/** How long a payout takes to settle (a range: each payout draws its own time); default pinDelayMs. */
	payoutSettleMs?: PayoutSettleMs;
	callbacks: CallbackSender;
	/** How long one minute of expiresAt lasts (60000 outside tests). */
	minuteMs: number;
	/** Whether a repeated payout key makes a second payout instead of a 409 (SandboxOptions). */
	acceptRepeatedPayoutKeys?: boolean;
}

/** Outcome of the payer simulation for a mobile number's last digit. */
export function payerOutcome(
	mobile: string,
): { status: PaymentStatus; message: string } | undefined {
	switch (mobile.slice(-1)) {
		case '1':
			return { status: 'FAILED', message: 'Insufficient funds in the payer account' };
		case '2':
			return { status: 'FAILED', message: 'The payer cancelled the payment request' };
		case '3':
			return undefined;
		default:
			return { status: 'COMPLETED', message: 'Payment completed' };
	}
}

/** Outcome rule of refunds, by keyword in `reason`. */
export function refundOutcome(reason: string): {
	status: 'COMPLETED' | 'FAILED' | 'PENDING';
	later?: 'COMPLETED' | 'FAILED';
} {
	const r = reason.toLowerCase();
	if (/pending[\s_-]*fail/.test(r)) return { status: 'PENDING', later: 'FAILED' };
	if (r.includes('pending')) return { status: 'PENDING', later: 'COMPLETED' };
	if (r.includes('fail')) return { status: 'FAILED' };
	return { status: 'COMPLETED' };
}

/** Outcome rule of disbursements, by the destination's last digit. */
export function disbursementOutcome(
	to: string,
): { status: 'success' | 'failed'; message: string } | undefined {
	switch (to.slice(-1)) {
		case '1':
			return {
				status: 'failed',
				message: 'The recipient wallet rejected the transfer (wallet limit reached)',
			};
		case '2':
			return {
				status: 'failed',
				message: 'The recipient number is not registered for mobile money',
			};
		case '3':
			return undefined;
		default:
			return { status: 'success', message: 'Disbursement completed' };
	}
}

type Waiter = () => void;

/**
 * The index key of a merchant's own intent or payout key: keys are unique per merchant, so two
 * merchants may each have an ORDER123 (a JSON pair, so no clientId and key can run together).
 */
function ownKey(merchant: string, key: string): string {
	return JSON.stringify([merchant, key]);
}

export class Gateway {
	/** Every merchant's intents by reference: the /pay and /checkout paths find them by it alone. */
	readonly intents = new Map<string, Intent>();
	/** By ownKey(merchant, key). */
	private readonly intentsByKey = new Map<string, Intent>();
	readonly refunds: Refund[] = [];
	readonly disbursements = new Map<string, Disbursement>();
	/** By ownKey(merchant, key). */
	private readonly disbursementsByKey = new Map<string, Disbursement>();
	private readonly timers = new Set<NodeJS.Timeout>();
	private readonly waiters = new Map<string, Set<Waiter>>();
	private closed = false;

	constructor(readonly options: GatewayOptions) {}

	// ---- timers and waiters -------------------------------------------------------------

	/**
	 * Runs fn later unless the sandbox was reset or closed meanwhile. A wait longer than one timer
	 * can hold (about 24.8 days) is chained, so a 40-day expiry fires after 40 days, not 24.8.
	 */
	private later(ms: number, fn: () => void): void {
		const wait = Math.max(0, ms);
		const step = Math.min(wait, MAX_TIMER_MS);
		const timer = setTimeout(() => {
			this.timers.delete(timer);
			if (this.closed) return;
			if (wait > step) this.later(wait - step, fn);
			else fn();
		}, step);
		timer.unref();
		this.timers.add(timer);
	}

	/**
	 * Resolves when the intent changes, after timeoutMs, or when `signal` aborts (client gone).
	 * A waiter list per intent, not a polling loop, so thousands of held requests cost nothing.
	 */
	waitForChange(reference: string, timeoutMs: number, signal: AbortSignal): Promise<void> {
		return new Promise((resolve) => {
			let set = this.waiters.get(reference);
			if (!set) {
				set = new Set();
				this.waiters.set(reference, set);
			}
			const done = (): void => {
				clearTimeout(timer);
				signal.removeEventListener('abort', done);
				const current = this.waiters.get(reference);
				current?.delete(done);
				if (current && current.size === 0) this.waiters.delete(reference);
				resolve();
			};
			const timer = setTimeout(done, timeoutMs);
			timer.unref();
			signal.addEventListener('abort', done);
			set.add(done);
		});
	}

	/** Number of requests currently held by long polling (for tests and benchmarks). */
	heldCount(): number {
		let n = 0;
		for (const set of this.waiters.values()) n += set.size;
		return n;
	}

	private notify(reference: string): void {
		const set = this.waiters.get(reference);
		if (!set) return;
		for (const done of [...set]) done();
	}

	private wakeAll(): void {
		for (const reference of [...this.waiters.keys()]) this.notify(reference);
	}

	/** Forgets all state and cancels every timer; held long polls answer at once. */
	reset(): void {
		for (const t of this.timers) clearTimeout(t);
		this.timers.clear();
		this.intents.clear();
		this.intentsByKey.clear();
		this.refunds.length = 0;
		this.disbursements.clear();
		this.disbursementsByKey.clear();
		this.wakeAll();
	}

	/** Stops all timers for good. */
	close(): void {
		this.closed = true;
		for (const t of this.timers) clearTimeout(t);
		this.timers.clear();
		this.wakeAll();
	}

	// ---- intents ------------------------------------------------------------------------

	/** Creates an intent of the merchant (its clientId) from the create-intent body. */
	createIntent(merchant: string, body: unknown): Intent {
		const b = requireObjectBody(body);
		const amount = requireAmount(b, 'amount');
		const currency = optionalString(b, 'currency') ?? 'KES';
		if (!/^[A-Z]{3}$/.test(currency))
			throw new SandboxError(
				400,
				'INVALID_FIELD',
				'currency must be a 3-letter upper-case code such as KES',
			);
		const description = requireString(b, 'description');
		const callbackUrl = requireHttpUrl(requireString(b, 'callbackUrl'), 'callbackUrl');
		const key = requireString(b, 'key');
		if (!/^[A-Za-z0-9]+$/.test(key)) {
			throw new SandboxError(
				400,
				'INVALID_FIELD',
				'key must be alphanumeric only (no "-", "/", "*", "+", "\\" or spaces)',
			);
		}
		if (key.length > 64)
			throw new SandboxError(
				400,
				'INVALID_FIELD',
				'key must be at most 64 characters (8-12 recommended)',
			);
		const returnUrlRaw = optionalString(b, 'returnUrl');
		const returnUrl = returnUrlRaw ? requireHttpUrl(returnUrlRaw, 'returnUrl') : null;
		let expiresInMinutes = 30;
		if (b.expiresAt !== undefined && b.expiresAt !== null) {
			// Minutes from now, as the interface says: a timestamp (seconds or milliseconds) is refused,
			// not read as minutes, which made expiry dates no Date can hold.
			if (
				typeof b.expiresAt !== 'number' ||
				!Number.isInteger(b.expiresAt) ||
				b.expiresAt < 1 ||
				b.expiresAt > MAX_EXPIRES_AT_MINUTES
			) {
				throw new SandboxError(
					400,
					'INVALID_FIELD',
					`expiresAt must be whole minutes from 1 to ${MAX_EXPIRES_AT_MINUTES} (30 days), counted from now`,
				);
			}
			expiresInMinutes = b.expiresAt;
		}
		let billing: Record<string, unknown> = {};
		let customData: unknown = null;
		if (b.payload !== undefined && b.payload !== null) {
			if (!isObject(b.payload))
				throw new SandboxError(400, 'INVALID_FIELD', 'payload must be an object');
			if (b.payload.billingAddress !== undefined && b.payload.billingAddress !== null) {
				if (!isObject(b.payload.billingAddress)) {
					throw new SandboxError(400, 'INVALID_FIELD', 'payload.billingAddress must be an object');
				}
				billing = b.payload.billingAddress;
			}
			if (b.payload.customData !== undefined) customData = b.payload.customData;
		}
		const billingAddress = {} as BillingAddress;
		for (const field of BILLING_FIELDS) {
			const value = billing[field];
			if (value !== undefined && value !== null && typeof value !== 'string') {
				throw new SandboxError(
					400,
					'INVALID_FIELD',
					`payload.billingAddress.${field} must be a string`,
				);
			}
			billingAddress[field] = value ?? '';
		}
		if (billingAddress.email === '' && billingAddress.phoneNumber === '') {
			throw new SandboxError(
				400,
				'MISSING_FIELD',
				'payload.billingAddress.email or payload.billingAddress.phoneNumber is required (at least one)',
			);
		}
		let authenticationRedirectUrl: string | null = null;
		if (b.metadata !== undefined && b.metadata !== null) {
			if (!isObject(b.metadata))
				throw new SandboxError(400, 'INVALID_FIELD', 'metadata must be an object');
			const url = optionalString(
				b.metadata,
				'authenticationRedirectUrl',
				'metadata.authenticationRedirectUrl',
			);
			if (url)
				authenticationRedirectUrl = requireHttpUrl(url, 'metadata.authenticationRedirectUrl');
		}
		const existing = this.intentsByKey.get(ownKey(merchant, key));
		if (existing) {
			throw new SandboxError(
				409,
				'DUPLICATE_KEY',
				`key "${key}" is already used by payment intent ${existing.reference}`,
				{
					reference: existing.reference,
				},
			);
		}
		const now = Date.now();
		const intent: Intent = {
			reference: randomUUID(),
			merchant,
			key,
			amount,
			currency,
			description,
			callbackUrl,
			returnUrl,
			authenticationRedirectUrl,
			billingAddress,
			customData,
			createdAt: new Date(now).toISOString(),
			expiresAtMs: now + expiresInMinutes * this.options.minuteMs,
			status: 'PENDING',
			message: 'Awaiting payment',
			provider: null,
			attempts: [],
			refundedAmount: 0,
			reservedRefundAmount: 0,
			completedAt: null,
			card: null,
		};
		this.intents.set(intent.reference, intent);
		this.intentsByKey.set(ownKey(merchant, key), intent);
		this.later(intent.expiresAtMs - now, () => this.expire(intent));
		return intent;
	}

	/**
	 * Looks one of the merchant's intents up by reference or key. Another merchant's intent is not
	 * found (the same 404 as an unknown one): only the owner's API key may read or refund it, and
	 * the answer must not tell a stranger that the reference exists.
	 */
	findIntent(merchant: string, referenceOrKey: string): Intent {
		const byReference = this.intents.get(referenceOrKey);
		const intent =
			byReference?.merchant === merchant
				? byReference
				: this.intentsByKey.get(ownKey(merchant, referenceOrKey));
		if (!intent) throw this.noIntent(referenceOrKey);
		return intent;
	}

	private noIntent(referenceOrKey: string): SandboxError {
		return new SandboxError(
			404,
			'NOT_FOUND',
			`No payment intent with reference or key "${referenceOrKey}"`,
		);
	}

	/**
	 * Looks an intent up for a control endpoint (no merchant): by reference, else by a key only one
	 * merchant uses; a key two merchants use is refused (409), since picking one could settle the
	 * wrong payment.
	 */
	findAnyIntent(referenceOrKey: string): Intent {
		const byReference = this.intents.get(referenceOrKey);
		if (byReference) return byReference;
		const matches = [...this.intents.values()].filter((i) => i.key === referenceOrKey);
		if (matches.length > 1)
			throw new SandboxError(
				409,
				'AMBIGUOUS_KEY',
				`key "${referenceOrKey}" is used by several merchants; use the payment's reference`,
				{ references: matches.map((i) => i.reference) },
			);
		if (matches.length === 0) throw this.noIntent(referenceOrKey);
		return matches[0];
	}

	/** Looks an intent up by reference only: /pay/{intentId}/... paths take the reference. */
	findByReference(reference: string): Intent {
		const intent = this.intents.get(reference);
		if (!intent)
			throw new SandboxError(404, 'NOT_FOUND', `No payment intent with reference "${reference}"`);
		return intent;
	}

	/** The status record; by reference attempts holds only the latest attempt, as the interface says. */
	statusRecord(intent: Intent, byReference: boolean): Record<string, unknown> {
		const attempts = byReference ? intent.attempts.slice(-1) : intent.attempts;
		const last = intent.attempts[intent.attempts.length - 1];
		return {
			reference: intent.reference,
			status: intent.status,
			message: intent.message,
			payload: { billingAddress: { ...intent.billingAddress }, customData: intent.customData },
			amount: intent.amount,
			currency: intent.currency,
			description: intent.description,
			payment: {
				provider: intent.provider,
				details: last ? (last.card ? { ...last.card } : { mobile: last.mobile ?? null }) : null,
			},
			key: intent.key,
			attempts: attempts.map((a) => ({
				reference: a.reference,
				provider: a.provider,
				status: a.status,
			})),
			refundedAmount: intent.refundedAmount,
			// Each refund with its own status, so a refund callback is confirmed by that refund,
			// not by a total.
			refunds: this.refunds
				.filter((r) => r.reference === intent.reference)
				.map((r) => ({
					amount: r.amount,
					status: r.status,
					reason: r.reason,
					date: r.settledAt ?? r.createdAt,
				})),
			createdAt: intent.createdAt,
			expiresAt: new Date(intent.expiresAtMs).toISOString(),
			completedAt: intent.completedAt,
		};
	}

	private expired(intent: Intent): boolean {
		return Date.now() >= intent.expiresAtMs;
	}

	/** An intent can take a new attempt only while open: not paid, not expired, nothing in flight. */
	private assertPayable(intent: Intent): void {
		if (intent.status === 'COMPLETED') {
			throw new SandboxError(
				422,
				'ALREADY_PAID',
				`Payment intent ${intent.reference} is already paid`,
			);
		}
		if (this.expired(intent)) {
			throw new SandboxError(
				422,
				'INTENT_EXPIRED',
				`Payment intent ${intent.reference} has expired; create a new intent`,
			);
		}
		const last = intent.attempts[intent.attempts.length - 1];
		if (last && last.status === 'PENDING') {
			throw new SandboxError(
				422,
				'ATTEMPT_IN_PROGRESS',
				`Payment intent ${intent.reference} already has a payment attempt waiting for the payer; wait for its result`,
			);
		}
	}

	private expire(intent: Intent): void {
		if (intent.status === 'COMPLETED') return;
		const last = intent.attempts[intent.attempts.length - 1];
		if (last && last.status === 'PENDING') {
			this.settle(
				intent,
				last,
				'FAILED',
				'The payer did not answer before the payment request expired',
			);
			return;
		}
		// Unpaid at expiry, with no attempt or after failed ones: the intent can no longer be paid, and
		// a merchant waiting on it hears so (a failed attempt alone left it payable on its checkout page).
		intent.status = 'FAILED';
		// After failed attempts the last one's reason stays the record's message.
		if (!last) intent.message = 'The payment intent expired before it was paid';
		intent.completedAt = new Date().toISOString();
		this.notify(intent.reference);
		this.sendPaymentCallback(intent);
	}

	/** Moves an attempt (and its intent) to a final status, wakes long polls and fires the callback. */
	private settle(
		intent: Intent,
		attempt: Attempt,
		status: 'COMPLETED' | 'FAILED',
		message: string,
	): void {
		if (attempt.status !== 'PENDING') return;
		attempt.status = status;
		attempt.message = message;
		intent.status = status;
		intent.message = message;
		intent.completedAt = new Date().toISOString();
		this.notify(intent.reference);
		this.sendPaymentCallback(intent);
	}

	private sendPaymentCallback(intent: Intent): void {
		this.options.callbacks.send('payment', intent.callbackUrl, {
			reference: intent.reference,
			status: intent.status,
			payload: { billingAddress: { ...intent.billingAddress } },
			amount: intent.amount,
			key: intent.key,
			currency: intent.currency,
			provider: intent.provider,
			// The event's date is when the payment became final, as its status record says (completedAt):
			// a sweep that finds the payment before its callback can name the same event.
			date: intent.completedAt ?? new Date().toISOString(),
		});
	}

	/** Expires an unpaid intent now, as its expiry would (control endpoint); a paid one is left alone. */
	expireNow(referenceOrKey: string): Intent {
		const intent = this.findAnyIntent(referenceOrKey);
		if (intent.status === 'COMPLETED')
			throw new SandboxError(
				422,
				'ALREADY_PAID',
				`Payment intent ${intent.reference} is already paid`,
			);
		intent.expiresAtMs = Math.min(intent.expiresAtMs, Date.now());
		this.expire(intent);
		return intent;
	}

	/** Settles the pending attempt by hand (control endpoint). */
	resolve(reference: string, body: unknown): Intent {
		const intent = this.findAnyIntent(reference);
		const b = requireObjectBody(body);
		const status = b.status;
		if (status !== 'COMPLETED' && status !== 'FAILED') {
			throw new SandboxError(400, 'INVALID_FIELD', 'status must be "COMPLETED" or "FAILED"');
		}
		const last = intent.attempts[intent.attempts.length - 1];
		if (!last || last.status !== 'PENDING') {
			throw new SandboxError(
				422,
				'NOT_PENDING',
				`Payment intent ${intent.reference} has no payment attempt waiting for a result`,
			);
		}
		const message =
			optionalString(b, 'message') ??
			(status === 'COMPLETED'
				? 'Payment completed'
				: 'Payment failed (resolved by hand in the sandbox)');
		this.settle(intent, last, status, message);
		return intent;
	}

	// ---- mobile money -------------------------------------------------------------------

	/** Starts a mobile money payment; the simulated payer answers after pinDelayMs. */
	processMobile(
		intent: Intent,
		body: Record<string, unknown>,
	): { attempt: Attempt; result: Record<string, unknown> } {
		const network = requireNetwork(body.type, 'type');
		if (!isObject(body.payment))
			throw new SandboxError(400, 'MISSING_FIELD', 'payment.mobile is required');
		const mobile = requireMobile(body.payment.mobile, network, 'payment.mobile');
		this.assertPayable(intent);
		const attempt: Attempt = {
			reference: `${network}-${randomBytes(5).toString('hex').toUpperCase()}`,
			provider: network,
			status: 'PENDING',
			message: `Payment request sent to ${mobile}; waiting for the payer to enter the PIN`,
			createdAt: new Date().toISOString(),
			mobile,
		};
		intent.attempts.push(attempt);
		intent.status = 'PENDING';
		intent.message = attempt.message;
		intent.provider = network;
		intent.completedAt = null;
		this.notify(intent.reference);
		const outcome = payerOutcome(mobile);
		if (outcome) {
			this.later(this.options.pinDelayMs, () =>
				this.settle(intent, attempt, outcome.status as 'COMPLETED' | 'FAILED', outcome.message),
			);
		}
		return { attempt, result: this.mobileResult(intent, attempt) };
	}

	/** The mobile money process result for the attempt's current state. */
	mobileResult(intent: Intent, attempt: Attempt): Record<string, unknown> {
		// M-Pesa has no minor units: the provider sees the amount rounded to a whole number.
		const amount = attempt.provider === 'MPESA' ? Math.round(intent.amount) : intent.amount;
		return {
			status: attempt.status,
			message: attempt.message,
			meta: {
				provider: attempt.provider,
				providerReference: attempt.reference,
				stepUpUrl: null,
				accessToken: null,
				amount,
				currency: intent.currency,
				description: intent.description,
				reference: intent.reference,
			},
		};
	}

	// ---- cards --------------------------------------------------------------------------

	/** Validates the card and opens a 3-D Secure session; only last4 and brand are kept. */
	cspaToken(intent: Intent, body: unknown, base: string): Record<string, unknown> {
		const b = requireObjectBody(body);
		if (b.type !== 'CARDS') throw new SandboxError(400, 'INVALID_FIELD', 'type must be "CARDS"');
		const card = validateCard(b.payment);
		this.assertPayable(intent);
		const session: CardSession = {
			...card,
			referenceId: randomUUID(),
			accessToken: `sandbox-ddc.${randomBytes(24).toString('base64url')}`,
			deviceDataCollected: false,
			stepUp: 'none',
		};
		intent.card = session;
		this.notify(intent.reference);
		return {
			reference: intent.reference,
			message: 'Device data collection token created',
			paToken: {
				accessToken: session.accessToken,
				deviceDataCollectionUrl: `${base}/sandbox/3ds/collect`,
				referenceId: session.referenceId,
				token: randomBytes(16).toString('hex'),
			},
		};
	}

	/** Marks device data as collected for the session owning the JWT; undefined when unknown. */
	collectDeviceData(jwt: string): CardSession | undefined {
		for (const intent of this.intents.values()) {
			if (intent.card && intent.card.accessToken === jwt) {
				intent.card.deviceDataCollected = true;
				return intent.card;
			}
		}
		return undefined;
	}

	/** Enrolment check: the test card decides the action. */
	enroll(intent: Intent, body: unknown, base: string): Record<string, unknown> {
		const answer = this.enrollCard(intent, body, base);
		// A card process held by a long poll waits for this.
		this.notify(intent.reference);
		return answer;
	}

	private enrollCard(intent: Intent, body: unknown, base: string): Record<string, unknown> {
		const b = requireObjectBody(body);
		if (!isObject(b.deviceInformation))
			throw new SandboxError(400, 'MISSING_FIELD', 'deviceInformation is required (an object)');
		const info = b.deviceInformation;
		const numbers = [
			'httpBrowserColorDepth',
			'httpBrowserScreenHeight',
			'httpBrowserScreenWidth',
			'httpBrowserTimeDifference',
		];
		for (const field of numbers) {
			if (info[field] !== undefined && typeof info[field] !== 'number') {
				throw new SandboxError(400, 'INVALID_FIELD', `deviceInformation.${field} must be a number`);
			}
		}
		for (const field of ['httpBrowserJavaEnabled', 'httpBrowserJavaScriptEnabled']) {
			if (info[field] !== undefined && typeof info[field] !== 'boolean') {
				throw new SandboxError(
					400,
					'INVALID_FIELD',
					`deviceInformation.${field} must be a boolean`,
				);
			}
		}
		if (info.httpBrowserLanguage !== undefined && typeof info.httpBrowserLanguage !== 'string') {
			throw new SandboxError(
				400,
				'INVALID_FIELD',
				'deviceInformation.httpBrowserLanguage must be a string',
			);
		}
		const card = intent.card;
		if (!card)
			throw new SandboxError(
				422,
				'NO_CARD',
				`Payment intent ${intent.reference} has no card yet; call /pay/${intent.reference}/cspaToken first`,
			);
		this.assertPayable(intent);
		if (card.behaviour === 'enrollFail') {
			card.enrollAction = 'FAILED';
			return { action: 'FAILED' };
		}
		if (card.behaviour === 'challenge') {
			card.enrollAction = 'AUTHENTICATE';
			card.stepUp = 'pending';
			card.stepUpToken = `sandbox-stepup.${randomBytes(24).toString('base64url')}`;
			return {
				action: 'AUTHENTICATE',
				accessToken: card.stepUpToken,
				stepUpUrl: `${base}/sandbox/3ds/step-up`,
			};
		}
		card.enrollAction = 'MAKE_PAYMENT';
		return { action: 'MAKE_PAYMENT' };
	}

	/** Finds the intent whose step-up token is jwt. */
	findByStepUpToken(jwt: string): Intent | undefined {
		for (const intent of this.intents.values()) {
			if (intent.card?.stepUpToken && intent.card.stepUpToken === jwt) return intent;
		}
		return undefined;
	}

	/** Records the cardholder's step-up decision; a missing or wrong MD fails the authentication. */
	decideStepUp(
		intent: Intent,
		md: string | undefined,
		decision: 'approve' | 'decline',
	): 'approved' | 'declined' | 'failed' {
		const card = intent.card;
		if (!card || card.stepUp !== 'pending')
			return card?.stepUp === 'approved' ? 'approved' : 'failed';
		if (!md || md !== intent.reference) card.stepUp = 'failed';
		else card.stepUp = decision === 'approve' ? 'approved' : 'declined';
		this.notify(intent.reference);
		return card.stepUp;
	}

	/**
	 * Whether 3-D Secure has not settled yet for the intent's card: no card, not enrolled, or a
	 * step-up waiting for the cardholder. A long-polling card process is held while this is true.
	 */
	cardUnsettled(intent: Intent): boolean {
		const card = intent.card;
		if (intent.status === 'COMPLETED' || this.expired(intent)) return false;
		return (
			!card ||
			!card.enrollAction ||
			(card.enrollAction === 'AUTHENTICATE' && card.stepUp === 'pending')
		);
	}

	/** Card payment: synchronous, COMPLETED or FAILED with the reason in message. */
	processCard(intent: Intent): Record<string, unknown> {
		const card = intent.card;
		if (!card)
			throw new SandboxError(
				422,
				'NO_CARD',
				`Payment intent ${intent.reference} has no card; call /pay/${intent.reference}/cspaToken first`,
			);
		if (!card.enrollAction)
			throw new SandboxError(
				422,
				'NOT_ENROLLED',
				`Call /pay/${intent.reference}/enroll before processing a card payment`,
			);
		this.assertPayable(intent);
		let status: 'COMPLETED' | 'FAILED' = 'COMPLETED';
		let message = 'Card payment completed';
		if (card.enrollAction === 'FAILED') {
			status = 'FAILED';
			message = 'Card enrolment failed; use another payment method';
		} else if (card.enrollAction === 'AUTHENTICATE' && card.stepUp !== 'approved') {
			status = 'FAILED';
			message =
				card.stepUp === 'declined'
					? '3-D Secure authentication was declined by the cardholder'
					: card.stepUp === 'failed'
						? '3-D Secure authentication failed (MD missing or wrong)'
						: '3-D Secure authentication was not completed';
		} else if (card.behaviour === 'decline') {
			status = 'FAILED';
			message = 'Card declined by the issuer (do not honour); use another payment method';
		}
		const attempt: Attempt = {
			reference: `CARDS-${randomBytes(5).toString('hex').toUpperCase()}`,
			provider: 'CARDS',
			status: 'PENDING',
			message,
			createdAt: new Date().toISOString(),
			card: { last4: card.last4, brand: card.brand },
		};
		intent.attempts.push(attempt);
		intent.provider = 'CARDS';
		intent.card = null;
		this.settle(intent, attempt, status, message);
		return {
			status,
			message,
			provider: 'CARDS',
			providerReference: attempt.reference,
			amount: intent.amount,
			currency: intent.currency,
			reference: intent.reference,
		};
	}

	// ---- refunds ------------------------------------------------------------------------

	/** A refund of a completed payment; outcome decided by refundOutcome(reason). */
	refund(intent: Intent, body: unknown): Refund {
		const b = body === undefined ? {} : requireObjectBody(body);
		const callbackRaw = optionalString(b, 'callbackUrl');
		const callbackUrl = callbackRaw ? requireHttpUrl(callbackRaw, 'callbackUrl') : null;
		const reason = optionalString(b, 'reason') ?? '';
		let amount: number | undefined;
		if (b.amount !== undefined && b.amount !== null) amount = requireAmount(b, 'amount');
		if (intent.status !== 'COMPLETED') {
			throw new SandboxError(
				422,
				'NOT_REFUNDABLE',
				`Payment intent ${intent.reference} is ${intent.status}; only completed payments can be refunded`,
			);
		}
		const refundable = round2(intent.amount - intent.refundedAmount - intent.reservedRefundAmount);
		if (refundable <= 0) {
			throw new SandboxError(
				422,
				'FULLY_REFUNDED',
				`Payment intent ${intent.reference} is already fully refunded`,
				{ refundable: 0 },
			);
		}
		const value = amount ?? refundable;
		if (value > refundable) {
			throw new SandboxError(
				422,
				'REFUND_EXCEEDS_PAID',
				`amount ${value} is more than the ${refundable} ${intent.currency} still refundable on payment ${intent.reference}`,
				{ refundable },
			);
		}
		const outcome = refundOutcome(reason);
		const refund: Refund = {
			id: `rf_${randomBytes(6).toString('hex')}`,
			merchant: intent.merchant,
			reference: intent.reference,
			key: intent.key,
			amount: value,
			reason,
			callbackUrl,
			status: outcome.status,
			message:
				outcome.status === 'COMPLETED'
					? 'Refund completed'
					: outcome.status === 'FAILED'
						? 'Refund failed: the provider rejected the reversal'
						: 'Refund is being processed; the result will be sent to the callbackUrl',
			createdAt: new Date().toISOString(),
			settledAt: outcome.status === 'PENDING' ? null : new Date().toISOString(),
		};
		this.refunds.push(refund);
		if (outcome.status === 'COMPLETED')
			intent.refundedAmount = round2(intent.refundedAmount + value);
		if (outcome.status === 'PENDING') {
			intent.reservedRefundAmount = round2(intent.reservedRefundAmount + value);
			this.later(this.options.pinDelayMs, () => {
				intent.reservedRefundAmount = round2(intent.reservedRefundAmount - value);
				refund.status = outcome.later ?? 'COMPLETED';
				refund.settledAt = new Date().toISOString();
				if (refund.status === 'COMPLETED') {
					intent.refundedAmount = round2(intent.refundedAmount + value);
					refund.message = 'Refund completed';
				} else {
					refund.message = 'Refund failed: the provider rejected the reversal';
				}
				if (refund.callbackUrl) {
					this.options.callbacks.send('refund', refund.callbackUrl, {
						status: refund.status,
						message: refund.message,
						amount: refund.amount,
						reason: refund.reason,
						// The same instant as the refund's date in the status record, so the two match.
						date: refund.settledAt,
						reference: refund.reference,
						key: refund.key,
					});
				}
			});
		}
		return refund;
	}

	// ---- disbursements ------------------------------------------------------------------

	/**
	 * Creates a payout of the merchant (its clientId); limits are the charges table's, the destination's
	 * last digit decides the result.
	 */
	createDisbursement(merchant: string, body: unknown): Disbursement {
		const b = requireObjectBody(body);
		const amount = requireAmount(b, 'amount');
		const method = requireNetwork(b.method, 'method');
		if (!isObject(b.details))
			throw new SandboxError(
				400,
				'MISSING_FIELD',
				'details is required (an object with to and accountType)',
			);
		const to = requireMobile(b.details.to, method, 'details.to');
		const accountType = requireString(b.details, 'accountType', 'details.accountType');
		if (accountType !== 'MOBILE')
			throw new SandboxError(400, 'INVALID_FIELD', 'details.accountType must be "MOBILE"');
		const currency = requireString(b, 'currency');
		if (!/^[A-Z]{3}$/.test(currency))
			throw new SandboxError(
				400,
				'INVALID_FIELD',
				'currency must be a 3-letter upper-case code such as KES',
			);
		const key = optionalString(b, 'key');
		if (key !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(key)) {
			throw new SandboxError(
				400,
				'INVALID_FIELD',
				'key must be 1-64 characters: letters, digits, "-" or "_"',
			);
		}
		const info = networkInfo(method as MobileNetwork);
		if (amount < info.minimumAmount || amount > info.maximumAmount) {
			throw new SandboxError(
				422,
				'AMOUNT_OUT_OF_RANGE',
				`amount ${amount} is outside the ${method} limits (${info.minimumAmount} to ${info.maximumAmount})`,
				{ minimumAmount: info.minimumAmount, maximumAmount: info.maximumAmount },
			);
		}
		if (key !== undefined && !this.options.acceptRepeatedPayoutKeys) {
			const existing = this.disbursementsByKey.get(ownKey(merchant, key));
			if (existing) {
				throw new SandboxError(
					409,
					'DUPLICATE_KEY',
					`key "${key}" is already used by disbursement ${existing.id}`,
					{
						id: existing.id,
						status: existing.status,
					},
				);
			}
		}
		const id = `dsb_${randomBytes(8).toString('hex')}`;
		const disbursement: Disbursement = {
			id,
			merchant,
			key: key ?? id,
			amount,
			fee: feeFor(method, amount),
			currency,
			method,
			to,
			accountType,
			status: 'pending',
			message: 'Disbursement accepted; sending to the wallet',
			createdAt: new Date().toISOString(),
			settledAt: null,
			attempts: [],
		};
		disbursement.attempts.push({
			id: `${id}_1`,
			status: 'pending',
			amount,
			key: disbursement.key,
			method,
		});
		this.disbursements.set(id, disbursement);
		// With repeated keys accepted, the key still finds its first payout, as a lookup by key would.
		const byKey = ownKey(merchant, disbursement.key);
		if (!this.disbursementsByKey.has(byKey)) this.disbursementsByKey.set(byKey, disbursement);
		const outcome = disbursementOutcome(to);
		if (outcome) {
			this.later(settleDelay(this.options.payoutSettleMs ?? this.options.pinDelayMs), () => {
				disbursement.status = outcome.status;
				disbursement.message = outcome.message;
				disbursement.settledAt = new Date().toISOString();
				disbursement.attempts[0].status = outcome.status;
			});
		}
		return disbursement;
	}

	/** Looks one of the merchant's payouts up by id or key; another merchant's is not found (404). */
	findDisbursement(merchant: string, idOrKey: string): Disbursement {
		const byId = this.disbursements.get(idOrKey);
		const d =
			byId?.merchant === merchant ? byId : this.disbursementsByKey.get(ownKey(merchant, idOrKey));
		if (!d) throw new SandboxError(404, 'NOT_FOUND', `No disbursement with id or key "${idOrKey}"`);
		return d;
	}

	/** The disbursement status record. */
	disbursementRecord(d: Disbursement): Record<string, unknown> {
		return {
			id: d.id,
			status: d.status,
			message: d.message,
			amount: d.amount,
			charges: d.fee,
			currency: d.currency,
			key: d.key,
			method: d.method,
			to: d.to,
			createdAt: d.createdAt,
			settledAt: d.settledAt,
			attempts: d.attempts.map((a) => ({ ...a })),
		};
	}

	/** Every record of every merchant (each names its owner), for counting duplicates in tests. */
	ledger(): Record<string, unknown> {
		return {
			intents: [...this.intents.values()].map((i) => ({
				...this.statusRecord(i, false),
				merchant: i.merchant,
			})),
			refunds: this.refunds.map((r) => ({ ...r })),
			disbursements: [...this.disbursements.values()].map((d) => ({
				...this.disbursementRecord(d),
				merchant: d.merchant,
			})),
		};
	}

	/** Whether the test card table names this behaviour (used by the checkout page hints). */
	static testCards(): Record<string, CardSession['behaviour']> {
		return { ...TEST_CARDS };
	}
}

/**
 * Reads a payout settling time as the CLI takes it: "3000" (every payout 3 s) or "1000-30000"
 * (each payout draws its own time in that range); throws naming the variable otherwise.
 */
export function parsePayoutSettleMs(name: string, text: string): PayoutSettleMs {
	const range = /^\s*(\d+)\s*-\s*(\d+)\s*$/.exec(text);
	if (range)
		return checkedPayoutSettleMs({ minMs: Number(range[1]), maxMs: Number(range[2]) }, name);
	if (/^\s*\d+\s*$/.test(text)) return Number(text);
	throw new Error(
		`${name} must be milliseconds, e.g. 3000, or a range such as 1000-30000 (got "${text}")`,
	);
}

/** Checks a payout settling time: milliseconds >= 0, a range with min <= max. */
export function checkedPayoutSettleMs(
	settle: PayoutSettleMs,
	name = 'payoutSettleMs',
): PayoutSettleMs {
	const ok = (n: number) => Number.isFinite(n) && n >= 0;
	if (
		typeof settle === 'number'
			? ok(settle)
			: ok(settle.minMs) && ok(settle.maxMs) && settle.minMs <= settle.maxMs
	)
		return settle;
	throw new Error(`${name} must be milliseconds >= 0, or a range with minMs <= maxMs`);
}

/** The time one payout takes to settle: the fixed time, or a uniform draw from the range. */
function settleDelay(settle: PayoutSettleMs): number {
	if (typeof settle === 'number') return settle;
	return settle.minMs + Math.random() * (settle.maxMs - settle.minMs);
}

function round2(n: number): number {
	return Math.round(n * 100) / 100;
}

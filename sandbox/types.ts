// Shared types of the sandbox gateway. Nothing here ships in the n8n package.

/** Options accepted by startSandbox; every field has a sandbox default. */
export interface SandboxOptions {
	/** TCP port; 0 picks a free one (the default when started from code). */
	port?: number;
	/** Interface to listen on; loopback by default so nothing leaves the machine. */
	host?: string;
	/** How long the simulated payer takes to enter the PIN (mobile money) and pending refunds/payouts take to settle. */
	pinDelayMs?: number;
	/** How long a long-polling request is held before the current record is answered. */
	longPollTimeoutMs?: number;
	/** Delays between callback delivery attempts; the first attempt is immediate. */
	callbackRetryDelaysMs?: number[];
	/** Whether to keep the sandbox silent on stdout/stderr. */
	quiet?: boolean;
	/** Credentials of the default merchant; defaults are fixed so docs and examples work as written. */
	clientId?: string;
	clientSecret?: string;
	tokenId?: string;
	apiKey?: string;
	/**
	 * The other merchants of this gateway, each with its own credentials and its own intents, refunds
	 * and payouts (their callbacks signed with the one key, as Little Pay does). Default: one,
	 * OTHER_MERCHANT_CREDENTIALS; `[]` leaves the default merchant alone.
	 */
	otherMerchants?: MerchantCredentials[];
	/** PKCS#8 PEM private key used to sign callbacks; a fresh 2048-bit pair is generated when absent. */
	privateKeyPem?: string;
	/** Whether callbacks may go to hosts other than loopback (off: the sandbox never sends traffic off the machine). */
	allowRemoteCallbacks?: boolean;
	/** Timeout of one callback delivery attempt. */
	callbackTimeoutMs?: number;
	/**
	 * The address links in answers (checkout, device data collection, step-up) start with; by default the
	 * scheme and Host of the request they answer, so they also work through a proxy in front of the sandbox.
	 */
	publicUrl?: string;
	/** How long one minute of an intent's expiresAt lasts; tests shorten it to see expiry (default 60000). */
	minuteMs?: number;
	/**
	 * How long a payout takes to settle after it is created: a fixed time, or a range from which each
	 * payout draws its own time (uniformly). Default: pinDelayMs.
	 */
	payoutSettleMs?: PayoutSettleMs;
	/**
	 * Whether a payout with a key already used is accepted as a new payout instead of answered 409.
	 * Little Pay does not document what it does with a repeated key: this is the worst case, for tests
	 * of what keeps one key from being paid twice on the node's side. Off by default; also set at run
	 * time with POST /sandbox/settings.
	 */
	acceptRepeatedPayoutKeys?: boolean;
}

/** A payout's settling time: fixed, or drawn per payout from [minMs, maxMs]. */
export type PayoutSettleMs = number | { minMs: number; maxMs: number };

/** One merchant's credentials: Basic (clientId, clientSecret) and tokenId for intents, apiKey for the rest. */
export interface MerchantCredentials {
	clientId: string;
	clientSecret: string;
	tokenId: string;
	apiKey: string;
}

/**
 * What a merchant needs to talk to this sandbox (the default merchant's credentials, plus the other
 * merchants' for tests of whose payment a callback is); also answered by GET /sandbox/merchant.
 */
export interface SandboxMerchant extends MerchantCredentials {
	baseUrl: string;
	publicKeyPem: string;
	otherMerchants: MerchantCredentials[];
}

/** A running sandbox. */
export interface SandboxHandle {
	baseUrl: string;
	merchant: SandboxMerchant;
	/** Stops the server, answers held long polls, cancels timers and pending callbacks. */
	close(): Promise<void>;
}

export type PaymentStatus = 'PENDING' | 'COMPLETED' | 'FAILED';
export type MobileNetwork = 'MPESA' | 'AIRTEL' | 'MTN' | 'TIGOPESA';

export interface BillingAddress {
	firstName: string;
	lastName: string;
	address1: string;
	locality: string;
	administrativeArea: string;
	postalCode: string;
	country: string;
	email: string;
	phoneNumber: string;
}

export interface Attempt {
	reference: string;
	provider: string;
	status: PaymentStatus;
	message: string;
	createdAt: string;
	mobile?: string;
	card?: { last4: string; brand: string };
}

/** The card of an intent between cspaToken and process; never holds the full number or CVV. */
export interface CardSession {
	last4: string;
	brand: string;
	behaviour: 'frictionless' | 'challenge' | 'enrollFail' | 'decline';
	referenceId: string;
	accessToken: string;
	deviceDataCollected: boolean;
	enrollAction?: 'MAKE_PAYMENT' | 'AUTHENTICATE' | 'FAILED';
	stepUpToken?: string;
	stepUp: 'none' | 'pending' | 'approved' | 'declined' | 'failed';
}

export interface Intent {
	reference: string;
	/** The clientId of the merchant that created it: only that merchant's API key finds it. */
	merchant: string;
	key: string;
	amount: number;
	currency: string;
	description: string;
	callbackUrl: string;
	returnUrl: string | null;
	authenticationRedirectUrl: string | null;
	billingAddress: BillingAddress;
	customData: unknown;
	createdAt: string;
	expiresAtMs: number;
	status: PaymentStatus;
	message: string;
	provider: string | null;
	attempts: Attempt[];
	refundedAmount: number;
	reservedRefundAmount: number;
	completedAt: string | null;
	card: CardSession | null;
}

export type RefundStatus = 'PENDING' | 'COMPLETED' | 'FAILED';

export interface Refund {
	id: string;
	/** The clientId of the merchant whose payment it refunds. */
	merchant: string;
	reference: string;
	key: string;
	amount: number;
	reason: string;
	callbackUrl: string | null;
	status: RefundStatus;
	message: string;
	createdAt: string;
	settledAt: string | null;
}

export type DisbursementStatus = 'pending' | 'success' | 'failed';

export interface DisbursementAttempt {
	id: string;
	status: DisbursementStatus;
	amount: number;
	key: string;
	method: string;
}

export interface Disbursement {
	id: string;
	/** The clientId of the merchant whose API key created it: only that key finds it. */
	merchant: string;
	key: string;
	amount: number;
	fee: number;
	currency: string;
	method: MobileNetwork;
	to: string;
	accountType: string;
	status: DisbursementStatus;
	message: string;
	createdAt: string;
	settledAt: string | null;
	attempts: DisbursementAttempt[];
}

export interface RequestLogEntry {
	seq: number;
	at: string;
	method: string;
	path: string;
	query: Record<string, string>;
	body: unknown;
	status?: number;
	fault?: string;
}

export interface CallbackLogEntry {
	id: string;
	event: 'payment' | 'refund';
	url: string;
	attempt: number;
	at: string;
	status?: number;
	/** The receiver's answer body (first 500 characters), to see what it acknowledged with. */
	answer?: string;
	error?: string;
	skipped?: boolean;
	timestamp: string;
	signature: string;
	body: string;
}

export interface FaultRule {
	method?: string;
	pathPrefix?: string;
	latencyMs?: number;
	status?: number;
	drop?: 'before' | 'after';
	rate?: number;
	times?: number;
}

import type { IDataObject } from 'n8n-workflow';

import { gatewayWordsOf, UnknownOutcomeError } from '../errors';

/**
 * Every way a payment, prompt, card step, refund or payout can fail that the package can observe, as a
 * stable code a workflow branches on, whether retrying is safe, and what to do next. The gateway's own
 * words stay beside the code (`message`, `reason`, `error`); a text no rule knows is `unknown`, never a
 * success. The failure table of docs/failures.md is this table.
 */
export type FailureCode =
	| 'insufficient-funds'
	| 'payer-cancelled'
	| 'payer-no-answer'
	| 'intent-expired'
	| 'card-declined'
	| 'card-not-enrolled'
	| 'authentication-declined'
	| 'authentication-failed'
	| 'recipient-not-registered'
	| 'recipient-limit'
	| 'refund-rejected'
	| 'not-refundable'
	| 'invalid-input'
	| 'limit-refused'
	| 'credentials'
	| 'not-found'
	| 'duplicate-key'
	| 'rule-refused'
	| 'rate-limited'
	| 'gateway-error'
	| 'unknown-outcome'
	| 'cancelled'
	| 'unknown';

/** Whether to try again: at once, as a new attempt by the payer, only after checking, or not. */
export type RetryRule = 'safe' | 'new-attempt' | 'check-first' | 'no';

export const FAILURES: Record<FailureCode, { retry: RetryRule; next: string }> = {
	'insufficient-funds': {
		retry: 'new-attempt',
		next: 'Tell the payer to top up, then send the checkout link or a new prompt',
	},
	'payer-cancelled': {
		retry: 'new-attempt',
		next: 'Ask the payer whether to try again; send the checkout link instead of a prompt',
	},
	'payer-no-answer': {
		retry: 'new-attempt',
		next: 'The payer did not answer the prompt: send the checkout link, or prompt again later',
	},
	'intent-expired': {
		retry: 'no',
		next: 'The payment can no longer be paid: create a new intent if the order still stands',
	},
	'card-declined': { retry: 'new-attempt', next: 'Ask the payer for another card or method' },
	'card-not-enrolled': { retry: 'new-attempt', next: 'Ask the payer for another card or method' },
	'authentication-declined': {
		retry: 'new-attempt',
		next: "The cardholder declined the bank's check: ask before trying again",
	},
	'authentication-failed': {
		retry: 'new-attempt',
		next: "The bank's check did not complete: let the payer start the card payment again",
	},
	'recipient-not-registered': {
		retry: 'no',
		next: 'Check the recipient number and network; pay a corrected row with a new key',
	},
	'recipient-limit': {
		retry: 'check-first',
		next: "The recipient's wallet refused the amount: pay less, or later, with a new key",
	},
	'refund-rejected': {
		retry: 'no',
		next: 'Nothing was refunded: the network refused the reversal. Pay the payer back another way, or ask Little Pay',
	},
	'not-refundable': {
		retry: 'no',
		next: "Look the payment up: only a completed payment's unrefunded amount can be refunded",
	},
	'invalid-input': { retry: 'no', next: 'Fix the field named in the error; nothing was sent' },
	'limit-refused': {
		retry: 'no',
		next: 'A spending limit refused it; nothing was sent. Raise the limit only if intended',
	},
	credentials: { retry: 'no', next: 'Fix the credential named in the error, then run again' },
	'not-found': { retry: 'no', next: 'Check the reference or key; Little Pay has no such record' },
	'duplicate-key': {
		retry: 'check-first',
		next: 'The key was used for something else: look it up, or use a new key',
	},
	'rule-refused': { retry: 'no', next: "Read Little Pay's message: a business rule refused it" },
	'rate-limited': { retry: 'safe', next: 'Wait a minute and run again; reads are retried already' },
	'gateway-error': {
		retry: 'check-first',
		next: 'Little Pay failed; look the payment or payout up before sending it again',
	},
	'unknown-outcome': {
		retry: 'check-first',
		next: 'It may have gone through: look it up (Get Status, Payout: Get) before any retry',
	},
	cancelled: { retry: 'check-first', next: 'The run was stopped; look up what was in flight' },
	unknown: {
		retry: 'check-first',
		next: "A failure the node does not know: read Little Pay's words and look the record up",
	},
};

/** Provider texts (Little Pay's and the sandbox's) and the code each means; the first match wins. */
const TEXTS: Array<[RegExp, FailureCode]> = [
	[/insufficient (funds|balance)/i, 'insufficient-funds'],
	[/cancel/i, 'payer-cancelled'],
	[/did not answer|no answer|timed? ?out/i, 'payer-no-answer'],
	[/expired/i, 'intent-expired'],
	[/enrol/i, 'card-not-enrolled'],
	[/authentication was declined/i, 'authentication-declined'],
	[/authentication|3-?d secure/i, 'authentication-failed'],
	[/declined|do not honou?r/i, 'card-declined'],
	[/not registered/i, 'recipient-not-registered'],
	[/limit/i, 'recipient-limit'],
	[/reversal|refund/i, 'refund-rejected'],
];

/** The code of a failure the gateway reported in words (a FAILED payment, a failed payout). */
export function failureOfText(text: unknown): FailureCode {
	const words = typeof text === 'string' ? text : '';
	return TEXTS.find(([pattern]) => pattern.test(words))?.[1] ?? 'unknown';
}

/** The code of an error a node item failed with (Continue On Fail error items). */
export function failureOfError(error: unknown): FailureCode {
	const e = (error ?? {}) as { name?: unknown; message?: unknown; httpCode?: unknown };
	const message = String(e.message ?? '');
	if (typeof error === 'object' && error !== null && 'refusal' in error) return 'limit-refused';
	if (error instanceof UnknownOutcomeError) return 'unknown-outcome';
	if (/did not answer/.test(message)) return 'unknown-outcome';
	if (/cancelled/i.test(message)) return 'cancelled';
	if (/credential is selected/.test(message)) return 'credentials';
	// The node found the key's record and it is another request: nothing was sent.
	if (/already belongs to a different/.test(message)) return 'duplicate-key';
	const status = Number(e.httpCode);
	if (status === 401 || status === 403) return 'credentials';
	if (status === 404) return 'not-found';
	if (status === 409) return 'duplicate-key';
	// Little Pay refuses a refund of an unpaid or already refunded payment with a business-rule error,
	// said in its own words (which the error carries beside it, not in its message).
	if ((status === 422 || status === 400) && /refund/i.test(gatewayWordsOf(error) ?? message))
		return 'not-refundable';
	if (status === 422 || status === 400) return 'rule-refused';
	if (status === 429) return 'rate-limited';
	if (status >= 500) return 'gateway-error';
	if (/^Row \d+: |^Nothing was paid: /.test(message)) return 'invalid-input';
	return 'unknown';
}

/** The fields a failed output or error item carries: the code, the retry rule and the next step. */
export function failureFields(code: FailureCode): IDataObject {
	return { failureCode: code, retry: FAILURES[code].retry, nextStep: FAILURES[code].next };
}

/**
 * The fields of a payout Little Pay reports as failed (its record, or a creation answered FAILED): it
 * did not happen, so nothing needs checking first. A rule that says "check first" (it may have
 * happened) becomes a new attempt with a new key; the code and Little Pay's words stay.
 */
export function settledPayoutFailureFields(code: FailureCode): IDataObject {
	const fields = failureFields(code);
	if (fields.retry !== 'check-first') return fields;
	return {
		...fields,
		retry: 'new-attempt',
		nextStep:
			code === 'unknown'
				? 'Nothing was paid: Little Pay reports the payout failed. Read its reason; pay again with a new key if the payout still stands'
				: `Nothing was paid. ${FAILURES[code].next}`,
	};
}

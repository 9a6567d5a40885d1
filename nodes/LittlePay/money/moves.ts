// What the spending limits speak of: a money move, what was already moved, a set of limits.
import type { AppliedLimit } from '../errors';

/** What a money-moving operation does with money: charges a payer, pays out, or refunds. */
export type MoveKind = 'payment' | 'payout' | 'refund';

/** One money move as the limits see it, after the operation validated and normalised it. */
export interface MoneyMove {
	kind: MoveKind;
	amount: number;
	currency: string;
	/** MPESA, AIRTEL, MTN, TIGOPESA or CARDS; absent when the payer picks on the checkout page. */
	network?: string;
	/** Payouts: the recipient's number, digits with the country code. */
	recipient?: string;
	/** Refunds: the payment's reference or key. */
	paymentId?: string;
	/** Refunds: what is still refundable on the payment (paid less already refunded). */
	refundable?: number;
	/** The move's key as the account holds it (`moveKeyOf`), when it is sent under one. */
	key?: string;
}

/** Where a limit was set: on this node, or on the API-key credential (binding every workflow using it). */
export type LimitSource = 'node' | 'credential';

/** A limit that applied, as a refusal reports it. */
export type { AppliedLimit };

/** What this execution (or tool window) has already moved under one limit set. */
export interface Spent {
	count: number;
	totals: Record<string, number>;
}

/** What was already moved in the periods limits count over. */
export interface SpentSoFar {
	execution: Spent;
	/** The chat session's moves (this execution's included); the execution's when there is no session. */
	session: Spent;
	/** Today's moves in this n8n process (the account's calendar day), when a day limit is set. */
	day?: Spent;
	/** Today's moves to the move's recipient, when a day limit is set. */
	recipientDay?: Spent;
	/** Today's moves under the credential's agent grant (its tool moves), when its day total is set. */
	grantDay?: Spent;
}

/** One money move counted in a day's totals, in this n8n process. */
export interface DayEntry {
	/** The move (as SpentEntry.move): a retried move replaces its entry instead of counting twice. */
	move: string;
	amount: number;
	currency: string;
	recipient?: string;
	/**
	 * The key it was sent under, as the account holds it (`moveKeyOf`): when Little Pay says the move
	 * under that key failed, nobody was paid, and the entry stops counting (`forgetFailedMoves`).
	 */
	key?: string;
}

/**
 * A limit set's day: the entries of its scope (the node, or the credential) for today, and the moves
 * a payout run's check has let through so far (checked in input order, before any is reserved).
 */
export interface DayView {
	entries: DayEntry[];
	/** The move an item is, so its own earlier try (a retry) is not counted against it. */
	moveOf(itemIndex: number): string;
	/** The rows a payout run's check let through, summed as they pass (a run may have 10,000). */
	passed: { rows: Map<number, MoneyMove>; all: Spent; byRecipient: Map<string, Spent> };
}

/** A set of limits from one source, by limit name; an absent limit is no limit of that kind. */
export interface LimitSet {
	source: LimitSource;
	values: Partial<Record<string, number | string[]>>;
	/** Set when a day limit is: what the day has moved so far. */
	day?: DayView;
	/** Set when the agent grant's day total is: what the grant's moves have moved today. */
	grantDay?: DayView;
}

import { createHash } from 'node:crypto';

import type { IExecuteFunctions } from 'n8n-workflow';

import { refuseMove } from '../errors';
import { baseUrlOf, credentialData } from '../transport';

// The Little Pay account a move is made in, the one place the facts that decide a money move are keyed
// by: the day totals the day limits count and the key claims. An account is Little Pay's addresses and
// the API key, not the n8n credential: two credentials holding one key move the same money.

/** The calendar the account's days are counted in when its credential names none. */
export const DEFAULT_DAY_TIME_ZONE = 'Africa/Nairobi';

export interface Account {
	/** A hash of the account's addresses and API key: the same for every credential holding that key. */
	id: string;
	/** The account's calendar (the credential's Day Time Zone): every day limit and the grant's dates. */
	timeZone: string;
}

/** Whether `zone` is a time zone this runtime knows (an IANA name such as Africa/Nairobi, or UTC). */
export function knownTimeZone(zone: string): boolean {
	try {
		new Intl.DateTimeFormat('en-CA', { timeZone: zone });
		return true;
	} catch {
		return false;
	}
}

/**
 * An address as the gateway is reached at it, whatever its spelling: scheme and host in lower case, a
 * default port dropped, the path without trailing slashes (a credential holding "HTTPS://Pay.Little.Africa/"
 * is the same account as one holding https://pay.little.africa). Text that is no URL stays as written.
 */
function addressOf(url: string): string {
	try {
		const parsed = new URL(url);
		return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
	} catch {
		return url;
	}
}

/**
 * The account of the node's API key credential. A Day Time Zone that names no zone refuses the move
 * (fail closed): a day counted in an unknown calendar is no limit.
 */
export async function accountOf(context: IExecuteFunctions, itemIndex: number): Promise<Account> {
	if (!context.getNode().credentials?.littlePayApiKeyApi)
		return { id: 'no-api-key', timeZone: DEFAULT_DAY_TIME_ZONE };
	const data = await credentialData(context, 'littlePayApiKeyApi', itemIndex);
	const base = addressOf(baseUrlOf(data));
	const payouts = data.disbursementBaseUrl
		? addressOf(baseUrlOf({ baseUrl: data.disbursementBaseUrl }))
		: base;
	// The key as the gateway reads the header: spaces around it are no part of it.
	const id = createHash('sha256')
		.update([base, payouts, String(data.apiKey ?? '').trim()].join('\n'))
		.digest('hex')
		.slice(0, 32);
	const named = typeof data.dayTimeZone === 'string' ? data.dayTimeZone.trim() : '';
	const timeZone = named || DEFAULT_DAY_TIME_ZONE;
	if (!knownTimeZone(timeZone))
		refuseMove(
			context.getNode(),
			itemIndex,
			`The credential's Day Time Zone "${named}" names no time zone: its day limits and agent grant cannot be counted, so nothing is sent`,
			{ field: 'dayTimeZone', label: 'Day Time Zone', value: [named], setOn: 'credential' },
			'Tell the user that the owner has to set the Day Time Zone on the credential (for example Africa/Nairobi); nothing was sent',
		);
	return { id, timeZone };
}

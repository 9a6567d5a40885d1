import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { payerDetailsOf } from '../helpers/payerData';
import type { PayerSettings } from '../helpers/payerData';

/** A URL without its trailing slashes, so a path can be appended. */
export const withoutTrailingSlash = (url: unknown) => String(url).replace(/\/+$/, '');

/** A credential's payments base URL: Little Pay's own unless the credential names another. */
export function baseUrlOf(data: IDataObject): string {
	return withoutTrailingSlash(data.baseUrl || 'https://pay.little.africa');
}

/** What the API key credential says about payer details in outputs (its defaults without one). */
export function payerSettingsOf(data: IDataObject | undefined): PayerSettings {
	return {
		mode: payerDetailsOf(data?.payerDetails),
		secret: typeof data?.matchingSecret === 'string' ? data.matchingSecret : '',
	};
}

/**
 * A cache that lives for one node run (keyed on its execute context): each name is loaded once and
 * shared by the run's items; a failed load is forgotten, so the next item reports its own error.
 */
export function perRunCache<T>(): (
	context: IExecuteFunctions,
	name: string,
	load: () => Promise<T>,
) => Promise<T> {
	const byRun = new WeakMap<IExecuteFunctions, Map<string, Promise<T>>>();
	return async (context, name, load) => {
		let entries = byRun.get(context);
		if (!entries) {
			entries = new Map();
			byRun.set(context, entries);
		}
		let entry = entries.get(name);
		if (!entry) {
			entry = load();
			entries.set(name, entry);
			const forget = entries;
			entry.catch(() => forget.delete(name));
		}
		return entry;
	};
}

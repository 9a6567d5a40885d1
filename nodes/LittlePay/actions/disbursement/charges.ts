import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { perRunCache } from '../../transport';
import { getPayoutCharges } from '../../transport/gateway';
import type { Item } from '../../item';

/** A network's payout limits and the fee for one amount. */
export interface NetworkQuote {
	minimumAmount: number;
	maximumAmount: number;
	fee: number | null;
}

// One read of the charges table per node run: a 1,000-item payout run checks limits once, not 1,000 times.
const chargesForRun = perRunCache<IDataObject>();

/** The charges table, read once per node run and shared by its items. */
export async function getChargesForRun(
	context: IExecuteFunctions,
	itemIndex: number,
): Promise<IDataObject> {
	return chargesForRun(context, 'charges', () => getPayoutCharges(context, itemIndex));
}

/** Looks up a network's limits and the fee tier for an amount (the first tier at or above it). */
export function quoteFromCharges(
	charges: IDataObject,
	network: string,
	amount: number,
): NetworkQuote | undefined {
	const networks = (Array.isArray(charges.networks) ? charges.networks : []) as IDataObject[];
	const entry = networks.find((n) => n.id === network);
	if (!entry) return undefined;
	const tiers = ((Array.isArray(charges.charges) ? charges.charges : []) as IDataObject[])
		.filter((c) => c.networkId === network)
		.sort((a, b) => Number(a.amount) - Number(b.amount));
	const tier = tiers.find((t) => amount <= Number(t.amount));
	return {
		minimumAmount: Number(entry.minimumAmount),
		maximumAmount: Number(entry.maximumAmount),
		fee: tier ? Number(tier.charges) : null,
	};
}

/** Why an amount cannot be paid out on a network ("5 is outside the MPESA limits 10-150000"), if it cannot. */
export function limitRefusal(
	network: string,
	amount: number,
	quote: NetworkQuote,
): string | undefined {
	if (amount >= quote.minimumAmount && amount <= quote.maximumAmount) return undefined;
	return `${amount} is outside the ${network} limits ${quote.minimumAmount}-${quote.maximumAmount}`;
}

/** The quote for a network, or an item error when Little Pay does not list the network. */
export async function quoteFor(item: Item, network: string, amount: number): Promise<NetworkQuote> {
	const quote = quoteFromCharges(await getChargesForRun(item.context, item.index), network, amount);
	if (!quote)
		item.fail(
			'Network',
			`${network} is not in the charges table`,
			'Pick a network Little Pay lists in Get Charges',
		);
	return quote;
}

// Mobile money networks: allowed country codes (shared with the node), payout limits and the tiered fee table.
import { SandboxError } from './http';
import type { MobileNetwork } from './types';

export const NETWORKS: readonly MobileNetwork[] = ['MPESA', 'AIRTEL', 'MTN', 'TIGOPESA'];

/** Country calling codes each network serves; the node validates numbers against the same table. */
export const NETWORK_COUNTRY_CODES: Record<MobileNetwork, string[]> = {
	MPESA: ['254', '255'],
	AIRTEL: ['254', '255', '256'],
	MTN: ['256', '233', '250'],
	TIGOPESA: ['255'],
};

/** Calling codes of the countries the networks serve, for numbers typed in their local form. */
const COUNTRY_CALLING_CODES: Record<string, string> = {
	KE: '254',
	TZ: '255',
	UG: '256',
	GH: '233',
	RW: '250',
};

/**
 * A number as a payer types it on the checkout page (`0712 345 670`, `+254 712 345 670`) in the
 * gateway's digits-only form, as Little Pay's browser SDK does: a leading 0 takes the calling code of
 * the intent's billing country, else of the network's first country.
 */
export function checkoutMobileNumber(
	typed: string,
	network: unknown,
	country: string | null | undefined,
): string {
	const digits = typed.replace(/[\s+().-]/g, '');
	if (!/^0\d{9}$/.test(digits)) return digits;
	const served = NETWORK_COUNTRY_CODES[network as MobileNetwork] ?? [];
	const own = country ? COUNTRY_CALLING_CODES[country.toUpperCase()] : undefined;
	const code = own && (served.length === 0 || served.includes(own)) ? own : served[0];
	return code ? code + digits.slice(1) : digits;
}

interface NetworkInfo {
	id: MobileNetwork;
	name: string;
	minimumAmount: number;
	maximumAmount: number;
	/** [upper bound of the tier (inclusive), fee] ascending; the last bound equals maximumAmount. */
	tiers: Array<[number, number]>;
}

const NETWORK_INFO: NetworkInfo[] = [
	{
		id: 'MPESA',
		name: 'M-Pesa',
		minimumAmount: 10,
		maximumAmount: 150000,
		tiers: [
			[100, 0],
			[500, 7],
			[1000, 13],
			[1500, 23],
			[2500, 33],
			[3500, 53],
			[5000, 57],
			[7500, 78],
			[10000, 90],
			[15000, 100],
			[20000, 105],
			[150000, 108],
		],
	},
	{
		id: 'AIRTEL',
		name: 'Airtel Money',
		minimumAmount: 10,
		maximumAmount: 150000,
		tiers: [
			[100, 0],
			[1000, 10],
			[5000, 25],
			[20000, 50],
			[150000, 80],
		],
	},
	{
		id: 'MTN',
		name: 'MTN Mobile Money',
		minimumAmount: 100,
		maximumAmount: 500000,
		tiers: [
			[2500, 5],
			[10000, 30],
			[50000, 100],
			[500000, 250],
		],
	},
	{
		id: 'TIGOPESA',
		name: 'Tigo Pesa',
		minimumAmount: 1000,
		maximumAmount: 3000000,
		tiers: [
			[10000, 300],
			[100000, 1000],
			[1000000, 3500],
			[3000000, 6000],
		],
	},
];

/** The charges endpoint's data: networks (logo served by the sandbox) and fee tiers. */
export function chargesTable(baseUrl: string): {
	networks: Array<{
		id: string;
		name: string;
		logo: string;
		minimumAmount: number;
		maximumAmount: number;
	}>;
	charges: Array<{ networkId: string; amount: number; charges: number }>;
} {
	return {
		networks: NETWORK_INFO.map((n) => ({
			id: n.id,
			name: n.name,
			logo: `${baseUrl}/sandbox/logos/${n.id.toLowerCase()}.svg`,
			minimumAmount: n.minimumAmount,
			maximumAmount: n.maximumAmount,
		})),
		charges: NETWORK_INFO.flatMap((n) =>
			n.tiers.map(([amount, fee]) => ({ networkId: n.id, amount, charges: fee })),
		),
	};
}

/** The fee for a payout: the first tier whose bound is at or above the amount. */
export function feeFor(network: MobileNetwork, amount: number): number {
	const info = networkInfo(network);
	const tier = info.tiers.find(([bound]) => amount <= bound);
	return tier ? tier[1] : info.tiers[info.tiers.length - 1][1];
}

/** Limits and name of a network. */
export function networkInfo(network: MobileNetwork): NetworkInfo {
	const info = NETWORK_INFO.find((n) => n.id === network);
	if (!info) throw new Error(`unknown network ${network}`);
	return info;
}

/** Validates a network name field. */
export function requireNetwork(value: unknown, path: string): MobileNetwork {
	if (typeof value !== 'string' || value === '')
		throw new SandboxError(400, 'MISSING_FIELD', `${path} is required`);
	if (!(NETWORKS as readonly string[]).includes(value)) {
		throw new SandboxError(
			400,
			'INVALID_FIELD',
			`${path} must be one of ${NETWORKS.join(', ')} (got "${value}")`,
		);
	}
	return value as MobileNetwork;
}

/** Validates a mobile number the way the gateway expects it: digits only, a country code the network serves, 9 national digits. */
export function requireMobile(value: unknown, network: MobileNetwork, path: string): string {
	if (typeof value !== 'string' || value === '')
		throw new SandboxError(400, 'MISSING_FIELD', `${path} is required`);
	if (!/^\d{10,15}$/.test(value)) {
		throw new SandboxError(
			400,
			'INVALID_FIELD',
			`${path} must be digits only with the country code first and no "+", e.g. 254712345678`,
		);
	}
	const codes = NETWORK_COUNTRY_CODES[network];
	const code = codes.find((c) => value.startsWith(c));
	if (!code) {
		throw new SandboxError(
			400,
			'INVALID_FIELD',
			`${path} must start with a country code ${network} serves (${codes.join(', ')})`,
		);
	}
	if (value.length - code.length !== 9) {
		throw new SandboxError(
			400,
			'INVALID_FIELD',
			`${path} must have 9 digits after the country code ${code}`,
		);
	}
	return value;
}

/** A simple logo per network, so the charges table's logo addresses resolve without network access. */
export function logoSvg(id: string): string | undefined {
	const colours: Record<string, string> = {
		mpesa: '#4caf50',
		airtel: '#e4002b',
		mtn: '#ffcc00',
		tigopesa: '#00377b',
	};
	const colour = colours[id];
	if (!colour) return undefined;
	return `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64"><rect width="64" height="64" rx="12" fill="${colour}"/><text x="32" y="38" font-family="sans-serif" font-size="12" text-anchor="middle" fill="#fff">${id.toUpperCase()}</text></svg>`;
}

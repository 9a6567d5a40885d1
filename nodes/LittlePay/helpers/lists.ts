// The closed lists the panels share, each written once: the networks Little Pay serves, the card network
// beside them, and the countries national numbers belong to with the currency each one's wallets hold.
// The Currency field's own options are actions/common.ts's CURRENCY_OPTIONS.

/** The mobile money networks, as option lists show them (Little Pay's names as values). */
export const NETWORK_OPTIONS = [
	{ name: 'Airtel Money', value: 'AIRTEL' },
	{ name: 'M-Pesa', value: 'MPESA' },
	{ name: 'MTN Mobile Money', value: 'MTN' },
	{ name: 'Tigo Pesa', value: 'TIGOPESA' },
];

/** The networks and cards, in alphabetical order, for limits that cover card payments too. */
export const NETWORK_AND_CARD_OPTIONS = [...NETWORK_OPTIONS, { name: 'Card', value: 'CARDS' }].sort(
	(a, b) => a.name.localeCompare(b.name),
);

/** A country a network serves: its calling code and the only currency its wallets hold. */
export interface Country {
	code: string;
	name: string;
	/** "a Kenyan number". */
	adjective: string;
	callingCode: string;
	currency: string;
}

// The countries the networks serve. A wallet holds its country's money: M-Pesa Kenya pays KES, MTN
// Uganda UGX (gateway-facts.md: numbers are digits with the country code; no network is documented
// to convert), so a payout or a prompt in another currency is refused before it is sent.
export const COUNTRIES: Country[] = [
	{ code: 'GH', name: 'Ghana', adjective: 'Ghanaian', callingCode: '233', currency: 'GHS' },
	{ code: 'KE', name: 'Kenya', adjective: 'Kenyan', callingCode: '254', currency: 'KES' },
	{ code: 'RW', name: 'Rwanda', adjective: 'Rwandan', callingCode: '250', currency: 'RWF' },
	{ code: 'TZ', name: 'Tanzania', adjective: 'Tanzanian', callingCode: '255', currency: 'TZS' },
	{ code: 'UG', name: 'Uganda', adjective: 'Ugandan', callingCode: '256', currency: 'UGX' },
];

/** The country of a calling code (254 -> Kenya), if a network serves it. */
export function countryOfCallingCode(callingCode: string): Country | undefined {
	return COUNTRIES.find((country) => country.callingCode === callingCode);
}

/** The country of an ISO code (KE), as a Country field or a limit gives it. */
export function countryOfCode(code: unknown): Country | undefined {
	const wanted = String(code ?? '')
		.trim()
		.toUpperCase();
	return COUNTRIES.find((country) => country.code === wanted);
}

/** The countries a national number (0712...) may belong to. */
export const COUNTRY_OPTIONS = COUNTRIES.map(({ name, code }) => ({ name, value: code }));

// ISO 4217 minor units: the currencies whose main unit is not divided in 100. UGX and RWF have no
// cents; every currency not listed takes 2 decimals.
const DECIMALS: Record<string, number> = {
	BHD: 3,
	BIF: 0,
	CLP: 0,
	DJF: 0,
	GNF: 0,
	IQD: 3,
	ISK: 0,
	JOD: 3,
	JPY: 0,
	KMF: 0,
	KRW: 0,
	KWD: 3,
	LYD: 3,
	OMR: 3,
	PYG: 0,
	RWF: 0,
	TND: 3,
	UGX: 0,
	VND: 0,
	VUV: 0,
	XAF: 0,
	XOF: 0,
	XPF: 0,
};

/** How many decimals an amount in this currency may have (ISO 4217 minor units: KES 2, UGX 0). */
export function decimalsOf(currency: string): number {
	return DECIMALS[currency.trim().toUpperCase()] ?? 2;
}

// The closed lists the panels share, each written once: the networks Little Pay serves, the card network
// beside them, the currencies and the countries national numbers belong to.

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

/** The countries a national number (0712...) may belong to. */
export const COUNTRY_OPTIONS = [
	{ name: 'Ghana', value: 'GH' },
	{ name: 'Kenya', value: 'KE' },
	{ name: 'Rwanda', value: 'RW' },
	{ name: 'Tanzania', value: 'TZ' },
	{ name: 'Uganda', value: 'UG' },
];

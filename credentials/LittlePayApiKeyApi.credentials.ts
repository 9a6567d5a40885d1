import type {
	ICredentialDataDecryptedObject,
	IAuthenticateRuleResponseCode,
	ICredentialTestRequest,
	IHttpRequestOptions,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

/** The redirect statuses a credential test refuses: it never follows one (n8n copies the test's request options). */
export const REDIRECT_STATUSES = [301, 302, 303, 307, 308];

/**
 * A credential test's rules for a redirect: n8n would otherwise follow it, sending the API key or the
 * client secret to wherever it points, and report the other host's answer as a working credential.
 */
export function redirectRules(field: string): IAuthenticateRuleResponseCode[] {
	return REDIRECT_STATUSES.map((value) => ({
		type: 'responseCode' as const,
		properties: {
			value,
			message: `Little Pay answered with a redirect (HTTP ${value}); it was not followed: check the ${field}`,
		},
	}));
}

/**
 * Spending limits on the credential: they bind every workflow and node that uses it (read by the node's
 * money/limits.ts, which also applies the node's own limits; the stricter wins).
 */
const credentialLimitProperties: INodeProperties[] = [
	{
		displayName:
			'Spending limits below bind every workflow that uses this credential, in AI tools too; workflow authors who may use it but not edit it cannot raise them. 0 or empty = no limit.',
		name: 'limitsNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Max Payment Amount',
		name: 'maxPaymentAmount',
		type: 'number',
		typeOptions: { minValue: 0, numberPrecision: 2 },
		default: 0,
		description:
			"Largest payment one intent, prompt or card charge may collect, in the currency's main unit (1500 = KES 1,500); 0 = no limit",
	},
	{
		displayName: 'Max Payout Amount',
		name: 'maxPayoutAmount',
		type: 'number',
		typeOptions: { minValue: 0, numberPrecision: 2 },
		default: 0,
		description: "Largest single payout, in the currency's main unit; 0 = no limit",
	},
	{
		displayName: 'Max Refund Amount',
		name: 'maxRefundAmount',
		type: 'number',
		typeOptions: { minValue: 0, numberPrecision: 2 },
		default: 0,
		description: "Largest single refund, in the currency's main unit; 0 = no limit",
	},
	{
		displayName: 'Max Total per Execution',
		name: 'maxTotalPerExecution',
		type: 'number',
		typeOptions: { minValue: 0, numberPrecision: 2 },
		default: 0,
		description:
			'Most all Little Pay nodes with this credential may move in one execution, per currency; 0 = no limit',
	},
	{
		displayName: 'Max Count per Execution',
		name: 'maxCountPerExecution',
		type: 'number',
		typeOptions: { minValue: 0, numberPrecision: 0 },
		default: 0,
		description:
			'How many money moves all Little Pay nodes with this credential may make in one execution; 0 = no limit',
	},
	{
		displayName: 'Allowed Currencies',
		name: 'allowedCurrencies',
		type: 'string',
		default: '',
		placeholder: 'KES, UGX',
		description: 'Currency codes money may move in, separated by commas; empty = any',
	},
	{
		displayName: 'Allowed Networks',
		name: 'allowedNetworks',
		type: 'string',
		default: '',
		placeholder: 'MPESA, AIRTEL',
		description:
			'Networks (MPESA, AIRTEL, MTN, TIGOPESA, CARDS) payments and payouts may use, separated by commas; empty = any',
	},
	{
		displayName: 'Allowed Payout Recipients',
		name: 'allowedRecipients',
		type: 'string',
		typeOptions: { rows: 3 },
		default: '',
		placeholder: '+254712345670, 2547123456*',
		description:
			'Numbers payouts may go to, with country code, separated by commas or new lines; * stands for any digits; empty = any',
	},
];

export class LittlePayApiKeyApi implements ICredentialType {
	name = 'littlePayApiKeyApi';

	displayName = 'Little Pay (API Key) API';

	icon = { light: 'file:littlepay.svg', dark: 'file:littlepay.dark.svg' } as const;

	documentationUrl = 'https://github.com/littlepay-community/n8n-nodes-littlepay#credentials';

	properties: INodeProperties[] = [
		{
			displayName:
				"Every Little Pay operation uses this key: status, waiting, refunds, payouts, card steps and the trigger's status check. Payment Intent: Create and Mobile Money: Collect also need the Client ID and Secret credential. Find the key in the Little Pay dashboard: Merchants, Merchant Settings, Security tab.",
			name: 'notice',
			type: 'notice',
			default: '',
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description:
				'Secret key from Merchant Settings, Security tab; sent as X-API-KEY. A rotated key is shown only once: paste the new one here.',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: 'https://pay.little.africa',
			description:
				'Little Pay API address; change it only for the local sandbox (http://127.0.0.1:4010) or a compatible deployment',
		},
		{
			displayName: 'Disbursement Base URL',
			name: 'disbursementBaseUrl',
			type: 'string',
			default: '',
			placeholder: 'Same as Base URL',
			description:
				'Address of the disbursement API if Little Pay gave you a separate one; empty uses the Base URL',
		},
		{
			displayName: 'Payer Details',
			name: 'payerDetails',
			type: 'options',
			default: 'masked',
			options: [
				{
					name: 'Masked',
					value: 'masked',
					description:
						'Numbers as 2547•••••670, e-mails as a•••@example.com, names to the first name; street and postal code left out',
				},
				{
					name: 'Full',
					value: 'full',
					description: 'As Little Pay gives them',
				},
				{
					name: 'Omitted',
					value: 'omitted',
					description: 'No number, e-mail, name or address of a payer or payee in any output',
				},
			],
			hint: 'Numbers you type into a node are sent to Little Pay as typed; only what comes out is masked',
			description:
				'What every Little Pay node and trigger using this credential puts in its outputs about payers and payees: status and wait outputs, callbacks, payouts, Reconcile rows, errors. What a step never outputs, n8n never stores in its executions. Saved before this setting existed, a credential reads as Masked.',
		},
		{
			displayName: 'Matching Secret',
			name: 'matchingSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description:
				"Optional. With a secret, outputs carry contactHash: HMAC-SHA256 (hex) of the payer's or payee's number (digits only) or e-mail (lower case), to match a payer without their number. Keep it unchanged, or earlier hashes no longer match.",
		},
		...credentialLimitProperties,
		// Money controls an owner sets for every workflow and AI agent using this credential (money/).
		{
			displayName: 'Pause Money Moves',
			name: 'pauseMoneyMoves',
			type: 'boolean',
			default: false,
			description:
				'Whether to stop every payment, payout and refund of every workflow and AI agent using this credential before anything is sent; reads keep working',
		},
		{
			displayName:
				"Day limits count per calendar day of the Day Time Zone below, for every credential holding this API key, in this n8n's memory: exact within one n8n, but each queue-mode worker keeps its own count and a restart starts the day afresh (the docs give a recipe for queue mode).",
			name: 'dayLimitsNotice',
			type: 'notice',
			default: '',
		},
		{
			displayName: 'Day Time Zone',
			name: 'dayTimeZone',
			type: 'string',
			default: 'Africa/Nairobi',
			placeholder: 'Africa/Nairobi',
			description:
				"The account's calendar: the day limits' days and the agent grant's Valid Until are counted in this time zone (an IANA name such as Africa/Kampala or UTC) for every workflow, whatever its own time zone; a name that is no time zone refuses every money move",
		},
		{
			displayName: 'Max Total per Day',
			name: 'maxTotalPerDay',
			type: 'number',
			typeOptions: { minValue: 0, numberPrecision: 2 },
			default: 0,
			description:
				'Most all Little Pay nodes with this credential may move in one day, per currency; 0 = no limit',
		},
		{
			displayName: 'Max Count per Day',
			name: 'maxCountPerDay',
			type: 'number',
			typeOptions: { minValue: 0, numberPrecision: 0 },
			default: 0,
			description:
				'How many money moves all Little Pay nodes with this credential may make in one day; 0 = no limit',
		},
		{
			displayName: 'Max Total per Recipient per Day',
			name: 'maxTotalPerRecipientPerDay',
			type: 'number',
			typeOptions: { minValue: 0, numberPrecision: 2 },
			default: 0,
			description:
				'Most one number may be paid out in one day by all Little Pay nodes with this credential, per currency; 0 = no limit',
		},
		{
			displayName: 'Agent Grant',
			name: 'agentGrant',
			type: 'boolean',
			default: false,
			description:
				'Whether to limit what AI tools using this credential may do: which money moves, how much per day, to whom, and until when',
		},
		{
			displayName: 'Agent Grant: Money Moves',
			name: 'grantMoves',
			type: 'multiOptions',
			options: [
				{ name: 'Collect Payments', value: 'payment' },
				{ name: 'Pay Out', value: 'payout' },
				{ name: 'Refund', value: 'refund' },
			],
			default: [],
			description: 'The money moves an AI tool may make; any other is refused',
			displayOptions: { show: { agentGrant: [true] } },
		},
		{
			displayName: 'Agent Grant: Max Total per Day',
			name: 'grantMaxTotalPerDay',
			type: 'number',
			typeOptions: { minValue: 0, numberPrecision: 2 },
			default: 0,
			description:
				'Most AI tools may move in one day, per currency, counted apart from workflows (kept as the day limits above); 0 = no limit',
			displayOptions: { show: { agentGrant: [true] } },
		},
		{
			displayName: 'Agent Grant: Recipients',
			name: 'grantRecipients',
			type: 'string',
			typeOptions: { rows: 2 },
			default: '',
			placeholder: '+254712345670, 2547123456*',
			description:
				'Numbers an AI tool may pay out to, with country code; * stands for any digits; empty = as the limits above allow',
			displayOptions: { show: { agentGrant: [true] } },
		},
		{
			displayName: 'Agent Grant: Valid Until',
			name: 'grantValidUntil',
			type: 'dateTime',
			default: '',
			description:
				'After this date and time (in the Day Time Zone above) every AI tool money move is refused; empty = no end',
			displayOptions: { show: { agentGrant: [true] } },
		},
		{
			displayName: 'Agent Grant: Binds Workflows Too',
			name: 'grantBindsWorkflows',
			type: 'boolean',
			default: false,
			description:
				'Whether ordinary workflows using this credential are held to the grant as well; off, only AI tools are',
			displayOptions: { show: { agentGrant: [true] } },
		},
	];

	// Status, refunds and disbursements carry the merchant API key in X-API-KEY.
	// The key as a header, set in code rather than through an expression: n8n evaluates a generic
	// credential's expressions in its sandbox on every request (about 1 ms each, two requests per payout),
	// a fifth of a payout row's CPU in a real n8n.
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		return {
			...requestOptions,
			headers: { ...requestOptions.headers, 'X-API-KEY': String(credentials.apiKey ?? '') },
		};
	}

	// Reading the withdrawal charges proves the key works and creates nothing. n8n's own text for a
	// refused test is the bare HTTP reason ("Unauthorized"); the rules say what to check instead.
	test: ICredentialTestRequest = {
		request: {
			baseURL:
				'={{($credentials.disbursementBaseUrl || $credentials.baseUrl).replace(/\\/+$/, "")}}',
			url: '/api/disbursements/charges',
			method: 'GET',
			disableFollowRedirect: true,
		},
		rules: [
			...redirectRules('Base URL, and the Disbursement Base URL if you set one'),
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message:
						'Little Pay refused the API key: copy it again from Merchant Settings, Security tab (after a rotation only the new key works)',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 403,
					message:
						'Little Pay refused the API key for this merchant: check that the key belongs to the merchant you use',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message:
						'Nothing answers at this address: check the Base URL, and the Disbursement Base URL if you set one',
				},
			},
		],
	};
}

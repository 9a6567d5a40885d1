import type {
	IAuthenticateGeneric,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

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
	];

	// Status, refunds and disbursements carry the merchant API key in X-API-KEY.
	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: { headers: { 'X-API-KEY': '={{$credentials.apiKey}}' } },
	};

	// Reading the withdrawal charges proves the key works and creates nothing. n8n's own text for a
	// refused test is the bare HTTP reason ("Unauthorized"); the rules say what to check instead.
	test: ICredentialTestRequest = {
		request: {
			baseURL:
				'={{($credentials.disbursementBaseUrl || $credentials.baseUrl).replace(/\\/+$/, "")}}',
			url: '/api/disbursements/charges',
			method: 'GET',
		},
		rules: [
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

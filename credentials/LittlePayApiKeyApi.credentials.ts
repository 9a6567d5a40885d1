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
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'Secret key from Merchant Settings, Security tab; sent as X-API-KEY',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: 'https://pay.little.africa',
			description: 'Little Pay API address used for status and refunds',
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

	// Reading the withdrawal charges proves the key works and creates nothing.
	test: ICredentialTestRequest = {
		request: {
			baseURL:
				'={{($credentials.disbursementBaseUrl || $credentials.baseUrl).replace(/\\/+$/, "")}}',
			url: '/api/disbursements/charges',
			method: 'GET',
		},
	};
}

import type {
	IAuthenticateGeneric,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

export class LittlePayBasicApi implements ICredentialType {
	name = 'littlePayBasicApi';

	displayName = 'Little Pay (Client ID and Secret) API';

	icon = { light: 'file:littlepay.svg', dark: 'file:littlepay.dark.svg' } as const;

	documentationUrl = 'https://github.com/littlepay-community/n8n-nodes-littlepay#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Client ID',
			name: 'clientId',
			type: 'string',
			default: '',
			required: true,
			description: 'Client ID from Merchant Settings, Security tab, in the Little Pay dashboard',
		},
		{
			displayName: 'Client Secret',
			name: 'clientSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'Client secret from Merchant Settings, Security tab',
		},
		{
			displayName: 'Token ID',
			name: 'tokenId',
			type: 'string',
			default: '',
			required: true,
			description: 'Merchant token identifier used in the create-intent path',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: 'https://pay.little.africa',
			description: 'Little Pay API address; change it for the local sandbox or a compatible deployment',
		},
	];

	// Payment intents are created with HTTP Basic auth (client ID and secret).
	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			auth: {
				username: '={{$credentials.clientId}}',
				password: '={{$credentials.clientSecret}}',
			},
		},
	};

	// The only Basic-authenticated endpoint creates an intent, so the test sends an empty body: the
	// gateway checks the credentials first (401 when wrong) and then refuses the body, creating nothing.
	// n8n treats any non-2xx as a failed test, so a 400 here still reads as failure in the UI; the
	// rule below turns the "body" refusal into success and leaves 401 as the failure it is.
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
			url: '=/api/payments/{{$credentials.tokenId}}/pay',
			method: 'POST',
			body: {},
			ignoreHttpStatusErrors: true,
		},
		rules: [
			{
				type: 'responseCode',
				properties: { value: 401, message: 'Little Pay refused the client ID or secret' },
			},
			{
				type: 'responseCode',
				properties: { value: 404, message: 'Unknown token ID or wrong base URL' },
			},
		],
	};
}

import type {
	IAuthenticateGeneric,
	ICredentialTestRequest,
	ICredentialType,
	INodeProperties,
} from 'n8n-workflow';

import { REDIRECT_STATUSES } from './LittlePayApiKeyApi.credentials';

export class LittlePayBasicApi implements ICredentialType {
	name = 'littlePayBasicApi';

	displayName = 'Little Pay (Client ID and Secret) API';

	icon = { light: 'file:littlepay.svg', dark: 'file:littlepay.dark.svg' } as const;

	documentationUrl = 'https://github.com/littlepay-community/n8n-nodes-littlepay#credentials';

	properties: INodeProperties[] = [
		{
			displayName:
				'Little Pay signs the creation of payment intents with these values: Payment Intent: Create and Mobile Money: Collect use this credential, every other operation uses the API Key credential. Find all three in the Little Pay dashboard: Merchants, Merchant Settings, Security tab.',
			name: 'notice',
			type: 'notice',
			default: '',
		},
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
			description:
				'Merchant token identifier from Merchant Settings, Security tab; it is part of the create-intent address',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: 'https://pay.little.africa',
			description:
				'Little Pay API address; change it for the local sandbox or a compatible deployment',
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
	// gateway checks the credentials first and only then refuses the body, creating nothing. n8n
	// fails every non-2xx answer of a test request, and a refused body (400) is the success here, so
	// the answer is taken without throwing and judged by its error code: UNAUTHORIZED fails the test.
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
			url: '=/api/payments/{{$credentials.tokenId}}/pay',
			method: 'POST',
			body: {},
			// Every answer is judged by its body, except a redirect: it fails the test (n8n says "Received
			// HTTP status code: 302"; a test's rules are all body rules or all status rules), never followed.
			ignoreHttpStatusErrors: { ignore: true, except: REDIRECT_STATUSES },
			disableFollowRedirect: true,
		},
		rules: [
			{
				type: 'responseSuccessBody',
				properties: {
					key: 'data.code',
					value: 'UNAUTHORIZED',
					message: 'Little Pay refused the client ID, client secret or token ID',
				},
			},
			{
				type: 'responseSuccessBody',
				properties: {
					key: 'data.code',
					value: 'NOT_FOUND',
					message: 'Nothing answers at this address: check the base URL and the token ID',
				},
			},
		],
	};
}

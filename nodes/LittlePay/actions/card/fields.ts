import type { INodeProperties } from 'n8n-workflow';

export const intentReferenceField: INodeProperties = {
	displayName: 'Intent Reference',
	name: 'reference',
	type: 'string',
	required: true,
	default: '',
	description: 'Reference returned when the payment intent was created',
};

export const accessTokenField: INodeProperties = {
	displayName: 'Access Token',
	name: 'accessToken',
	type: 'string',
	typeOptions: { password: true },
	required: true,
	default: '',
	description:
		'The JWT Little Pay returned for this step (paToken.accessToken, or accessToken from Check Enrolment)',
};

import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IWebhookFunctions } from 'n8n-workflow';

import { baseUrlOf, paymentStatusPath } from '../transport';

/**
 * Asks the gateway's status endpoint what it knows about a payment, so a callback is only
 * trusted when the gateway itself agrees. Returns the status record, or undefined if unknown.
 */
export async function fetchPaymentStatus(
	context: IWebhookFunctions,
	reference: string,
): Promise<IDataObject | undefined> {
	const credentials = await context.getCredentials('littlePayApiKeyApi');
	const baseUrl = baseUrlOf(credentials);
	const response = (await context.helpers.httpRequestWithAuthentication.call(
		context,
		'littlePayApiKeyApi',
		{
			method: 'GET',
			url: `${baseUrl}${paymentStatusPath(reference)}`,
			json: true,
			timeout: 10000,
			ignoreHttpStatusErrors: true,
			returnFullResponse: true,
		},
	)) as { statusCode: number; body: unknown };
	if (response.statusCode === 404) return undefined;
	if (response.statusCode < 200 || response.statusCode >= 300) {
		throw new NodeOperationError(
			context.getNode(),
			`Little Pay status check answered HTTP ${response.statusCode}`,
		);
	}
	const body = response.body as IDataObject | undefined;
	const data = body && typeof body.data === 'object' ? (body.data as IDataObject) : undefined;
	return data;
}

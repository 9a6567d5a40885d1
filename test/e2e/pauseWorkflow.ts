// The workflow the pause tests run in n8n: Webhook -> Little Pay (paused) -> Paid (No Operation).
import { randomUUID } from 'node:crypto';

/** Builds the workflow and the path its Webhook listens on. */
export function pausingWorkflowJson(
	operation: 'create' | 'collect',
	timeout: { amount: number; unit: string },
	ids: { basicId: string; apiKeyId: string },
	publicKeyPem: string,
): { workflow: Record<string, unknown>; path: string } {
	const path = `pause-${randomUUID()}`;
	const common = {
		amount: '={{ $json.body.amount }}',
		currency: 'KES',
		description: '={{ $json.body.description }}',
		key: '={{ $json.body.key }}',
		waitForPayment: 'pause',
		pauseTimeout: timeout.amount,
		pauseTimeoutUnit: timeout.unit,
		publicKey: publicKeyPem,
	};
	const parameters =
		operation === 'create'
			? {
					...common,
					resource: 'paymentIntent',
					operation: 'create',
					additionalFields: {
						billingAddress: { address: { email: 'amina@example.com' } },
					},
				}
			: {
					...common,
					resource: 'mobileMoney',
					operation: 'collect',
					network: 'MPESA',
					mobile: '={{ $json.body.mobile }}',
				};
	const workflow = {
		name: `Pause ${operation} ${path}`,
		nodes: [
			{
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: randomUUID(),
				parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
			},
			{
				name: 'Little Pay',
				type: 'n8n-nodes-littlepay.littlePay',
				typeVersion: 1,
				position: [220, 0],
				parameters,
				credentials: {
					littlePayBasicApi: { id: ids.basicId, name: 'basic' },
					littlePayApiKeyApi: { id: ids.apiKeyId, name: 'key' },
				},
			},
			{
				name: 'Paid',
				type: 'n8n-nodes-base.noOp',
				typeVersion: 1,
				position: [440, 0],
				parameters: {},
			},
		],
		connections: {
			Webhook: { main: [[{ node: 'Little Pay', type: 'main', index: 0 }]] },
			'Little Pay': { main: [[{ node: 'Paid', type: 'main', index: 0 }]] },
		},
	};
	return { workflow, path };
}

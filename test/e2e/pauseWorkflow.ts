// The workflow the pause tests run in n8n: Webhook -> Little Pay (paused) -> Paid (No Operation).
import { randomUUID } from 'node:crypto';

import { chain, littlePayNode, noOpNode, webhookNode } from '../../scripts/workflowParts';

/** Builds the workflow and the path its Webhook listens on. */
export function pausingWorkflowJson(
	operation: 'create' | 'collect',
	timeout: { amount: number; unit: string },
	ids: { basicId: string; apiKeyId: string },
	publicKeyPem: string,
	expiresInMinutes?: number,
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
						...(expiresInMinutes ? { expiresAt: expiresInMinutes } : {}),
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
		nodes: [webhookNode(path), littlePayNode(parameters, ids), noOpNode('Paid', [440, 0])],
		connections: chain('Webhook', 'Little Pay', 'Paid'),
	};
	return { workflow, path };
}

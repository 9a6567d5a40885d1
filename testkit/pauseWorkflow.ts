// The workflows the pause tests run in n8n. Collect pauses itself after the PIN prompt: Webhook ->
// Little Pay (Collect, paused) -> Paid. A checkout link follows example 6: Webhook -> Little Pay
// (Create, Callback URL {{ $execution.resumeUrl }}) -> Wait (Wait for Completion, paused) -> Paid.
import { randomUUID } from 'node:crypto';

import { chain, littlePayNode, noOpNode, webhookNode } from './workflowParts';

/** Builds the workflow and the path its Webhook listens on. */
export function pausingWorkflowJson(
	operation: 'create' | 'collect',
	timeout: { amount: number; unit: string },
	ids: { basicId: string; apiKeyId: string },
	publicKeyPem: string,
	expiresInMinutes?: number,
): { workflow: Record<string, unknown>; path: string } {
	const path = `pause-${randomUUID()}`;
	const intent = {
		amount: '={{ $json.body.amount }}',
		currency: 'KES',
		description: '={{ $json.body.description }}',
		key: '={{ $json.body.key }}',
	};
	const pause = {
		waitForPayment: 'pause',
		pauseTimeout: timeout.amount,
		pauseTimeoutUnit: timeout.unit,
	};
	if (operation === 'create') {
		const create = littlePayNode(
			{
				...intent,
				resource: 'paymentIntent',
				operation: 'create',
				email: 'amina@example.com',
				callbackUrl: '={{ $execution.resumeUrl }}',
				options: expiresInMinutes ? { expiresAt: expiresInMinutes } : {},
			},
			ids,
		);
		const wait = littlePayNode(
			{
				...pause,
				resource: 'payment',
				operation: 'waitForCompletion',
				paymentId: '={{ $json.reference }}',
				options: { publicKey: publicKeyPem },
			},
			ids,
			[440, 0],
			'Wait',
		);
		return {
			path,
			workflow: {
				name: `Pause checkout ${path}`,
				nodes: [webhookNode(path), create, wait, noOpNode('Paid', [660, 0])],
				connections: chain('Webhook', 'Little Pay', 'Wait', 'Paid'),
			},
		};
	}
	const parameters = {
		...intent,
		...pause,
		resource: 'mobileMoney',
		operation: 'collect',
		network: 'MPESA',
		mobile: '={{ $json.body.mobile }}',
		options: { publicKey: publicKeyPem },
	};
	return {
		path,
		workflow: {
			name: `Pause ${operation} ${path}`,
			nodes: [webhookNode(path), littlePayNode(parameters, ids), noOpNode('Paid', [440, 0])],
			connections: chain('Webhook', 'Little Pay', 'Paid'),
		},
	};
}

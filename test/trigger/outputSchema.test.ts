// The trigger's output schema. n8n's editor asks for a node's schema at
// `/schemas/<node>/<version padded to 3 parts>[/<resource>/<operation>].json`; a trigger has no resource or
// operation, so n8n 2.41 serves `__schema__/v<version>.json` beside the node, for version 1 and version 2
// (version 2 behaves as 1). Derived here from the items the trigger really emits: a completed and a failed
// payment (confirmed with the status API), a completed and a failed refund; `npm run schemas` writes them.
import { generateKeyPairSync, sign } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { schemaOfItems, schemaText } from '../../testkit/outputSchema';
import { callWebhook, newTriggerState } from '../../testkit/webhookContext';
import type { FakeRequest } from '../../testkit/webhookContext';

const UPDATE = process.env.UPDATE_SCHEMAS === '1';
const SCHEMA_DIR = join(__dirname, '../../nodes/LittlePay/__schema__');

const gateway = generateKeyPairSync('rsa', { modulusLength: 2048 });
const publicKey = gateway.publicKey.export({ type: 'spki', format: 'pem' }).toString();
const TOKEN = 'refund-token-0123456789';

function signed(body: object): FakeRequest {
	const raw = JSON.stringify(body);
	const timestamp = String(Math.floor(Date.now() / 1000));
	const signature = sign('sha256', Buffer.from(`${timestamp}.${raw}`), gateway.privateKey);
	return {
		headers: {
			'x-littlepay-timestamp': timestamp,
			'x-littlepay-signature': signature.toString('base64'),
		},
		rawBody: Buffer.from(raw),
	};
}

const payment = (status: string) => ({
	reference: `LP-${status}`,
	status,
	payload: {
		billingAddress: {
			firstName: 'Amina',
			lastName: 'Wanjiru',
			address1: '',
			locality: '',
			administrativeArea: '',
			postalCode: '',
			country: 'KE',
			email: 'amina@example.com',
			phoneNumber: '254712345670',
		},
	},
	amount: 1500,
	key: `order${status}`,
	currency: 'KES',
	provider: 'MPESA',
	date: '2026-11-22T10:00:00.000Z',
});

const refund = (status: string, message: string) => ({
	status,
	message,
	amount: 500,
	reason: 'customer request',
	date: '2026-11-22T11:00:00.000Z',
	reference: 'LP-COMPLETED',
	// A refund callback carries the payment's own key (the merchant's key of the intent).
	key: 'orderCOMPLETED',
});

/** The items the trigger starts workflows with, one per kind of event. */
async function emitted(): Promise<Array<Record<string, unknown>>> {
	const state = newTriggerState({
		'LP-COMPLETED': {
			reference: 'LP-COMPLETED',
			status: 'COMPLETED',
			amount: 1500,
			key: 'orderCOMPLETED',
		},
		'LP-FAILED': {
			reference: 'LP-FAILED',
			status: 'FAILED',
			amount: 1500,
			key: 'orderFAILED',
			message: 'Insufficient funds',
		},
	});
	const params = { options: { publicKey }, refundToken: TOKEN };
	const calls = [
		await callWebhook(
			state,
			{ ...params, confirmWithStatusApi: true },
			signed(payment('COMPLETED')),
		),
		await callWebhook(state, { ...params, confirmWithStatusApi: true }, signed(payment('FAILED'))),
		await callWebhook(state, params, {
			headers: {},
			rawBody: Buffer.from(JSON.stringify(refund('COMPLETED', 'Refund processed'))),
			query: { token: TOKEN },
		}),
		await callWebhook(state, params, signed(refund('FAILED', 'Refund failed: reversal rejected'))),
	];
	return calls.map((call) => {
		expect(call.started).toBe(true);
		return call.result.workflowData![0][0].json as Record<string, unknown>;
	});
}

describe("the trigger's output schema", () => {
	it.each([1, 2])(
		'is served for version %i where n8n asks for it, and is the schema of what the trigger emits',
		async (version) => {
			const items = await emitted();
			expect(items.map((i) => i.event)).toEqual([
				'payment.completed',
				'payment.failed',
				'refund.completed',
				'refund.failed',
			]);
			const file = join(SCHEMA_DIR, `v${version}.0.0.json`);
			const text = schemaText(schemaOfItems(items));
			if (UPDATE) writeFileSync(file, text);
			if (!existsSync(file))
				throw new Error(`${file} is missing: run \`npm run schemas\` and commit it`);
			expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(JSON.parse(text));
		},
	);
});

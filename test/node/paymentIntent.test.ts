// Payment Intent: Create, run as a workflow through n8n-core's engine against the sandbox.
import { loadFixture, runWorkflow } from '../../scripts/engine';
import { useNodeTestSandbox } from '../harness/sandbox';

const sb = useNodeTestSandbox();

const item = (overrides: Record<string, unknown> = {}) => ({
	amount: 1500,
	description: 'Order 1',
	callbackUrl: 'http://127.0.0.1:9/callback',
	key: '',
	email: 'amina@example.com',
	...overrides,
});

async function createIntents(items: Array<Record<string, unknown>>, executionId?: string) {
	return runWorkflow(loadFixture('payment-intent-create.json', { ITEMS: JSON.stringify(items) }), {
		credentials: sb.credentials,
		executionId,
	});
}

describe('Payment Intent: Create', () => {
	it('creates the intent with Basic auth and returns reference, checkout URL and key', async () => {
		await sb.received();
		const result = await createIntents([item({ key: 'shop0001' })]);
		expect(result.error).toBeUndefined();
		const [out] = result.output('Little Pay');
		expect(out.json).toMatchObject({
			key: 'shop0001',
			reference: expect.any(String),
			checkoutUrl: expect.stringContaining('http'),
		});
		expect(out.pairedItem).toEqual({ item: 0 });
		const status = await sb.status('shop0001');
		expect(status).toMatchObject({ reference: out.json.reference, amount: 1500 });
		const [sent] = await sb.received();
		expect(sent).toMatchObject({
			method: 'POST',
			path: `/api/payments/${sb.sandbox.merchant.tokenId}/pay`,
			status: 200,
		});
		expect(sent.body).toMatchObject({
			returnUrl: 'https://shop.example/thanks',
			expiresAt: 15,
			payload: { billingAddress: { email: 'amina@example.com' } },
		});
	});

	it('generates the same key when the same item of the same execution runs again, so no second intent appears', async () => {
		const first = await createIntents([item()], 'exec-retry-1');
		const again = await createIntents([item()], 'exec-retry-1');
		const firstOut = first.output('Little Pay')[0].json;
		expect(firstOut.key).toMatch(/^[a-f0-9]{12}$/);
		expect(again.error).toBeUndefined();
		expect(again.output('Little Pay')[0].json).toMatchObject({
			key: firstOut.key,
			reference: firstOut.reference,
			alreadyExisted: true,
		});
		const firstKey = firstOut.key;
		const ledger = await sb.get('/sandbox/ledger');
		const intents = (ledger.data.data.intents as Array<{ key: string }>).filter(
			(i) => i.key === firstKey,
		);
		expect(intents).toHaveLength(1);
	});

	it.each([
		['Billing Address', { email: '' }],
		['Amount', { amount: -5 }],
		['Callback URL', { callbackUrl: 'not a url' }],
		['Key', { key: 'order-12/3' }],
		['Description', { description: '' }],
	])('refuses a bad %s before sending anything', async (field, change) => {
		await sb.received();
		const result = await createIntents([item(change)]);
		expect(result.error?.message).toContain(`Item 0: ${field}`);
		expect(result.error?.description).toBeTruthy();
		expect(await sb.received()).toEqual([]);
	});

	it.each([
		['a Unix timestamp in milliseconds', Date.now()],
		['a Unix timestamp in seconds', Math.floor(Date.now() / 1000)],
		['a fraction', 2.5],
		['zero', 0],
		['more than 30 days', 43201],
	])('refuses Expires In given as %s before sending anything', async (_label, expiresAt) => {
		const workflow = loadFixture('payment-intent-create.json', {
			ITEMS: JSON.stringify([item({ key: 'expiry001' })]),
		});
		const node = workflow.nodes.find((n) => n.name === 'Little Pay')!;
		(node.parameters.additionalFields as Record<string, unknown>).expiresAt = expiresAt;
		await sb.received();
		const result = await runWorkflow(workflow, { credentials: sb.credentials });
		expect(result.error?.message).toBe(
			`Item 0: Expires In (Minutes) must be whole minutes from 1 to 43200 (got ${expiresAt})`,
		);
		expect(await sb.received()).toEqual([]);
	});

	it('resolves a create whose answer was lost by looking the key up, leaving exactly one intent', async () => {
		await sb.post('/sandbox/faults', {
			rules: [{ method: 'POST', pathPrefix: '/api/payments/', drop: 'after', times: 1 }],
		});
		const result = await createIntents([item({ key: 'lostanswer01' })]);
		await sb.post('/sandbox/faults', { rules: [] });
		expect(result.error).toBeUndefined();
		expect(result.output('Little Pay')[0].json).toMatchObject({
			key: 'lostanswer01',
			recovered: true,
			reference: expect.any(String),
		});
		const ledger = await sb.get('/sandbox/ledger');
		expect(
			(ledger.data.data.intents as Array<{ key: string }>).filter((i) => i.key === 'lostanswer01'),
		).toHaveLength(1);
	});
});

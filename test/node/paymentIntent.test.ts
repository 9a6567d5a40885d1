// Payment Intent: Create, run as a workflow through n8n-core's engine against the sandbox.
import { loadFixture, runWorkflow } from '../../testkit/engine';
import { useNodeTestSandbox } from '../../testkit/nodeSandbox';

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
		// It returns at once (no waiting here: the link must reach a later node), in the vocabulary
		// of Get Status: what was asked for, under the same names.
		expect(out.json).toEqual({
			reference: expect.any(String),
			key: 'shop0001',
			checkoutUrl: expect.stringContaining('http'),
			amount: 1500,
			currency: 'KES',
			description: 'Order 1',
			message: expect.any(String),
			gateway: 'sandbox',
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
		['Payer Email', { email: '' }],
		['Amount', { amount: -5 }],
		['Callback URL', { callbackUrl: 'not a url' }],
		['Key', { key: 'order-12/3' }],
		['Description', { description: '' }],
	])('refuses a bad %s before sending anything', async (field, change) => {
		await sb.received();
		const result = await createIntents([item(change)]);
		expect(result.error?.message).toContain(`Row 1: ${field}`);
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
		(node.parameters.options as Record<string, unknown>).expiresAt = expiresAt;
		await sb.received();
		const result = await runWorkflow(workflow, { credentials: sb.credentials });
		expect(result.error?.message).toBe(
			`Row 1: Expires In (Minutes) must be whole minutes from 1 to 43200 (got ${expiresAt})`,
		);
		expect(await sb.received()).toEqual([]);
	});

	it('without a Client ID and Secret credential fails naming it as the editor does, not its internal type, and sends nothing', async () => {
		await sb.received();
		const { littlePayApiKeyApi } = sb.credentials;
		const result = await runWorkflow(
			loadFixture('payment-intent-create.json', { ITEMS: JSON.stringify([item()]) }),
			{ credentials: { littlePayApiKeyApi } },
		);
		expect(result.error?.message).toBe(
			'No Little Pay (Client ID and Secret) API credential is selected',
		);
		expect(result.error?.message).not.toContain('littlePayBasicApi');
		expect(result.error?.description).toContain('Merchant Settings, Security tab');
		expect(await sb.received()).toEqual([]);
	});

	it('takes the payer email and phone from fields of their own and billing details from Options', async () => {
		await sb.received();
		const workflow = loadFixture('payment-intent-create.json', {
			ITEMS: JSON.stringify([item({ key: 'billing01', email: '' })]),
		});
		const node = workflow.nodes.find((n) => n.name === 'Little Pay')!;
		node.parameters.phoneNumber = '+254712345678';
		node.parameters.options = { firstName: 'Amina', country: 'KE' };
		const result = await runWorkflow(workflow, { credentials: sb.credentials });
		expect(result.error).toBeUndefined();
		const [sent] = await sb.received();
		expect((sent.body as { payload: unknown }).payload).toEqual({
			billingAddress: { firstName: 'Amina', country: 'KE', phoneNumber: '+254712345678' },
		});
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

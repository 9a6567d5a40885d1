// Mobile Money: Collect and Request Payment, run as workflows through n8n-core's engine against the sandbox.
import axios from 'axios';

import { loadFixture, runWorkflow } from '../../testkit/engine';
import { useNodeTestSandbox } from '../../testkit/nodeSandbox';
import { newKey, waitFor } from '../../testkit/sandbox';

const sb = useNodeTestSandbox({ pinDelayMs: 50, longPollTimeoutMs: 400 });

type Item = Record<string, unknown>;

async function run(file: string, items: Item[], continueOnFail = false) {
	return runWorkflow(
		loadFixture(file, {
			ITEMS: JSON.stringify(items),
			ON_ERROR: continueOnFail ? 'continueRegularOutput' : 'stopWorkflow',
		}),
		{ credentials: sb.credentials },
	);
}

const collect = (items: Item[], continueOnFail = false) =>
	run('mobile-money-collect.json', items, continueOnFail);
const payer = (overrides: Item = {}): Item => ({
	amount: 1500,
	network: 'MPESA',
	mobile: '254712345670',
	key: newKey('mm'),
	...overrides,
});

describe('Mobile Money: Collect', () => {
	it('creates the intent, sends the PIN prompt and waits: a number ending 0 completes, ending 1 is a FAILED output, not an error', async () => {
		const ok = payer({ mobile: '254712345670' });
		const declined = payer({ mobile: '254712345671' });
		const result = await collect([ok, declined]);
		expect(result.error).toBeUndefined();
		const [first, second] = result.output('Little Pay');
		expect(first.json).toMatchObject({
			key: ok.key,
			network: 'MPESA',
			mobile: '2547•••••670',
			status: 'COMPLETED',
			amount: 1500,
			timedOut: false,
		});
		expect(first.json.reference).toEqual(expect.any(String));
		expect(first.pairedItem).toEqual({ item: 0 });
		// What a merchant reconciles with: currency, order description, M-Pesa code, paid-at time.
		const paidRecord = await sb.status(String(first.json.reference));
		expect(first.json).toMatchObject({
			currency: 'KES',
			description: paidRecord.description,
			providerReference: expect.stringMatching(/^MPESA-[0-9A-F]{10}$/),
			paidAt: paidRecord.completedAt,
		});
		expect(Date.parse(String(first.json.paidAt))).toBeGreaterThan(0);
		expect(second.json).toMatchObject({
			key: declined.key,
			mobile: '2547•••••671',
			status: 'FAILED',
			timedOut: false,
		});
		expect(second.pairedItem).toEqual({ item: 1 });

		// The gateway recorded what the output claims, and the payer's number became the billing phone.
		const record = await sb.status(String(first.json.reference));
		expect(record).toMatchObject({
			status: 'COMPLETED',
			key: ok.key,
			payment: { provider: 'MPESA', details: { mobile: '254712345670' } },
		});
		expect(record.payload.billingAddress.phoneNumber).toBe('+254712345670');
		expect((await sb.status(String(second.json.reference))).status).toBe('FAILED');

		const sent = await sb.received();
		const paths = sent.map(
			(r) =>
				`${r.method} ${r.path.replace(/[0-9a-f-]{36}/, '{ref}').replace(/payments-v2\/.+/, 'payments-v2/{id}')}`,
		);
		expect(paths.slice(0, 3)).toEqual([
			`POST /api/payments/${sb.sandbox.merchant.tokenId}/pay`,
			'POST /pay/{ref}/process',
			'GET /api/payments-v2/{id}',
		]);
		expect(sent[1].body).toEqual({ type: 'MPESA', payment: { mobile: '254712345670' } });
	});

	it('says why a payment failed: the output message is the final status message, not the PIN prompt notice', async () => {
		const result = await collect([
			payer({ mobile: '254712345671' }),
			payer({ mobile: '254712345672' }),
		]);
		expect(result.error).toBeUndefined();
		const [insufficient, cancelled] = result.output('Little Pay').map((o) => o.json);
		expect(insufficient).toMatchObject({
			status: 'FAILED',
			message: 'Insufficient funds in the payer account',
		});
		expect(cancelled).toMatchObject({
			status: 'FAILED',
			message: 'The payer cancelled the payment request',
		});
	});

	it('reports a failed PIN prompt at once with payable: true, and the payer can still pay the same intent on its checkout page', async () => {
		const declined = payer({ mobile: '254712345672' });
		const result = await collect([declined]);
		expect(result.error).toBeUndefined();
		const [out] = result.output('Little Pay').map((o) => o.json);
		expect(out).toMatchObject({ status: 'FAILED', payable: true, timedOut: false });
		// Asking again: the payer gets the output's checkoutUrl and pays there, typing a local number.
		const page = await axios.post(
			String(out.checkoutUrl).replace(/\/?$/, '/mobile'),
			new URLSearchParams({ type: 'MPESA', mobile: '0712 345 670' }).toString(),
			{
				headers: { 'content-type': 'application/x-www-form-urlencoded' },
				maxRedirects: 0,
				validateStatus: () => true,
			},
		);
		expect(page.status).toBe(303);
		const record = await waitFor('the payment on the checkout page', async () => {
			const now = await sb.status(String(declined.key));
			return now.status === 'COMPLETED' ? now : undefined;
		});
		expect((record.attempts as Array<{ status: string }>).map((a) => a.status)).toEqual([
			'FAILED',
			'COMPLETED',
		]);
	});

	it('returns the PENDING prompt without waiting when Wait for Completion is off', async () => {
		const result = await collect([payer({ wait: false })]);
		expect(result.error).toBeUndefined();
		expect(result.output('Little Pay')[0].json).toMatchObject({
			status: 'PENDING',
			mobile: '2547•••••670',
		});
		expect(result.output('Little Pay')[0].json).not.toHaveProperty('timedOut');
		const sent = await sb.received();
		expect(sent.map((r) => r.method)).toEqual(['POST', 'POST']); // no status request
	});

	it('returns timedOut true when the payer never answers within the timeout', async () => {
		const result = await collect([payer({ mobile: '254712345673', timeout: 1 })]);
		expect(result.error).toBeUndefined();
		expect(result.output('Little Pay')[0].json).toMatchObject({
			status: 'PENDING',
			timedOut: true,
		});
	});

	it('normalises +254 712 345 670 and 0712345670 (Kenya) to the 254712345670 the gateway expects', async () => {
		const result = await collect([
			payer({ mobile: '+254 712 345 670', wait: false }),
			payer({ mobile: '0712345670', country: 'KE', wait: false }),
		]);
		expect(result.error).toBeUndefined();
		// Both come out as one number, masked (Payer Details: Masked); the prompts below carry it in full.
		expect(result.output('Little Pay').map((o) => o.json.mobile)).toEqual([
			'2547•••••670',
			'2547•••••670',
		]);
		const prompts = (await sb.received()).filter((r) => r.path.endsWith('/process'));
		expect(prompts.map((r) => r.body)).toEqual([
			{ type: 'MPESA', payment: { mobile: '254712345670' } },
			{ type: 'MPESA', payment: { mobile: '254712345670' } },
		]);
	});

	it('uses the Country for national numbers: 0712345678 in Uganda is 256712345678 for Airtel', async () => {
		const result = await collect([
			payer({
				network: 'AIRTEL',
				mobile: '0712345678',
				country: 'UG',
				currency: 'UGX',
				wait: false,
			}),
		]);
		expect(result.error).toBeUndefined();
		const prompt = (await sb.received()).find((r) => r.path.endsWith('/process'));
		expect(prompt?.body).toEqual({ type: 'AIRTEL', payment: { mobile: '256712345678' } });
	});

	it('fails the item naming Mobile Number when the number cannot belong to the network, and the sandbox receives nothing', async () => {
		// A Kenyan number on MTN (Uganda, Ghana, Rwanda), and a Kenyan national number on Tigo Pesa (Tanzania).
		for (const bad of [
			payer({ network: 'MTN', mobile: '+254 712 345 670' }),
			payer({ network: 'TIGOPESA', mobile: '0712345670', country: 'KE' }),
		]) {
			const result = await collect([bad]);
			// The national number is said to be read in the Country, since that is what went wrong.
			expect(result.error?.message).toBe(
				bad.network === 'MTN'
					? 'Row 1: Mobile Number does not start with a country code that MTN serves (256, 233 or 250)'
					: 'Row 1: Mobile Number is read as a Kenyan number (Country KE), and TIGOPESA serves only Tanzania',
			);
			expect(result.output('Little Pay')).toEqual([]);
		}
		expect(await sb.received()).toEqual([]);
	});
});

describe('Mobile Money: Request Payment', () => {
	it('reads the status record, then sends the PIN prompt with the normalised number and returns the gateway answer', async () => {
		const intent = await sb.createIntent({ amount: 800 });
		await sb.received();
		const result = await run('mobile-money-request-payment.json', [
			{ reference: intent.reference, network: 'AIRTEL', mobile: '+256 712 345 678' },
		]);
		expect(result.error).toBeUndefined();
		const [out] = result.output('Little Pay');
		expect(out.json).toMatchObject({
			reference: intent.reference,
			network: 'AIRTEL',
			mobile: '2567•••••678',
			status: 'PENDING',
			meta: { provider: 'AIRTEL' },
		});
		expect(out.json).not.toHaveProperty('recovered');
		expect(out.pairedItem).toEqual({ item: 0 });
		const sent = await sb.received();
		expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual([
			`GET /api/payments-v2/${intent.reference}`,
			`POST /pay/${intent.reference}/process`,
		]);
		expect(sent[1]).toMatchObject({
			method: 'POST',
			path: `/pay/${intent.reference}/process`,
			body: { type: 'AIRTEL', payment: { mobile: '256712345678' } },
			status: 200,
		});
		// The payer (ending 8) pays after the PIN delay.
		expect(await sb.status(intent.key, '?longPoll=true')).toMatchObject({
			status: 'COMPLETED',
			payment: { provider: 'AIRTEL' },
		});
	});

	it('does not ask a payer again who already has a waiting attempt of that network', async () => {
		const intent = await sb.createIntent();
		await sb.post(`/pay/${intent.reference}/process`, {
			type: 'MPESA',
			payment: { mobile: '254712345673' },
		});
		await sb.received();
		const result = await run('mobile-money-request-payment.json', [
			{ reference: intent.reference, network: 'MPESA', mobile: '254712345670' },
		]);
		expect(result.error).toBeUndefined();
		expect(result.output('Little Pay')[0].json).toMatchObject({
			status: 'PENDING',
			alreadyPrompted: true,
			message: 'Not asked again: this intent already has a MPESA payment attempt (PENDING)',
		});
		expect((await sb.received()).map((r) => r.method)).toEqual(['GET']);
		expect((await sb.status(intent.key)).attempts).toHaveLength(1);
	});

	it('maps a prompt of another network while one waits to a NodeApiError naming the request and the code (422)', async () => {
		const intent = await sb.createIntent();
		await sb.post(`/pay/${intent.reference}/process`, {
			type: 'MPESA',
			payment: { mobile: '254712345673' },
		});
		const result = await run('mobile-money-request-payment.json', [
			{ reference: intent.reference, network: 'AIRTEL', mobile: '254712345670' },
		]);
		// The engine keeps the error as a plain record; its name, httpCode and description are the node's.
		expect(result.error).toMatchObject({
			name: 'NodeApiError',
			httpCode: '422',
			context: { itemIndex: 0 },
		});
		expect(result.error?.message).toBe(
			`Little Pay refused by its rules POST /pay/${intent.reference}/process (HTTP 422, ATTEMPT_IN_PROGRESS)`,
		);
		expect(result.error?.description).toContain('refused the request by its rules');
		expect((await sb.status(intent.key)).attempts).toHaveLength(1);
	});
});

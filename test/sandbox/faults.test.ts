// Fault injection and the control endpoints: latency, injected statuses, dropped connections before and after
// the request took effect, the request log (masked) and reset.
import axios from 'axios';
import { newKey, startTestSandbox } from '../../testkit/sandbox';
import type { TestSandbox } from '../../testkit/sandbox';

describe('sandbox faults and control endpoints', () => {
	let t: TestSandbox;
	beforeAll(async () => {
		t = await startTestSandbox({ pinDelayMs: 50 });
	});
	afterAll(async () => {
		await t.sandbox.close();
	});
	afterEach(async () => {
		await axios.delete(`${t.base}/sandbox/faults`);
	});

	const payout = (key: string) => ({
		amount: 500,
		method: 'MPESA',
		details: { to: '254712345670', accountType: 'MOBILE' },
		currency: 'KES',
		key,
	});
	const ledgerCount = async (key: string) =>
		(await t.get('/sandbox/ledger')).data.data.disbursements.filter(
			(d: { key: string }) => d.key === key,
		).length;

	it('adds latency from the X-Sandbox-Fault header', async () => {
		const started = Date.now();
		const res = await t.get('/api/disbursements/charges', {
			...t.apiKeyHeaders,
			'X-Sandbox-Fault': 'latency=300',
		});
		expect(res.status).toBe(200);
		expect(Date.now() - started).toBeGreaterThanOrEqual(290);
	});

	it('answers an injected 503 without doing anything', async () => {
		const key = newKey('p');
		const res = await t.post('/api/disbursements', payout(key), {
			...t.apiKeyHeaders,
			'X-Sandbox-Fault': 'status=503',
		});
		expect(res.status).toBe(503);
		expect(res.data.data.code).toBe('INJECTED_FAULT');
		expect(await ledgerCount(key)).toBe(0);
	});

	it('drop=before: the connection dies and nothing happened', async () => {
		const key = newKey('p');
		await expect(
			axios.post(`${t.base}/api/disbursements`, payout(key), {
				headers: { ...t.apiKeyHeaders, 'X-Sandbox-Fault': 'drop=before' },
			}),
		).rejects.toMatchObject({
			code: expect.stringMatching(/ECONNRESET|ERR_BAD_RESPONSE|socket hang up/),
		});
		expect(await ledgerCount(key)).toBe(0);
		const lookup = await t.get(`/api/disbursements/${key}`, t.apiKeyHeaders);
		expect(lookup.status).toBe(404);
	});

	it('drop=after: the connection dies but the payout was created (lookup by key finds it)', async () => {
		const key = newKey('p');
		await expect(
			axios.post(`${t.base}/api/disbursements`, payout(key), {
				headers: { ...t.apiKeyHeaders, 'X-Sandbox-Fault': 'drop=after' },
			}),
		).rejects.toBeDefined();
		expect(await ledgerCount(key)).toBe(1);
		const lookup = await t.get(`/api/disbursements/${key}`, t.apiKeyHeaders);
		expect(lookup.status).toBe(200);
		// A retry with the same key is refused, so the payout is never doubled.
		expect((await t.post('/api/disbursements', payout(key), t.apiKeyHeaders)).status).toBe(409);
	});

	it('rules match by method and path prefix and stop after `times`', async () => {
		const set = await t.post('/sandbox/faults', {
			rules: [{ method: 'POST', pathPrefix: '/pay/', status: 502, times: 2 }],
		});
		expect(set.status).toBe(200);
		const { reference } = await t.createIntent();
		const body = { type: 'MPESA', payment: { mobile: '254712345670' } };
		expect((await t.post(`/pay/${reference}/process`, body)).status).toBe(502);
		expect((await t.status(reference)).attempts).toHaveLength(0);
		expect((await t.post(`/pay/${reference}/process`, body)).status).toBe(502);
		expect((await t.post(`/pay/${reference}/process`, body)).status).toBe(200);
		expect((await t.get('/sandbox/faults')).data.data.rules).toEqual([]);
	});

	it('a drop-after rule on process commits the attempt before the socket dies', async () => {
		await t.post('/sandbox/faults', { rules: [{ pathPrefix: '/pay/', drop: 'after', times: 1 }] });
		const { reference } = await t.createIntent();
		await expect(
			axios.post(`${t.base}/pay/${reference}/process`, {
				type: 'MPESA',
				payment: { mobile: '254712345670' },
			}),
		).rejects.toBeDefined();
		const record = await t.status(reference);
		expect(record.attempts).toHaveLength(1);
	});

	it('slows long polls with a latency rule on the status path', async () => {
		await t.post('/sandbox/faults', {
			rules: [{ method: 'GET', pathPrefix: '/api/payments-v2/', latencyMs: 400 }],
		});
		const { reference } = await t.createIntent();
		await t.post(`/pay/${reference}/process`, {
			type: 'MPESA',
			payment: { mobile: '254712345671' },
		});
		const started = Date.now();
		const res = await t.get(`/api/payments-v2/${reference}?longPoll=true`, t.apiKeyHeaders);
		expect(res.data.data.status).toBe('FAILED');
		expect(Date.now() - started).toBeGreaterThanOrEqual(390);
	});

	it('rate 0 never fires; bad rules and bad fault headers are 400s', async () => {
		await t.post('/sandbox/faults', { rules: [{ status: 500, rate: 0 }] });
		expect((await t.get('/api/disbursements/charges', t.apiKeyHeaders)).status).toBe(200);
		expect((await t.post('/sandbox/faults', { rules: [{ drop: 'sometimes' }] })).status).toBe(400);
		expect((await t.post('/sandbox/faults', { rules: 'all' })).status).toBe(400);
		const bad = await t.get('/api/disbursements/charges', {
			...t.apiKeyHeaders,
			'X-Sandbox-Fault': 'explode=1',
		});
		expect(bad.status).toBe(400);
		expect(bad.data.data.message).toMatch(/explode/);
	});

	it('logs API requests with card data and secrets masked, and filters by since', async () => {
		const { reference } = await t.createIntent();
		const before = (await t.get('/sandbox/requests')).data.data.requests;
		const since = before[before.length - 1].seq;
		await t.post(`/pay/${reference}/cspaToken`, {
			type: 'CARDS',
			payment: { cc_number: '4111111111111111', cc_cvv: '123', cc_exp: '01/39', cc_name: 'Amina' },
		});
		const res = await t.get(`/sandbox/requests?since=${since}`);
		const requests = res.data.data.requests;
		expect(requests).toHaveLength(1);
		expect(requests[0]).toMatchObject({
			seq: since + 1,
			method: 'POST',
			path: `/pay/${reference}/cspaToken`,
			status: 200,
		});
		const text = JSON.stringify(res.data);
		expect(text).not.toContain('4111111111111111');
		expect(text).not.toContain('"123"');
		expect(requests[0].body.payment.cc_number).toBe('************1111');
	});

	it('reset forgets intents, logs and fault rules', async () => {
		const { reference } = await t.createIntent();
		await t.post('/sandbox/faults', { rules: [{ pathPrefix: '/nothing', status: 500 }] });
		const res = await t.post('/sandbox/reset');
		expect(res.status).toBe(200);
		expect((await t.get(`/api/payments-v2/${reference}`, t.apiKeyHeaders)).status).toBe(404);
		const ledger = (await t.get('/sandbox/ledger')).data.data;
		expect(ledger).toEqual({ intents: [], refunds: [], disbursements: [] });
		expect((await t.get('/sandbox/faults')).data.data.rules).toEqual([]);
		expect((await t.get('/sandbox/requests')).data.data.requests).toHaveLength(1);
	});
});

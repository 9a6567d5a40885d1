// Signed callbacks: flat payment payload, RSA-SHA256 signature over `<timestamp>.<body>`, retries, loopback only.
import { verify } from 'node:crypto';
import { startTestSandbox, waitFor } from '../../testkit/sandbox';
import type { TestSandbox } from '../../testkit/sandbox';
import { startReceiver } from '../../testkit/sandboxHelpers';
import type { Delivery } from '../../testkit/sandboxHelpers';

function verifies(publicKeyPem: string, d: Pick<Delivery, 'headers' | 'body'>): boolean {
	const timestamp = String(d.headers['x-littlepay-timestamp']);
	const signature = String(d.headers['x-littlepay-signature']);
	return verify(
		'sha256',
		Buffer.from(`${timestamp}.${d.body}`),
		publicKeyPem,
		Buffer.from(signature, 'base64'),
	);
}

describe('sandbox callbacks', () => {
	let t: TestSandbox;
	beforeAll(async () => {
		t = await startTestSandbox({ pinDelayMs: 50, callbackRetryDelaysMs: [100, 200] });
	});
	afterAll(async () => {
		await t.sandbox.close();
	});

	it('posts the flat payment callback, signed with the key behind publicKeyPem; a tampered body fails verification', async () => {
		const receiver = await startReceiver([200]);
		try {
			const { reference, key } = await t.createIntent({
				amount: 1500,
				callbackUrl: `${receiver.url}/hook`,
				payload: { billingAddress: { firstName: 'Amina', email: 'amina@example.com' } },
			});
			await t.post(`/pay/${reference}/process`, {
				type: 'MPESA',
				payment: { mobile: '254712345670' },
			});
			const delivery = await waitFor('callback', () => receiver.deliveries[0]);
			expect(delivery.path).toBe('/hook');
			expect(delivery.headers['content-type']).toBe('application/json');
			const timestamp = Number(delivery.headers['x-littlepay-timestamp']);
			expect(Math.abs(timestamp - Date.now() / 1000)).toBeLessThan(5);
			const body = JSON.parse(delivery.body);
			expect(body).toEqual({
				reference,
				status: 'COMPLETED',
				payload: {
					billingAddress: {
						firstName: 'Amina',
						lastName: '',
						address1: '',
						locality: '',
						administrativeArea: '',
						postalCode: '',
						country: '',
						email: 'amina@example.com',
						phoneNumber: '',
					},
				},
				amount: 1500,
				key,
				currency: 'KES',
				provider: 'MPESA',
				date: expect.any(String),
			});
			expect(verifies(t.sandbox.merchant.publicKeyPem, delivery)).toBe(true);
			expect(
				verifies(t.sandbox.merchant.publicKeyPem, {
					...delivery,
					body: delivery.body.replace('1500', '150000'),
				}),
			).toBe(false);
			const log = await t.get('/sandbox/callbacks');
			const entries = log.data.data.callbacks.filter(
				(c: { url: string }) => c.url === `${receiver.url}/hook`,
			);
			expect(entries).toEqual([
				expect.objectContaining({ event: 'payment', attempt: 1, status: 200, body: delivery.body }),
			]);
		} finally {
			await receiver.close();
		}
	});

	it('sends a FAILED callback for a failed payment', async () => {
		const receiver = await startReceiver([200]);
		try {
			const { reference } = await t.createIntent({ callbackUrl: `${receiver.url}/hook` });
			await t.post(`/pay/${reference}/process`, {
				type: 'AIRTEL',
				payment: { mobile: '254712345671' },
			});
			const delivery = await waitFor('callback', () => receiver.deliveries[0]);
			expect(JSON.parse(delivery.body)).toMatchObject({
				reference,
				status: 'FAILED',
				provider: 'AIRTEL',
			});
		} finally {
			await receiver.close();
		}
	});

	it('retries with the configured backoff after 500s and stops at the first 2xx, logging every attempt', async () => {
		const receiver = await startReceiver([500, 503, 200]);
		try {
			const { reference } = await t.createIntent({ callbackUrl: `${receiver.url}/retry` });
			await t.post(`/pay/${reference}/process`, {
				type: 'MPESA',
				payment: { mobile: '254712345670' },
			});
			await waitFor('three deliveries', () => (receiver.deliveries.length >= 3 ? true : undefined));
			await new Promise((r) => setTimeout(r, 300));
			expect(receiver.deliveries).toHaveLength(3);
			// Every attempt is independently signed and carries the same body.
			for (const d of receiver.deliveries)
				expect(verifies(t.sandbox.merchant.publicKeyPem, d)).toBe(true);
			expect(new Set(receiver.deliveries.map((d) => d.body)).size).toBe(1);
			const log = (await t.get('/sandbox/callbacks')).data.data.callbacks.filter(
				(c: { url: string }) => c.url.endsWith('/retry'),
			);
			expect(
				log.map((c: { attempt: number; status: number; answer: string }) => [
					c.attempt,
					c.status,
					c.answer,
				]),
			).toEqual([
				[1, 500, 'answer 500'],
				[2, 503, 'answer 503'],
				[3, 200, 'answer 200'],
			]);
			const gaps = [
				Date.parse(log[1].at) - Date.parse(log[0].at),
				Date.parse(log[2].at) - Date.parse(log[1].at),
			];
			expect(gaps[0]).toBeGreaterThanOrEqual(90);
			expect(gaps[1]).toBeGreaterThanOrEqual(190);
		} finally {
			await receiver.close();
		}
	});

	it('retries when nobody answers and gives up after the last delay', async () => {
		const receiver = await startReceiver([200]);
		const deadUrl = `${receiver.url}/gone`;
		await receiver.close();
		const { reference } = await t.createIntent({ callbackUrl: deadUrl });
		await t.post(`/pay/${reference}/process`, {
			type: 'MPESA',
			payment: { mobile: '254712345670' },
		});
		const entries = await waitFor('three failed attempts', async () => {
			const log = (await t.get('/sandbox/callbacks')).data.data.callbacks.filter(
				(c: { url: string }) => c.url === deadUrl,
			);
			return log.length >= 3 && log[2].error ? log : undefined;
		});
		await new Promise((r) => setTimeout(r, 300));
		const after = (await t.get('/sandbox/callbacks')).data.data.callbacks.filter(
			(c: { url: string }) => c.url === deadUrl,
		);
		expect(after).toHaveLength(3);
		expect(
			entries.every((e: { error?: string; status?: number }) => e.error && e.status === undefined),
		).toBe(true);
	});

	it('never sends a callback off this machine: a remote host is logged as skipped', async () => {
		const { reference } = await t.createIntent({
			callbackUrl: 'https://merchant.example.com/hook',
		});
		await t.post(`/pay/${reference}/process`, {
			type: 'MPESA',
			payment: { mobile: '254712345670' },
		});
		const entry = await waitFor('skipped entry', async () =>
			(await t.get('/sandbox/callbacks')).data.data.callbacks.find(
				(c: { url: string }) => c.url === 'https://merchant.example.com/hook',
			),
		);
		expect(entry).toMatchObject({ skipped: true, error: expect.stringMatching(/not loopback/) });
	});

	it('signs refund callbacks the same way, only for refunds that answered PENDING', async () => {
		const receiver = await startReceiver([200]);
		try {
			const { reference, key } = await t.createIntent({ amount: 1000 });
			await t.post(`/pay/${reference}/process?longPoll=true`, {
				type: 'MPESA',
				payment: { mobile: '254712345670' },
			});
			const done = await t.post(
				`/api/refund/${key}`,
				{ amount: 100, callbackUrl: `${receiver.url}/refund` },
				t.apiKeyHeaders,
			);
			expect(done.data.data.status).toBe('COMPLETED');
			const pending = await t.post(
				`/api/refund/${key}`,
				{ amount: 200, reason: 'pending customer return', callbackUrl: `${receiver.url}/refund` },
				t.apiKeyHeaders,
			);
			expect(pending.data.data.status).toBe('PENDING');
			const delivery = await waitFor('refund callback', () => receiver.deliveries[0]);
			await new Promise((r) => setTimeout(r, 150));
			expect(receiver.deliveries).toHaveLength(1);
			expect(JSON.parse(delivery.body)).toEqual({
				status: 'COMPLETED',
				message: expect.any(String),
				amount: 200,
				reason: 'pending customer return',
				date: expect.any(String),
				reference,
				key,
			});
			expect(verifies(t.sandbox.merchant.publicKeyPem, delivery)).toBe(true);
		} finally {
			await receiver.close();
		}
	});
});

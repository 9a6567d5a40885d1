// Helpers the sandbox tests use: form bodies as the 3-D Secure pages post them and a local callback
// receiver. The shared ones (a started sandbox, newKey, waitFor, deviceInformation) are in testkit/sandbox.ts.
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A form body, as the 3-D Secure pages post theirs. */
export const form = (fields: Record<string, string>): string =>
	new URLSearchParams(fields).toString();
export const formHeaders = { 'content-type': 'application/x-www-form-urlencoded' };

export interface Delivery {
	headers: IncomingHttpHeaders;
	body: string;
	path: string;
}

/** A loopback callback receiver; `answers` gives the status for each delivery in turn (last one repeats). */
export async function startReceiver(
	answers: number[] = [200],
): Promise<{ url: string; deliveries: Delivery[]; close(): Promise<void> }> {
	const deliveries: Delivery[] = [];
	const server: Server = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			deliveries.push({
				headers: req.headers,
				body: Buffer.concat(chunks).toString('utf8'),
				path: req.url ?? '',
			});
			const status = answers[Math.min(deliveries.length - 1, answers.length - 1)];
			res.writeHead(status).end(`answer ${status}`);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const port = (server.address() as AddressInfo).port;
	return {
		url: `http://127.0.0.1:${port}`,
		deliveries,
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

// A sandbox started for a node test suite, with the credentials n8n would hold for it.
import type { ICredentialDataDecryptedObject } from 'n8n-workflow';
import axios from 'axios';

import { startTestSandbox } from './sandbox';
import type { TestSandbox } from './sandbox';

export interface NodeTestSandbox extends TestSandbox {
	credentials: Record<string, ICredentialDataDecryptedObject>;
	/** Requests the sandbox received since the last call (its own log, not the node's). */
	received(): Promise<Array<{ method: string; path: string; body: unknown; status: number }>>;
}

/** Starts a fast sandbox and the Basic + API key credentials pointing at it. */
export async function startNodeTestSandbox(
	options: Parameters<typeof startTestSandbox>[0] = {},
): Promise<NodeTestSandbox> {
	const sb = await startTestSandbox(options);
	const m = sb.sandbox.merchant;
	let since = 0;
	return {
		...sb,
		credentials: {
			littlePayBasicApi: {
				clientId: m.clientId,
				clientSecret: m.clientSecret,
				tokenId: m.tokenId,
				baseUrl: m.baseUrl,
			},
			littlePayApiKeyApi: { apiKey: m.apiKey, baseUrl: m.baseUrl },
		},
		async received() {
			const res = await axios.get(`${sb.base}/sandbox/requests`, { params: { since } });
			const requests = res.data.data.requests as Array<{
				seq: number;
				method: string;
				path: string;
				body: unknown;
				status: number;
			}>;
			if (requests.length > 0) since = requests[requests.length - 1].seq;
			return requests;
		},
	};
}

/**
 * Starts a sandbox for the enclosing suite and stops it afterwards; before each test the fault
 * rules are cleared and the request log is read up to now. Returns the (filled-in) handle.
 */
export function useNodeTestSandbox(
	options: Parameters<typeof startTestSandbox>[0] = {},
): NodeTestSandbox {
	const sb = {} as NodeTestSandbox;
	beforeAll(async () => {
		Object.assign(sb, await startNodeTestSandbox(options));
	});
	afterAll(async () => {
		await sb.sandbox?.close();
	});
	beforeEach(async () => {
		await sb.post('/sandbox/faults', { rules: [] });
		await sb.received();
	});
	return sb;
}

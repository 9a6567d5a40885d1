// No redirect is ever followed (issue 50, point 1): a gateway, a load balancer or a proxy on the Base
// URL's path that answers 301, 302, 307 or 308 must not carry the API key (or, with a 307/308, the card
// or the payout) to another host, and the node must never take that host's answer as Little Pay's.
// A loopback front stands where Little Pay is: it passes requests to the sandbox, except the ones a
// test redirects to a second loopback server, "the other host", which records whatever reaches it.
import { createServer, request as httpRequest } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import type {
	IDataObject,
	IHttpRequestOptions,
	IWebhookFunctions,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';
// n8n-core's own request helper, as n8n hands it to a webhook (the trigger, a resumed pause).
import { httpRequestWithAuthentication } from 'n8n-core/dist/execution-engine/node-execution-context/utils/request-helpers/authentication';

import { LittlePayApiKeyApi } from '../../credentials/LittlePayApiKeyApi.credentials';
import { LittlePayBasicApi } from '../../credentials/LittlePayBasicApi.credentials';
import { fetchPaymentStatus } from '../../nodes/LittlePay/transport/gateway';
import { getFromWebhook } from '../../nodes/LittlePay/transport';
import { loadFixture, runWorkflow } from '../../testkit/engine';
import type { RunResult, WorkflowJson } from '../../testkit/engine';
import { useNodeTestSandbox } from '../../testkit/nodeSandbox';
import { newKey } from '../../testkit/sandbox';

const sb = useNodeTestSandbox({ pinDelayMs: 50, longPollTimeoutMs: 400 });

interface Stolen {
	method: string;
	url: string;
	apiKey: string | undefined;
	body: string;
}

/** What reached the other host: every request, with its X-API-KEY header and body. */
const stolen: Stolen[] = [];
let other: Server;
let otherPort: number;

/** Which requests the front redirects, and with which status; null passes them to the sandbox. */
let redirectWhen: (req: IncomingMessage) => number | null = () => null;
let front: Server;
let frontUrl: string;
/** Every request that reached the front, as `METHOD path`. */
const atFront: string[] = [];

function listen(server: Server): Promise<number> {
	return new Promise((resolve) => {
		server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
	});
}

function readBody(req: IncomingMessage): Promise<Buffer> {
	return new Promise((resolve) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => resolve(Buffer.concat(chunks)));
	});
}

beforeAll(async () => {
	other = createServer((req, res) => {
		void readBody(req).then((body) => {
			const key = req.headers['x-api-key'];
			stolen.push({
				method: req.method ?? '',
				url: req.url ?? '',
				apiKey: Array.isArray(key) ? key[0] : key,
				body: body.toString('utf8'),
			});
			// The answer a hostile host would give: "all is well".
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(
				JSON.stringify({
					data: { status: 'COMPLETED', reference: 'FAKE', id: 'FAKE', message: 'ok' },
				}),
			);
		});
	});
	otherPort = await listen(other);
	front = createServer((req: IncomingMessage, res: ServerResponse) => {
		atFront.push(`${req.method} ${req.url}`);
		const status = redirectWhen(req);
		if (status !== null) {
			// Relative to another host: "localhost" is not the 127.0.0.1 the credential names.
			res.writeHead(status, { location: `http://localhost:${otherPort}/elsewhere${req.url}` });
			res.end();
			return;
		}
		const target = new URL(sb.base);
		const forward = httpRequest(
			{
				host: target.hostname,
				port: target.port,
				method: req.method,
				path: req.url,
				headers: { ...req.headers, host: target.host },
			},
			(answer) => {
				res.writeHead(answer.statusCode ?? 502, answer.headers);
				answer.pipe(res);
			},
		);
		req.pipe(forward);
	});
	frontUrl = `http://127.0.0.1:${await listen(front)}`;
});

afterAll(async () => {
	await new Promise((resolve) => front.close(resolve));
	await new Promise((resolve) => other.close(resolve));
});

beforeEach(() => {
	stolen.length = 0;
	atFront.length = 0;
	redirectWhen = () => null;
});

/** The sandbox merchant's credentials, with every address at the front. */
function credentials(disbursementBaseUrl?: string) {
	return {
		littlePayBasicApi: { ...sb.credentials.littlePayBasicApi, baseUrl: frontUrl },
		littlePayApiKeyApi: {
			...sb.credentials.littlePayApiKeyApi,
			baseUrl: frontUrl,
			...(disbursementBaseUrl ? { disbursementBaseUrl } : {}),
		},
	};
}

const API_KEY = () => String(sb.credentials.littlePayApiKeyApi.apiKey);

function run(
	fixture: string,
	items: IDataObject[],
	options: { disbursementBaseUrl?: string } = {},
): Promise<RunResult> {
	const json: WorkflowJson = loadFixture(fixture, {
		ITEMS: JSON.stringify(items),
		ON_ERROR: 'stopWorkflow',
	});
	return runWorkflow(json, { credentials: credentials(options.disbursementBaseUrl) });
}

const REDIRECTS = [301, 302, 307, 308];

const redirectMessage = (field: string) =>
	new RegExp(
		`^Little Pay answered with a redirect to localhost:${'\\d+'}; the request was not followed: check the ${field}$`,
	);

/** Nothing reached the other host: no request at all, so neither the API key nor a body. */
function expectNothingElsewhere(): void {
	expect(stolen).toEqual([]);
}

describe.each(REDIRECTS)('HTTP %i from the gateway is never followed', (status) => {
	it('a payout (money POST): the run fails with the redirect named, the payout is not taken, nothing reaches the other host', async () => {
		redirectWhen = (req) =>
			req.method === 'POST' && req.url === '/api/disbursements' ? status : null;
		const key = newKey('rd');
		const result = await run('disbursement-create.json', [
			{ method: 'MPESA', amount: 150, to: '254712340010', key },
		]);
		expect(result.error?.message).toMatch(redirectMessage('Base URL'));
		expect(result.error?.description).toContain('Little Pay did not take this request');
		expectNothingElsewhere();
		const ledger = (await sb.get('/sandbox/ledger')).data.data.disbursements as IDataObject[];
		expect(ledger.filter((d) => d.key === key)).toEqual([]);
	});

	it('a collect (money POST): the prompt is not taken elsewhere and no lost-answer recovery repeats it', async () => {
		redirectWhen = (req) =>
			req.method === 'POST' && /^\/pay\/[^/]+\/process$/.test(req.url ?? '') ? status : null;
		const result = await run('mobile-money-collect.json', [
			{
				amount: 10,
				description: 'Order',
				key: newKey('rd'),
				network: 'MPESA',
				mobile: '254712345670',
			},
		]);
		expect(result.error?.message).toMatch(redirectMessage('Base URL'));
		expectNothingElsewhere();
		// One process POST was sent and refused: a redirect is not a lost answer to recover or repeat.
		expect(atFront.filter((r) => r.startsWith('POST /pay/'))).toHaveLength(1);
	});

	it('a card payment (money POST): the card is not re-posted to the other host', async () => {
		const { reference } = await sb.createIntent();
		redirectWhen = (req) =>
			req.method === 'POST' && req.url === `/pay/${reference}/process` ? status : null;
		const result = await run('card-process.json', [
			{
				reference,
				cardNumber: '4111111111111111',
				cvv: '737',
				expiry: '01/39',
				name: 'Amina Wanjiru',
			},
		]);
		expect(result.error?.message).toMatch(redirectMessage('Base URL'));
		expectNothingElsewhere();
		expect(JSON.stringify(result.run.data.resultData)).not.toContain('FAKE');
	});

	it("a status read: fails with the redirect named and never shows the other host's answer", async () => {
		const { key } = await sb.createIntent();
		redirectWhen = (req) =>
			req.method === 'GET' && req.url?.startsWith('/api/payments-v2/') ? status : null;
		const result = await run('payment-get-status.json', [{ paymentId: key }]);
		expect(result.error?.message).toMatch(redirectMessage('Base URL'));
		expectNothingElsewhere();
		expect(JSON.stringify(result.run.data.resultData)).not.toContain('FAKE');
	});

	it("the trigger's status check and key fetch (webhook side, n8n-core's request helper): refused, nothing elsewhere", async () => {
		redirectWhen = () => status;
		const context = webhookContext();
		await expect(fetchPaymentStatus(context, 'R1')).rejects.toThrow(redirectMessage('Base URL'));
		await expect(getFromWebhook(context, `${frontUrl}/sandbox/public-key`, 5000)).rejects.toThrow(
			redirectMessage('Base URL'),
		);
		expectNothingElsewhere();
	});
});

describe('a redirect on the Disbursement Base URL', () => {
	it('names the Disbursement Base URL, and nothing reaches the other host', async () => {
		redirectWhen = (req) => (req.url === '/api/disbursements' ? 307 : null);
		const result = await run(
			'disbursement-create.json',
			[{ method: 'MPESA', amount: 150, to: '254712340010', key: newKey('rd') }],
			{ disbursementBaseUrl: `http://127.0.0.1:${(front.address() as AddressInfo).port}/` },
		);
		// The same address spelled with a trailing slash is the same address: Base URL.
		expect(result.error?.message).toMatch(redirectMessage('Base URL'));
		const elsewhere = await run(
			'disbursement-create.json',
			[{ method: 'MPESA', amount: 150, to: '254712340010', key: newKey('rd') }],
			{ disbursementBaseUrl: `http://localhost:${(front.address() as AddressInfo).port}` },
		);
		expect(elsewhere.error?.message).toMatch(redirectMessage('Disbursement Base URL'));
		expectNothingElsewhere();
		expect(stolen.filter((s) => s.apiKey === API_KEY())).toEqual([]);
	});
});

describe.each(REDIRECTS)("the credentials' Test (HTTP %i)", (status) => {
	// n8n's credential test (CredentialsTester, through RoutingNode) copies every key of `test.request`
	// into the request options and sends them with httpRequestWithAuthentication: sent the same way here.
	async function sendTest(test: LittlePayApiKeyApi['test'], type: string) {
		const { url, ...options } = test.request;
		const context = webhookContext(type);
		return context.helpers.httpRequestWithAuthentication.call(context, type, {
			...options,
			baseURL: frontUrl,
			url: String(url).replace('={{$credentials.tokenId}}', 'TOKEN').replace(/^=/, ''),
			returnFullResponse: true,
		} as IHttpRequestOptions);
	}

	/** The status code n8n's credential tester reads from a failed test request (`error.cause.response`). */
	async function failedStatus(answer: Promise<unknown>): Promise<number | undefined> {
		const error = (await answer.then(
			() => undefined,
			(e: unknown) => e,
		)) as { cause?: { response?: { status?: number } } } | undefined;
		return error?.cause?.response?.status;
	}

	it('API key: the test fails with the redirect named and the key reaches no other host', async () => {
		redirectWhen = () => status;
		const test = new LittlePayApiKeyApi().test;
		expect(await failedStatus(sendTest(test, 'littlePayApiKeyApi'))).toBe(status);
		const rule = test.rules?.find(
			(r) => r.type === 'responseCode' && r.properties.value === status,
		);
		expect(rule?.properties.message).toMatch(/redirect .*it was not followed: check the Base URL/);
		expectNothingElsewhere();
	});

	it('Client ID and Secret: the test fails (never "Connection successful") and the secret reaches no other host', async () => {
		redirectWhen = () => status;
		const test = new LittlePayBasicApi().test;
		expect(await failedStatus(sendTest(test, 'littlePayBasicApi'))).toBe(status);
		expectNothingElsewhere();
	});
});

/**
 * A webhook call's context as n8n builds it, reduced to what the transport uses: the API key
 * credential at the front, and n8n-core's real httpRequestWithAuthentication (its redirect handling).
 */
function webhookContext(type = 'littlePayApiKeyApi'): IWebhookFunctions {
	const credential =
		type === 'littlePayApiKeyApi'
			? { apiKey: API_KEY(), baseUrl: frontUrl }
			: { ...sb.credentials.littlePayBasicApi, baseUrl: frontUrl };
	const node = {
		id: 'trigger',
		name: 'Little Pay Trigger',
		type: 'n8n-nodes-littlepay.littlePayTrigger',
		typeVersion: 2,
		position: [0, 0] as [number, number],
		parameters: {},
		credentials: { [type]: { id: 'c1', name: 'Little Pay' } },
	};
	const additionalData = {
		credentialsHelper: {
			getParentTypes: () => [],
			preAuthentication: async () => undefined,
			authenticate: async (creds: IDataObject, credType: string, options: IHttpRequestOptions) =>
				credType === 'littlePayApiKeyApi'
					? new LittlePayApiKeyApi().authenticate(creds as never, options)
					: {
							...options,
							auth: { username: String(creds.clientId), password: String(creds.clientSecret) },
						},
		},
	} as unknown as IWorkflowExecuteAdditionalData;
	const context = {
		getNode: () => node,
		getCredentials: async () => credential,
		helpers: {} as IDataObject,
	};
	context.helpers.httpRequestWithAuthentication = function (
		this: unknown,
		type: string,
		options: IHttpRequestOptions,
	) {
		return httpRequestWithAuthentication.call(
			context as never,
			type,
			options,
			{} as never,
			node as never,
			additionalData,
		);
	};
	return context as unknown as IWebhookFunctions;
}

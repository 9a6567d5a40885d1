// The sandbox HTTP server: routing, authentication, fault injection, long polling and the request log.
// Only node:http and node:crypto; listens on loopback by default.
import {
	createHash,
	createPrivateKey,
	createPublicKey,
	generateKeyPairSync,
	timingSafeEqual,
} from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { maskSecrets } from './cards';
import { CallbackSender } from './callbacks';
import { matchRule, parseFaultHeader, parseRules } from './faults';
import type { Fault } from './faults';
import { checkedPayoutSettleMs, Gateway } from './gateway';
import {
	SandboxError,
	cardPage,
	envelope,
	errorReply,
	html,
	isObject,
	parseBody,
	readBody,
	redirect,
	requireObjectBody,
} from './http';
import type { Reply } from './http';
import { chargesTable, checkoutMobileNumber, logoSvg } from './networks';
import {
	checkoutDonePage,
	checkoutPage,
	checkoutStepUpPage,
	checkoutWaitingPage,
	collectPage,
	stepUpDonePage,
	stepUpPage,
} from './pages';
import type {
	FaultRule,
	Intent,
	MerchantCredentials,
	RequestLogEntry,
	SandboxHandle,
	SandboxMerchant,
	SandboxOptions,
} from './types';

/** Fixed default credentials, so README examples work as written; override with options or env in the CLI. */
export const DEFAULT_CREDENTIALS = {
	clientId: 'sandbox-client-id',
	clientSecret: 'sandbox-client-secret',
	tokenId: 'sandboxtoken01',
	apiKey: 'sandbox-api-key',
} as const;

/**
 * Fixed credentials of the second merchant a sandbox has unless told otherwise: Little Pay signs every
 * merchant's callbacks with one key, so tests need a second merchant to show that a signed callback
 * about someone else's payment is refused.
 */
export const OTHER_MERCHANT_CREDENTIALS = {
	clientId: 'sandbox-client-id-2',
	clientSecret: 'sandbox-client-secret-2',
	tokenId: 'sandboxtoken02',
	apiKey: 'sandbox-api-key-2',
} as const;

const CREDENTIAL_FIELDS = ['clientId', 'clientSecret', 'tokenId', 'apiKey'] as const;

/**
 * Checks every merchant's credentials: all four non-empty strings, and no clientId, tokenId or apiKey
 * shared by two merchants (each must name one merchant, or a payment could be found by the wrong one).
 */
export function checkedMerchants(merchants: unknown[]): MerchantCredentials[] {
	const checked = merchants.map((m, index) => {
		const record = (typeof m === 'object' && m !== null ? m : {}) as Record<string, unknown>;
		for (const field of CREDENTIAL_FIELDS) {
			const value = record[field];
			if (typeof value !== 'string' || value === '')
				throw new Error(`merchant ${index + 1}: ${field} must be a non-empty string`);
		}
		return {
			clientId: record.clientId as string,
			clientSecret: record.clientSecret as string,
			tokenId: record.tokenId as string,
			apiKey: record.apiKey as string,
		};
	});
	for (const field of ['clientId', 'tokenId', 'apiKey'] as const) {
		const seen = new Set<string>();
		for (const m of checked) {
			if (seen.has(m[field]))
				throw new Error(`two merchants have the ${field} "${m[field]}"; each must have its own`);
			seen.add(m[field]);
		}
	}
	return checked;
}

interface Ctx {
	req: IncomingMessage;
	method: string;
	path: string;
	query: URLSearchParams;
	params: string[];
	body: unknown;
	signal: AbortSignal;
}

type Handler = (ctx: Ctx) => Reply | Promise<Reply>;

function sha(value: string): Buffer {
	return createHash('sha256').update(value).digest();
}

/** Constant-time comparison so the sandbox does not teach timing-leaky habits. */
function safeEqual(a: string, b: string): boolean {
	return timingSafeEqual(sha(a), sha(b));
}

function isTrue(value: string | null): boolean {
	return value === 'true' || value === '1';
}

/** Starts a sandbox gateway; resolves once it listens. */
export async function startSandbox(options: SandboxOptions = {}): Promise<SandboxHandle> {
	const host = options.host ?? '127.0.0.1';
	const pinDelayMs = options.pinDelayMs ?? 2000;
	const longPollTimeoutMs = options.longPollTimeoutMs ?? 30000;
	const quiet = options.quiet ?? false;
	const [credentials, ...others] = checkedMerchants([
		{
			clientId: options.clientId ?? DEFAULT_CREDENTIALS.clientId,
			clientSecret: options.clientSecret ?? DEFAULT_CREDENTIALS.clientSecret,
			tokenId: options.tokenId ?? DEFAULT_CREDENTIALS.tokenId,
			apiKey: options.apiKey ?? DEFAULT_CREDENTIALS.apiKey,
		},
		...(options.otherMerchants ?? [OTHER_MERCHANT_CREDENTIALS]),
	]);
	const merchants = [credentials, ...others];
	let privateKey: KeyObject;
	if (options.privateKeyPem) {
		privateKey = createPrivateKey(options.privateKeyPem);
	} else {
		privateKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
	}
	const publicKeyPem = createPublicKey(privateKey)
		.export({ type: 'spki', format: 'pem' })
		.toString();
	const log = (line: string): void => {
		if (!quiet) process.stderr.write(`[sandbox] ${line}\n`);
	};

	let baseUrl = '';
	const callbacks = new CallbackSender({
		privateKey,
		retryDelaysMs: options.callbackRetryDelaysMs ?? [1000, 5000, 30000],
		timeoutMs: options.callbackTimeoutMs ?? 5000,
		allowRemote: options.allowRemoteCallbacks ?? false,
		log,
	});
	const payoutSettleMs = checkedPayoutSettleMs(options.payoutSettleMs ?? pinDelayMs);
	const gateway = new Gateway({
		pinDelayMs,
		payoutSettleMs,
		callbacks,
		minuteMs: options.minuteMs ?? 60_000,
		acceptRepeatedPayoutKeys: options.acceptRepeatedPayoutKeys ?? false,
	});
	let faultRules: FaultRule[] = [];
	let requestLog: RequestLogEntry[] = [];
	let seq = 0;
	let closing = false;
	const delays = new Set<() => void>();

	const merchant = (): SandboxMerchant => ({
		baseUrl,
		...credentials,
		publicKeyPem,
		otherMerchants: others.map((m) => ({ ...m })),
	});

	const sleep = (ms: number): Promise<void> =>
		new Promise((resolve) => {
			const finish = (): void => {
				clearTimeout(timer);
				delays.delete(finish);
				resolve();
			};
			const timer = setTimeout(finish, ms);
			delays.add(finish);
		});

	// ---- authentication -----------------------------------------------------------------

	/**
	 * The merchant whose Basic credentials these are; every merchant is compared, so the time taken
	 * does not tell which one matched. The path's tokenId must be that merchant's own.
	 */
	const requireBasic = (req: IncomingMessage, tokenId: string): MerchantCredentials => {
		const header = req.headers.authorization;
		if (!header || !/^Basic\s+/i.test(header)) {
			throw new SandboxError(
				401,
				'UNAUTHORIZED',
				'Authorization: Basic <base64(clientId:clientSecret)> header is required',
			);
		}
		const decoded = Buffer.from(header.replace(/^Basic\s+/i, ''), 'base64').toString('utf8');
		const colon = decoded.indexOf(':');
		const id = colon >= 0 ? decoded.slice(0, colon) : decoded;
		const secret = colon >= 0 ? decoded.slice(colon + 1) : '';
		let found: MerchantCredentials | undefined;
		for (const m of merchants) {
			const idOk = safeEqual(id, m.clientId);
			const secretOk = safeEqual(secret, m.clientSecret);
			if (idOk && secretOk) found = m;
		}
		if (!found) throw new SandboxError(401, 'UNAUTHORIZED', 'clientId or clientSecret is wrong');
		if (!safeEqual(tokenId, found.tokenId)) {
			throw new SandboxError(
				401,
				'UNAUTHORIZED',
				'tokenId in the path does not belong to this merchant',
			);
		}
		return found;
	};

	/** The merchant whose API key this is; it sees only its own payments and payouts. */
	const requireApiKey = (req: IncomingMessage): MerchantCredentials => {
		const header = req.headers['x-api-key'];
		const value = Array.isArray(header) ? header[0] : header;
		if (!value) throw new SandboxError(401, 'UNAUTHORIZED', 'X-API-KEY header is required');
		let found: MerchantCredentials | undefined;
		for (const m of merchants) if (safeEqual(value, m.apiKey)) found = m;
		if (!found) throw new SandboxError(401, 'UNAUTHORIZED', 'X-API-KEY is wrong');
		return found;
	};

	/**
	 * Where links in an answer point: the configured public URL, else the scheme and host the request
	 * came to (a proxy's X-Forwarded-Proto/-Host included), so they work through a proxy too.
	 */
	const publicBase = (req: IncomingMessage): string => {
		if (options.publicUrl) return options.publicUrl.replace(/\/+$/, '');
		const first = (value: string | string[] | undefined) =>
			(Array.isArray(value) ? value[0] : value)?.split(',')[0].trim();
		const host = first(req.headers['x-forwarded-host']) ?? first(req.headers.host);
		if (!host || !/^[A-Za-z0-9.:[\]-]+$/.test(host)) return baseUrl;
		const proto = first(req.headers['x-forwarded-proto']) === 'https' ? 'https' : 'http';
		return `${proto}://${host}`;
	};

	// ---- API handlers -------------------------------------------------------------------

	const createIntent: Handler = (ctx) => {
		const owner = requireBasic(ctx.req, ctx.params[0]);
		const intent = gateway.createIntent(owner.clientId, ctx.body);
		return envelope({
			reference: intent.reference,
			checkoutUrl: `${publicBase(ctx.req)}/checkout/${intent.reference}`,
			message: 'Payment intent created',
		});
	};

	/** Holds until the payment leaves PENDING (a new attempt alone does not end the hold), the timeout, or hang-up. */
	const holdWhilePending = async (ctx: Ctx, intent: Intent): Promise<void> => {
		const deadline = Date.now() + longPollTimeoutMs;
		while (intent.status === 'PENDING' && !closing && !ctx.signal.aborted) {
			const left = deadline - Date.now();
			if (left <= 0) return;
			await gateway.waitForChange(intent.reference, left, ctx.signal);
		}
	};

	const paymentStatus: Handler = async (ctx) => {
		const owner = requireApiKey(ctx.req);
		const id = ctx.params[0];
		const intent = gateway.findIntent(owner.clientId, id);
		if (isTrue(ctx.query.get('longPoll'))) await holdWhilePending(ctx, intent);
		return envelope(gateway.statusRecord(intent, intent.reference === id));
	};

	const cspaToken: Handler = (ctx) =>
		envelope(
			gateway.cspaToken(gateway.findByReference(ctx.params[0]), ctx.body, publicBase(ctx.req)),
		);

	const enroll: Handler = (ctx) =>
		envelope(gateway.enroll(gateway.findByReference(ctx.params[0]), ctx.body, publicBase(ctx.req)));

	/**
	 * A long-polling card process sent before enrolment or during a step-up (as Little Pay's browser
	 * SDK does by default) is held until 3-D Secure settles, the long-poll timeout, or hang-up.
	 */
	const holdWhileCardUnsettled = async (ctx: Ctx, intent: Intent): Promise<boolean> => {
		const deadline = Date.now() + longPollTimeoutMs;
		while (gateway.cardUnsettled(intent) && !closing && !ctx.signal.aborted) {
			const left = deadline - Date.now();
			if (left <= 0) break;
			await gateway.waitForChange(intent.reference, left, ctx.signal);
		}
		return gateway.cardUnsettled(intent);
	};

	const processPayment: Handler = async (ctx) => {
		const intent = gateway.findByReference(ctx.params[0]);
		const body = requireObjectBody(ctx.body);
		if (body.type === 'CARDS') {
			if (isTrue(ctx.query.get('longPoll')) && (await holdWhileCardUnsettled(ctx, intent))) {
				// Still not settled at the timeout: nothing is consumed, the client asks again.
				return envelope({
					status: 'PENDING',
					message: '3-D Secure has not finished yet; send process again',
					provider: 'CARDS',
					reference: intent.reference,
				});
			}
			return envelope(gateway.processCard(intent));
		}
		const { attempt, result } = gateway.processMobile(intent, body);
		if (isTrue(ctx.query.get('longPoll'))) {
			await holdWhilePending(ctx, intent);
			return envelope(gateway.mobileResult(intent, attempt));
		}
		return envelope(result);
	};

	const refund: Handler = (ctx) => {
		const owner = requireApiKey(ctx.req);
		const r = gateway.refund(gateway.findIntent(owner.clientId, ctx.params[0]), ctx.body);
		return envelope({
			status: r.status,
			message: r.message,
			id: r.id,
			amount: r.amount,
			reference: r.reference,
			key: r.key,
		});
	};

	const createDisbursement: Handler = (ctx) => {
		const owner = requireApiKey(ctx.req);
		const d = gateway.createDisbursement(owner.clientId, ctx.body);
		// "success" here means accepted, as the interface shows; the payout's own result is in the status record.
		return envelope({
			message: 'Disbursement accepted',
			id: d.id,
			key: d.key,
			status: 'success',
			charges: d.fee,
		});
	};

	const charges: Handler = (ctx) => {
		requireApiKey(ctx.req);
		return envelope(chargesTable(publicBase(ctx.req)));
	};

	const disbursementStatus: Handler = (ctx) => {
		const owner = requireApiKey(ctx.req);
		return envelope(
			gateway.disbursementRecord(gateway.findDisbursement(owner.clientId, ctx.params[0])),
		);
	};

	// ---- 3-D Secure pages ---------------------------------------------------------------

	const formField = (body: unknown, name: string): string | undefined => {
		if (!isObject(body)) return undefined;
		const v = body[name];
		return typeof v === 'string' && v !== '' ? v : undefined;
	};

	const collect: Handler = (ctx) => {
		const jwt = formField(ctx.body, 'JWT');
		const session = jwt ? gateway.collectDeviceData(jwt) : undefined;
		return html(collectPage(session?.referenceId ?? '', session !== undefined));
	};

	const withQuery = (target: string, params: Record<string, string>): string => {
		const url = new URL(target);
		for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
		return url.toString();
	};

	// The result page tells the window that opened or framed the step-up (Little Pay's SDK waits for
	// { action: "MAKE_PAYMENT" }) and then follows the intent's authentication redirect URL, if any.
	const afterStepUp = (intent: Intent, outcome: string): Reply =>
		html(
			stepUpDonePage(
				outcome,
				intent.authenticationRedirectUrl
					? withQuery(intent.authenticationRedirectUrl, {
							reference: intent.reference,
							authentication: outcome,
						})
					: undefined,
			),
		);

	const stepUp: Handler = (ctx) => {
		const jwt = formField(ctx.body, 'JWT');
		const md = formField(ctx.body, 'MD');
		const intent = jwt ? gateway.findByStepUpToken(jwt) : undefined;
		if (!jwt || !intent)
			return html(
				stepUpPage('', md ?? '', undefined, 'Unknown or missing JWT: start again from enroll'),
				400,
			);
		if (!md || md !== intent.reference) {
			// The interface: a step-up submission without MD makes the payment fail.
			gateway.decideStepUp(intent, md, 'decline');
			return afterStepUp(intent, 'failed');
		}
		return html(stepUpPage(jwt, md, intent));
	};

	const stepUpDecide: Handler = (ctx) => {
		const jwt = formField(ctx.body, 'JWT');
		const intent = jwt ? gateway.findByStepUpToken(jwt) : undefined;
		if (!intent) return html(stepUpDonePage('failed: unknown JWT'), 400);
		const decision = formField(ctx.body, 'decision') === 'approve' ? 'approve' : 'decline';
		return afterStepUp(intent, gateway.decideStepUp(intent, formField(ctx.body, 'MD'), decision));
	};

	// ---- hosted checkout ----------------------------------------------------------------

	const finalCheckout = (intent: Intent): Reply =>
		intent.returnUrl
			? redirect(
					withQuery(intent.returnUrl, { reference: intent.reference, status: intent.status }),
				)
			: cardPage(checkoutDonePage(intent));

	const checkoutView: Handler = (ctx) => {
		const intent = gateway.findByReference(ctx.params[0]);
		const last = intent.attempts[intent.attempts.length - 1];
		if (intent.status === 'COMPLETED' || Date.now() >= intent.expiresAtMs)
			return finalCheckout(intent);
		if (last && last.status === 'PENDING') return cardPage(checkoutWaitingPage(intent));
		return cardPage(checkoutPage(intent, intent.status === 'FAILED' ? intent.message : undefined));
	};

	const checkoutFail = (intent: Intent, error: unknown): Reply => {
		if (error instanceof SandboxError)
			return cardPage(checkoutPage(intent, error.message), error.status);
		throw error;
	};

	const checkoutMobile: Handler = (ctx) => {
		const intent = gateway.findByReference(ctx.params[0]);
		const type = formField(ctx.body, 'type');
		const mobile = checkoutMobileNumber(
			formField(ctx.body, 'mobile') ?? '',
			type,
			intent.billingAddress.country,
		);
		try {
			gateway.processMobile(intent, { type, payment: { mobile } });
		} catch (error) {
			return checkoutFail(intent, error);
		}
		return redirect(`/checkout/${intent.reference}`);
	};

	const checkoutCard: Handler = (ctx) => {
		const intent = gateway.findByReference(ctx.params[0]);
		try {
			const payment = {
				cc_number: formField(ctx.body, 'cc_number'),
				cc_exp: formField(ctx.body, 'cc_exp'),
				cc_cvv: formField(ctx.body, 'cc_cvv'),
				cc_name: formField(ctx.body, 'cc_name'),
			};
			const base = publicBase(ctx.req);
			const token = gateway.cspaToken(intent, { type: 'CARDS', payment }, base) as {
				paToken: { accessToken: string };
			};
			gateway.collectDeviceData(token.paToken.accessToken);
			const enrolment = gateway.enroll(intent, { deviceInformation: {} }, base);
			if (enrolment.action === 'AUTHENTICATE') return cardPage(checkoutStepUpPage(intent));
			gateway.processCard(intent);
		} catch (error) {
			return checkoutFail(intent, error);
		}
		return redirect(`/checkout/${intent.reference}`);
	};

	const checkoutStepUp: Handler = (ctx) => {
		const intent = gateway.findByReference(ctx.params[0]);
		try {
			gateway.decideStepUp(
				intent,
				intent.reference,
				formField(ctx.body, 'decision') === 'approve' ? 'approve' : 'decline',
			);
			gateway.processCard(intent);
		} catch (error) {
			return checkoutFail(intent, error);
		}
		return redirect(`/checkout/${intent.reference}`);
	};

	// ---- control endpoints --------------------------------------------------------------

	const control: Record<string, Handler> = {
		'GET /sandbox/merchant': () => envelope(merchant()),
		// The key callbacks are signed with, alone: where the nodes fetch it when a credential's Base URL is the sandbox.
		'GET /sandbox/public-key': () => envelope({ publicKeyPem }),
		'GET /sandbox/requests': (ctx) => {
			const since = Number(ctx.query.get('since') ?? 0);
			return envelope({
				requests: requestLog.filter((e) => e.seq > (Number.isFinite(since) ? since : 0)),
			});
		},
		'POST /sandbox/reset': () => {
			gateway.reset();
			// A setting one test turns on must not reach the next.
			gateway.options.acceptRepeatedPayoutKeys = options.acceptRepeatedPayoutKeys ?? false;
			callbacks.clear();
			requestLog = [];
			seq = 0;
			faultRules = [];
			return envelope({ message: 'Sandbox state, logs and fault rules cleared' });
		},
		'GET /sandbox/callbacks': () => envelope({ callbacks: callbacks.entries }),
		'GET /sandbox/ledger': () => envelope(gateway.ledger()),
		'GET /sandbox/stats': () =>
			envelope({
				heldLongPolls: gateway.heldCount(),
				requests: requestLog.length,
				callbacks: callbacks.entries.length,
			}),
		'GET /sandbox/faults': () => envelope({ rules: faultRules }),
		'POST /sandbox/faults': (ctx) => {
			faultRules = parseRules(ctx.body);
			return envelope({ rules: faultRules });
		},
		'GET /sandbox/settings': () =>
			envelope({ acceptRepeatedPayoutKeys: gateway.options.acceptRepeatedPayoutKeys === true }),
		'POST /sandbox/settings': (ctx) => {
			const body = (ctx.body ?? {}) as Record<string, unknown>;
			if (body.acceptRepeatedPayoutKeys !== undefined) {
				if (typeof body.acceptRepeatedPayoutKeys !== 'boolean')
					throw new SandboxError(
						400,
						'INVALID_FIELD',
						'acceptRepeatedPayoutKeys must be true or false',
					);
				gateway.options.acceptRepeatedPayoutKeys = body.acceptRepeatedPayoutKeys;
			}
			return envelope({
				acceptRepeatedPayoutKeys: gateway.options.acceptRepeatedPayoutKeys === true,
			});
		},
		'DELETE /sandbox/faults': () => {
			faultRules = [];
			return envelope({ rules: faultRules });
		},
		'GET /sandbox/3ds/collect': collect,
		'POST /sandbox/3ds/collect': collect,
		'POST /sandbox/3ds/step-up': stepUp,
		'POST /sandbox/3ds/step-up/decide': stepUpDecide,
	};

	const routes: Array<[string, RegExp, Handler]> = [
		['POST', /^\/api\/payments\/([^/]+)\/pay$/, createIntent],
		['GET', /^\/api\/payments-v2\/([^/]+)$/, paymentStatus],
		['POST', /^\/pay\/([^/]+)\/cspaToken$/, cspaToken],
		['POST', /^\/pay\/([^/]+)\/enroll$/, enroll],
		['POST', /^\/pay\/([^/]+)\/process$/, processPayment],
		['POST', /^\/api\/refund\/([^/]+)$/, refund],
		['POST', /^\/api\/disbursements$/, createDisbursement],
		['GET', /^\/api\/disbursements\/charges$/, charges],
		['GET', /^\/api\/disbursements\/([^/]+)$/, disbursementStatus],
		['GET', /^\/checkout\/([^/]+)$/, checkoutView],
		['POST', /^\/checkout\/([^/]+)\/mobile$/, checkoutMobile],
		['POST', /^\/checkout\/([^/]+)\/card$/, checkoutCard],
		['POST', /^\/checkout\/([^/]+)\/step-up$/, checkoutStepUp],
		[
			'POST',
			/^\/sandbox\/payments\/([^/]+)\/resolve$/,
			(ctx) => envelope(gateway.statusRecord(gateway.resolve(ctx.params[0], ctx.body), false)),
		],
		[
			'POST',
			/^\/sandbox\/payments\/([^/]+)\/expire$/,
			(ctx) => envelope(gateway.statusRecord(gateway.expireNow(ctx.params[0]), false)),
		],
		[
			'GET',
			/^\/sandbox\/logos\/([a-z]+)\.svg$/,
			(ctx) => {
				const svg = logoSvg(ctx.params[0]);
				if (!svg) throw new SandboxError(404, 'NOT_FOUND', `No logo "${ctx.params[0]}"`);
				return { status: 200, body: svg, contentType: 'image/svg+xml' };
			},
		],
	];

	/** A path segment decoded; bad percent-encoding is the client's mistake (400), not a crash. */
	const decodePathPart = (part: string): string => {
		try {
			return decodeURIComponent(part);
		} catch {
			throw new SandboxError(
				400,
				'INVALID_PATH',
				`Path segment "${part}" is not valid percent-encoding`,
			);
		}
	};

	const route = (
		method: string,
		path: string,
	): { handler: Handler; params: string[] } | undefined => {
		const direct = control[`${method} ${path}`];
		if (direct) return { handler: direct, params: [] };
		for (const [m, pattern, handler] of routes) {
			if (m !== method) continue;
			const match = pattern.exec(path);
			if (match) return { handler, params: match.slice(1).map((p) => decodePathPart(p)) };
		}
		return undefined;
	};

	// ---- dispatch -----------------------------------------------------------------------

	// Little Pay's SDK runs in the merchant's page and calls the gateway cross-origin: every answer,
	// errors included, may be read from any origin (the sandbox holds no cookies or sessions).
	const CORS = { 'access-control-allow-origin': '*' };

	const write = (res: ServerResponse, reply: Reply): void => {
		if (res.writableEnded || res.destroyed) return;
		res.writeHead(reply.status, {
			'content-type': reply.contentType,
			'content-length': Buffer.byteLength(reply.body),
			'cache-control': 'no-store',
			...CORS,
			...reply.headers,
		});
		res.end(reply.body);
	};

	/** Answers a CORS preflight: the methods and headers the SDK and the nodes send. */
	const preflight = (res: ServerResponse): void => {
		res.writeHead(204, {
			...CORS,
			'access-control-allow-methods': 'GET, POST, OPTIONS',
			'access-control-allow-headers': 'Authorization, Content-Type, X-API-KEY, X-Sandbox-Fault',
			'access-control-max-age': '600',
			'content-length': 0,
		});
		res.end();
	};

	const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
		const method = (req.method ?? 'GET').toUpperCase();
		const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
		const path = url.pathname;
		// A browser's preflight is not a gateway request: answered here, not logged.
		if (method === 'OPTIONS') return preflight(res);
		const isControl = path.startsWith('/sandbox/');
		const abort = new AbortController();
		res.on('close', () => abort.abort());
		let entry: RequestLogEntry | undefined;
		try {
			const raw = await readBody(req);
			if (!isControl) {
				let logged: unknown = null;
				try {
					logged =
						raw.trim() === '' ? null : maskSecrets(parseBody(raw, req.headers['content-type']));
				} catch {
					logged = '<invalid JSON>';
				}
				entry = {
					seq: ++seq,
					at: new Date().toISOString(),
					method,
					path,
					query: Object.fromEntries(url.searchParams),
					body: logged,
				};
				requestLog.push(entry);
			}
			let fault: Fault | undefined;
			const header = req.headers['x-sandbox-fault'];
			if (typeof header === 'string' && header.trim() !== '') fault = parseFaultHeader(header);
			else if (!isControl) fault = matchRule(faultRules, method, path);
			if (fault && entry) entry.fault = fault.description;
			if (fault && fault.latencyMs > 0) await sleep(fault.latencyMs);
			if (closing) {
				req.socket.destroy();
				return;
			}
			if (fault?.drop === 'before') {
				log(`${method} ${path} dropped before handling (fault)`);
				req.socket.destroy();
				return;
			}
			if (fault?.status !== undefined) {
				if (entry) entry.status = fault.status;
				write(
					res,
					envelope(
						{ message: `Injected fault: HTTP ${fault.status}`, code: 'INJECTED_FAULT' },
						fault.status,
					),
				);
				return;
			}
			const found = route(method, path);
			if (!found) throw new SandboxError(404, 'NOT_FOUND', `No route for ${method} ${path}`);
			const body = parseBody(raw, req.headers['content-type']);
			const reply = await found.handler({
				req,
				method,
				path,
				query: url.searchParams,
				params: found.params,
				body,
				signal: abort.signal,
			});
			if (entry) entry.status = reply.status;
			if (fault?.drop === 'after') {
				log(`${method} ${path} handled, then dropped (fault)`);
				req.socket.destroy();
				return;
			}
			log(`${method} ${path} -> ${reply.status}`);
			write(res, reply);
		} catch (error) {
			const reply = errorReply(error);
			if (entry) entry.status = reply.status;
			if (reply.status === 500)
				log(`${method} ${path} failed: ${error instanceof Error ? error.message : String(error)}`);
			write(res, reply);
		}
	};

	const server: Server = createServer((req, res) => {
		void handle(req, res);
	});
	// Long polls hold requests for longPollTimeoutMs; never let Node cut them first.
	server.requestTimeout = 0;
	server.headersTimeout = 60_000;
	// Idle keep-alive sockets stay open longer than clients keep them (Node's agent: 5 s), so the client always
	// closes first; at equal timeouts a client could reuse a socket the sandbox was closing (ECONNRESET).
	server.keepAliveTimeout = 65_000;

	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(options.port ?? 0, host, () => {
			server.off('error', reject);
			resolve();
		});
	});
	const address = server.address() as AddressInfo;
	const shownHost =
		host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
	baseUrl = `http://${shownHost}:${address.port}`;
	log(`listening on ${baseUrl}`);

	let closed: Promise<void> | undefined;
	return {
		baseUrl,
		merchant: merchant(),
		close: () => {
			closed ??= new Promise<void>((resolve) => {
				closing = true;
				for (const finish of [...delays]) finish();
				callbacks.close();
				gateway.close();
				server.close(() => resolve());
				// Give woken long polls a moment to answer, then cut whatever is left (keep-alive sockets).
				setImmediate(() => server.closeAllConnections());
			});
			return closed;
		},
	};
}

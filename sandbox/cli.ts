// `npm run sandbox`: starts the gateway on port 4010 (or --port N / SANDBOX_PORT; 0 = a free port) and prints
// one JSON line with what a merchant needs. Logs go to stderr so stdout stays machine-readable.
import { readFileSync } from 'node:fs';
import { parsePayoutSettleMs, startSandbox } from './index';
import type { SandboxOptions } from './index';

function numberFrom(name: string, value: string | undefined): number | undefined {
	if (value === undefined || value === '') return undefined;
	const n = Number(value);
	if (!Number.isFinite(n) || n < 0)
		throw new Error(`${name} must be a number >= 0 (got "${value}")`);
	return n;
}

/** The other merchants as SANDBOX_OTHER_MERCHANTS gives them, a JSON array; startSandbox checks each. */
function merchantsFrom(name: string, value: string | undefined): unknown[] | undefined {
	if (value === undefined || value === '') return undefined;
	let parsed: unknown;
	try {
		parsed = JSON.parse(value);
	} catch {
		throw new Error(`${name} must be JSON: [{"clientId","clientSecret","tokenId","apiKey"}, ...]`);
	}
	if (!Array.isArray(parsed)) throw new Error(`${name} must be a JSON array of merchants`);
	return parsed;
}

function portArg(argv: string[]): string | undefined {
	for (let i = 0; i < argv.length; i++) {
		if (argv[i] === '--port') return argv[i + 1];
		if (argv[i].startsWith('--port=')) return argv[i].slice('--port='.length);
	}
	return undefined;
}

async function main(): Promise<void> {
	const env = process.env;
	const retries = env.SANDBOX_CALLBACK_RETRY_DELAYS_MS;
	const options: SandboxOptions = {
		port:
			numberFrom('--port', portArg(process.argv.slice(2))) ??
			numberFrom('SANDBOX_PORT', env.SANDBOX_PORT) ??
			4010,
		host: env.SANDBOX_HOST || '127.0.0.1',
		pinDelayMs: numberFrom('SANDBOX_PIN_DELAY_MS', env.SANDBOX_PIN_DELAY_MS),
		longPollTimeoutMs: numberFrom('SANDBOX_LONG_POLL_TIMEOUT_MS', env.SANDBOX_LONG_POLL_TIMEOUT_MS),
		callbackRetryDelaysMs: retries
			? retries.split(',').map((v) => numberFrom('SANDBOX_CALLBACK_RETRY_DELAYS_MS', v.trim()) ?? 0)
			: undefined,
		clientId: env.SANDBOX_CLIENT_ID || undefined,
		clientSecret: env.SANDBOX_CLIENT_SECRET || undefined,
		tokenId: env.SANDBOX_TOKEN_ID || undefined,
		apiKey: env.SANDBOX_API_KEY || undefined,
		// Shapes are checked by startSandbox, which names the merchant and field that is wrong.
		otherMerchants: merchantsFrom('SANDBOX_OTHER_MERCHANTS', env.SANDBOX_OTHER_MERCHANTS) as
			| SandboxOptions['otherMerchants']
			| undefined,
		privateKeyPem: env.SANDBOX_PRIVATE_KEY_FILE
			? readFileSync(env.SANDBOX_PRIVATE_KEY_FILE, 'utf8')
			: undefined,
		allowRemoteCallbacks: env.SANDBOX_ALLOW_REMOTE_CALLBACKS === '1',
		publicUrl: env.SANDBOX_PUBLIC_URL || undefined,
		minuteMs: numberFrom('SANDBOX_MINUTE_MS', env.SANDBOX_MINUTE_MS),
		payoutSettleMs: env.SANDBOX_PAYOUT_SETTLE_MS
			? parsePayoutSettleMs('SANDBOX_PAYOUT_SETTLE_MS', env.SANDBOX_PAYOUT_SETTLE_MS)
			: undefined,
		quiet: env.SANDBOX_QUIET === '1',
	};
	const sandbox = await startSandbox(options);
	process.stdout.write(`${JSON.stringify(sandbox.merchant)}\n`);
	let stopping = false;
	const stop = (): void => {
		if (stopping) return;
		stopping = true;
		void sandbox.close().then(() => process.exit(0));
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
	process.stderr.write(`sandbox: ${error instanceof Error ? error.message : String(error)}\n`);
	process.exit(1);
});

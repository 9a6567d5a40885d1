// n8n in queue mode on one machine, for `npm run queue`, the queue-mode tests and benches: a private,
// throwaway Postgres cluster and Redis on free ports (never the system services), then n8n main, workers
// and webhook processes, each with this package installed. Never shipped.
//
// Why private servers: a test run must not depend on or change system services (pg_ctlcluster's `main`
// cluster, redis on 6379), and must leave nothing behind. initdb into a temporary folder takes ~2 s.
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import {
	chmodSync,
	chownSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
	REPO_ROOT,
	ensureN8nInstalled,
	freePort,
	installPackageInto,
	stopProcessGroup,
} from './n8n';

/** A child process of the cluster, started in its own process group. */
export interface ClusterProcess {
	name: string;
	child: ChildProcess;
	logs: () => string;
	stop: () => Promise<void>;
}

/** Runs `bash scripts/queue-deps.sh` (installs redis-server and postgresql when missing, as root). */
export function ensureQueueDependencies(): void {
	execFileSync('bash', [join(REPO_ROOT, 'scripts/queue-deps.sh')], { stdio: 'inherit' });
}

/** The newest PostgreSQL's bin folder on this machine (Debian installs /usr/lib/postgresql/<major>/bin). */
export function postgresBin(): { bin: string; major: number } {
	const root = '/usr/lib/postgresql';
	const majors = existsSync(root)
		? readdirSync(root)
				.map(Number)
				.filter((m) => Number.isInteger(m) && existsSync(join(root, String(m), 'bin/initdb')))
				.sort((a, b) => b - a)
		: [];
	if (majors.length === 0)
		throw new Error('PostgreSQL is not installed: run bash scripts/queue-deps.sh');
	return { bin: join(root, String(majors[0]), 'bin'), major: majors[0] };
}

/** Who runs Postgres: it refuses to run as root, so root hands it to Debian's `postgres` user. */
function postgresUser(): { uid?: number; gid?: number } {
	if (process.getuid?.() !== 0) return {};
	const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
	const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
	return { uid, gid };
}

/** Spawns a server in its own process group; `ready` resolves when its output matches `readyPattern`. */
function spawnServer(
	name: string,
	command: string,
	args: string[],
	options: {
		env?: Record<string, string>;
		uid?: number;
		gid?: number;
		readyPattern: RegExp;
		timeoutMs: number;
	},
): { process: ClusterProcess; ready: Promise<void> } {
	let output = '';
	const child = spawn(command, args, {
		env: options.env ?? { PATH: process.env.PATH ?? '' },
		uid: options.uid,
		gid: options.gid,
		detached: true,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	const exited = new Promise<void>((res) => child.once('exit', () => res()));
	const stop = async () => await stopProcessGroup(child, exited, 15000);
	const ready = new Promise<void>((res, rej) => {
		const timer = setTimeout(() => {
			rej(
				new Error(
					`${name} did not start within ${options.timeoutMs / 1000} s:\n${output.slice(-3000)}`,
				),
			);
		}, options.timeoutMs);
		const check = (chunk: Buffer) => {
			output += chunk.toString();
			if (options.readyPattern.test(output)) {
				clearTimeout(timer);
				res();
			}
		};
		child.stdout?.on('data', check);
		child.stderr?.on('data', check);
		child.once('exit', (code, signal) => {
			clearTimeout(timer);
			rej(
				new Error(
					`${name} exited (${code ?? signal}) before it was ready:\n${output.slice(-3000)}`,
				),
			);
		});
	});
	ready.catch(() => undefined);
	return { process: { name, child, logs: () => output, stop }, ready };
}

export interface PostgresServer {
	port: number;
	database: string;
	user: string;
	password: string;
	major: number;
	process: ClusterProcess;
	/** Kills the server and its backends at once (SIGKILL), as a crashed database host would. */
	kill: () => Promise<void>;
	/** Starts the server again on the same data and port (crash recovery runs first). */
	restart: () => Promise<void>;
}

/** The environment that points an n8n process at this Postgres. */
export function postgresEnv(postgres: PostgresServer): Record<string, string> {
	return {
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: '127.0.0.1',
		DB_POSTGRESDB_PORT: String(postgres.port),
		DB_POSTGRESDB_DATABASE: postgres.database,
		DB_POSTGRESDB_USER: postgres.user,
		DB_POSTGRESDB_PASSWORD: postgres.password,
	};
}

/** Creates a throwaway Postgres cluster under `dir`, starts it on a free port and creates n8n's database. */
export async function startPostgres(
	dir: string,
	extraArgs: string[] = [],
): Promise<PostgresServer> {
	const { bin, major } = postgresBin();
	const owner = postgresUser();
	const data = join(dir, 'postgres');
	mkdirSync(data, { recursive: true });
	if (owner.uid !== undefined) {
		chownSync(dir, owner.uid, owner.gid!);
		chownSync(data, owner.uid, owner.gid!);
	}
	chmodSync(data, 0o700);
	execFileSync(
		join(bin, 'initdb'),
		['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--locale=C'],
		{ ...owner, stdio: ['ignore', 'ignore', 'pipe'], cwd: dir },
	);
	const port = await freePort();
	const launch = () =>
		spawnServer(
			'postgres',
			join(bin, 'postgres'),
			[
				'-D',
				data,
				'-p',
				String(port),
				'-k',
				data,
				'-c',
				'listen_addresses=127.0.0.1',
				'-c',
				'max_connections=200',
				...extraArgs,
			],
			{ ...owner, readyPattern: /ready to accept connections/, timeoutMs: 60000 },
		);
	let server = launch();
	await server.ready;
	const kill = async () => {
		const { child } = server.process;
		if (child.exitCode !== null || child.signalCode !== null || !child.pid) return;
		const exited = new Promise<void>((res) => child.once('exit', () => res()));
		process.kill(-child.pid, 'SIGKILL');
		await exited;
	};
	const restart = async () => {
		await kill();
		server = launch();
		await server.ready;
	};
	const stable: ClusterProcess = {
		name: 'postgres',
		get child() {
			return server.process.child;
		},
		logs: () => server.process.logs(),
		stop: () => server.process.stop(),
	};
	const credentials = { database: 'n8n', user: 'n8n', password: 'n8n-queue' };
	const psql = (sql: string) =>
		execFileSync(
			join(bin, 'psql'),
			[
				'-h',
				'127.0.0.1',
				'-p',
				String(port),
				'-U',
				'postgres',
				'-d',
				'postgres',
				'-v',
				'ON_ERROR_STOP=1',
				'-qc',
				sql,
			],
			{ stdio: ['ignore', 'ignore', 'pipe'] },
		);
	psql(`CREATE USER ${credentials.user} PASSWORD '${credentials.password}'`);
	psql(`CREATE DATABASE ${credentials.database} OWNER ${credentials.user}`);
	return { port, major, process: stable, kill, restart, ...credentials };
}

/** Starts a private Redis (no persistence) on a free port. */
export async function startRedis(dir: string): Promise<{ port: number; process: ClusterProcess }> {
	const port = await freePort();
	const server = spawnServer(
		'redis',
		'redis-server',
		[
			'--port',
			String(port),
			'--bind',
			'127.0.0.1',
			'--save',
			'',
			'--appendonly',
			'no',
			'--dir',
			dir,
		],
		{ readyPattern: /Ready to accept connections/, timeoutMs: 30000 },
	);
	await server.ready;
	return { port, process: server.process };
}

export type N8nRole = 'main' | 'worker' | 'webhook';

/** One n8n process of the cluster. */
export interface QueueN8nProcess extends ClusterProcess {
	role: N8nRole;
	/** Its HTTP address (main and webhook processes; workers serve nothing). */
	url?: string;
	port?: number;
	userFolder: string;
}

export interface QueueCluster {
	dir: string;
	postgres: PostgresServer;
	redis: { port: number; process: ClusterProcess };
	main: QueueN8nProcess;
	workers: QueueN8nProcess[];
	webhooks: QueueN8nProcess[];
	/** Every n8n process, main first. */
	n8nProcesses: () => QueueN8nProcess[];
	/** Stops every n8n process and starts them again (same ports, folders and database). */
	restartN8n: () => Promise<void>;
	/** Stops everything and deletes the folder. */
	stop: () => Promise<void>;
}

const READY: Record<N8nRole, RegExp> = {
	main: /Editor is now accessible/,
	worker: /n8n worker is now ready/,
	webhook: /Webhook listener waiting for requests/,
};

/**
 * Starts Postgres, Redis and n8n in queue mode: main + `workers` workers + `webhooks` webhook processes,
 * every one with the package installed in its own user folder, the same encryption key and its own
 * task-broker port. Production webhooks are served by the webhook processes only (the main process refuses
 * them, as in n8n's recommended setup). Everything is stopped and deleted by `stop()`.
 */
export async function startQueueCluster(
	options: {
		workers?: number;
		webhooks?: number;
		mainPort?: number;
		webhookPorts?: number[];
		workerConcurrency?: number;
		env?: Record<string, string>;
		log?: (line: string) => void;
		/** More `postgres` server arguments (e.g. `-c log_statement=mod` to see n8n's writes). */
		postgresArgs?: string[];
		/** Aborting stops whatever has started so far (Ctrl-C while starting). */
		signal?: AbortSignal;
	} = {},
): Promise<QueueCluster> {
	const log = options.log ?? (() => undefined);
	ensureQueueDependencies();
	const { node, n8nBin } = ensureN8nInstalled();
	const dir = mkdtempSync(join(tmpdir(), 'littlepay-queue-'));
	chmodSync(dir, 0o755);
	const started: ClusterProcess[] = [];
	const stopAll = async () => {
		for (const p of [...started].reverse()) await p.stop();
		rmSync(dir, { recursive: true, force: true });
	};
	const onAbort = () => void stopAll();
	options.signal?.addEventListener('abort', onAbort, { once: true });
	try {
		log(`Starting Postgres and Redis (private, in ${dir}) ...`);
		const postgres = await startPostgres(dir, options.postgresArgs);
		started.push(postgres.process);
		if (options.signal?.aborted) throw new Error('aborted');
		const redis = await startRedis(dir);
		started.push(redis.process);
		if (options.signal?.aborted) throw new Error('aborted');
		log(
			`Postgres ${postgres.major} on 127.0.0.1:${postgres.port}, Redis on 127.0.0.1:${redis.port}`,
		);

		const mainPort = options.mainPort ?? (await freePort());
		const webhookPorts: number[] = [];
		for (let i = 0; i < (options.webhooks ?? 2); i++)
			webhookPorts.push(options.webhookPorts?.[i] ?? (await freePort()));
		const encryptionKey = `littlepay-queue-${Math.random().toString(36).slice(2)}`;
		const shared: Record<string, string> = {
			PATH: process.env.PATH ?? '',
			HOME: process.env.HOME ?? dir,
			EXECUTIONS_MODE: 'queue',
			OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
			N8N_ENCRYPTION_KEY: encryptionKey,
			...postgresEnv(postgres),
			// n8n's default is 2 connections per process: under 50 concurrent callbacks a webhook process then
			// answers 503 "Database is not ready!" and holds each call's static data for seconds (measured).
			DB_POSTGRESDB_POOL_SIZE: '10',
			QUEUE_BULL_REDIS_HOST: '127.0.0.1',
			QUEUE_BULL_REDIS_PORT: String(redis.port),
			N8N_HOST: '127.0.0.1',
			N8N_LISTEN_ADDRESS: '127.0.0.1',
			// Production webhook URLs (and resume URLs) point at the first webhook process.
			WEBHOOK_URL: `http://127.0.0.1:${webhookPorts[0]}/`,
			N8N_EDITOR_BASE_URL: `http://127.0.0.1:${mainPort}/`,
			N8N_DISABLE_PRODUCTION_MAIN_PROCESS: 'true',
			// No telemetry or outside calls, as in testkit/n8n.ts.
			N8N_DIAGNOSTICS_ENABLED: 'false',
			N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
			N8N_TEMPLATES_ENABLED: 'false',
			N8N_PERSONALIZATION_ENABLED: 'false',
			N8N_SECURE_COOKIE: 'false',
			N8N_RUNNERS_ENABLED: 'false',
			N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
			N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
			N8N_LOG_LEVEL: 'info',
			...options.env,
		};

		const makeProcess = async (role: N8nRole, index: number, port?: number) => {
			const userFolder = join(dir, `${role}${index}`);
			installPackageInto(userFolder);
			const brokerPort = await freePort();
			const env: Record<string, string> = {
				...shared,
				N8N_USER_FOLDER: userFolder,
				// Main and workers open a task broker even with runners off; each needs its own port.
				N8N_RUNNERS_BROKER_PORT: String(brokerPort),
				...(port !== undefined ? { N8N_PORT: String(port) } : {}),
			};
			const args =
				role === 'main'
					? ['start']
					: role === 'worker'
						? ['worker', `--concurrency=${options.workerConcurrency ?? 10}`]
						: ['webhook'];
			const name = role === 'main' ? 'main' : `${role}${index}`;
			const start = () => {
				const server = spawnServer(name, node, [n8nBin, ...args], {
					env,
					readyPattern: READY[role],
					timeoutMs: 240000,
				});
				return server;
			};
			let current = start();
			if (options.signal?.aborted) await current.process.stop();
			const proc: QueueN8nProcess = {
				role,
				name,
				userFolder,
				port,
				url: port !== undefined ? `http://127.0.0.1:${port}` : undefined,
				get child() {
					return current.process.child;
				},
				logs: () => current.process.logs(),
				stop: () => current.process.stop(),
			};
			started.push(proc);
			return {
				proc,
				ready: () => current.ready,
				restart: () => {
					current = start();
					return current.ready;
				},
			};
		};

		log('Starting n8n main (database migrations on first start) ...');
		const main = await makeProcess('main', 0, mainPort);
		await main.ready();
		log(`n8n main ready on ${main.proc.url}; starting workers and webhook processes ...`);
		const workers: Array<Awaited<ReturnType<typeof makeProcess>>> = [];
		for (let i = 0; i < (options.workers ?? 2); i++)
			workers.push(await makeProcess('worker', i + 1));
		const webhooks: Array<Awaited<ReturnType<typeof makeProcess>>> = [];
		for (let i = 0; i < webhookPorts.length; i++)
			webhooks.push(await makeProcess('webhook', i + 1, webhookPorts[i]));
		await Promise.all([...workers, ...webhooks].map((p) => p.ready()));
		const all = [main, ...workers, ...webhooks];
		options.signal?.removeEventListener('abort', onAbort);

		return {
			dir,
			postgres,
			redis,
			main: main.proc,
			workers: workers.map((w) => w.proc),
			webhooks: webhooks.map((w) => w.proc),
			n8nProcesses: () => all.map((p) => p.proc),
			restartN8n: async () => {
				for (const p of [...all].reverse()) await p.proc.stop();
				await main.restart();
				await Promise.all([...workers, ...webhooks].map((p) => p.restart()));
			},
			stop: stopAll,
		};
	} catch (error) {
		options.signal?.removeEventListener('abort', onAbort);
		await stopAll();
		throw error;
	}
}

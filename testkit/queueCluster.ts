// n8n in queue mode on one machine, for `npm run queue`, the queue-mode tests and benches: a private,
// throwaway Postgres cluster and Redis on free ports (never the system services), then n8n main, workers
// and webhook processes, each with this package installed. Never shipped.
//
// Why private servers: a test run must not depend on or change system services (pg_ctlcluster's `main`
// cluster, redis on 6379), and must leave nothing behind. initdb into a temporary folder takes ~2 s.
//
// Every process is described by a record (command, environment, log file, pid) and writes to its log file,
// not a pipe: a cluster outlives the test file that started it and another file can take it over from the
// record (sharedQueueCluster, for the e2e files of one jest run; testkit/sharedN8n.ts stops it at the end).
import { execFileSync, spawn } from 'node:child_process';
import {
	chmodSync,
	chownSync,
	closeSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	openSync,
	readFileSync,
	readSync,
	readdirSync,
	rmSync,
	statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import {
	N8nApi,
	REPO_ROOT,
	ensureN8nInstalled,
	freePort,
	installPackageInto,
	packedContentHash,
} from './n8n';
import {
	E2E_RUN_ENV,
	alive,
	fileScope,
	readShared,
	recordShared,
	stopGroups,
	stopRecorded,
	withRunLock,
} from './sharedN8n';

/** A process of the cluster, started in its own process group, its output in its log file. */
export interface ClusterProcess {
	name: string;
	/** Its current process id (a restart changes it). */
	readonly pid: number;
	logs: () => string;
	/** SIGTERM, then SIGKILL after 15 s; resolves when it has exited. */
	stop: () => Promise<void>;
	/** SIGKILL at once, as the OOM killer or a crashed host does; resolves when it has exited. */
	kill: () => Promise<void>;
}

/** How to start one process of the cluster again: everything but its pid is fixed when it is first made. */
interface ProcessSpec {
	name: string;
	command: string;
	args: string[];
	env: Record<string, string>;
	uid?: number;
	gid?: number;
	cwd?: string;
	logFile: string;
	readyPattern: string;
	timeoutMs: number;
	pid: number;
}

/** Starts a process from its spec (output appended to its log file) and waits until its log shows it ready. */
async function launch(spec: ProcessSpec): Promise<void> {
	const offset = existsSync(spec.logFile) ? statSync(spec.logFile).size : 0;
	const fd = openSync(spec.logFile, 'a');
	const child = spawn(spec.command, spec.args, {
		env: spec.env,
		uid: spec.uid,
		gid: spec.gid,
		cwd: spec.cwd,
		detached: true,
		stdio: ['ignore', fd, fd],
	});
	closeSync(fd);
	child.unref();
	if (!child.pid) throw new Error(`${spec.name} did not start (${spec.command})`);
	spec.pid = child.pid;
	const pattern = new RegExp(spec.readyPattern);
	const since = () => {
		const size = statSync(spec.logFile).size;
		const buffer = Buffer.alloc(size - offset);
		const read = openSync(spec.logFile, 'r');
		try {
			readSync(read, buffer, 0, buffer.length, offset);
		} finally {
			closeSync(read);
		}
		return buffer.toString();
	};
	const deadline = Date.now() + spec.timeoutMs;
	for (;;) {
		const output = since();
		if (pattern.test(output)) return;
		if (!alive(spec.pid))
			throw new Error(`${spec.name} exited before it was ready:\n${output.slice(-3000)}`);
		if (Date.now() > deadline) {
			await stopGroups([spec.pid]);
			throw new Error(
				`${spec.name} did not start within ${spec.timeoutMs / 1000} s:\n${output.slice(-3000)}`,
			);
		}
		await new Promise((r) => setTimeout(r, 200));
	}
}

/** SIGKILLs a process group and waits until its leader is gone. */
async function killGroup(pid: number): Promise<void> {
	try {
		process.kill(-pid, 'SIGKILL');
	} catch {
		return;
	}
	while (alive(pid)) await new Promise((r) => setTimeout(r, 50));
}

/** The handle of a process started from its spec. */
function processOf(spec: ProcessSpec): ClusterProcess {
	return {
		name: spec.name,
		get pid() {
			return spec.pid;
		},
		logs: () => (existsSync(spec.logFile) ? readFileSync(spec.logFile, 'utf8') : ''),
		stop: () => stopGroups([spec.pid]),
		kill: () => killGroup(spec.pid),
	};
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

/** The environment that points an n8n process at this Postgres. */
export function postgresEnv(
	postgres: Pick<PostgresServer, 'port' | 'database' | 'user' | 'password'>,
): Record<string, string> {
	return {
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: '127.0.0.1',
		DB_POSTGRESDB_PORT: String(postgres.port),
		DB_POSTGRESDB_DATABASE: postgres.database,
		DB_POSTGRESDB_USER: postgres.user,
		DB_POSTGRESDB_PASSWORD: postgres.password,
	};
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

/** What a Postgres of the cluster is: its address, database and how to start it again. */
interface PostgresRecord {
	port: number;
	major: number;
	database: string;
	user: string;
	password: string;
	spec: ProcessSpec;
}

function postgresOf(record: PostgresRecord): PostgresServer {
	const process = processOf(record.spec);
	const { spec, ...address } = record;
	return {
		...address,
		process,
		kill: process.kill,
		restart: async () => {
			await process.kill();
			await launch(spec);
		},
	};
}

/** What startPostgres starts, as a record another file can take the server over from. */
async function makePostgres(dir: string, extraArgs: string[] = []): Promise<PostgresRecord> {
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
	const spec: ProcessSpec = {
		name: 'postgres',
		command: join(bin, 'postgres'),
		args: [
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
		env: { PATH: process.env.PATH ?? '' },
		...owner,
		cwd: dir,
		logFile: join(dir, 'postgres.log'),
		readyPattern: 'ready to accept connections',
		timeoutMs: 60000,
		pid: 0,
	};
	await launch(spec);
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
	return { port, major, spec, ...credentials };
}

/** Creates a throwaway Postgres cluster under `dir`, starts it on a free port and creates n8n's database. */
export async function startPostgres(
	dir: string,
	extraArgs: string[] = [],
): Promise<PostgresServer> {
	return postgresOf(await makePostgres(dir, extraArgs));
}

/** Starts a private Redis (no persistence) on a free port. */
async function makeRedis(dir: string): Promise<{ port: number; spec: ProcessSpec }> {
	const port = await freePort();
	const spec: ProcessSpec = {
		name: 'redis',
		command: 'redis-server',
		args: [
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
		env: { PATH: process.env.PATH ?? '' },
		logFile: join(dir, 'redis.log'),
		readyPattern: 'Ready to accept connections',
		timeoutMs: 30000,
		pid: 0,
	};
	await launch(spec);
	return { port, spec };
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

const READY: Record<N8nRole, string> = {
	main: 'Editor is now accessible',
	worker: 'n8n worker is now ready',
	webhook: 'Webhook listener waiting for requests',
};

/** Everything needed to reach a running cluster and to start any of its processes again. */
interface ClusterRecord {
	dir: string;
	postgres: PostgresRecord;
	redis: { port: number; spec: ProcessSpec };
	n8n: Array<{ role: N8nRole; port?: number; userFolder: string; spec: ProcessSpec }>;
}

/** Every pid of a cluster, n8n first (what teardown stops). */
function clusterPids(record: ClusterRecord): number[] {
	return [...record.n8n.map((p) => p.spec.pid), record.redis.spec.pid, record.postgres.spec.pid];
}

/** The handle of a cluster from its record; `changed` is told when a restart changed a pid. */
function attachCluster(record: ClusterRecord, changed: () => void = () => undefined): QueueCluster {
	const n8n = record.n8n.map(
		(p): QueueN8nProcess => ({
			...processOf(p.spec),
			get pid() {
				return p.spec.pid;
			},
			role: p.role,
			port: p.port,
			url: p.port !== undefined ? `http://127.0.0.1:${p.port}` : undefined,
			userFolder: p.userFolder,
		}),
	);
	const postgres = postgresOf(record.postgres);
	const restart = postgres.restart;
	postgres.restart = async () => {
		await restart();
		changed();
	};
	const stop = async () => {
		for (const p of [...n8n].reverse()) await p.stop();
		await stopGroups([record.redis.spec.pid]);
		await stopGroups([record.postgres.spec.pid]);
		rmSync(record.dir, { recursive: true, force: true });
	};
	return {
		dir: record.dir,
		postgres,
		redis: { port: record.redis.port, process: processOf(record.redis.spec) },
		main: n8n[0],
		workers: n8n.filter((p) => p.role === 'worker'),
		webhooks: n8n.filter((p) => p.role === 'webhook'),
		n8nProcesses: () => n8n,
		restartN8n: async () => {
			for (const p of [...n8n].reverse()) await p.stop();
			await launch(record.n8n[0].spec);
			await Promise.all(record.n8n.slice(1).map((p) => launch(p.spec)));
			changed();
		},
		stop,
	};
}

interface ClusterOptions {
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
}

/** Starts the cluster's servers and returns its record (see startQueueCluster). */
async function makeCluster(options: ClusterOptions): Promise<ClusterRecord> {
	const log = options.log ?? (() => undefined);
	ensureQueueDependencies();
	const { node, n8nBin } = ensureN8nInstalled();
	const dir = mkdtempSync(join(tmpdir(), 'littlepay-queue-'));
	chmodSync(dir, 0o755);
	const started: ProcessSpec[] = [];
	const stopAll = async () => {
		for (const p of [...started].reverse()) await stopGroups([p.pid]);
		rmSync(dir, { recursive: true, force: true });
	};
	const onAbort = () => void stopAll();
	options.signal?.addEventListener('abort', onAbort, { once: true });
	try {
		log(`Starting Postgres and Redis (private, in ${dir}) ...`);
		const postgres = await makePostgres(dir, options.postgresArgs);
		started.push(postgres.spec);
		if (options.signal?.aborted) throw new Error('aborted');
		const redis = await makeRedis(dir);
		started.push(redis.spec);
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
			const env: Record<string, string> = {
				...shared,
				N8N_USER_FOLDER: userFolder,
				// Main and workers open a task broker even with runners off; each needs its own port.
				N8N_RUNNERS_BROKER_PORT: String(await freePort()),
				...(port !== undefined ? { N8N_PORT: String(port) } : {}),
			};
			const args =
				role === 'main'
					? ['start']
					: role === 'worker'
						? ['worker', `--concurrency=${options.workerConcurrency ?? 10}`]
						: ['webhook'];
			const name = role === 'main' ? 'main' : `${role}${index}`;
			const spec: ProcessSpec = {
				name,
				command: node,
				args: [n8nBin, ...args],
				env,
				logFile: join(dir, `${name}.log`),
				readyPattern: READY[role],
				timeoutMs: 240000,
				pid: 0,
			};
			started.push(spec);
			return { role, port, userFolder, spec };
		};

		log('Starting n8n main (database migrations on first start) ...');
		const main = await makeProcess('main', 0, mainPort);
		await launch(main.spec);
		log(
			`n8n main ready on http://127.0.0.1:${mainPort}; starting workers and webhook processes ...`,
		);
		const rest: Array<Awaited<ReturnType<typeof makeProcess>>> = [];
		for (let i = 0; i < (options.workers ?? 2); i++) rest.push(await makeProcess('worker', i + 1));
		for (let i = 0; i < webhookPorts.length; i++)
			rest.push(await makeProcess('webhook', i + 1, webhookPorts[i]));
		if (options.signal?.aborted) throw new Error('aborted');
		await Promise.all(rest.map((p) => launch(p.spec)));
		options.signal?.removeEventListener('abort', onAbort);
		return { dir, postgres, redis, n8n: [main, ...rest] };
	} catch (error) {
		options.signal?.removeEventListener('abort', onAbort);
		await stopAll();
		throw error;
	}
}

/**
 * Starts Postgres, Redis and n8n in queue mode: main + `workers` workers + `webhooks` webhook processes,
 * every one with the package installed in its own user folder, the same encryption key and its own
 * task-broker port. Production webhooks are served by the webhook processes only (the main process refuses
 * them, as in n8n's recommended setup). Everything is stopped and deleted by `stop()`.
 */
export async function startQueueCluster(options: ClusterOptions = {}): Promise<QueueCluster> {
	return attachCluster(await makeCluster(options));
}

/** The shape of the shared cluster: what the queue-mode e2e files need between them. */
const SHARED_SHAPE = { workers: 2, webhooks: 2, workerConcurrency: 5 };

/** A file's share of the run's queue cluster: its own client, and release() instead of stop(). */
export interface SharedQueueCluster extends QueueCluster {
	api: N8nApi;
	/**
	 * Unpublishes what this file published and starts again any process of the cluster that is not running
	 * (a test killed it), so the next file finds the whole cluster.
	 */
	release: () => Promise<void>;
}

/**
 * The jest run's shared queue-mode cluster (main, 2 workers, 2 webhook processes, Postgres, Redis; worker
 * concurrency 5), started by the first file that asks and stopped by the e2e project's global teardown, with
 * a client of this file's own (`label` names its Data Tables). Outside a jest e2e run, a cluster of its own.
 */
export async function sharedQueueCluster(label: string): Promise<SharedQueueCluster> {
	const scope = fileScope(label);
	const run = process.env[E2E_RUN_ENV];
	let cluster: QueueCluster;
	let heal: () => Promise<void> = async () => undefined;
	let ownerCookie: string | undefined;
	if (!run) {
		cluster = await startQueueCluster(SHARED_SHAPE);
	} else {
		const packageHash = packedContentHash();
		const save = (r: string, made: ClusterRecord) =>
			recordShared(r, 'queue', {
				url: `http://127.0.0.1:${made.n8n[0].port}`,
				userFolder: made.dir,
				logFile: made.n8n[0].spec.logFile,
				pids: clusterPids(made),
				dirs: [made.dir],
				packageHash,
				ownerCookie,
				cluster: made,
			});
		const record = await withRunLock(run, 'queue', async () => {
			const known = readShared(run, 'queue');
			if (known?.cluster && known.packageHash === packageHash) {
				ownerCookie = known.ownerCookie;
				return known.cluster as ClusterRecord;
			}
			// Kept from an earlier run (LITTLEPAY_E2E_RUN) with another build of the package.
			if (known) await stopRecorded(run, 'queue');
			const made = await makeCluster(SHARED_SHAPE);
			const owner = new N8nApi(`http://127.0.0.1:${made.n8n[0].port}`);
			await owner.setupOwner();
			ownerCookie = owner.sessionCookie;
			save(run, made);
			return made;
		});
		heal = async () => {
			const servers = [record.postgres.spec, record.redis.spec];
			for (const spec of servers) if (!alive(spec.pid)) await launch(spec);
			const main = record.n8n[0].spec;
			if (!alive(main.pid)) await launch(main);
			await Promise.all(
				record.n8n
					.slice(1)
					.map((p) => p.spec)
					.filter((spec) => !alive(spec.pid))
					.map((spec) => launch(spec)),
			);
			save(run, record);
		};
		cluster = attachCluster(record, () => save(run, record));
		// A file before this one may have left a process down (its release failed half-way).
		await heal();
	}
	const api = new N8nApi(cluster.main.url!, scope);
	await api.resumeOwner(run ? ownerCookie : undefined);
	const refuse = async () => {
		throw new Error('the shared queue cluster is stopped by the run: call release()');
	};
	return {
		...cluster,
		stop: run ? refuse : cluster.stop,
		api,
		release: async () => {
			await api.unpublishAll();
			if (run) await heal();
			else await cluster.stop();
		},
	};
}

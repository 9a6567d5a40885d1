// Starts a real n8n 2.x server with this package installed, and talks to its REST API.
// Used by the demo (`npm start`) and the end-to-end tests; never shipped.
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
	closeSync,
	cpSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	openSync,
	readdirSync,
	readFileSync,
	renameSync,
	rmSync,
	statSync,
	writeFileSync,
} from 'node:fs';
import { Agent } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import axios from 'axios';
import type { AxiosInstance } from 'axios';

export const REPO_ROOT = resolve(__dirname, '..');

/**
 * Where the editor suites and the take save their screenshots: `.artifacts/screenshots` (ignored by git), so
 * `npm test` leaves tracked files alone; `docs/screenshots` only when asked with UPDATE_SCREENSHOTS=1.
 */
export function screenshotDir(): string {
	return process.env.UPDATE_SCREENSHOTS === '1'
		? join(REPO_ROOT, 'docs/screenshots')
		: join(REPO_ROOT, '.artifacts/screenshots');
}
export const OWNER = {
	email: 'demo@littlepay.test',
	password: 'LittlePay-demo1',
	firstName: 'Demo',
	lastName: 'Merchant',
};

export interface N8nInstall {
	/** The Node binary this n8n runs on (Node 24 for n8n 2.x, this machine's Node for 1.x). */
	node: string;
	n8nBin: string;
}

/** The n8n the demo and the tests run unless told otherwise. */
export const DEFAULT_N8N_VERSION = '2.41.1';

/** Installs (once, cached under ~/.cache/littlepay-n8n) an n8n version and its Node, and returns their paths. */
export function ensureN8nInstalled(version = DEFAULT_N8N_VERSION): N8nInstall {
	const out = execFileSync('bash', [join(REPO_ROOT, 'scripts/install-n8n.sh')], {
		encoding: 'utf8',
		env: { ...process.env, LITTLEPAY_N8N_VERSION: version },
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	const value = (name: string) => {
		const line = out.split('\n').find((l) => l.startsWith(`${name}=`));
		if (!line) throw new Error(`install-n8n.sh did not print ${name}`);
		return line.slice(name.length + 1).trim();
	};
	return { node: value('N8N_NODE'), n8nBin: value('N8N_BIN') };
}

/** Asks the OS for a free TCP port on loopback. */
export async function freePort(): Promise<number> {
	return new Promise((res, rej) => {
		const server = createServer();
		server.unref();
		server.on('error', rej);
		server.listen(0, '127.0.0.1', () => {
			const address = server.address();
			const port = typeof address === 'object' && address ? address.port : 0;
			server.close(() => res(port));
		});
	});
}

export const PACKAGE_NAME = 'n8n-nodes-littlepay';

/** What `npm pack` puts in the tarball besides `files` (npm always adds these), for the cache key. */
const ALWAYS_PACKED = ['package.json', 'README.md', 'LICENSE', 'index.js'];

function hashTree(hash: ReturnType<typeof createHash>, root: string, path: string): void {
	const full = join(root, path);
	if (!existsSync(full)) return;
	if (statSync(full).isDirectory()) {
		for (const entry of readdirSync(full).sort()) hashTree(hash, root, join(path, entry));
		return;
	}
	hash.update(`${path}\0`).update(readFileSync(full)).update('\0');
}

/** A hash of everything the tarball is made of: `dist/` (or whatever `files` names) and npm's fixed files. */
export function packedContentHash(): string {
	const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
		files?: string[];
	};
	const hash = createHash('sha256');
	for (const path of [...ALWAYS_PACKED, ...(manifest.files ?? [])]) hashTree(hash, REPO_ROOT, path);
	return hash.digest('hex').slice(0, 16);
}

const PACK_CACHE = join(tmpdir(), 'littlepay-packed');

/**
 * The package as n8n's Community Nodes panel installs it (n8n 2.41.1, CommunityPackagesService.downloadPackage):
 * `npm pack`, the tarball unpacked with `tar --strip-components=1`, dev, peer and optional dependencies dropped
 * from its package.json, then `npm install --ignore-scripts` with n8n's flags inside it. Made once per content
 * of the tarball (cached by hash under the OS temp folder), so a run packs once and every n8n gets a copy.
 * Returns the installed folder.
 */
export function packedPackage(): string {
	const dir = join(PACK_CACHE, packedContentHash());
	const installed = join(dir, 'installed');
	if (existsSync(join(dir, '.complete'))) return installed;
	if (!existsSync(join(REPO_ROOT, 'dist')))
		throw new Error('dist/ is missing: run `npm run build` first');
	mkdirSync(PACK_CACHE, { recursive: true });
	const work = mkdtempSync(join(PACK_CACHE, 'work-'));
	try {
		const out = execFileSync(
			'npm',
			['pack', '--json', '--ignore-scripts', '--pack-destination', work],
			{
				cwd: REPO_ROOT,
				encoding: 'utf8',
				stdio: ['ignore', 'pipe', 'pipe'],
			},
		);
		const [{ filename }] = JSON.parse(out) as Array<{ filename: string }>;
		writeFileSync(join(work, 'tarball'), filename);
		const target = join(work, 'installed');
		mkdirSync(target);
		execFileSync('tar', ['-xzf', join(work, filename), '-C', target, '--strip-components=1']);
		const manifestPath = join(target, 'package.json');
		const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, unknown>;
		for (const field of ['devDependencies', 'peerDependencies', 'optionalDependencies'])
			delete manifest[field];
		writeFileSync(manifestPath, JSON.stringify(manifest, null, 2));
		execFileSync(
			'npm',
			[
				'install',
				'--audit=false',
				'--fund=false',
				'--bin-links=false',
				'--install-strategy=shallow',
				'--ignore-scripts=true',
				'--package-lock=false',
			],
			{ cwd: target, stdio: ['ignore', 'pipe', 'pipe'] },
		);
		writeFileSync(join(work, '.complete'), '');
		// A folder left by a run that died half-way has no .complete: replace it.
		if (existsSync(dir) && !existsSync(join(dir, '.complete')))
			rmSync(dir, { recursive: true, force: true });
		try {
			renameSync(work, dir);
		} catch {
			// Another run packed the same content first: use its copy.
			rmSync(work, { recursive: true, force: true });
		}
	} catch (error) {
		rmSync(work, { recursive: true, force: true });
		throw error;
	}
	return installed;
}

/** The `npm pack` tarball of the current build (made by packedPackage). */
export function packedTarball(): string {
	const installed = packedPackage();
	const dir = resolve(installed, '..');
	return join(dir, readFileSync(join(dir, 'tarball'), 'utf8'));
}

/**
 * Installs the package where n8n looks for community packages, from its `npm pack` tarball as n8n does
 * (see packedPackage): `<user folder>/.n8n/nodes/node_modules/n8n-nodes-littlepay`, recorded with its version
 * in `<user folder>/.n8n/nodes/package.json`. A file left out of package.json's `files` is missing here too.
 */
export function installPackageInto(userFolder: string): void {
	const installed = packedPackage();
	const nodes = join(userFolder, '.n8n', 'nodes');
	const target = join(nodes, 'node_modules', PACKAGE_NAME);
	rmSync(target, { recursive: true, force: true });
	mkdirSync(join(nodes, 'node_modules'), { recursive: true });
	cpSync(installed, target, { recursive: true });
	const { version } = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
		version: string;
	};
	writeFileSync(
		join(nodes, 'package.json'),
		JSON.stringify({
			name: 'installed-nodes',
			private: true,
			dependencies: { [PACKAGE_NAME]: version },
		}),
	);
}

export interface N8nServer {
	url: string;
	userFolder: string;
	/** The process id of n8n's main Node process (for /proc/<pid>/stat CPU and /proc/<pid>/status memory). */
	pid: number;
	logs: () => string;
	stop: () => Promise<void>;
	/** Kills n8n at once (SIGKILL), as the OOM killer or a container restart does: nothing is flushed. */
	kill: () => Promise<void>;
}

/**
 * Stops a detached child and its process group: SIGTERM, then SIGKILL after `graceMs`; resolves when
 * it has exited. Nothing happens for a child that is gone already.
 */
export async function stopProcessGroup(
	child: ChildProcess,
	exited: Promise<void>,
	graceMs: number,
): Promise<void> {
	if (child.exitCode !== null || child.signalCode !== null || !child.pid) return;
	try {
		process.kill(-child.pid, 'SIGTERM');
	} catch {
		return;
	}
	const killer = setTimeout(() => {
		try {
			if (child.pid) process.kill(-child.pid, 'SIGKILL');
		} catch {
			// already gone
		}
	}, graceMs);
	await exited;
	clearTimeout(killer);
}

/**
 * A user folder n8n has started in once and stopped: its SQLite database migrated (about 150 migrations,
 * a third of a start) and its encryption key made; no owner, credential or workflow. Made once per n8n
 * version (cached under the OS temp folder, like the packed package) by starting n8n in it; each new
 * test instance starts from a copy, so it skips the migrations and is still fresh.
 */
async function migratedTemplate(
	version: string,
	start: (userFolder: string) => Promise<N8nServer>,
): Promise<string> {
	const root = join(tmpdir(), 'littlepay-n8n-template');
	const dir = join(root, version);
	if (existsSync(join(dir, '.complete'))) return dir;
	mkdirSync(root, { recursive: true });
	const work = mkdtempSync(join(root, 'work-'));
	try {
		const server = await start(work);
		await server.stop();
		// Only n8n's own state: the package is installed into each copy, logs are its run's.
		rmSync(join(work, '.n8n', 'nodes'), { recursive: true, force: true });
		for (const entry of readdirSync(join(work, '.n8n')))
			if (/\.log$/.test(entry)) rmSync(join(work, '.n8n', entry), { force: true });
		if (!existsSync(join(work, '.n8n', 'database.sqlite')))
			throw new Error(`n8n ${version} left no database.sqlite in ${work}`);
		writeFileSync(join(work, '.complete'), '');
		if (existsSync(dir) && !existsSync(join(dir, '.complete')))
			rmSync(dir, { recursive: true, force: true });
		try {
			renameSync(work, dir);
		} catch {
			// Another run made the same template first: use its copy.
			rmSync(work, { recursive: true, force: true });
		}
	} catch (error) {
		rmSync(work, { recursive: true, force: true });
		throw error;
	}
	return dir;
}

/** Starts n8n with the package loaded and waits until the editor is accessible. */
export async function startN8n(
	options: {
		port?: number;
		userFolder?: string;
		env?: Record<string, string>;
		version?: string;
		/** Migrate a new database from nothing rather than copy the migrated template (it makes the template). */
		fresh?: boolean;
		/** Options for n8n's Node process, before n8n's entry point (e.g. `--cpu-prof`). */
		nodeArgs?: string[];
		/** How long stop() waits after SIGTERM before SIGKILL (10 s); longer lets `--cpu-prof` write its file. */
		stopGraceMs?: number;
		/**
		 * Writes n8n's output to this file instead of a pipe, and lets this process exit before n8n does: an
		 * n8n that outlives the test file that started it (testkit/sharedN8n.ts).
		 */
		logFile?: string;
	} = {},
): Promise<N8nServer> {
	const version = options.version ?? DEFAULT_N8N_VERSION;
	const { node, n8nBin } = ensureN8nInstalled(version);
	const userFolder = options.userFolder ?? mkdtempSync(join(tmpdir(), 'littlepay-n8n-'));
	// A new SQLite instance starts from a migrated copy (see migratedTemplate); a folder n8n has run in
	// (a restart) keeps its own database, and another database type has nothing to copy.
	const n8nDir = join(userFolder, '.n8n');
	if (
		!options.fresh &&
		!options.env?.DB_TYPE &&
		!existsSync(join(n8nDir, 'database.sqlite')) &&
		!existsSync(join(n8nDir, 'config'))
	) {
		const template = await migratedTemplate(version, (folder) =>
			startN8n({ version, userFolder: folder, fresh: true }),
		);
		mkdirSync(n8nDir, { recursive: true });
		for (const entry of readdirSync(join(template, '.n8n')))
			cpSync(join(template, '.n8n', entry), join(n8nDir, entry), { recursive: true });
	}
	installPackageInto(userFolder);
	let port = options.port ?? (await freePort());
	const env: Record<string, string> = {
		PATH: process.env.PATH ?? '',
		HOME: process.env.HOME ?? userFolder,
		N8N_USER_FOLDER: userFolder,
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_SECURE_COOKIE: 'false',
		N8N_RUNNERS_ENABLED: 'false',
		// n8n opens its task broker on 5679 by default even with runners off; a fixed port would clash.
		N8N_RUNNERS_BROKER_PORT: String(await freePort()),
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		N8N_LOG_LEVEL: 'info',
		DB_SQLITE_POOL_SIZE: '2',
		// n8n 1.123's default expression engine needs isolated-vm, whose native build is skipped here.
		...(version.startsWith('1.') ? { N8N_EXPRESSION_ENGINE: 'legacy' } : {}),
		...options.env,
	};
	// A port freePort() found free can be taken before n8n binds it (n8n binds its task broker's some
	// seconds into its start; on a shared machine another process, or an outgoing connection, may get it
	// first). n8n then exits with "port N is already in use": start again on new ports we chose.
	for (let attempt = 1; ; attempt++) {
		Object.assign(
			env,
			{
				N8N_PORT: String(port),
				WEBHOOK_URL: `http://127.0.0.1:${port}/`,
				N8N_EDITOR_BASE_URL: `http://127.0.0.1:${port}/`,
			},
			options.env,
		);
		const started = await launchN8n(node, n8nBin, env, options);
		if ('server' in started)
			return { url: `http://127.0.0.1:${port}`, userFolder, ...started.server };
		const taken = /port (\d+) is already in use/.exec(started.output)?.[1];
		const ours =
			taken === env.N8N_RUNNERS_BROKER_PORT && !options.env?.N8N_RUNNERS_BROKER_PORT
				? 'broker'
				: taken === String(port) && options.port === undefined
					? 'main'
					: undefined;
		if (!ours || attempt >= 3) throw new Error(`n8n exited early:\n${started.output.slice(-3000)}`);
		if (ours === 'broker') env.N8N_RUNNERS_BROKER_PORT = String(await freePort());
		else port = await freePort();
	}
}

/**
 * Spawns `n8n start` with `env` and waits until the editor is accessible: the running server, or the
 * output of an n8n that exited before (a timeout stops it and throws).
 */
async function launchN8n(
	node: string,
	n8nBin: string,
	env: Record<string, string>,
	options: { nodeArgs?: string[]; stopGraceMs?: number; logFile?: string },
): Promise<{ server: Pick<N8nServer, 'pid' | 'logs' | 'stop' | 'kill'> } | { output: string }> {
	let piped = '';
	const { logFile } = options;
	const logFd = logFile ? openSync(logFile, 'w') : undefined;
	const child: ChildProcess = spawn(node, [...(options.nodeArgs ?? []), n8nBin, 'start'], {
		env,
		detached: true,
		stdio: logFd === undefined ? ['ignore', 'pipe', 'pipe'] : ['ignore', logFd, logFd],
	});
	if (logFd !== undefined) {
		closeSync(logFd);
		child.unref();
	}
	child.stdout?.on('data', (chunk: Buffer) => (piped += chunk.toString()));
	child.stderr?.on('data', (chunk: Buffer) => (piped += chunk.toString()));
	const output = () => (logFile ? readFileSync(logFile, 'utf8') : piped);
	const exited = new Promise<void>((res) => child.once('exit', () => res()));
	// After 'close' its output has been read to the end (pipes may still hold some at 'exit').
	const closed = new Promise<void>((res) => child.once('close', () => res()));

	const stop = async () => await stopProcessGroup(child, exited, options.stopGraceMs ?? 10000);

	const kill = async () => {
		if (child.exitCode === null && child.signalCode === null && child.pid) {
			try {
				process.kill(-child.pid, 'SIGKILL');
			} catch {
				// already gone
			}
			await exited;
		}
	};

	const deadline = Date.now() + 180000;
	while (!/Editor is now accessible/.test(output())) {
		if (child.exitCode !== null) {
			try {
				// Anything it started in its group goes with it.
				if (child.pid) process.kill(-child.pid, 'SIGKILL');
			} catch {
				// none left
			}
			await closed;
			return { output: output() };
		}
		if (Date.now() > deadline) {
			await stop();
			throw new Error(`n8n did not start within 180 s:\n${output().slice(-3000)}`);
		}
		await new Promise((r) => setTimeout(r, 250));
	}
	return { server: { pid: child.pid ?? 0, logs: output, stop, kill } };
}

/** An authenticated client of n8n's internal REST API (the one the editor uses). */
export class N8nApi {
	readonly http: AxiosInstance;
	/** The workflows this client published, newest last: a file sharing an n8n unpublishes them when it ends. */
	readonly published: string[] = [];

	/**
	 * `scope`: a name this client's Data Tables end in (`littlepay_payments_<scope>`), so that files sharing
	 * one n8n each have their own tables under the examples' names (the examples pick tables by id).
	 */
	constructor(
		readonly url: string,
		readonly scope?: string,
	) {
		// A fresh connection per call: n8n closes idle keep-alive sockets after 5 s, and on a loaded machine a
		// pooled socket it was closing (a burst of callbacks leaves hundreds) failed the next call with EPIPE.
		this.http = axios.create({
			baseURL: url,
			validateStatus: () => true,
			timeout: 30000,
			httpAgent: new Agent({ keepAlive: false }),
		});
		// n8n answers 503 "Database is not ready!" before any handler runs while its database connection is
		// being re-established (after a burst of calls on a loaded machine its SQLite pool times out for some
		// seconds): the call did nothing, so it is made again, for up to a minute, instead of failing whichever
		// test happens to come next.
		this.http.interceptors.response.use(async (response) => {
			const notReady =
				response.status === 503 && /Database is not ready/.test(JSON.stringify(response.data));
			if (!notReady) return response;
			// axios keeps unknown config fields through its merge: the first refusal's time rides along.
			const config = response.config as typeof response.config & { notReadySince?: number };
			const since = config.notReadySince ?? Date.now();
			if (Date.now() - since > 60000) return response;
			await new Promise((r) => setTimeout(r, 1000));
			return await this.http.request({ ...config, notReadySince: since } as typeof config);
		});
	}

	/** The session cookie of the signed-in owner (after setupOwner), for another client of the same n8n. */
	get sessionCookie(): string | undefined {
		const cookie = this.http.defaults.headers.common.Cookie;
		return typeof cookie === 'string' ? cookie : undefined;
	}

	/**
	 * Signs in with another client's session cookie when n8n still accepts it (n8n allows 5 logins a minute
	 * per e-mail address); otherwise as setupOwner does.
	 */
	async resumeOwner(cookie: string | undefined): Promise<void> {
		if (cookie) {
			this.http.defaults.headers.common.Cookie = cookie;
			if ((await this.http.get('/rest/login')).status === 200) return;
			delete this.http.defaults.headers.common.Cookie;
		}
		await this.setupOwner();
	}

	private remember(setCookie: string[] | undefined) {
		const cookie = (setCookie ?? []).map((c) => c.split(';')[0]).join('; ');
		if (cookie) this.http.defaults.headers.common.Cookie = cookie;
	}

	private static data<T>(response: { status: number; data: unknown }, what: string): T {
		if (response.status >= 300)
			throw new Error(`${what}: HTTP ${response.status} ${JSON.stringify(response.data)}`);
		return (response.data as { data: T }).data;
	}

	/** Creates the owner account on a fresh instance, or logs in when it exists. */
	async setupOwner(): Promise<void> {
		const setup = await this.http.post('/rest/owner/setup', OWNER);
		if (setup.status < 300) return this.remember(setup.headers['set-cookie']);
		const login = await this.http.post('/rest/login', {
			emailOrLdapLoginId: OWNER.email,
			password: OWNER.password,
		});
		N8nApi.data(login, 'login');
		this.remember(login.headers['set-cookie']);
	}

	/** Creates a credential and returns its id. */
	async createCredential(
		name: string,
		type: string,
		data: Record<string, unknown>,
	): Promise<string> {
		const res = await this.http.post('/rest/credentials', { name, type, data });
		return N8nApi.data<{ id: string }>(res, `create credential ${name}`).id;
	}

	/** Imports a workflow JSON and returns its id and version. */
	async createWorkflow(
		workflow: Record<string, unknown>,
	): Promise<{ id: string; versionId: string }> {
		const body = { settings: {}, ...workflow, active: false };
		delete (body as Record<string, unknown>).id;
		const res = await this.http.post('/rest/workflows', body);
		return N8nApi.data<{ id: string; versionId: string }>(
			res,
			`create workflow ${String(workflow.name)}`,
		);
	}

	/** Unpublishes every workflow this client published (a file sharing an n8n, when it ends). */
	async unpublishAll(): Promise<void> {
		for (const id of this.published.splice(0))
			await this.http.post(`/rest/workflows/${id}/deactivate`, {});
	}

	/** Publishes (activates) a workflow so its production webhooks listen. */
	async activateWorkflow(id: string, versionId: string): Promise<void> {
		const res = await this.http.post(`/rest/workflows/${id}/activate`, { versionId });
		N8nApi.data(res, `activate workflow ${id}`);
		this.published.push(id);
	}

	/** Lists the executions of a workflow, newest first. */
	async executions(workflowId: string): Promise<Array<{ id: string; status: string }>> {
		const res = await this.http.get('/rest/executions', {
			params: { filter: JSON.stringify({ workflowId }) },
		});
		const data = N8nApi.data<{ results: Array<{ id: string; status: string }> }>(
			res,
			'list executions',
		);
		return data.results;
	}

	/** Reads one execution with its run data. */
	async execution(id: string): Promise<Record<string, unknown>> {
		const res = await this.http.get(`/rest/executions/${id}`);
		return N8nApi.data<Record<string, unknown>>(res, `get execution ${id}`);
	}

	/** The id of the owner's personal project, where the REST API keeps its data tables. */
	async personalProjectId(): Promise<string> {
		const res = await this.http.get('/rest/projects/personal');
		return N8nApi.data<{ id: string }>(res, 'personal project').id;
	}

	/** Creates a Data Table in the personal project (n8n 2.x) and returns its id. */
	async createDataTable(
		name: string,
		columns: Array<{ name: string; type: 'string' | 'number' | 'boolean' | 'date' }>,
	): Promise<string> {
		const projectId = await this.personalProjectId();
		const res = await this.http.post(`/rest/projects/${projectId}/data-tables`, {
			name: this.scope ? `${name}_${this.scope}` : name,
			columns,
		});
		return N8nApi.data<{ id: string }>(res, `create data table ${name}`).id;
	}

	/** Appends rows to a Data Table of the personal project. */
	async insertDataTableRows(tableId: string, rows: Array<Record<string, unknown>>): Promise<void> {
		const projectId = await this.personalProjectId();
		const res = await this.http.post(`/rest/projects/${projectId}/data-tables/${tableId}/insert`, {
			data: rows,
			returnType: 'all',
		});
		N8nApi.data(res, `insert rows into data table ${tableId}`);
	}

	/** Every row of a Data Table of the personal project (the REST API pages by at most 250). */
	async dataTableRows(tableId: string): Promise<Array<Record<string, unknown>>> {
		const projectId = await this.personalProjectId();
		const rows: Array<Record<string, unknown>> = [];
		for (;;) {
			const res = await this.http.get(`/rest/projects/${projectId}/data-tables/${tableId}/rows`, {
				params: { skip: rows.length, take: 250 },
			});
			const page = N8nApi.data<{ count: number; data: Array<Record<string, unknown>> }>(
				res,
				`rows of data table ${tableId}`,
			);
			rows.push(...page.data);
			if (page.data.length === 0 || rows.length >= page.count) return rows;
		}
	}

	/** The node types the editor knows, as served to it. */
	async nodeTypes(): Promise<
		Array<{
			name: string;
			displayName: string;
			iconUrl?: unknown;
			icon?: unknown;
			properties?: unknown[];
		}>
	> {
		const res = await this.http.get('/types/nodes.json');
		if (res.status !== 200) throw new Error(`nodes.json: HTTP ${res.status}`);
		return res.data;
	}

	/** The credential types the editor knows. */
	async credentialTypes(): Promise<
		Array<{ name: string; displayName: string; iconUrl?: unknown; icon?: unknown }>
	> {
		const res = await this.http.get('/types/credentials.json');
		if (res.status !== 200) throw new Error(`credentials.json: HTTP ${res.status}`);
		return res.data;
	}
}

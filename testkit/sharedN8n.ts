// One real n8n 2.41.1 shared by the e2e files that can share one (issue 65): started by the first file that
// asks, kept for the rest of the jest run and stopped by the e2e project's global teardown
// (testkit/e2eGlobalTeardown.ts). Each file gets its own client (its Data Tables under names of its own),
// its own credentials, workflows and sandbox, and unpublishes what it published when it ends, so a file run
// alone behaves as in the whole run. A file that restarts, kills or reconfigures n8n starts its own
// (startN8n) and says why in one line.
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import axios from 'axios';

import { N8nApi, packedContentHash, startN8n } from './n8n';
import type { N8nServer } from './n8n';

/**
 * The environment variable that names the run's folder: made by testkit/e2eGlobalSetup.ts for one jest run,
 * or named by whoever runs jest (`LITTLEPAY_E2E_RUN=/tmp/e2e npm run test:e2e -- <file>`) to keep the shared
 * servers between runs while working (see CONTRIBUTING.md).
 */
export const E2E_RUN_ENV = 'LITTLEPAY_E2E_RUN';
/** Set by the global set-up when it made the run's folder: teardown then stops what the run shared. */
export const E2E_RUN_OWNED_ENV = 'LITTLEPAY_E2E_RUN_OWNED';

/** What a shared server leaves in the run's folder, so that any file can reach it and teardown stop it. */
export interface SharedRecord {
	url: string;
	userFolder: string;
	logFile: string;
	/** Process groups to stop at the end of the run. */
	pids: number[];
	/** Folders to delete then. */
	dirs: string[];
	/** The package build it runs (packedContentHash): a kept server with an older build is replaced. */
	packageHash?: string;
	/** What else its owner needs to reach it again (the queue cluster's processes). */
	cluster?: unknown;
	/** The owner's session: every file signs in with it (n8n allows 5 logins a minute per e-mail). */
	ownerCookie?: string;
}

/** A file's share of the n8n: the server (stop() and kill() refuse: others use it) and the file's own client. */
export interface SharedN8n extends N8nServer {
	api: N8nApi;
	/** Unpublishes every workflow this file's client published; the server goes on for the next file. */
	release: () => Promise<void>;
}

/** Whether a process is still there (a signal 0 reaches it). */
export function alive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch {
		return false;
	}
}

/** A file's own name on a shared server, for its Data Tables: its label's letters and digits and the time. */
export function fileScope(label: string): string {
	return `${label.replace(/[^a-z0-9]/gi, '').slice(0, 16)}${Date.now().toString(36)}`;
}

/** Runs `body` holding the run folder's lock `name` (a folder: mkdir is atomic), for jest workers started side by side. */
export async function withRunLock<T>(
	run: string,
	name: string,
	body: () => Promise<T>,
): Promise<T> {
	const lock = join(run, `${name}.lock`);
	const deadline = Date.now() + 600000;
	for (;;) {
		try {
			mkdirSync(lock);
			break;
		} catch {
			if (Date.now() > deadline) throw new Error(`${lock} was held for 10 minutes`);
			await new Promise((r) => setTimeout(r, 200));
		}
	}
	try {
		return await body();
	} finally {
		rmSync(lock, { recursive: true, force: true });
	}
}

/** Records a shared server in the run folder (read back by readShared, stopped by stopSharedServers). */
export function recordShared(run: string, name: string, record: SharedRecord): void {
	writeFileSync(join(run, `${name}.json`), JSON.stringify(record));
}

export function readShared(run: string, name: string): SharedRecord | undefined {
	const file = join(run, `${name}.json`);
	return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as SharedRecord) : undefined;
}

/** The shared n8n of this jest run, started if no file has started it yet (or a kept one runs another build). */
async function sharedServer(run: string): Promise<SharedRecord> {
	return await withRunLock(run, 'n8n', async () => {
		const packageHash = packedContentHash();
		const known = readShared(run, 'n8n');
		if (known) {
			const healthy =
				known.pids.every(alive) &&
				(await axios
					.get(`${known.url}/healthz`, { validateStatus: () => true })
					.then((r) => r.status === 200)
					.catch(() => false));
			if (healthy && known.packageHash === packageHash) return known;
			if (!healthy && process.env[E2E_RUN_OWNED_ENV] === '1')
				throw new Error(
					`the shared n8n (${known.url}) is gone or unhealthy; its log ends:\n` +
						readFileSync(known.logFile, 'utf8').slice(-3000),
				);
			// Kept from an earlier run: another build of the package, or stopped since.
			await stopRecorded(run, 'n8n');
		}
		const logFile = join(run, 'n8n.log');
		const server = await startN8n({ logFile });
		const owner = new N8nApi(server.url);
		await owner.setupOwner();
		const record = {
			url: server.url,
			userFolder: server.userFolder,
			logFile,
			pids: [server.pid],
			dirs: [server.userFolder],
			packageHash,
			ownerCookie: owner.sessionCookie,
		};
		recordShared(run, 'n8n', record);
		return record;
	});
}

/**
 * The run's shared n8n 2.41.1 with the package installed, its owner set up, and a client of this file's own
 * (`label` names its Data Tables). Outside a jest e2e run (no run folder), an n8n of its own that release() stops.
 */
export async function sharedN8n(label: string): Promise<SharedN8n> {
	const scope = fileScope(label);
	const run = process.env[E2E_RUN_ENV];
	if (!run) {
		const own = await startN8n();
		const api = new N8nApi(own.url, scope);
		await api.setupOwner();
		return { ...own, api, release: own.stop };
	}
	const record = await sharedServer(run);
	const api = new N8nApi(record.url, scope);
	await api.resumeOwner(record.ownerCookie);
	const refuse = (what: string) => async () => {
		throw new Error(
			`the shared n8n cannot be ${what} by one file: start an n8n of its own (startN8n)`,
		);
	};
	return {
		url: record.url,
		userFolder: record.userFolder,
		pid: record.pids[0],
		logs: () => readFileSync(record.logFile, 'utf8'),
		stop: refuse('stopped'),
		kill: refuse('killed'),
		api,
		release: async () => {
			await api.unpublishAll();
		},
	};
}

/** Stops process groups: SIGTERM, then SIGKILL to those still there after 15 s. */
export async function stopGroups(pids: number[]): Promise<void> {
	const running = pids.filter(alive);
	for (const pid of running) {
		try {
			process.kill(-pid, 'SIGTERM');
		} catch {
			// gone already
		}
	}
	const deadline = Date.now() + 15000;
	while (running.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
	for (const pid of running.filter(alive)) {
		try {
			process.kill(-pid, 'SIGKILL');
		} catch {
			// gone already
		}
	}
}

/** Stops one recorded server and deletes its folders and record. */
export async function stopRecorded(run: string, name: string): Promise<void> {
	const record = readShared(run, name);
	if (!record) return;
	await stopGroups(record.pids);
	for (const dir of record.dirs) rmSync(dir, { recursive: true, force: true });
	rmSync(join(run, `${name}.json`), { force: true });
}

/** Stops every shared server recorded in the run folder and deletes them and the folder. */
export async function stopSharedServers(run: string): Promise<void> {
	for (const file of readdirSync(run).filter((f) => f.endsWith('.json')))
		await stopRecorded(run, file.slice(0, -'.json'.length));
	rmSync(run, { recursive: true, force: true });
}

// Jest global teardown of the e2e project: stops the servers the run's files shared (testkit/sharedN8n.ts),
// unless the run's folder was named by whoever ran jest (kept for the next run).
import { existsSync } from 'node:fs';

import { E2E_RUN_ENV, E2E_RUN_OWNED_ENV, stopSharedServers } from './sharedN8n';

export default async function e2eGlobalTeardown(): Promise<void> {
	const run = process.env[E2E_RUN_ENV];
	if (run && existsSync(run) && process.env[E2E_RUN_OWNED_ENV] === '1')
		await stopSharedServers(run);
}

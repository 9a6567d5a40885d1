// Jest global set-up of the e2e project: a folder for this run, where the shared servers (testkit/sharedN8n.ts)
// leave their addresses for the files after the one that started them. Starts nothing itself: a file run
// alone starts only what it uses. A folder named in LITTLEPAY_E2E_RUN is used as it is and kept.
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { E2E_RUN_ENV, E2E_RUN_OWNED_ENV } from './sharedN8n';

export default function e2eGlobalSetup(): void {
	const named = process.env[E2E_RUN_ENV];
	if (named) {
		mkdirSync(named, { recursive: true });
		return;
	}
	process.env[E2E_RUN_ENV] = mkdtempSync(join(tmpdir(), 'littlepay-e2e-run-'));
	process.env[E2E_RUN_OWNED_ENV] = '1';
}

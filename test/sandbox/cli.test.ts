// `npm run sandbox`: one JSON line on stdout, env overrides, clean exit on SIGTERM.
import axios from 'axios';
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

describe('sandbox CLI', () => {
	it('prints one JSON line with the merchant, honours env overrides and exits 0 on SIGTERM', async () => {
		// tsx as a loader in this very process, not tsx's CLI: the CLI relays signals to a child process
		// over IPC, and on a loaded machine it exited 143 (killed by SIGTERM) before the child's own exit.
		const child = spawn(process.execPath, ['--import', 'tsx', 'sandbox/cli.ts', '--port', '0'], {
			cwd: ROOT,
			env: {
				...process.env,
				SANDBOX_API_KEY: 'cli-test-key',
				SANDBOX_OTHER_MERCHANTS: JSON.stringify([
					{ clientId: 'shop-c', clientSecret: 'secret-c', tokenId: 'tokenc', apiKey: 'key-c' },
				]),
				SANDBOX_QUIET: '1',
			},
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		try {
			let out = '';
			const line = await new Promise<string>((resolve, reject) => {
				child.stdout.on('data', (chunk: Buffer) => {
					out += chunk.toString();
					if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
				});
				child.on('exit', (code) => reject(new Error(`exited early with ${code}`)));
			});
			const merchant = JSON.parse(line);
			expect(Object.keys(merchant).sort()).toEqual([
				'apiKey',
				'baseUrl',
				'clientId',
				'clientSecret',
				'otherMerchants',
				'publicKeyPem',
				'tokenId',
			]);
			expect(merchant.apiKey).toBe('cli-test-key');
			expect(merchant.otherMerchants).toEqual([
				{ clientId: 'shop-c', clientSecret: 'secret-c', tokenId: 'tokenc', apiKey: 'key-c' },
			]);
			const res = await axios.get(`${merchant.baseUrl}/sandbox/merchant`);
			expect(res.data.data).toEqual(merchant);
			const exited = new Promise<number | null>((resolve) =>
				child.on('exit', (code) => resolve(code)),
			);
			child.kill('SIGTERM');
			expect(await exited).toBe(0);
			expect(out.trim().split('\n')).toHaveLength(1);
		} finally {
			if (child.exitCode === null) child.kill('SIGKILL');
		}
	});
});

// The package as users get it: installed from its `npm pack` tarball the way n8n's Community Nodes panel does
// (testkit/n8n.ts installPackageInto), so a file left out of package.json's `files` fails here in seconds and in
// every real-n8n suite, which install it the same way. `npm test` builds dist/ before this runs.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

import { installPackageInto, PACKAGE_NAME, REPO_ROOT } from '../../testkit/n8n';

/** Every file under `dir`, relative to it. */
function files(dir: string, base = dir): string[] {
	return readdirSync(dir).flatMap((entry) => {
		const full = join(dir, entry);
		return statSync(full).isDirectory() ? files(full, base) : [relative(base, full)];
	});
}

interface Loaded {
	file: string;
	kind: 'node' | 'credential';
	name: string;
	icons: string[];
	codex: boolean;
}

describe('the package installed from its tarball, as n8n installs it', () => {
	let installed: string;
	let manifest: {
		n8n: { nodes: string[]; credentials: string[] };
		dependencies?: object;
		devDependencies?: object;
		peerDependencies?: object;
		optionalDependencies?: object;
	};

	beforeAll(() => {
		const userFolder = mkdtempSync(join(tmpdir(), 'littlepay-tarball-'));
		installPackageInto(userFolder);
		installed = join(userFolder, '.n8n', 'nodes', 'node_modules', PACKAGE_NAME);
		manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
	}, 120000);

	it('carries the MIT license text, the README and a package.json without dependencies to fetch', () => {
		expect(readFileSync(join(installed, 'LICENSE'), 'utf8')).toMatch(
			/^MIT License\n\nCopyright \(c\) \d{4} Little Pay/,
		);
		expect(existsSync(join(installed, 'README.md'))).toBe(true);
		expect(manifest.dependencies ?? {}).toEqual({});
		expect(manifest.devDependencies).toBeUndefined();
		expect(manifest.peerDependencies).toBeUndefined();
		expect(manifest.optionalDependencies).toBeUndefined();
		expect(existsSync(join(installed, 'node_modules'))).toBe(false);
	});

	it('holds the compiled code of every source file and every icon, codex and output schema beside it', () => {
		const shipped = new Set(files(installed));
		const expected = ['nodes', 'credentials'].flatMap((dir) =>
			files(join(REPO_ROOT, dir), REPO_ROOT)
				.filter((file) => /\.(ts|svg|png|json)$/.test(file) && !file.endsWith('.d.ts'))
				.map((file) => join('dist', file.replace(/\.ts$/, '.js'))),
		);
		expect(expected.length).toBeGreaterThan(40);
		expect(expected.filter((file) => !shipped.has(file))).toEqual([]);
	});

	it('loads both nodes and both credentials from the installed folder, with their icons and codex files', () => {
		const script = `
			const { dirname, join } = require('node:path');
			const { existsSync } = require('node:fs');
			const root = process.argv[1];
			const manifest = require(join(root, 'package.json'));
			const out = [];
			for (const [kind, list] of [['node', manifest.n8n.nodes], ['credential', manifest.n8n.credentials]]) {
				for (const file of list) {
					const path = join(root, file);
					const exported = require(path);
					const Type = Object.values(exported).find((value) => typeof value === 'function');
					const instance = new Type();
					const description = kind === 'node' ? instance.description : instance;
					const icon = description.icon;
					const icons = (typeof icon === 'string' ? [icon] : icon ? [icon.light, icon.dark] : [])
						.map((value) => value.replace(/^file:/, ''))
						.map((value) => existsSync(join(dirname(path), value)) ? value : 'MISSING ' + value);
					out.push({ file, kind, name: description.name, icons,
						codex: existsSync(path.replace(/\\.js$/, '.json')) });
				}
			}
			process.stdout.write(JSON.stringify(out));
		`;
		// n8n resolves n8n-workflow from its own installation; here the repository's copy stands in for it.
		const loaded = JSON.parse(
			execFileSync(process.execPath, ['-e', script, installed], {
				encoding: 'utf8',
				env: { ...process.env, NODE_PATH: join(REPO_ROOT, 'node_modules') },
			}),
		) as Loaded[];
		expect(loaded.map(({ kind, name }) => `${kind} ${name}`).sort()).toEqual([
			'credential littlePayApiKeyApi',
			'credential littlePayBasicApi',
			'node littlePay',
			'node littlePayTrigger',
		]);
		for (const entry of loaded) {
			expect(entry.icons.length).toBeGreaterThan(0);
			expect(entry.icons.filter((icon) => icon.startsWith('MISSING'))).toEqual([]);
			if (entry.kind === 'node') expect(entry.codex).toBe(true);
		}
	});
});

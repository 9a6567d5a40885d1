// n8n's verification scanner (@n8n/scan-community-package) on both legs its portal runs, against this checkout
// and its `npm pack` tarball instead of the public registry and GitHub:
//   source leg:  package.json and {nodes,credentials}/**/*.{js,ts,json} of the source, every n8n lint rule
//   tarball leg: **/*.js and package.json of the unpacked tarball
// The scanner's own entry point (analyzePackageByName) downloads the published package, its provenance and the
// attested GitHub commit; the two analyzePackage calls below are what it runs on them, with the same patterns.
// Nothing here reaches the network.
//
//   node scripts/scan-package.mjs [--source <dir>] [--tarball <file.tgz>]   (default: this checkout, packed now)
//
// Prints one JSON line { version, legs: [{ leg, dir, patterns, passed, message, details }] }; exits 1 on a finding.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import process from 'node:process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// eslint-plugin-n8n-nodes-base reads NODE_ENV=test (which jest sets) as its own test mode and then checks file
// names against its fixtures; the portal runs without it.
delete process.env.NODE_ENV;

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const scannerDir = dirname(require.resolve('@n8n/scan-community-package/package.json'));
const { version } = JSON.parse(readFileSync(join(scannerDir, 'package.json'), 'utf8'));
const { analyzePackage, SOURCE_FILE_PATTERNS } = await import(
	join(scannerDir, 'scanner', 'scanner.mjs')
);

const args = process.argv.slice(2);
const option = (name) => {
	const at = args.indexOf(name);
	return at >= 0 ? resolve(args[at + 1]) : undefined;
};
const source = option('--source') ?? root;
const work = mkdtempSync(join(tmpdir(), 'littlepay-scan-'));
try {
	let tarball = option('--tarball');
	if (!tarball) {
		const [{ filename }] = JSON.parse(
			execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], {
				cwd: root,
				encoding: 'utf8',
				stdio: ['ignore', 'pipe', 'pipe'],
			}),
		);
		tarball = join(work, filename);
	}
	// As the scanner's downloadAndExtractPackage unpacks it.
	const unpacked = join(work, 'package');
	mkdirSync(unpacked);
	execFileSync('tar', ['-xzf', tarball, '-C', unpacked, '--strip-components=1']);

	const legs = [
		{ leg: 'source', dir: source, patterns: SOURCE_FILE_PATTERNS },
		{ leg: 'tarball', dir: unpacked, patterns: ['**/*.js', 'package.json'] },
	];
	for (const leg of legs) {
		const result = await analyzePackage(leg.dir, leg.patterns);
		Object.assign(leg, {
			passed: result.passed,
			message: result.message ?? null,
			details: result.details ?? null,
		});
	}
	process.stdout.write(JSON.stringify({ version, legs }) + '\n');
	process.exitCode = legs.every((leg) => leg.passed) ? 0 : 1;
} finally {
	rmSync(work, { recursive: true, force: true });
}

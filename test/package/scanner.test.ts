// n8n's verification scanner, as its portal runs it before a package is verified: the source leg (package.json,
// {nodes,credentials}/**/*.{js,ts,json}, every n8n lint rule) and the tarball leg (**/*.js, package.json of the
// `npm pack` tarball), through scripts/scan-package.mjs, which calls the scanner's own analyzePackage on local
// folders instead of the registry and GitHub. A finding fails `npm test`.
import { execFileSync } from 'node:child_process';
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { packedTarball, REPO_ROOT } from '../../testkit/n8n';

interface Leg {
	leg: 'source' | 'tarball';
	patterns: string[];
	passed: boolean;
	message: string | null;
	details: string | null;
}

/** Runs the scanner's two legs; the script exits 1 on a finding, which is read from its output here. */
function scan(args: string[]): { version: string; legs: Leg[] } {
	let out: string;
	try {
		out = execFileSync(
			process.execPath,
			[join(REPO_ROOT, 'scripts', 'scan-package.mjs'), ...args],
			{
				encoding: 'utf8',
				stdio: ['ignore', 'pipe', 'pipe'],
			},
		);
	} catch (error) {
		out = (error as { stdout: string }).stdout;
	}
	return JSON.parse(out.trim().split('\n').pop() ?? '');
}

describe("n8n's verification scanner on both legs", () => {
	let tarball: string;

	beforeAll(() => {
		tarball = packedTarball();
	}, 120000);

	it('finds nothing in the sources or in the tarball users install', () => {
		const { version, legs } = scan(['--tarball', tarball]);
		// The version the registry serves and n8n's portal runs (issue 40); a newer one is a deliberate update.
		expect(version).toBe('0.32.0');
		expect(legs.map(({ leg, patterns }) => ({ leg, patterns }))).toEqual([
			{ leg: 'source', patterns: ['package.json', '{nodes,credentials}/**/*.{js,ts,json}'] },
			{ leg: 'tarball', patterns: ['**/*.js', 'package.json'] },
		]);
		for (const leg of legs)
			expect({ leg: leg.leg, details: leg.details, passed: leg.passed }).toEqual({
				leg: leg.leg,
				details: null,
				passed: true,
			});
	}, 180000);

	it('fails a node source that starts a timer, and a tarball whose compiled code reads files', () => {
		const work = mkdtempSync(join(tmpdir(), 'littlepay-scan-bad-'));
		const source = join(work, 'source');
		for (const path of ['package.json', 'nodes', 'credentials'])
			cpSync(join(REPO_ROOT, path), join(source, path), { recursive: true });
		appendFileSync(
			join(source, 'nodes', 'LittlePay', 'LittlePay.node.ts'),
			'\nexport const later = () => setTimeout(() => undefined, 1000);\n',
		);

		const unpacked = join(work, 'package');
		mkdirSync(unpacked);
		execFileSync('tar', ['-xzf', tarball, '-C', unpacked, '--strip-components=1']);
		const compiled = join(unpacked, 'dist', 'nodes', 'LittlePay', 'LittlePay.node.js');
		expect(readFileSync(compiled, 'utf8')).toContain('class LittlePay');
		appendFileSync(
			compiled,
			"\nexports.secrets = require('fs').readFileSync('/etc/passwd', 'utf8');\n",
		);
		const badTarball = join(work, 'bad.tgz');
		execFileSync('tar', ['-czf', badTarball, '-C', work, 'package']);

		const { legs } = scan(['--source', source, '--tarball', badTarball]);
		const [sourceLeg, tarballLeg] = legs;
		expect(sourceLeg.passed).toBe(false);
		expect(sourceLeg.details).toContain('LittlePay.node.ts');
		expect(sourceLeg.details).toMatch(/setTimeout/);
		expect(tarballLeg.passed).toBe(false);
		expect(tarballLeg.details).toContain('LittlePay.node.js');
		expect(tarballLeg.details).toMatch(/\bfs\b/);
	}, 180000);
});

// CONTRIBUTING.md's verification checklist says where each of n8n's written rules is met. A checklist is only
// worth what it points at: every file or folder it names must exist, and every rule must name one.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');
const text = readFileSync(join(ROOT, 'CONTRIBUTING.md'), 'utf8');
const section = text.slice(text.indexOf('### The checklist'), text.indexOf('### The video'));
const rows = section
	.split('\n')
	.filter((line) => line.startsWith('| ') && !line.startsWith("| n8n's rule "));

/** The repository paths a text names in backticks (`scripts/scan-package.mjs`, `docs/screenshots/`). */
const pathsIn = (line: string) =>
	[...line.matchAll(/`([^`\s]+)`/g)]
		.map((m) => m[1])
		.filter((p) =>
			/^(\.github|scripts|test|nodes|docs|examples|credentials)\/|^[A-Z]+\.md$|^LICENSE$|^package\.json$|^eslint\.config\.mjs$/.test(
				p,
			),
		);

describe("CONTRIBUTING.md's verification checklist", () => {
	it("lists n8n's written rules, the scanner's legs, provenance and the video", () => {
		const rules = rows.map((row) => row.split('|')[1]).join('\n');
		for (const rule of [
			/n8n-node/,
			/scanner's two legs/,
			/MIT/,
			/No runtime dependencies/,
			/No environment or file access/,
			/English/,
			/UX guidelines/,
			/Documentation/,
			/provenance/,
			/five minutes or less/,
		])
			expect(rules).toMatch(rule);
	});

	it('names, for every rule met in the repository, files that exist', () => {
		const named = rows.flatMap(pathsIn);
		expect(named.length).toBeGreaterThan(10);
		expect(named.filter((path) => !existsSync(join(ROOT, path)))).toEqual([]);
	});
});

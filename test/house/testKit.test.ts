// One shared test kit: tests, benches and tools import the product and testkit/, never a file under
// test/ (a helper there would be a second kit that only some callers see).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = join(__dirname, '..', '..');

function sources(dir: string): string[] {
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : sources(path);
		return /\.(ts|js|mjs)$/.test(name) ? [path] : [];
	});
}

/** Each import or export line of a file whose `from '…'` leads into test/, as "file: target". */
export function importsIntoTest(files: Array<[string, string]>): string[] {
	const found: string[] = [];
	for (const [file, text] of files)
		for (const [, target] of text.matchAll(/^(?:import|export|\}).*\bfrom '(\.[^']*)'/gm)) {
			const into = relative(ROOT, resolve(dirname(join(ROOT, file)), target));
			if (into.startsWith('test/')) found.push(`${file}: ${target}`);
		}
	return found;
}

describe('one shared test kit', () => {
	it('no test, bench, tool or kit file imports a file under test/', () => {
		const files = ['test', 'testkit', 'bench', 'tools', 'scripts']
			.flatMap((dir) => {
				try {
					return sources(join(ROOT, dir));
				} catch {
					return [];
				}
			})
			.map((path): [string, string] => [relative(ROOT, path), readFileSync(path, 'utf8')]);
		expect(files.length).toBeGreaterThan(50);
		expect(importsIntoTest(files)).toEqual([]);
	});

	it('finds an import of a test helper, and lets the kit and the product through', () => {
		expect(
			importsIntoTest([
				['test/a/x.test.ts', "import { y } from '../b/helpers';"],
				['bench/z.ts', "import { w } from '../test/e2e/thing';"],
				['test/a/ok.test.ts', "import { k } from '../../testkit/n8n';"],
				['test/a/ok2.test.ts', "import { n } from '../../nodes/LittlePay/item';"],
			]),
		).toEqual(['test/a/x.test.ts: ../b/helpers', 'bench/z.ts: ../test/e2e/thing']);
	});
});

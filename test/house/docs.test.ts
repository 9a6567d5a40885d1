// The merchant's pages: the README links the going-live checklist, the checklist covers what a merchant
// meets between the sandbox and real money, and no relative link in README.md or docs/ leads nowhere.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const root = resolve(__dirname, '../..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
	return heading
		.trim()
		.toLowerCase()
		.replace(/[^\p{L}\p{N} _-]/gu, '')
		.replace(/ /g, '-');
}

function anchorsIn(markdown: string): Set<string> {
	const anchors = new Set<string>();
	for (const line of markdown.split('\n')) {
		const match = /^#{1,6} (.+)$/.exec(line);
		if (match) anchors.add(anchorOf(match[1]));
		for (const [, id] of line.matchAll(/<a id="([^"]+)"><\/a>/g)) anchors.add(id);
	}
	return anchors;
}

const pages = [
	'README.md',
	...readdirSync(join(root, 'docs'))
		.filter((f) => f.endsWith('.md'))
		.map((f) => `docs/${f}`),
];

describe("the merchant's pages", () => {
	it('the README has a Going live section that links docs/going-live.md', () => {
		const readme = read('README.md');
		const section = readme.split('\n## Going live\n')[1]?.split('\n## ')[0] ?? '';
		expect(section).toContain('(docs/going-live.md)');
		expect(readme).toContain('[Going live](#going-live)');
	});

	it('the going-live checklist covers credentials, the key, WEBHOOK_URL, limits, a first payment and the first day', () => {
		const page = read('docs/going-live.md');
		const headings = [...page.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
		expect(headings).toEqual([
			'1. Live credentials and Base URL',
			"2. The trigger's key: nothing to paste",
			'3. A public https Production URL in every Callback URL',
			'4. Spending Limits',
			'5. A first small real payment',
			'6. What to watch the first day',
		]);
		expect(page).toContain('https://pay.little.africa');
		expect(page).toContain('WEBHOOK_URL=https://');
		expect(page).toMatch(/Production URL/);
	});

	it.each(pages)('every relative link in %s leads to a file and heading that exist', (page) => {
		const text = read(page);
		const broken: string[] = [];
		for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
			if (/^[a-z]+:/i.test(target)) continue;
			const [file, anchor] = target.split('#');
			const path = file === '' ? join(root, page) : resolve(dirname(join(root, page)), file);
			if (!existsSync(path)) {
				broken.push(target);
				continue;
			}
			if (anchor && path.endsWith('.md') && !anchorsIn(readFileSync(path, 'utf8')).has(anchor))
				broken.push(target);
		}
		expect(broken).toEqual([]);
	});
});

// No fact lost when the README is cut down: every statement and every figure of an older README must still be
// in the README or in a page it links to (docs/*.md, CONTRIBUTING.md, ...), followed two links deep.
//
//   npx tsx scripts/readme-facts.ts [git-ref]      (default 377c9fa, the last 885-line README)
//
// A statement is a sentence of a paragraph or list item, or one cell of a table row, compared after dropping
// Markdown (link targets, emphasis, code ticks) and whitespace, case-insensitively. A figure is every number in
// the old README (1,000 / 2.41.1 / 0.83x / 13.8). Prints what is missing and exits 1 if anything is.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

const root = join(__dirname, '..');
const ref = process.argv[2] ?? '377c9fa';
const old = execFileSync('git', ['show', `${ref}:README.md`], { cwd: root, encoding: 'utf8' });

/** The README and every local Markdown page reachable from it in at most `depth` links. */
function linkedPages(start: string, depth: number): string[] {
	const seen = new Set<string>([start]);
	let frontier = [start];
	for (let level = 0; level < depth; level++) {
		const next: string[] = [];
		for (const page of frontier) {
			const text = readFileSync(join(root, page), 'utf8');
			for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
				if (/^[a-z]+:/i.test(target)) continue;
				const path = normalize(join(dirname(page), target));
				if (!path.endsWith('.md') || seen.has(path) || !existsSync(join(root, path))) continue;
				seen.add(path);
				next.push(path);
			}
		}
		frontier = next;
	}
	return [...seen];
}

const plain = (text: string) =>
	text
		.replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
		.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
		.replace(/[*`_]/g, '')
		.replace(/\s+/g, ' ')
		.trim()
		.toLowerCase();

/** Statements of a Markdown text: table cells, and the sentences of each paragraph or list item. */
function statements(markdown: string): string[] {
	const out: string[] = [];
	const blocks: string[] = [];
	let current: string[] = [];
	let fenced = false;
	const flush = () => {
		if (current.length) blocks.push(current.join(' '));
		current = [];
	};
	for (const line of markdown.split('\n')) {
		if (line.startsWith('```')) {
			flush();
			fenced = !fenced;
			continue;
		}
		if (fenced) {
			if (line.trim()) blocks.push(line);
			continue;
		}
		if (/^\s*\|/.test(line)) {
			flush();
			if (/^\s*\|[-| :]+\|\s*$/.test(line)) continue;
			for (const cell of line.split('|').slice(1, -1)) if (cell.trim()) blocks.push(cell);
			continue;
		}
		if (/^#/.test(line) || !line.trim()) {
			flush();
			continue;
		}
		if (/^\s*(?:[-*]|\d+\.)\s/.test(line)) flush();
		current.push(line.replace(/^\s*(?:[-*]|\d+\.)\s+/, ''));
	}
	flush();
	for (const block of blocks)
		for (const sentence of block.split(/(?<=[.;!?])\s+(?=[A-Z*`(["0-9])/))
			if (plain(sentence).length > 2) out.push(sentence);
	return out;
}

/**
 * Statements moved with a deliberate change of words (a heading instead of a bold lead, a link instead of
 * "above"): the old statement starts with the first text, and the second must be in the pages instead.
 */
const REWORDED: Array<[string, string]> = [
	['How it behaves with money:', '## How it behaves with money'],
	['How the pause works:', '## How the pause works'],
	[
		'**When a wait ends.** A payment intent',
		"## When a wait ends\n\nA payment intent can carry several attempts: Little Pay's hosted checkout lets a payer",
	],
	[
		'Make the downstream step idempotent on',
		"Make the downstream step idempotent on\n  `eventId` (see the trigger's [*Idempotent downstream*](trigger.md)); with one webhook process",
	],
	[
		'Benchmarks (`npm run bench`, figures in `docs/benchmarks.md`)',
		'Benchmarks (`npm run bench`, figures below) miss these targets, mostly on costs n8n imposes',
	],
	[
		'A payout run at Concurrency 10 takes 1.07x',
		'A payout run at Concurrency 10 takes 1.07x one round trip per payout (target 1.25x) and 7.2x less time than\nat Concurrency 1 (see below).',
	],
	[
		'Waiting for payouts to settle, long-poll waiting',
		'targets; the queue-mode callback bench does not (see [Queue mode](queue-mode.md) and',
	],
	[
		'`scripts/setup.sh start`, build, then the demo (above)',
		'`scripts/setup.sh start`, build, then the demo (see',
	],
];

const pages = linkedPages('README.md', 2);
const corpus = plain(pages.map((page) => readFileSync(join(root, page), 'utf8')).join('\n'));
const corpusNumbers = new Set(corpus.match(/\d[\d,.]*\d|\d/g) ?? []);

const reworded = (statement: string) =>
	REWORDED.find(([start]) => plain(statement).startsWith(plain(start)));
const missing = statements(old).filter((s) => {
	if (corpus.includes(plain(s))) return false;
	const change = reworded(s);
	return !change || !corpus.includes(plain(change[1]));
});
const figures = [...new Set(plain(old).match(/\d[\d,.]*\d|\d/g) ?? [])];
const missingFigures = figures.filter((figure) => !corpusNumbers.has(figure));

console.log(`pages: ${pages.map((p) => relative('.', p)).join(', ')}`);
console.log(
	`old README at ${ref}: ${statements(old).length} statements, ${figures.length} figures; missing: ${missing.length} statements, ${missingFigures.length} figures`,
);
for (const statement of missing) console.log(`MISSING statement: ${statement.trim()}`);
for (const figure of missingFigures) console.log(`MISSING figure: ${figure}`);
process.exitCode = missing.length || missingFigures.length ? 1 : 0;

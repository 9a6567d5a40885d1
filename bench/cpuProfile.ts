// Reads a V8 `.cpuprofile` (Node's `--cpu-prof`) and says where the CPU time went: self time by function
// and by package file, the idle / program / garbage-collector nodes apart, and the inclusive time under a
// few n8n and Little Pay entry points (a sample counts once for each group its stack passes through).
// Used by `npm run bench -- payrollProfile`; also alone: `npx tsx bench/cpuProfile.ts <file> [fromUs toUs]`.
import { readFileSync } from 'node:fs';

interface CallFrame {
	functionName: string;
	url: string;
	lineNumber: number;
	columnNumber: number;
}

interface ProfileNode {
	id: number;
	callFrame: CallFrame;
	children?: number[];
}

interface CpuProfile {
	nodes: ProfileNode[];
	startTime: number;
	endTime: number;
	samples: number[];
	timeDeltas: number[];
}

/** The inclusive groups: a name and what a stack frame must match (function name, or file and function). */
const GROUPS: Array<[string, (frame: CallFrame) => boolean]> = [
	['Little Pay node code (any frame in the package)', (f) => f.url.includes('n8n-nodes-littlepay')],
	[
		"parameter reads (n8n-workflow's WorkflowExpression.getParameterValue, for getNodeParameter)",
		(f) => f.functionName === 'getParameterValue' && /workflow-expression/.test(f.url),
	],
	[
		"credential expressions (n8n's credentials-helper, per request)",
		(f) => /n8n\/dist\/credentials-helper/.test(f.url),
	],
	[
		'expression evaluation (n8n-workflow Expression, @n8n/expression-runtime isolate)',
		(f) =>
			/\/(n8n-workflow)\/.*expression/i.test(f.url) ||
			/@n8n\/tournament|expression-runtime|isolated-vm/i.test(f.url),
	],
	[
		'workflow data proxy (n8n-workflow WorkflowDataProxy)',
		(f) => /workflow-data-proxy/i.test(f.url),
	],
	[
		"n8n's HTTP request path (@n8n/backend-network, n8n-core request helpers)",
		(f) => /@n8n\/backend-network|request-helper-functions/.test(f.url),
	],
	['axios', (f) => /node_modules\/axios\//.test(f.url)],
	['node:http / net / tls internals', (f) => /^node:(_http|http|net|_tls|tls|https)/.test(f.url)],
	[
		"n8n's execution saving and DB (typeorm, sqlite, execution repository)",
		(f) =>
			/node_modules\/(typeorm|sqlite3|@n8n\/typeorm)\//.test(f.url) ||
			/execution\.repository|execution-persistence|save-execution-progress/i.test(f.url),
	],
	[
		'JSON / structured clone / deepCopy',
		(f) =>
			/^(JSON\.stringify|JSON\.parse|stringify|parse|deepCopy|structuredClone)$/.test(
				f.functionName,
			) || /flatted/.test(f.url),
	],
	['webhook response / express', (f) => /node_modules\/(express|body-parser)\//.test(f.url)],
];

const SPECIAL = new Set(['(idle)', '(program)', '(garbage collector)', '(root)']);

/** The package a script belongs to (`n8n-core`, `@n8n/x`, `node:internal`...), from its URL. */
export function packageOf(url: string): string {
	if (!url) return '(native / V8 builtin)';
	if (url.startsWith('node:')) return 'node (built-in)';
	const parts = url.split('node_modules/');
	if (parts.length < 2) return url.replace(/^file:\/\//, '');
	const rest = parts[parts.length - 1].split('/');
	return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
}

/** A script's path inside its package, for the report. */
function fileOf(url: string): string {
	if (!url) return '';
	const parts = url.split('node_modules/');
	const tail = parts[parts.length - 1];
	return tail.replace(/^file:\/\//, '');
}

export interface ProfileSummary {
	windowMs: number;
	sampledMs: number;
	special: Record<string, number>;
	byFunction: Array<{ name: string; file: string; ms: number }>;
	byPackage: Array<{ name: string; ms: number }>;
	groups: Array<{ name: string; ms: number }>;
	/** Inclusive time per function of the Little Pay package (once per sample). */
	littlePay: Array<{ name: string; file: string; ms: number }>;
}

/**
 * Aggregates a profile. With `fromUs`/`toUs` (the same monotonic clock as `process.hrtime`, in
 * microseconds), only the samples taken in that window count.
 */
export function summariseCpuProfile(file: string, fromUs?: number, toUs?: number): ProfileSummary {
	const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
	const byId = new Map<number, ProfileNode>();
	const parent = new Map<number, number>();
	for (const node of profile.nodes) {
		byId.set(node.id, node);
		for (const child of node.children ?? []) parent.set(child, node.id);
	}
	const self = new Map<number, number>();
	let at = profile.startTime;
	const from = fromUs ?? -Infinity;
	const to = toUs ?? Infinity;
	for (let i = 0; i < profile.samples.length; i++) {
		at += profile.timeDeltas[i];
		if (at < from || at > to) continue;
		// Each sample stands for the time until the next one.
		const next = profile.timeDeltas[i + 1] ?? 0;
		self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + next);
	}
	const special: Record<string, number> = {};
	const fn = new Map<string, { name: string; file: string; ms: number }>();
	const pkg = new Map<string, number>();
	const groups = new Map<string, number>(GROUPS.map(([name]) => [name, 0]));
	const littlePay = new Map<string, { name: string; file: string; ms: number }>();
	let sampled = 0;
	for (const [id, us] of self) {
		const node = byId.get(id)!;
		const frame = node.callFrame;
		const ms = us / 1000;
		sampled += ms;
		if (SPECIAL.has(frame.functionName)) {
			special[frame.functionName] = (special[frame.functionName] ?? 0) + ms;
			continue;
		}
		const name = frame.functionName || '(anonymous)';
		const where = `${fileOf(frame.url)}:${frame.lineNumber + 1}`;
		const key = `${name}\0${where}`;
		const entry = fn.get(key) ?? { name, file: where, ms: 0 };
		entry.ms += ms;
		fn.set(key, entry);
		const p = packageOf(frame.url);
		pkg.set(p, (pkg.get(p) ?? 0) + ms);
		// Inclusive: once per group per sample, however many of its frames match.
		const hit = new Set<string>();
		const ours = new Map<string, { name: string; file: string }>();
		for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
			const f = byId.get(cur)!.callFrame;
			for (const [group, matches] of GROUPS) if (matches(f)) hit.add(group);
			if (f.url.includes('n8n-nodes-littlepay')) {
				const file = `${f.url.slice(f.url.indexOf('n8n-nodes-littlepay'))}:${f.lineNumber + 1}`;
				ours.set(`${f.functionName}\0${file}`, { name: f.functionName || '(anonymous)', file });
			}
		}
		for (const group of hit) groups.set(group, groups.get(group)! + ms);
		for (const [key, where] of ours) {
			const entry = littlePay.get(key) ?? { ...where, ms: 0 };
			entry.ms += ms;
			littlePay.set(key, entry);
		}
	}
	const windowMs = (Math.min(to, profile.endTime) - Math.max(from, profile.startTime)) / 1000;
	return {
		windowMs,
		sampledMs: sampled,
		special,
		byFunction: [...fn.values()].sort((a, b) => b.ms - a.ms),
		byPackage: [...pkg].map(([name, ms]) => ({ name, ms })).sort((a, b) => b.ms - a.ms),
		groups: [...groups].map(([name, ms]) => ({ name, ms })).sort((a, b) => b.ms - a.ms),
		littlePay: [...littlePay.values()].sort((a, b) => b.ms - a.ms),
	};
}

/** The summary as text: `perRow` rows divide the figures into ms per row. */
export function formatSummary(summary: ProfileSummary, perRow: number, top = 30): string {
	const busy = summary.sampledMs - Object.values(summary.special).reduce((a, b) => a + b, 0);
	const per = (ms: number) => `${ms.toFixed(0)} ms (${(ms / perRow).toFixed(3)} ms/row)`;
	const lines = [
		`window ${summary.windowMs.toFixed(0)} ms, sampled ${summary.sampledMs.toFixed(0)} ms; on CPU in JS/native code ${per(busy)}`,
		`apart: ${Object.entries(summary.special)
			.map(([name, ms]) => `${name} ${per(ms)}`)
			.join(', ')}`,
		'',
		`self time by package (of ${busy.toFixed(0)} ms):`,
		...summary.byPackage
			.slice(0, 15)
			.map((p) => `  ${per(p.ms).padEnd(30)} ${((100 * p.ms) / busy).toFixed(1)}%  ${p.name}`),
		'',
		'inclusive time under (a sample counts once per group; groups overlap):',
		...summary.groups.map(
			(g) => `  ${per(g.ms).padEnd(30)} ${((100 * g.ms) / busy).toFixed(1)}%  ${g.name}`,
		),
		'',
		'inclusive time under Little Pay functions:',
		...summary.littlePay
			.slice(0, 15)
			.map(
				(f) =>
					`  ${per(f.ms).padEnd(30)} ${((100 * f.ms) / busy).toFixed(1)}%  ${f.name}  ${f.file}`,
			),
		'',
		`top ${top} functions by self time:`,
		...summary.byFunction
			.slice(0, top)
			.map(
				(f) =>
					`  ${per(f.ms).padEnd(30)} ${((100 * f.ms) / busy).toFixed(1)}%  ${f.name}  ${f.file}`,
			),
	];
	return lines.join('\n');
}

if (require.main === module) {
	const [file, from, to, rows] = process.argv.slice(2);
	if (!file) {
		process.stderr.write(
			'usage: npx tsx bench/cpuProfile.ts <file.cpuprofile> [fromUs toUs [rows]]\n',
		);
		process.exit(2);
	}
	const summary = summariseCpuProfile(
		file,
		from ? Number(from) : undefined,
		to ? Number(to) : undefined,
	);
	process.stdout.write(`${formatSummary(summary, rows ? Number(rows) : 1)}\n`);
}

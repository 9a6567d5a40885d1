// One exit (issue 49 point 3, issue 50 point 4): everything the action node emits passes through the
// exit the router opens (flows/output.ts), which is the only caller of protectOutput; the webhooks
// (the trigger, a resumed pause) leave through protectRow, the same function with contactHash. A
// file that masks on its own, or builds output around the exit, fails here with its name and line.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const NODE_DIR = resolve(__dirname, '../../nodes/LittlePay');

function sourceFiles(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
		const path = join(dir, entry.name);
		if (entry.isDirectory()) return sourceFiles(path);
		return entry.name.endsWith('.ts') ? [path] : [];
	});
}

/** Every `name(` call outside the file that defines it, as "file:line". */
function callsOf(name: string, files: Map<string, string>): string[] {
	const found: string[] = [];
	for (const [file, text] of files) {
		// The exit's own room: the setting per field (payerData.ts) and the masks in text (payerText.ts).
		if (file === 'helpers/payerData.ts' || file === 'helpers/payerText.ts') continue;
		text.split('\n').forEach((line, index) => {
			if (new RegExp(`\\b${name}\\(`).test(line)) found.push(`${file}:${index + 1}`);
		});
	}
	return found;
}

const files = new Map(
	sourceFiles(NODE_DIR).map((path) => [relative(NODE_DIR, path), readFileSync(path, 'utf8')]),
);

describe('one exit for everything the node emits', () => {
	it('calls protectOutput once, in the exit the router opens', () => {
		expect(callsOf('protectOutput', files).map((at) => at.split(':')[0])).toEqual([
			'flows/output.ts',
		]);
	});

	it('lets only the webhooks (trigger, resumed pause) call protectRow', () => {
		expect(
			callsOf('protectRow', files)
				.map((at) => at.split(':')[0])
				.sort(),
		).toEqual(['callbacks/resume.ts', 'callbacks/triggerWebhook.ts']);
	});

	it('has no other masking function in use outside helpers/payerData.ts, payerText.ts and card.ts', () => {
		const others = [
			'maskNumber',
			'maskEmail',
			'protectText',
			'protectPayerData',
			'redactCardNumbers',
		];
		expect(others.flatMap((name) => callsOf(name, files))).toEqual([]);
		expect(
			callsOf('scrubCardValues', files).filter((at) => !at.startsWith('helpers/card.ts')),
		).toEqual([]);
	});

	it('opens the exit in the router, and the router returns only what went through it', () => {
		const router = files.get('actions/router.ts') ?? '';
		expect(router).toMatch(/const exit = await openExit\(this\)/);
		expect(router).toMatch(/throw exit\.error\(error\)/);
		// Every output array the router returns is exit.rows(...).
		for (const returned of router.match(/return \[[^\]]*\]/g) ?? [])
			expect(returned).toMatch(/^return \[(exit\.rows\(|main|\[\])/);
	});

	it('finds a file that masks on its own', () => {
		const planted = new Map(files);
		planted.set('actions/planted.ts', 'const out = protectOutput(row, settings, { row: true });');
		expect(callsOf('protectOutput', planted)).toContain('actions/planted.ts:1');
	});
});

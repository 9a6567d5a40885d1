// `npm run demo:take`: records the verification take (testkit/take.ts) into .artifacts/take/: take.mp4 (Chromium's
// screencast frames encoded by Debian's ffmpeg), steps.tsv and steps.json (each step with its start and end in
// seconds and whether it succeeded) and the key frames; with UPDATE_SCREENSHOTS=1 also copied to
// docs/screenshots/take-*.png (otherwise tracked files are left alone).
// Exits 1 when a step failed or the take ran over five minutes.
import { join } from 'node:path';

import { REPO_ROOT, screenshotDir } from '../testkit/n8n';
import { encodeTake, runTake } from '../testkit/take';

async function main(): Promise<void> {
	const outDir = join(REPO_ROOT, '.artifacts/take');
	const take = await runTake({
		outDir,
		record: true,
		keyFrameDir: process.env.UPDATE_SCREENSHOTS === '1' ? screenshotDir() : undefined,
		dwellMs: 2500,
		log: (line) => console.log(line),
	});
	const video = encodeTake(outDir, take.frames, take.totalSeconds);
	console.log('\nstep\tstart s\tend s\tok');
	for (const s of take.steps)
		console.log(`${s.step}\t${s.start.toFixed(1)}\t${s.end.toFixed(1)}\t${s.ok}`);
	console.log(`\n${take.totalSeconds.toFixed(1)} s, ${take.frames.length} frames: ${video}`);
	console.log(`key frames: ${take.keyFrames.join(', ')}`);
	const failed = take.steps.filter((s) => !s.ok);
	if (failed.length > 0 || take.totalSeconds > 300) {
		console.error(
			`the take is not good: ${failed.map((s) => `${s.step} (${s.detail})`).join('; ') || `${take.totalSeconds.toFixed(0)} s`}`,
		);
		process.exit(1);
	}
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});

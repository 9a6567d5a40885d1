// The verification take (issue 46) without the video: the same steps `npm run demo:take` records, in one real
// n8n 2.41.1 in Chromium against the sandbox; each must succeed and the whole take stay under five minutes.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { runTake } from '../../testkit/take';
import type { TakeResult } from '../../testkit/take';

jest.setTimeout(600000);

describe('the verification take, scripted (npm run demo:take without recording)', () => {
	let take: TakeResult;

	beforeAll(async () => {
		take = await runTake({ outDir: mkdtempSync(join(tmpdir(), 'littlepay-take-')), record: false });
	});

	it('runs every step of the take, each succeeding', () => {
		expect(take.steps.map((s) => [s.step, s.ok, s.ok ? '' : s.detail])).toEqual(
			['install', 'credentials', 'collect', 'trigger', 'refund', 'payout', 'agent'].map((s) => [
				s,
				true,
				'',
			]),
		);
	});

	it('takes less than five minutes, steps in order without overlap', () => {
		expect(take.totalSeconds).toBeLessThan(300);
		take.steps.forEach((s, i) => {
			expect(s.end).toBeGreaterThanOrEqual(s.start);
			if (i > 0) expect(s.start).toBeGreaterThanOrEqual(take.steps[i - 1].end);
		});
	});
});

// Small helpers shared by the benchmark scripts: percentiles and the RESULT line format.

/** The q-quantile (0..1) of a list of numbers, by nearest rank. */
export function percentile(values: number[], q: number): number {
	const sorted = [...values].sort((a, b) => a - b);
	if (sorted.length === 0) return NaN;
	const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
	return sorted[rank];
}

let failures = 0;

/** Prints one `RESULT <name> value=<x> target=<y> ok|FAIL` line and counts failures. */
export function result(name: string, value: number, target: string, ok: boolean, unit = ''): void {
	if (!ok) failures++;
	const shown = Number.isInteger(value) ? String(value) : value.toFixed(3);
	process.stdout.write(
		`RESULT ${name} value=${shown}${unit} target=${target} ${ok ? 'ok' : 'FAIL'}\n`,
	);
}

/** How many RESULT lines said FAIL so far. */
export function failureCount(): number {
	return failures;
}

/** Runs `task` over `inputs` with at most `concurrency` in flight; returns results in input order. */
export async function mapConcurrent<T, R>(
	inputs: T[],
	concurrency: number,
	task: (input: T, index: number) => Promise<R>,
): Promise<R[]> {
	const out = new Array<R>(inputs.length);
	let next = 0;
	const workers = Array.from({ length: Math.min(concurrency, inputs.length) }, async () => {
		while (next < inputs.length) {
			const index = next++;
			out[index] = await task(inputs[index], index);
		}
	});
	await Promise.all(workers);
	return out;
}

/** The sum of a list of numbers. */
export function sum(values: number[]): number {
	return values.reduce((a, b) => a + b, 0);
}

/** Prints a `# ...` comment line (context for the RESULT lines around it). */
export function note(text: string): void {
	process.stdout.write(`# ${text}\n`);
}

/** Waits `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

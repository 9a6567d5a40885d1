/**
 * Runs task over every entry with at most `limit` in flight, in entry order. Once `stopped()` says so,
 * no new entry starts, but those in flight finish (an item that may move money is never cut off).
 */
export async function forEachAtMost<T>(
	entries: T[],
	limit: number,
	task: (entry: T, index: number) => Promise<void>,
	stopped: () => boolean = () => false,
): Promise<void> {
	let next = 0;
	const worker = async () => {
		while (next < entries.length && !stopped()) {
			const index = next++;
			await task(entries[index], index);
		}
	};
	await Promise.all(Array.from({ length: Math.min(limit, entries.length) }, worker));
}

import type { IDataObject } from 'n8n-workflow';

/** How many accepted events one trigger remembers (newest kept), in the process and in static data. */
export const EVENT_MEMORY_LIMIT = 1000;

/** The static data key holding `{ [eventId]: acceptedAtMs }`. */
export const ACCEPTED_EVENTS_KEY = 'acceptedEvents';

/** Accepted events of each trigger (`<workflow id>:<node id>`) in this n8n process: id -> accepted at (ms). */
const processMemories = new Map<string, Map<string, number>>();

function processMemoryOf(triggerId: string): Map<string, number> {
	let memory = processMemories.get(triggerId);
	if (!memory) {
		memory = new Map();
		processMemories.set(triggerId, memory);
	}
	return memory;
}

/** Reads the accepted events kept in a trigger's static data, ignoring anything malformed. */
function storedEvents(staticData: IDataObject): Record<string, number> {
	const stored = staticData[ACCEPTED_EVENTS_KEY];
	if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) return {};
	const out: Record<string, number> = {};
	for (const [id, at] of Object.entries(stored as IDataObject)) {
		if (typeof at === 'number') out[id] = at;
	}
	return out;
}

/** Keeps the newest `limit` entries by accepted time; of equal times, the later in `entries` is newer. */
function newest(entries: Iterable<[string, number]>, limit: number): Array<[string, number]> {
	const all = [...entries];
	if (all.length <= limit) return all;
	return all
		.map((entry, index) => ({ entry, index }))
		.sort((a, b) => b.entry[1] - a.entry[1] || b.index - a.index)
		.slice(0, limit)
		.map(({ entry }) => entry);
}

/**
 * Whether a trigger already accepted `eventId`: in this process, or in the workflow's static data (which
 * n8n loaded from the database for this call, so it holds what other processes and earlier runs saved).
 */
export function alreadyAccepted(
	triggerId: string,
	staticData: IDataObject,
	eventId: string,
): boolean {
	if (processMemoryOf(triggerId).has(eventId)) return true;
	return typeof storedEvents(staticData)[eventId] === 'number';
}

/**
 * Records an accepted event in the process and in static data (n8n saves static data after the call).
 *
 * n8n saves a workflow's static data as one blob without a lock: two processes accepting different events
 * at the same moment each write their own copy, and the last write drops the other's id. So every write
 * carries this process's own recent ids as well as the loaded ones: an id dropped by another process's
 * write comes back with the next event this process accepts. Only called for accepted events: refused,
 * ignored and duplicate calls write nothing (no database write for them).
 */
export function recordAccepted(
	triggerId: string,
	staticData: IDataObject,
	eventId: string,
	now: number,
	limit = EVENT_MEMORY_LIMIT,
): void {
	const memory = processMemoryOf(triggerId);
	memory.set(eventId, now);
	if (memory.size > limit) {
		const kept = new Map(newest(memory, limit));
		memory.clear();
		for (const [id, at] of kept) memory.set(id, at);
	}
	const merged = new Map(Object.entries(storedEvents(staticData)));
	for (const [id, at] of memory) merged.set(id, Math.max(at, merged.get(id) ?? 0));
	staticData[ACCEPTED_EVENTS_KEY] = Object.fromEntries(newest(merged, limit));
}

/** How many accepted events this process remembers for a trigger. */
export function processMemorySize(triggerId: string): number {
	return processMemories.get(triggerId)?.size ?? 0;
}

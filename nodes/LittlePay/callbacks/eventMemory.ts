import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	INodeExecutionData,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { refuseCallback } from './callbackRequest';

/** How many accepted events one trigger remembers (newest kept), in the process and in static data. */
export const EVENT_MEMORY_LIMIT = 1000;

/** The static data key holding `{ [eventId]: acceptedAtMs }`. */
export const ACCEPTED_EVENTS_KEY = 'acceptedEvents';

/**
 * How long an event handed to n8n blocks a second copy in this process when n8n never answers (a
 * request that neither finishes nor closes). Normally n8n's answer settles the event long before.
 */
export const IN_FLIGHT_LIMIT_MS = 120_000;

/** Accepted events of each trigger (`<workflow id>:<node id>`) in this n8n process: id -> accepted at (ms). */
const processMemories = new Map<string, Map<string, number>>();

/** Events of each trigger handed to n8n in this process whose execution is not recorded yet: id -> since (ms). */
const inFlightEvents = new Map<string, Map<string, number>>();

function memoryOf(memories: Map<string, Map<string, number>>, triggerId: string) {
	let memory = memories.get(triggerId);
	if (!memory) {
		memory = new Map();
		memories.set(triggerId, memory);
	}
	return memory;
}

function processMemoryOf(triggerId: string): Map<string, number> {
	return memoryOf(processMemories, triggerId);
}

/**
 * The accepted events object kept in a trigger's static data, as loaded (not copied), or undefined when
 * missing or malformed. Every accepted callback loads, checks and saves it, so it is read and changed in
 * place: copying or rebuilding an object of 1,000 fresh keys per callback cost n8n's main thread several
 * ms and made most of its garbage (issue 32).
 */
function storedEvents(staticData: IDataObject): Record<string, unknown> | undefined {
	const stored = staticData[ACCEPTED_EVENTS_KEY];
	if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) return undefined;
	return stored as Record<string, unknown>;
}

/** The entries of a stored events object whose value is a time (others are malformed and ignored). */
function* timedEntries(stored: Record<string, unknown>): Generator<[string, number]> {
	for (const id in stored) {
		const at = stored[id];
		if (typeof at === 'number') yield [id, at];
	}
}

/**
 * Removes the oldest of `size()` entries (by accepted time; of equal times, the earlier in iteration
 * order) until at most `limit` are left: one pass per removal, normally the one a new event pushed out.
 */
function trimOldest(
	size: () => number,
	entries: () => Iterable<[string, number]>,
	remove: (id: string) => void,
	limit: number,
): void {
	let excess = size() - limit;
	if (excess <= 0) return;
	if (excess > 8) {
		// Many at once (a memory merged with another process's ids): one sort instead of a pass each.
		const dropped = [...entries()]
			.map((entry, index) => ({ entry, index }))
			.sort((a, b) => a.entry[1] - b.entry[1] || a.index - b.index)
			.slice(0, excess);
		for (const { entry } of dropped) remove(entry[0]);
		return;
	}
	while (excess-- > 0) {
		let oldest: string | undefined;
		let oldestAt = Infinity;
		for (const [id, at] of entries()) {
			if (at < oldestAt) {
				oldestAt = at;
				oldest = id;
			}
		}
		if (oldest === undefined) return;
		remove(oldest);
	}
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
	return typeof storedEvents(staticData)?.[eventId] === 'number';
}

/** What the trigger does with a verified event: run it, answer that it already ran, or ask for it later. */
export type Admission = 'admitted' | 'duplicate' | 'in-flight';

/**
 * Decides about a verified event in one synchronous step, so two copies arriving together in this
 * process cannot both run. An admitted event is only in flight: it counts as seen once n8n has
 * recorded its execution (settleEvent), never before, so a copy delivered after n8n failed to record
 * the first runs. A copy arriving while the first is in flight gets a retryable answer instead.
 */
export function admitEvent(
	triggerId: string,
	staticData: IDataObject,
	eventId: string,
	now: number,
): Admission {
	if (alreadyAccepted(triggerId, staticData, eventId)) return 'duplicate';
	const inFlight = memoryOf(inFlightEvents, triggerId);
	const since = inFlight.get(eventId);
	if (since !== undefined && now - since < IN_FLIGHT_LIMIT_MS) return 'in-flight';
	inFlight.set(eventId, now);
	return 'admitted';
}

/**
 * Ends an admission when n8n has answered the gateway: a 2xx (sent only after n8n recorded the
 * execution) makes the event seen in this process; anything else forgets it, so the redelivery runs.
 */
export function settleEvent(
	triggerId: string,
	eventId: string,
	recorded: boolean,
	now: number,
): void {
	memoryOf(inFlightEvents, triggerId).delete(eventId);
	if (recorded) rememberInProcess(triggerId, eventId, now);
}

/** Remembers an accepted event in this process, keeping the newest `limit`. */
function rememberInProcess(
	triggerId: string,
	eventId: string,
	now: number,
	limit = EVENT_MEMORY_LIMIT,
): Map<string, number> {
	const memory = processMemoryOf(triggerId);
	memory.set(eventId, Math.max(now, memory.get(eventId) ?? 0));
	trimOldest(
		() => memory.size,
		() => memory.entries(),
		(id) => memory.delete(id),
		limit,
	);
	return memory;
}

/**
 * Records an accepted event in the process and in static data. Called from the trigger's own
 * execution, which n8n runs only once it has recorded it, and whose changed static data n8n saves
 * when the execution finishes (by the worker in queue mode).
 *
 * n8n saves a workflow's static data as one blob without a lock: two processes accepting different events
 * at the same moment each write their own copy, and the last write drops the other's id. So every write
 * carries this process's own recent ids as well as the loaded ones: an id dropped by another process's
 * write comes back with the next event this process records. Refused, ignored and duplicate calls
 * start no execution and so write nothing.
 */
export function recordAccepted(
	triggerId: string,
	staticData: IDataObject,
	eventId: string,
	now: number,
	limit = EVENT_MEMORY_LIMIT,
): void {
	const memory = rememberInProcess(triggerId, eventId, now, limit);
	if (storedEvents(staticData) === undefined) staticData[ACCEPTED_EVENTS_KEY] = {};
	const stored = storedEvents(staticData)!;
	// Changed in place (n8n's change-tracking proxy around loaded static data marks the blob changed): the
	// ids this process has and the blob lacks or has older, normally just `eventId`, are written; then the
	// oldest beyond the limit are deleted.
	let size = 0;
	for (const id in stored) {
		if (typeof stored[id] === 'number') size++;
		else delete stored[id];
	}
	for (const [id, at] of memory) {
		const had = stored[id];
		if (typeof had === 'number' && had >= at) continue;
		if (typeof had !== 'number') size++;
		stored[id] = at;
	}
	trimOldest(
		() => size,
		() => timedEntries(stored),
		(id) => {
			delete stored[id];
			size--;
		},
		limit,
	);
}

/** How many accepted events this process remembers for a trigger. */
export function processMemorySize(triggerId: string): number {
	return processMemories.get(triggerId)?.size ?? 0;
}

/** Which trigger a call is for: one memory of accepted events per workflow and node. */
export function triggerIdOf(
	context: IHookFunctions | IWebhookFunctions | IExecuteFunctions,
): string {
	return `${context.getWorkflow().id ?? ''}:${context.getNode().id}`;
}

/** Seconds a gateway is asked to wait before delivering again a copy of an event still in flight. */
export const IN_FLIGHT_RETRY_AFTER_SECONDS = 5;

/**
 * Settles an admitted event when n8n has answered the gateway. n8n 2.x answers an accepted callback
 * only after WorkflowRunner.run has recorded the execution (or queued it) and answers 5xx when that
 * fails; a request closed without an answer counts as not recorded, so a redelivery runs.
 */
export function settleOnAnswer(
	context: IWebhookFunctions,
	triggerId: string,
	eventId: string,
): void {
	const res = context.getResponseObject();
	let settled = false;
	const settle = (recorded: boolean) => {
		if (settled) return;
		settled = true;
		settleEvent(triggerId, eventId, recorded, Date.now());
	};
	res.once('finish', () => settle(res.statusCode >= 200 && res.statusCode < 300));
	res.once('close', () => settle(false));
}

/**
 * Records the accepted events of the trigger's own execution (n8n runs it only once it has recorded
 * it): each item's `eventId` goes into the process memory and into static data (recordAccepted).
 */
export function recordAcceptedItems(context: IExecuteFunctions, items: INodeExecutionData[]): void {
	const triggerId = triggerIdOf(context);
	const staticData = context.getWorkflowStaticData('node');
	for (const item of items) {
		const eventId = item.json.eventId;
		if (typeof eventId === 'string') recordAccepted(triggerId, staticData, eventId, Date.now());
	}
}

/**
 * Admits an accepted event once (admitEvent) and settles it when n8n answers: undefined once it may
 * run, or the answer for a copy already accepted (2xx) or still in flight (503, delivered again later).
 */
export function admitOnce(
	context: IWebhookFunctions,
	triggerId: string,
	eventId: string,
): IWebhookResponseData | undefined {
	const staticData = context.getWorkflowStaticData('node');
	const admission = admitEvent(triggerId, staticData, eventId, Date.now());
	if (admission === 'duplicate')
		return { webhookResponse: { received: true, duplicate: true, eventId } };
	if (admission === 'in-flight')
		return refuseCallback(context, 503, 'in-flight', IN_FLIGHT_RETRY_AFTER_SECONDS);
	settleOnAnswer(context, triggerId, eventId);
	return undefined;
}

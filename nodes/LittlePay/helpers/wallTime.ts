/** Year-month-day, optionally a time, optionally Z or an offset: the only dates read without guessing. */
const ISO_MOMENT =
	/^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i;

/** How far a time zone's wall clock is ahead of UTC at a moment, in milliseconds. */
function zoneOffsetMs(utcMs: number, timeZone: string): number {
	const parts = new Intl.DateTimeFormat('en-US', {
		timeZone,
		hourCycle: 'h23',
		year: 'numeric',
		month: '2-digit',
		day: '2-digit',
		hour: '2-digit',
		minute: '2-digit',
		second: '2-digit',
	}).formatToParts(new Date(utcMs));
	const part = (type: string) => Number(parts.find((p) => p.type === type)?.value);
	const wall = Date.UTC(
		part('year'),
		part('month') - 1,
		part('day'),
		part('hour'),
		part('minute'),
		part('second'),
	);
	return wall - Math.floor(utcMs / 1000) * 1000;
}

/**
 * The moment (UNIX milliseconds) a date written in a time zone names, or NaN when the text is not a
 * year-month-day date (01/12/2026 is 1 December or 12 January: never guessed), names no real day or
 * time, or the zone is unknown. A date without Z or an offset is a wall time in `timeZone()` (asked
 * only then).
 */
export function momentIn(text: string, timeZone: () => string): number {
	const m = ISO_MOMENT.exec(text.trim());
	if (!m) return NaN;
	const [year, month, day, hour, minute, second] = m.slice(1, 7).map((v) => Number(v ?? 0));
	const ms = Number((m[7] ?? '0').padEnd(3, '0').slice(0, 3));
	const wall = Date.UTC(year, month - 1, day, hour, minute, second, ms);
	const back = new Date(wall);
	// 2026-02-30 or 25:00 roll over into another day: not the date the merchant meant.
	if (back.getUTCMonth() !== month - 1 || back.getUTCDate() !== day) return NaN;
	if (hour > 23 || minute > 59 || second > 59) return NaN;
	const zone = m[8];
	if (zone !== undefined) {
		if (zone.toUpperCase() === 'Z') return wall;
		const digits = zone.replace(':', '');
		const offset = (Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5))) * 60_000;
		return digits[0] === '+' ? wall - offset : wall + offset;
	}
	try {
		const zoneName = timeZone();
		const first = wall - zoneOffsetMs(wall, zoneName);
		// Across a daylight-saving change the offset at the moment itself is the one that counts.
		return wall - zoneOffsetMs(first, zoneName);
	} catch {
		return NaN;
	}
}

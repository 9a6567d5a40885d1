// Accept Previous Key Until as a moment: a wall time in the workflow's zone, never a guessed format.
import { momentIn } from '../../nodes/LittlePay/helpers/wallTime';

const zone = (name: string) => () => name;

describe('momentIn', () => {
	it("reads a wall time in the given zone, across daylight-saving changes, and not in the process's", () => {
		expect(new Date(momentIn('2026-12-01T00:00:00', zone('Africa/Nairobi'))).toISOString()).toBe(
			'2026-11-30T21:00:00.000Z',
		);
		expect(new Date(momentIn('2026-03-08T03:30', zone('America/New_York'))).toISOString()).toBe(
			'2026-03-08T07:30:00.000Z',
		);
		expect(new Date(momentIn('2026-11-01 12:00', zone('America/New_York'))).toISOString()).toBe(
			'2026-11-01T17:00:00.000Z',
		);
		expect(new Date(momentIn('2026-12-01', zone('UTC'))).toISOString()).toBe(
			'2026-12-01T00:00:00.000Z',
		);
	});

	it('takes Z and offsets as written, without asking for the zone', () => {
		const never = () => {
			throw new Error('the zone was asked');
		};
		expect(momentIn('2026-12-01T00:00:00Z', never)).toBe(Date.parse('2026-12-01T00:00:00Z'));
		expect(momentIn('2026-12-01T00:00:00.000+03:00', never)).toBe(
			Date.parse('2026-11-30T21:00:00Z'),
		);
		expect(momentIn('2026-12-01T00:00-0500', never)).toBe(Date.parse('2026-12-01T05:00:00Z'));
	});

	it.each([
		'01/12/2026',
		'1.12.2026',
		'Dec 1 2026',
		'2026-13-01',
		'2026-02-29',
		'2026-12-01T24:00',
		'2026-12-01T10:75',
		'',
	])('reads %p as nothing (NaN)', (text) => {
		expect(momentIn(text, zone('UTC'))).toBeNaN();
	});

	it('reads nothing in a zone n8n does not know', () => {
		expect(momentIn('2026-12-01T00:00', zone('Mars/Olympus'))).toBeNaN();
	});
});

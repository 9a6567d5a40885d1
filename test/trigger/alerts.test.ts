// Alerts on refused callbacks, alone: one per trigger and reason per window, counting the refusals
// in between, with the likely cause and nothing of the stranger's body but a reference-shaped value.
import { ALERT_WINDOW_MS, alertDue, refusedAlert } from '../../nodes/LittlePay/callbacks/alerts';

describe('alertDue', () => {
	it('raises the first refusal of a reason, holds the rest of its window, and counts them into the next alert', () => {
		const t0 = 1_800_000_000_000;
		expect(alertDue('wf:a', 'bad-signature', t0)).toEqual({ refused: 1, since: t0 });
		for (let i = 1; i <= 499; i++)
			expect(alertDue('wf:a', 'bad-signature', t0 + i)).toBeUndefined();
		// Another reason, or another trigger, has its own window.
		expect(alertDue('wf:a', 'missing-signature', t0 + 10)).toEqual({ refused: 1, since: t0 + 10 });
		expect(alertDue('wf:b', 'bad-signature', t0 + 10)).toEqual({ refused: 1, since: t0 + 10 });
		const next = t0 + ALERT_WINDOW_MS;
		expect(alertDue('wf:a', 'bad-signature', next)).toEqual({ refused: 500, since: t0 });
	});
});

describe('refusedAlert', () => {
	it('names the cause and the fix, marks the reference unverified, and keeps nothing else of the body', () => {
		const alert = refusedAlert(
			'bad-signature',
			{ refused: 3, since: 0 },
			1000,
			{
				reference: 'abc-123',
				status: 'COMPLETED',
				payload: { billingAddress: { email: 'x@y.z' } },
			},
			true,
		);
		expect(alert).toMatchObject({
			refused: true,
			reason: 'bad-signature',
			likelyCause: expect.stringMatching(/public key looks rotated or wrong/),
			fix: expect.stringMatching(/Options > Public Key/),
			refusedSinceLastAlert: 3,
			unverified: { reference: 'abc-123', status: 'COMPLETED' },
		});
		expect(JSON.stringify(alert)).not.toContain('x@y.z');
		const junk = refusedAlert('missing-signature', { refused: 1, since: 0 }, 0, {
			reference: '<script>alert(1)</script>',
		});
		expect(junk.unverified).toEqual({ reference: null, status: null });
		expect(junk.likelyCause).toMatch(/unsigned/i);
	});
});

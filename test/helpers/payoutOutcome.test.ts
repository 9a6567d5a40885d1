// The payout vocabulary: what a gateway status means for the outcome a workflow branches on.
import {
	isUnsettled,
	outcomeOfCreation,
	outcomeOfRecord,
	payoutItem,
	updatePayoutItem,
} from '../../nodes/LittlePay/helpers/payoutOutcome';

describe('payout outcome', () => {
	it('a creation answer of "success" is accepted, never completed; only an explicit failure is final', () => {
		expect(outcomeOfCreation('success')).toBe('accepted');
		expect(outcomeOfCreation('PENDING')).toBe('accepted');
		expect(outcomeOfCreation(undefined)).toBe('accepted');
		expect(outcomeOfCreation('FAILED')).toBe('failed');
	});

	it('a status record maps success words to completed, failure words to failed, and anything unknown to pending', () => {
		for (const s of ['success', 'SUCCESS', ' Completed ', 'paid', 'successful'])
			expect(outcomeOfRecord(s)).toBe('completed');
		for (const s of ['failed', 'FAILED', 'rejected', 'reversed', 'cancelled'])
			expect(outcomeOfRecord(s)).toBe('failed');
		for (const s of ['pending', 'processing', 'queued', '', null, undefined, 42])
			expect(outcomeOfRecord(s)).toBe('pending');
		expect(isUnsettled('accepted')).toBe(true);
		expect(isUnsettled('pending')).toBe(true);
		expect(isUnsettled('completed')).toBe(false);
		expect(isUnsettled('failed')).toBe(false);
	});

	it('builds one item: reason only when failed (record message, else the latest attempt, else a default), settledAt only when final, what was sent wins', () => {
		const record = {
			id: 'dsb_1',
			key: 'po1',
			status: 'failed',
			message: 'Wallet limit reached',
			amount: '500',
			charges: 7,
			currency: 'KES',
			method: 'MPESA',
			to: '254712345671',
			settledAt: '2026-01-01T00:00:00.000Z',
		};
		expect(payoutItem(record, 'failed')).toEqual({
			id: 'dsb_1',
			key: 'po1',
			outcome: 'failed',
			reason: 'Wallet limit reached',
			failureCode: 'recipient-limit',
			retry: 'new-attempt',
			// Paying again goes through Pay Again If Failed, never a key made up by hand.
			nextStep: expect.stringMatching(
				/^Nothing was paid: the recipient's wallet refused the amount\. Pay less or later: run the same rows again with Options > Pay Again If Failed/,
			),
			amount: 500,
			currency: 'KES',
			fee: 7,
			method: 'MPESA',
			to: '254712345671',
			settledAt: '2026-01-01T00:00:00.000Z',
			gatewayStatus: 'failed',
			message: 'Wallet limit reached',
		});
		expect(
			payoutItem(
				{ status: 'failed', attempts: [{ status: 'failed', message: 'Not registered' }] },
				'failed',
			).reason,
		).toBe('Not registered');
		expect(payoutItem({ status: 'failed' }, 'failed').reason).toBe(
			'Little Pay reported the payout as failed without a reason',
		);
		// A failure the node has no code for still did not pay: a new attempt, not "it may have happened".
		expect(payoutItem({ status: 'failed', message: 'Switch said no' }, 'failed')).toMatchObject({
			failureCode: 'unknown',
			retry: 'new-attempt',
			nextStep: expect.stringMatching(
				/^Nothing was paid: read the reason, correct the row if it needs it, then run the same rows again with Options > Pay Again If Failed/,
			),
		});
		expect(payoutItem({ ...record, status: 'pending' }, 'pending')).toMatchObject({
			reason: null,
			settledAt: null,
		});
		expect(payoutItem(record, 'failed', { amount: 499, fee: 9 })).toMatchObject({
			amount: 499,
			fee: 9,
		});
	});

	it('an item updated from a newer record keeps its id, key and quoted fee', () => {
		const item = payoutItem({ id: 'dsb_2', status: 'success', message: 'accepted' }, 'accepted', {
			key: 'po2',
			amount: 100,
			currency: 'KES',
			method: 'MPESA',
			to: '254712345670',
			fee: 0,
		});
		updatePayoutItem(item, {
			status: 'success',
			message: 'Disbursement completed',
			settledAt: '2026-01-01T00:00:02.000Z',
			charges: 5,
		});
		expect(item).toEqual({
			id: 'dsb_2',
			key: 'po2',
			outcome: 'completed',
			reason: null,
			amount: 100,
			currency: 'KES',
			fee: 0,
			method: 'MPESA',
			to: '254712345670',
			settledAt: '2026-01-01T00:00:02.000Z',
			gatewayStatus: 'success',
			message: 'Disbursement completed',
		});
	});
});

// sameNumber: whether a reconciled payout went to the row's own payee, even when Little Pay shows the
// number masked or the merchant's record holds it in national form.
import { sameNumber } from '../../nodes/LittlePay/helpers/validation';

describe('sameNumber', () => {
	it.each([
		['254712345670', '254712345670', true],
		['+254 712 345 670', '254712345670', true],
		['0712345670', '254712345670', true],
		['2547•••••670', '254712345670', true],
		['07XX XXX 670', '254712345670', true],
		['254712345670', '254712345674', false],
		['2547•••••670', '254712345674', false],
		['0712345674', '254712345670', false],
		['712345670', '254712345670', false],
		['255712345670', '254712345670', false],
	])('%s and %s: %s', (a, b, same) => {
		expect(sameNumber(a, b)).toBe(same);
		expect(sameNumber(b, a)).toBe(same);
	});
});

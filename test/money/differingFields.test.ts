// The payout duplicate check compares an existing record under the key with the request: a record in
// which Little Pay masks the payee's number is the same payout when the visible digits agree.
import { differingFields } from '../../nodes/LittlePay/money/once';

const request = { amount: 500, method: 'MPESA', currency: 'KES', to: '254712345670' };

describe('differingFields with a masked record', () => {
	it('a masked number whose visible digits agree is no difference', () => {
		expect(differingFields(request, { ...request, to: '2547•••••670' })).toEqual([]);
		expect(differingFields(request, { ...request, to: '+254712345670' })).toEqual([]);
	});
	it('another number, masked or not, still fails the item naming the field', () => {
		expect(differingFields(request, { ...request, to: '2547•••••671' })).toEqual([
			'to 2547•••••671 there, 254712345670 here',
		]);
		expect(differingFields(request, { ...request, amount: 700, to: '2547•••••670' })).toEqual([
			'amount 700 there, 500 here',
		]);
	});
});

// The payout duplicate check compares an existing record under the key with the request. A record in
// which Little Pay masks the payee's number proves nothing about the wallet: its visible digits agreeing
// is not taken as the same payout (a masked digit is never a wildcard), so the item is refused, not
// reported as this row's payout.
import { differingFields } from '../../nodes/LittlePay/money/once';

const request = { amount: 500, method: 'MPESA', currency: 'KES', to: '254712345670' };

describe('differingFields with a masked record', () => {
	it('the same number written another way is no difference', () => {
		expect(differingFields(request, { ...request, to: '+254712345670' })).toEqual([]);
		expect(differingFields(request, { ...request, to: '+254 712 345 670' })).toEqual([]);
	});
	it('a masked number is a difference even when its visible digits agree: it could be another wallet', () => {
		expect(differingFields(request, { ...request, to: '2547•••••670' })).toEqual([
			'to 2547•••••670 there, 254712345670 here',
		]);
		expect(differingFields(request, { ...request, to: '••••••••••••' })).toEqual([
			'to •••••••••••• there, 254712345670 here',
		]);
	});
	it('another number, masked or not, or in another country, fails the item naming the field', () => {
		expect(differingFields(request, { ...request, to: '2547•••••671' })).toEqual([
			'to 2547•••••671 there, 254712345670 here',
		]);
		expect(differingFields(request, { ...request, to: '255712345670' })).toEqual([
			'to 255712345670 there, 254712345670 here',
		]);
		expect(differingFields(request, { ...request, to: '0712345670' })).toEqual([
			'to 0712345670 there, 254712345670 here',
		]);
		expect(differingFields(request, { ...request, to: '0' })).toEqual([
			'to 0 there, 254712345670 here',
		]);
		expect(differingFields(request, { ...request, amount: 700 })).toEqual([
			'amount 700 there, 500 here',
		]);
	});
});

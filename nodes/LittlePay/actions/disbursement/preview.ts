import { NodeOperationError } from 'n8n-workflow';
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { expectSuccess, readLittlePay } from '../../transport';
import { payoutRecordRequest } from '../../transport/gateway';
import { getChargesForRun, limitRefusal, quoteFromCharges } from './charges';
import { readPayoutRequest } from './fields';
import type { PayoutRequest } from './fields';
import { differingFields } from '../../money/once';
import { keyIsGenerated, mappedKey } from '../../money/keys';
import { nodeError } from '../../errors';
import type { Item } from '../../item';

function withoutItemPrefix(message: string): string {
	return message.replace(/^Item \d+: /, '');
}

/**
 * Checks one row of a payout run as Create would before sending, and sends nothing: number,
 * amount, currency and key; the network's limits and the fee from the charges table; and, for a
 * key from the data, whether Little Pay already has a payout under it (a read). A row that would
 * be refused comes out with `valid: false` and the reason instead of failing.
 */
export async function checkPayoutRow(item: Item): Promise<IDataObject> {
	const { context, index: itemIndex } = item;
	// Until a field is valid, the row shows it as given, so a refused row can be found.
	const given = (name: string, fallback: string | null = null) =>
		item.param<IDataObject[string]>(name, fallback);
	const row: IDataObject = {
		checkOnly: true,
		valid: false,
		reason: null,
		key: null,
		amount: given('amount'),
		currency: given('currency', 'KES'),
		fee: null,
		method: given('method'),
		to: given('to'),
	};
	const refused = (reason: string): IDataObject => ({ ...row, valid: false, reason });
	let request: PayoutRequest;
	try {
		request = readPayoutRequest(item);
		if (!keyIsGenerated(item)) row.key = mappedKey(item);
	} catch (error) {
		// Bad input is what a dry run reports; anything else (the gateway) is an error as usual.
		if (error instanceof NodeOperationError) return refused(withoutItemPrefix(error.message));
		throw nodeError(context.getNode(), error as Error, { itemIndex });
	}
	Object.assign(row, request);
	const quote = quoteFromCharges(
		await getChargesForRun(context, itemIndex),
		request.method,
		request.amount,
	);
	if (!quote) return refused(`Network ${request.method} is not in Little Pay's charges table`);
	row.fee = quote.fee;
	const refusal = limitRefusal(request.method, request.amount, quote);
	if (refusal) return refused(`Amount ${refusal}`);
	if (typeof row.key === 'string') {
		const found = await readLittlePay(context, payoutRecordRequest(itemIndex, row.key));
		if (found.statusCode !== 404) {
			const record = expectSuccess(context, found, itemIndex);
			const { amount, method, currency, to } = request;
			const differences = differingFields({ amount, method, currency, to }, record);
			if (differences.length > 0) {
				return refused(
					`Key "${row.key}" already belongs to a different payout (${differences.join('; ')})`,
				);
			}
			// Paying this row would find that payout, not pay again.
			row.alreadyExisted = true;
		}
	}
	row.valid = true;
	return row;
}

function round2(n: number): number {
	return Math.round(n * 100) / 100;
}

/**
 * The one summary item of a dry run: how many rows would be paid now, their total amount and fees
 * (per currency, and overall when there is one), rows whose key Little Pay already has, and every
 * row that would be refused with the reason. A key used by two rows refuses the later ones, since
 * only the first would be paid. Paired with every input item.
 */
export function previewSummary(results: Array<IDataObject | undefined>): INodeExecutionData {
	const firstRowOfKey = new Map<string, number>();
	results.forEach((row, itemIndex) => {
		if (!row?.valid || typeof row.key !== 'string') return;
		const first = firstRowOfKey.get(row.key);
		if (first === undefined) firstRowOfKey.set(row.key, itemIndex);
		else {
			row.valid = false;
			row.reason = `Key "${row.key}" is also the key of item ${first}: Little Pay keeps one payout per key, so only the first would be paid`;
		}
	});
	const byCurrency: Record<string, { count: number; amount: number; fees: number }> = {};
	const refusedRows: IDataObject[] = [];
	let alreadyExisted = 0;
	let errors = 0;
	results.forEach((row, itemIndex) => {
		if (!row) {
			errors++;
			return;
		}
		if (!row.valid) {
			refusedRows.push({
				item: itemIndex,
				key: row.key,
				amount: row.amount,
				to: row.to,
				reason: row.reason,
			});
			return;
		}
		if (row.alreadyExisted) {
			alreadyExisted++;
			return;
		}
		const currency = String(row.currency);
		const totals = (byCurrency[currency] ??= { count: 0, amount: 0, fees: 0 });
		totals.count++;
		totals.amount = round2(totals.amount + Number(row.amount));
		totals.fees = round2(totals.fees + (typeof row.fee === 'number' ? row.fee : 0));
	});
	const currencies = Object.keys(byCurrency);
	const single = currencies.length === 1 ? byCurrency[currencies[0]] : undefined;
	return {
		json: {
			checkOnly: true,
			summary: true,
			rows: results.length,
			count: currencies.reduce((n, c) => n + byCurrency[c].count, 0),
			currency: single ? currencies[0] : null,
			totalAmount: single ? single.amount : currencies.length === 0 ? 0 : null,
			totalFees: single ? single.fees : currencies.length === 0 ? 0 : null,
			byCurrency,
			alreadyExisted,
			refused: refusedRows.length,
			refusedRows,
			errors,
		},
		pairedItem: results.map((_, item) => ({ item })),
	};
}

import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { outcomeOfRecord, PAY_AGAIN_STEP, payoutItem } from '../../helpers/payoutOutcome';
import { getPayoutRecord } from '../../transport/gateway';
import {
	expectedFields,
	NETWORK_OPTIONS,
	optionsCollection,
	readExpected,
	showFor,
} from '../common';
import type { OperationMeta, RowKey, RunEnd } from '../common';
import { sweepConcurrency, sweepEnd, sweepOptions, sweepRow } from '../sweep';
import { latestAttempt } from './attempts';
import { payoutIdField, readPayoutId } from './fields';
import type { Item } from '../../item';
import { differingFields } from '../../money/once';
import { COUNTRIES, countryOfCallingCode } from '../../helpers/lists';
import { contactHash } from '../../helpers/payerData';
import { compareNumbers, NETWORK_COUNTRY_CODES } from '../../helpers/validation';
import type { MobileNetwork, NumberMatch } from '../../helpers/validation';
import { payerSettings } from '../../transport';

const rowKey: RowKey = { parameter: 'disbursementId', field: 'key' };

const CONCURRENCY = sweepConcurrency('payouts');

/** What the registry knows of this operation (actions/registry.ts). */
export const meta: OperationMeta = {
	concurrency: CONCURRENCY,
	subtitle: 'Reconcile · Payout',
	rowKey,
};

export const description: INodeProperties[] = showFor('disbursement', 'reconcile', [
	{
		...payoutIdField,
		hint: 'One item per payout your records still show open, e.g. {{ $json.key }} of a Data Table row. Act on outcome: completed (paid, fee known), failed (nobody was paid), pending (leave open), mismatch (not this row’s payout), unverified (the number could not be checked: see nextStep), not-found (check the key)',
	},
	...expectedFields('payout'),
	{
		displayName: 'Expected Network',
		name: 'expectedMethod',
		type: 'options',
		options: [{ name: "Don't Check", value: '' }, ...NETWORK_OPTIONS],
		default: '',
		description:
			'The network your record says the payout went to; another network comes out as mismatch',
	},
	{
		displayName: 'Expected Destination Number',
		name: 'expectedTo',
		type: 'string',
		default: '',
		placeholder: 'e.g. {{ $json.phone }}',
		description:
			'The number your record says was paid, with its country code; another number comes out as mismatch. A masked number (2547•••••670), or a national one (0712...) with no Expected Currency to read it in, comes out as unverified, never completed, unless Expected Contact Hash proves it.',
	},
	{
		displayName: 'Expected Contact Hash',
		name: 'expectedContactHash',
		type: 'string',
		default: '',
		placeholder: 'e.g. {{ $json.contactHash }}',
		description:
			"The contactHash your record kept of the payee (Pay Out's output, with the credential's Matching Secret): checks the number in full when your record holds it masked",
	},
	optionsCollection(sweepOptions('payouts', CONCURRENCY)),
]);

/** What a payout record shows against the merchant's row: what differs, and what could not be compared. */
interface Checked {
	differences: string[];
	unverified: string[];
}

/**
 * The country a national expected number is read in: the Expected Currency's (KES: Kenya), else the
 * Expected Network's when it serves one country. Never the record's own: it is what is being checked.
 */
function countryOfRow(expected: IDataObject, method: string): string | undefined {
	const currency = typeof expected.currency === 'string' ? expected.currency : '';
	const byCurrency = COUNTRIES.find((country) => country.currency === currency);
	if (byCurrency) return byCurrency.code;
	const codes = NETWORK_COUNTRY_CODES[method as MobileNetwork];
	return codes?.length === 1 ? countryOfCallingCode(codes[0])?.code : undefined;
}

/** Where Little Pay's record of a payout differs from what the merchant's row expects, and what it could not check. */
async function checkAgainstRow(item: Item, record: IDataObject): Promise<Checked> {
	const expected = readExpected(item);
	const method = item.param<string>('expectedMethod', '');
	if (method !== '') expected.method = method;
	const to = String(item.param('expectedTo', '') ?? '').trim();
	const hash = String(item.param('expectedContactHash', '') ?? '')
		.trim()
		.toLowerCase();
	const differences = differingFields(expected, record);
	const unverified: string[] = [];
	const theirs = textOf(record.to ?? (record.details as IDataObject | undefined)?.to);
	if (to === '' && hash === '') return { differences, unverified };
	if (theirs === '') {
		unverified.push('the record shows no number, so the destination could not be compared');
		return { differences, unverified };
	}
	const match: NumberMatch =
		to === ''
			? { verdict: 'unverified', reason: '' }
			: compareNumbers(to, theirs, countryOfRow(expected, method));
	if (match.verdict === 'different') differences.push(`number ${theirs} there, ${to} here`);
	if (match.verdict !== 'unverified') return { differences, unverified };
	// Only a keyed hash of the full number tells a masked one apart: visible digits never do.
	const secret = hash === '' ? '' : (await payerSettings(item.context, item.index)).secret;
	if (hash !== '' && secret !== '' && /^\d{9,15}$/.test(theirs.replace(/^\+/, ''))) {
		if (contactHash(theirs, secret) !== hash)
			differences.push(
				`number ${theirs} there, another here (Expected Contact Hash does not match)`,
			);
		return { differences, unverified };
	}
	if (match.reason !== '') unverified.push(match.reason);
	if (hash !== '' && secret === '')
		unverified.push(
			"Expected Contact Hash is given, but the API key credential holds no Matching Secret to hash the record's number with",
		);
	else if (hash !== '')
		unverified.push("the record's number is masked, so Expected Contact Hash could not be checked");
	else unverified.push("map Expected Contact Hash (your record's contactHash) to check it in full");
	return { differences, unverified };
}

function textOf(value: unknown): string {
	return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
}

const NEXT_STEP = {
	completed: 'Paid: record the payout COMPLETED with its fee and settledAt',
	failed: `Nobody was paid: record it FAILED; if it still stands, ${PAY_AGAIN_STEP}`,
	pending: 'Not settled yet: leave your record open; the next sweep will say',
};

/**
 * Looks one payout up by its key or id and says where it stands, for payout runs whose result came
 * after the run ended: a sweep reads, it never pays out. A failed payout is followed to its Pay Again
 * attempts (`<key>r2` ...), as Pay Out pays them, so the row is reported by its latest attempt and the
 * books keep the row's own key. One row out per row in.
 */
export async function execute(this: IExecuteFunctions, item: Item): Promise<IDataObject> {
	return await sweepRow(this, item.index, rowKey, async () => {
		const idOrKey = readPayoutId(item);
		const first = await getPayoutRecord(this, item.index, idOrKey);
		const expected = readExpected(item);
		const ownKey = typeof first.key === 'string' && first.key !== '' ? first.key : idOrKey;
		const { record, attempt, failedBefore } = await latestAttempt(item, ownKey, first, {
			...(expected.amount !== undefined ? { amount: expected.amount } : {}),
			...(expected.currency !== undefined ? { currency: expected.currency } : {}),
		});
		const outcome = outcomeOfRecord(record.status);
		const { differences, unverified } = await checkAgainstRow(item, record);
		return {
			outcome,
			differences,
			unverified,
			unverifiedStep:
				"Not proven this row's payout: do not mark the row paid until you have checked the number it went to (Little Pay's dashboard)",
			mismatchStep:
				"Not this row's payout, whatever its status: do not mark the row paid, and pay nobody for it until you know whose payout this is; check its key (an ID copied from another row?)",
			nextStep: NEXT_STEP[outcome],
			fields: {
				kind: 'payout',
				...payoutItem(record, outcome),
				...(attempt > 1 ? { attempt, failedBefore } : {}),
				checkedAt: new Date().toISOString(),
			},
		};
	});
}

/** Once every row is looked up: the counts first, above the output and on the optional Summary output. */
export async function afterItems(
	this: IExecuteFunctions,
	results: Array<IDataObject | undefined>,
	failures: Array<IDataObject | undefined>,
): Promise<RunEnd> {
	return await Promise.resolve(sweepEnd(this, rowKey, 'payouts', results, failures));
}

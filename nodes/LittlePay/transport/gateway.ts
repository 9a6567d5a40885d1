import type { IDataObject, IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';

import { notARecordError, statusCheckError } from '../errors';
import { namesOneRecord } from '../helpers/validation';
import {
	expectSuccess,
	paymentStatusPath,
	readFromWebhook,
	readLittlePay,
	recordSegment,
} from './index';
import { isNotARecord, readPaymentRecord, readPayoutRecord } from './records';
import type { NotARecord, PaymentRecord } from './records';
import type { LittlePayRequest, LittlePayResponse } from './index';

// Little Pay's paths, each spelled once: every request the package sends is addressed here.

/** Creating a payment intent, under the merchant's token ID (Basic authentication). */
export function createIntentPath(tokenId: string): string {
	return `/api/payments/${encodeURIComponent(tokenId)}/pay`;
}

/** Charging a payer on an intent: a mobile money prompt or a card payment. */
export function processPaymentPath(reference: string): string {
	return `/pay/${recordSegment(reference)}/process`;
}

/** A card's device data collection token for an intent. */
export function cardTokenPath(reference: string): string {
	return `/pay/${recordSegment(reference)}/cspaToken`;
}

/** A card's 3-D Secure enrolment check for an intent. */
export function enrolmentPath(reference: string): string {
	return `/pay/${recordSegment(reference)}/enroll`;
}

/** Refunding a payment. */
export function refundPath(paymentId: string): string {
	return `/api/refund/${recordSegment(paymentId)}`;
}

/** Little Pay's disbursement (payout) path: by id or key, or without one the create path. */
export function payoutPath(idOrKey?: string): string {
	return idOrKey === undefined
		? '/api/disbursements'
		: `/api/disbursements/${recordSegment(idOrKey)}`;
}

/** The read of one payout record by id or key, as the money rules, the dry run and the waits send it. */
export function payoutRecordRequest(itemIndex: number, idOrKey: string): LittlePayRequest {
	return {
		credential: 'littlePayApiKeyApi',
		method: 'GET',
		path: payoutPath(idOrKey),
		disbursement: true,
		itemIndex,
	};
}

/** Reads one payout's status record by its ID or key (a read: retried on 429, 5xx and lost answers). */
export async function getPayoutRecord(
	context: IExecuteFunctions,
	itemIndex: number,
	idOrKey: string,
): Promise<IDataObject> {
	const response = await readLittlePay(context, payoutRecordRequest(itemIndex, idOrKey));
	return provenPayout(context, response, itemIndex, idOrKey);
}

/** A payout answer's record, read fail-closed: one that does not prove this payout fails the item. */
function provenPayout(
	context: IExecuteFunctions,
	response: LittlePayResponse,
	itemIndex: number,
	idOrKey: string,
): IDataObject {
	const record = readPayoutRecord(expectSuccess(context, response, itemIndex), idOrKey);
	if (isNotARecord(record)) notARecordError(context, itemIndex, 'payout', record.notARecord);
	return record.data;
}

/**
 * Looks a payout up by its ID or key: its record, read fail-closed (an answer that does not prove this
 * payout's status and amount fails the item with nothing decided), or undefined when Little Pay has none.
 */
export async function findPayoutRecord(
	context: IExecuteFunctions,
	itemIndex: number,
	idOrKey: string,
): Promise<IDataObject | undefined> {
	const response = await readLittlePay(context, payoutRecordRequest(itemIndex, idOrKey));
	if (response.statusCode === 404) return undefined;
	return provenPayout(context, response, itemIndex, idOrKey);
}

/** Reads the withdrawal charges table (networks, limits, fee tiers). */
export async function getPayoutCharges(
	context: IExecuteFunctions,
	itemIndex: number,
): Promise<IDataObject> {
	const response = await readLittlePay(context, {
		credential: 'littlePayApiKeyApi',
		method: 'GET',
		path: payoutPath('charges'),
		disbursement: true,
		itemIndex,
	});
	return expectSuccess(context, response, itemIndex);
}

/** Reads a payment status record by reference or key, optionally holding one long poll. */
export async function getPaymentRecord(
	context: IExecuteFunctions,
	itemIndex: number,
	paymentId: string,
	longPoll: boolean,
	timeoutMs = 60000,
): Promise<IDataObject> {
	const response = await readLittlePay(context, {
		credential: 'littlePayApiKeyApi',
		method: 'GET',
		path: paymentStatusPath(paymentId),
		qs: longPoll ? { longPoll: true } : undefined,
		timeoutMs,
		itemIndex,
	});
	const record = readPaymentRecord(expectSuccess(context, response, itemIndex), paymentId);
	if (isNotARecord(record)) notARecordError(context, itemIndex, 'payment', record.notARecord);
	return record.data;
}

/**
 * From a webhook call: what Little Pay's status endpoint, asked with the merchant's own API key, knows
 * of a payment, so a callback is only trusted when the merchant's account agrees. The record; undefined
 * when the account has no such payment (404: a stranger's, or none); or why the answer proves nothing.
 */
export async function fetchPaymentStatus(
	context: IWebhookFunctions,
	reference: string,
): Promise<PaymentRecord | NotARecord | undefined> {
	if (!namesOneRecord(reference)) return { notARecord: 'the callback names no payment reference' };
	const response = await readFromWebhook(context, paymentStatusPath(reference));
	if (response.statusCode === 404) return undefined;
	if (response.statusCode < 200 || response.statusCode >= 300) {
		throw statusCheckError(context.getNode(), response.statusCode);
	}
	const body = response.body as { data?: unknown } | undefined;
	return readPaymentRecord(body?.data, reference);
}

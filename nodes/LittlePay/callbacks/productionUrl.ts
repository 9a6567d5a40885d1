import type { INodeExecutionData, IWebhookFunctions } from 'n8n-workflow';

import { isPrivateUrl, originOf } from '../helpers/gateway';

/**
 * Where a test event's item carries the note below to the trigger's execute(), which shows it as a
 * hint and takes it off the item: the webhook call knows the Production URL, the execution does not.
 */
export const PRODUCTION_URL_NOTE = 'littlePayProductionUrlNote';

/**
 * A test event's note when the trigger's Production URL is on this machine or a private network. The
 * panel cannot say it: a notice's display rules read parameters, never n8n's webhook address. Only
 * while testing (Execute step): a published trigger that was called is reachable by its caller.
 */
export function productionUrlNote(context: IWebhookFunctions): string | undefined {
	if (context.getMode() !== 'manual' || typeof context.getNodeWebhookUrl !== 'function')
		return undefined;
	const url = context.getNodeWebhookUrl('default');
	if (url === undefined || !isPrivateUrl(url)) return undefined;
	return `This trigger's Production URL (${originOf(url)}) is on this machine or a private network: the sandbox beside n8n can call it, Little Pay cannot. Going live: set n8n's WEBHOOK_URL to a public https address, so the Production URL is one Little Pay reaches (docs/going-live.md)`;
}

/** Takes the notes off the items of an accepted callback, and returns them once each. */
export function takeProductionUrlNotes(items: INodeExecutionData[]): string[] {
	const notes = new Set<string>();
	for (const item of items) {
		const note = item[PRODUCTION_URL_NOTE];
		if (typeof note === 'string') notes.add(note);
		delete item[PRODUCTION_URL_NOTE];
	}
	return [...notes];
}

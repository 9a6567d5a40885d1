import type { IDataObject, IHttpRequestMethods, INode, NodeOperationError } from 'n8n-workflow';

import { nodeError } from '../errors';

/** Whether a status code is a redirect, which the package never follows. */
export function isRedirect(statusCode: number): boolean {
	return statusCode >= 300 && statusCode < 400;
}

/** The host a redirect points at, as the gateway named it (relative addresses resolve to the request's). */
function redirectHost(headers: IDataObject | undefined, requestUrl: string): string {
	const location = headers?.location;
	if (typeof location !== 'string' || location === '') return 'an address it did not name';
	try {
		return new URL(location, requestUrl).host;
	} catch {
		return 'an address that is not a URL';
	}
}

/**
 * The error for a 3xx answer. A redirect is never followed: following it would send the API key (and a
 * card or payout body, which a 307 or 308 re-posts) to another host and take that host's answer as
 * Little Pay's. A request that was redirected was not taken, so nothing it asked for happened.
 */
export function redirectError(
	node: INode,
	answer: { statusCode: number; headers?: IDataObject },
	request: { method: IHttpRequestMethods; url: string; field: string },
	itemIndex?: number,
): NodeOperationError {
	const host = redirectHost(answer.headers, request.url);
	const effect =
		request.method === 'GET'
			? 'Nothing was read.'
			: 'Little Pay did not take this request: nothing was charged, paid or refunded by it, and it is safe to send again once the address is right.';
	return nodeError(
		node,
		`Little Pay answered with a redirect to ${host}; the request was not followed: check the ${request.field}`,
		{
			itemIndex,
			description: `The gateway answered HTTP ${answer.statusCode}. ${effect} Nothing was sent to ${host}: the API key and the request stay here. Set the credential's ${request.field} to the address Little Pay gives (https, no trailing path).`,
		},
	);
}

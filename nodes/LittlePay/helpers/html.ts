// Builders for the two pages a card payment needs in the payer's browser. They return whole HTML
// documents a workflow can serve with Respond to Webhook; every value is escaped for its context.

/** Where Cardinal Commerce's device data collection sends its window message from. */
export const COLLECTION_ORIGINS = {
	test: 'https://centinelapistag.cardinalcommerce.com',
	production: 'https://centinelapi.cardinalcommerce.com',
} as const;

/** Escapes text for an HTML attribute or element body. */
export function escapeHtml(value: string): string {
	return value.replace(
		/[&<>"']/g,
		(c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
	);
}

/** Serialises a value for inline script, so no string can close the script element. */
function scriptValue(value: unknown): string {
	return JSON.stringify(value)
		.replace(/</g, '\\u003c')
		.replace(/\u2028/g, '\\u2028')
		.replace(/\u2029/g, '\\u2029');
}

/** Inputs of the device data collection page. */
export interface DeviceDataPageInput {
	deviceDataCollectionUrl: string;
	accessToken: string;
	/** Origin the collection message must come from; any other sender is ignored. */
	messageOrigin: string;
	/** Intent reference, posted on so the next step knows the payment. */
	reference: string;
	/** Where the page posts the result and the browser's device information. */
	continueUrl: string;
	/** How long to wait for the message before going on without it (Little Pay's SDK waits 10 s). */
	timeoutMs: number;
}

/**
 * The device data collection page: posts the JWT to the collection URL in a hidden 10x10 iframe,
 * waits for the `profile.completed` message from that iframe and the collection origin (or the
 * timeout), then
 * posts the reference, session id and the browser's device information to `continueUrl`.
 */
export function buildDeviceDataCollectionPage(input: DeviceDataPageInput): string {
	return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Checking your card</title></head>
<body>
<p>Checking your card with your bank. This takes a few seconds.</p>
<iframe name="littlepay-ddc" title="Device data collection" width="10" height="10" style="border:0;position:absolute;left:-1000px"></iframe>
<form id="littlepay-ddc-form" method="POST" target="littlepay-ddc" action="${escapeHtml(input.deviceDataCollectionUrl)}">
<input type="hidden" name="JWT" value="${escapeHtml(input.accessToken)}">
</form>
<form id="littlepay-continue" method="POST" action="${escapeHtml(input.continueUrl)}">
<input type="hidden" name="reference" value="${escapeHtml(input.reference)}">
<input type="hidden" name="sessionId" value="">
<input type="hidden" name="deviceDataCollected" value="false">
<input type="hidden" name="httpBrowserColorDepth" value="24">
<input type="hidden" name="httpBrowserJavaEnabled" value="false">
<input type="hidden" name="httpBrowserJavaScriptEnabled" value="true">
<input type="hidden" name="httpBrowserLanguage" value="en">
<input type="hidden" name="httpBrowserScreenHeight" value="0">
<input type="hidden" name="httpBrowserScreenWidth" value="0">
<input type="hidden" name="httpBrowserTimeDifference" value="0">
<noscript><button type="submit">Continue</button></noscript>
</form>
<script>
(function () {
	var origin = ${scriptValue(input.messageOrigin)};
	var form = document.getElementById('littlepay-continue');
	var done = false;
	function set(name, value) { form.elements[name].value = String(value); }
	function finish(sessionId, collected) {
		if (done) return;
		done = true;
		set('sessionId', sessionId);
		set('deviceDataCollected', collected);
		set('httpBrowserColorDepth', window.screen.colorDepth);
		set('httpBrowserJavaEnabled', typeof navigator.javaEnabled === 'function' ? navigator.javaEnabled() : false);
		set('httpBrowserLanguage', navigator.language || 'en');
		set('httpBrowserScreenHeight', window.screen.height);
		set('httpBrowserScreenWidth', window.screen.width);
		set('httpBrowserTimeDifference', new Date().getTimezoneOffset());
		form.submit();
	}
	var frame = document.getElementsByName('littlepay-ddc')[0];
	window.addEventListener('message', function (event) {
		if (event.source !== frame.contentWindow) return;
		// n8n serves webhook HTML in a CSP sandbox: this page and its iframe then have an opaque
		// origin ("null"), so only the source check above can tell the collection frame apart.
		var opaque = event.origin === 'null' && window.origin === 'null';
		if (event.origin !== origin && !opaque) return;
		var data = event.data;
		if (typeof data === 'string') {
			try { data = JSON.parse(data); } catch (e) { return; }
		}
		if (data && data.MessageType === 'profile.completed') finish(data['Session Id'] || '', data.Status === true);
	});
	document.getElementById('littlepay-ddc-form').submit();
	// Gives up waiting for the message after the timeout, as Little Pay's SDK does.
	AbortSignal.timeout(${scriptValue(input.timeoutMs)}).addEventListener('abort', function () { finish('', false); });
})();
</script>
</body>
</html>
`;
}

/** Inputs of the step-up page. */
export interface StepUpPageInput {
	stepUpUrl: string;
	accessToken: string;
	/** The intent reference, sent as MD: without it the payment fails. */
	reference: string;
	/** Show the bank's page in an iframe on this page instead of replacing the page. */
	inIframe: boolean;
}

/** The step-up page: posts JWT and MD to the step-up URL at once, in this window or an iframe. */
export function buildStepUpPage(input: StepUpPageInput): string {
	const target = input.inIframe ? ' target="littlepay-step-up"' : '';
	const frame = input.inIframe
		? '<iframe name="littlepay-step-up" title="Card authentication" width="400" height="600" style="border:0;max-width:100%"></iframe>\n'
		: '';
	return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Confirm your payment</title></head>
<body>
<p>Your bank asks you to confirm this payment.</p>
${frame}<form id="littlepay-step-up-form" method="POST" action="${escapeHtml(input.stepUpUrl)}"${target}>
<input type="hidden" name="JWT" value="${escapeHtml(input.accessToken)}">
<input type="hidden" name="MD" value="${escapeHtml(input.reference)}">
<noscript><button type="submit">Continue to your bank</button></noscript>
</form>
<script>document.getElementById('littlepay-step-up-form').submit();</script>
</body>
</html>
`;
}

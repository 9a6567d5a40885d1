// HTML pages the sandbox serves: 3-D Secure device data collection and step-up, and the hosted checkout.
import type { Intent } from './types';

/** Escapes text for HTML. */
export function esc(value: string): string {
	return value.replace(
		/[&<>"']/g,
		(c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
	);
}

function page(title: string, body: string, head = ''): string {
	return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>${head}<style>body{font-family:sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem}fieldset{margin:1rem 0}label{display:block;margin:.5rem 0}button{padding:.5rem 1rem;margin-right:.5rem}.muted{color:#666;font-size:.9rem}</style></head><body>${body}</body></html>`;
}

/**
 * Device data collection page. Like Cardinal's, it posts a `profile.completed` message to its parent; the
 * message's origin is this sandbox's own origin, and its data is a JSON string (as Cardinal sends it).
 */
export function collectPage(sessionId: string, status: boolean): string {
	const message = JSON.stringify({
		MessageType: 'profile.completed',
		'Session Id': sessionId,
		Status: status,
	});
	return page(
		'Device data collection',
		`<p>Sandbox device data collection.</p><script>window.parent.postMessage(${JSON.stringify(message)}, '*');</script>`,
	);
}

/** Step-up page: the cardholder approves or declines. */
export function stepUpPage(
	jwt: string,
	md: string,
	intent: Intent | undefined,
	problem?: string,
): string {
	const what = intent
		? `${esc(String(intent.amount))} ${esc(intent.currency)} — ${esc(intent.description)}`
		: 'unknown payment';
	const card = intent?.card ? `${esc(intent.card.brand)} ending ${esc(intent.card.last4)}` : '';
	return page(
		'3-D Secure authentication',
		`<h1>3-D Secure (sandbox)</h1>${problem ? `<p><strong>${esc(problem)}</strong></p>` : ''}<p>Authenticate ${what} ${card}</p>
<form method="post" action="/sandbox/3ds/step-up/decide">
<input type="hidden" name="JWT" value="${esc(jwt)}"><input type="hidden" name="MD" value="${esc(md)}">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="decline">Decline</button></form>`,
	);
}

/**
 * Result page after a step-up decision. It posts { action: "MAKE_PAYMENT" } (with the outcome) to
 * the window that opened or framed it, which Little Pay's SDK waits for before it processes the
 * card, then goes on to the intent's authentication redirect URL when there is one.
 */
export function stepUpDonePage(outcome: string, redirectTo?: string): string {
	const message = JSON.stringify({ action: 'MAKE_PAYMENT', authentication: outcome }).replace(
		/</g,
		'\\u003c',
	);
	const target = redirectTo ? JSON.stringify(redirectTo).replace(/</g, '\\u003c') : 'null';
	return page(
		'3-D Secure result',
		`<h1>Authentication ${esc(outcome)}</h1><p>${redirectTo ? `Continuing to <a id="continue" href="${esc(redirectTo)}">the shop</a>.` : 'You can close this window.'}</p>
<script>
(function () {
	var message = ${message};
	var to = window.opener || (window.parent !== window ? window.parent : null);
	if (to) to.postMessage(message, '*');
	var next = ${target};
	if (next) window.location.replace(next);
})();
</script>`,
	);
}

/** Hosted checkout: pay by mobile money or card. */
export function checkoutPage(intent: Intent, note?: string): string {
	return page(
		'Little Pay sandbox checkout',
		`<h1>Pay ${esc(String(intent.amount))} ${esc(intent.currency)}</h1><p>${esc(intent.description)}</p>
${note ? `<p><strong>${esc(note)}</strong></p>` : ''}
<form method="post" action="/checkout/${esc(intent.reference)}/mobile"><fieldset><legend>Mobile money</legend>
<label>Network <select name="type"><option>MPESA</option><option>AIRTEL</option><option>MTN</option><option>TIGOPESA</option></select></label>
<label>Mobile number <input name="mobile" placeholder="254712345670" inputmode="numeric"></label>
<button type="submit">Pay by mobile money</button></fieldset></form>
<form method="post" action="/checkout/${esc(intent.reference)}/card" autocomplete="off"><fieldset><legend>Card</legend>
<label>Card number <input name="cc_number" placeholder="4111111111111111" inputmode="numeric"></label>
<label>Expiry (MM/YY) <input name="cc_exp" placeholder="01/30"></label>
<label>CVV <input name="cc_cvv" placeholder="123" inputmode="numeric"></label>
<label>Name on card <input name="cc_name" placeholder="Amina Otieno"></label>
<button type="submit">Pay by card</button></fieldset></form>
<p class="muted">Sandbox: test numbers and cards are in sandbox/README.md.</p>`,
	);
}

/** Waiting page while the payer enters the PIN; reloads itself. */
export function checkoutWaitingPage(intent: Intent): string {
	return page(
		'Waiting for payment',
		`<h1>Check your phone</h1><p>Enter your PIN to pay ${esc(String(intent.amount))} ${esc(intent.currency)}. This page refreshes by itself.</p>`,
		'<meta http-equiv="refresh" content="2">',
	);
}

/** Final page when there is no returnUrl. */
export function checkoutDonePage(intent: Intent): string {
	return page(
		'Payment result',
		`<h1>Payment ${esc(intent.status.toLowerCase())}</h1><p>${esc(intent.message)}</p>`,
	);
}

/** Step-up inside the checkout (the challenge card). */
export function checkoutStepUpPage(intent: Intent): string {
	return page(
		'3-D Secure authentication',
		`<h1>3-D Secure (sandbox)</h1><p>Authenticate ${esc(String(intent.amount))} ${esc(intent.currency)} on ${esc(intent.card?.brand ?? 'card')} ending ${esc(intent.card?.last4 ?? '')}</p>
<form method="post" action="/checkout/${esc(intent.reference)}/step-up">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="decline">Decline</button></form>`,
	);
}

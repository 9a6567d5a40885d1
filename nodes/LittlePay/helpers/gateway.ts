/** Little Pay's live host: its callbacks are signed with the published key, which is never fetched. */
export const LITTLE_PAY_HOST = 'pay.little.africa';

/**
 * Which gateway answered, the one name every output uses: `littlepay` for Little Pay's own address,
 * `sandbox` for any other (the local sandbox, a test deployment). A run that says `sandbox` paid nobody.
 */
export type GatewayName = 'littlepay' | 'sandbox';

/** Whether a base URL is Little Pay's live service, whose key is the published one. */
export function isLittlePayHost(baseUrl: string): boolean {
	try {
		return new URL(baseUrl).hostname.toLowerCase() === LITTLE_PAY_HOST;
	} catch {
		return false;
	}
}

/** The gateway a credential's Base URL points at. */
export function gatewayOfBaseUrl(baseUrl: string): GatewayName {
	return isLittlePayHost(baseUrl) ? 'littlepay' : 'sandbox';
}

/** Whether an IPv4 address is loopback, private, link-local or unspecified. */
function isPrivateIpv4(host: string): boolean {
	const parts = host.split('.').map(Number);
	if (parts.length !== 4 || parts.some((p) => !Number.isInteger(p) || p < 0 || p > 255))
		return false;
	const [a, b] = parts;
	return (
		a === 127 ||
		a === 10 ||
		a === 0 ||
		(a === 172 && b >= 16 && b <= 31) ||
		(a === 192 && b === 168) ||
		(a === 169 && b === 254) ||
		(a === 100 && b >= 64 && b <= 127)
	);
}

/** The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:7f00:1`), or '' for any other. */
function mappedIpv4(v6: string): string {
	const match = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(v6);
	if (!match) return '';
	const [high, low] = [parseInt(match[1], 16), parseInt(match[2], 16)];
	return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/**
 * Whether a URL points at this machine or a private network, which Little Pay (on the internet) can
 * never call: localhost, loopback and private IPv4 and IPv6 addresses, `.local` and `.internal` names,
 * and host names without a dot (a container's or a LAN machine's name).
 */
export function isPrivateUrl(url: string): boolean {
	let host: string;
	try {
		host = new URL(url).hostname.toLowerCase();
	} catch {
		return false;
	}
	if (host.startsWith('[') && host.endsWith(']')) {
		const v6 = host.slice(1, -1);
		return (
			v6 === '::1' ||
			v6 === '::' ||
			/^f[cd][0-9a-f]{2}:/.test(v6) ||
			/^fe[89ab][0-9a-f]:/.test(v6) ||
			isPrivateIpv4(mappedIpv4(v6))
		);
	}
	if (/^\d+\.\d+\.\d+\.\d+$/.test(host)) return isPrivateIpv4(host);
	return (
		host === 'localhost' ||
		host.endsWith('.localhost') ||
		host.endsWith('.local') ||
		host.endsWith('.internal') ||
		!host.includes('.')
	);
}

/** A URL's scheme, host and port only: a callback URL's path and query may carry a token. */
function originOf(url: string): string {
	try {
		return new URL(url).origin;
	} catch {
		return url.slice(0, 40);
	}
}

/**
 * Why Little Pay cannot deliver to a Callback URL, when the credential points at Little Pay and the
 * URL is on this machine or a private network; undefined otherwise (the sandbox runs beside n8n).
 */
export function unreachableCallbackWarning(
	callbackUrl: string,
	gateway: GatewayName | undefined,
): string | undefined {
	if (gateway !== 'littlepay' || !isPrivateUrl(callbackUrl)) return undefined;
	return `Callback URL ${originOf(callbackUrl)} is on this machine or a private network, and the API key credential points at Little Pay: Little Pay cannot call it, so no callback will arrive. Set n8n's WEBHOOK_URL to a public https address and use the trigger's Production URL (README: Going live).`;
}

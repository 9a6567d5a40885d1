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

/**
 * Whether an IPv4 address is loopback, private, link-local, shared (carrier-grade NAT), benchmarking
 * (198.18/15) or unspecified: none of them is reachable from the internet.
 */
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
		(a === 100 && b >= 64 && b <= 127) ||
		(a === 198 && (b === 18 || b === 19))
	);
}

/** An IPv6 address (as URL writes it: lower case, hex groups, `::` once) as its eight groups. */
function ipv6Groups(v6: string): number[] | undefined {
	const [head, tail] = v6.includes('::') ? v6.split('::') : [v6, undefined];
	const split = (part: string | undefined) => (part ? part.split(':') : []);
	const left = split(head);
	const right = split(tail);
	const missing = 8 - left.length - right.length;
	if (tail === undefined ? missing !== 0 : missing < 0) return undefined;
	const groups = [...left, ...Array<string>(Math.max(missing, 0)).fill('0'), ...right];
	if (groups.some((g) => !/^[0-9a-f]{1,4}$/.test(g))) return undefined;
	return groups.map((g) => parseInt(g, 16));
}

/**
 * The IPv4 address an IPv6 address carries in its last 32 bits when it is only a wrapping of one
 * (IPv4-mapped `::ffff:0:0/96`, IPv4-compatible `::/96`, IPv4-translated `::ffff:0:0:0/96`, NAT64
 * `64:ff9b::/96`), whatever form it is written in (`[::127.0.0.1]` is `[::7f00:1]`); '' for any other.
 */
function embeddedIpv4(groups: number[]): string {
	const zeros = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
	const wrapped =
		(zeros(0, 5) && (groups[5] === 0 || groups[5] === 0xffff)) ||
		(zeros(0, 4) && groups[4] === 0xffff && groups[5] === 0) ||
		(groups[0] === 0x64 && groups[1] === 0xff9b && zeros(2, 6));
	if (!wrapped) return '';
	const [high, low] = [groups[6], groups[7]];
	return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** Whether an IPv6 address is loopback, unspecified, unique-local, link-local or wraps a private IPv4. */
function isPrivateIpv6(v6: string): boolean {
	const groups = ipv6Groups(v6);
	if (!groups) return false;
	const first = groups[0];
	return (
		groups.slice(0, 7).every((g) => g === 0) ||
		(first & 0xfe00) === 0xfc00 ||
		(first & 0xffc0) === 0xfe80 ||
		isPrivateIpv4(embeddedIpv4(groups))
	);
}

/** Names only a local network resolves: mDNS, home networks, and names reserved for internal use. */
const PRIVATE_SUFFIXES = ['.localhost', '.local', '.internal', '.lan', '.home.arpa'];

/**
 * Whether a URL points at this machine or a private network, which Little Pay (on the internet) can
 * never call: localhost (also written `localhost.`), loopback, private, shared and benchmarking IPv4
 * addresses and the IPv6 ones (also IPv4 wrapped in IPv6), `.local`, `.lan`, `.home.arpa` and
 * `.internal` names, and host names without a dot (a container's or a LAN machine's name).
 */
export function isPrivateUrl(url: string): boolean {
	let host: string;
	try {
		host = new URL(url).hostname.toLowerCase();
	} catch {
		return false;
	}
	if (host.startsWith('[') && host.endsWith(']')) return isPrivateIpv6(host.slice(1, -1));
	// A fully qualified name ends with a dot: `localhost.` is localhost.
	host = host.replace(/\.+$/, '');
	if (/^\d+\.\d+\.\d+\.\d+$/.test(host)) return isPrivateIpv4(host);
	return (
		host === 'localhost' ||
		PRIVATE_SUFFIXES.some((suffix) => host.endsWith(suffix)) ||
		!host.includes('.')
	);
}

/**
 * The Callback URL values the panel's notice stays hidden for: nothing yet, an expression (judged at
 * run time), and an https address whose host starts with a letter (a name). What is left shows it:
 * plain http, and an https IP address (10.x, 172.16-31.x, 192.168.x, [::1]), which Little Pay cannot
 * reach when private; a public one with https is rare, and the notice says which addresses never work.
 * Plain `startsWith` rules: n8n shows any `show` rule on an expression, and a display regex may time
 * out under load, failing the workflow's load. Private names (localhost, .lan) are judged at run time.
 */
export function callbackUrlNoticeHides(): Array<string | { _cnd: { startsWith: string } }> {
	const letters = 'abcdefghijklmnopqrstuvwxyz';
	return [
		'',
		{ _cnd: { startsWith: '=' } },
		...[...letters, ...letters.toUpperCase()].map((c) => ({
			_cnd: { startsWith: `https://${c}` },
		})),
	];
}

/** A URL's scheme, host and port only: a callback URL's path and query may carry a token. */
export function originOf(url: string): string {
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

// Which gateway a Base URL is, and which Callback URLs Little Pay (on the internet) can never reach.
import {
	gatewayOfBaseUrl,
	isPrivateUrl,
	unreachableCallbackWarning,
} from '../../nodes/LittlePay/helpers/gateway';

describe('gatewayOfBaseUrl', () => {
	it("is littlepay only for Little Pay's own host, whatever the path or case", () => {
		expect(gatewayOfBaseUrl('https://pay.little.africa')).toBe('littlepay');
		expect(gatewayOfBaseUrl('https://PAY.little.africa/')).toBe('littlepay');
		expect(gatewayOfBaseUrl('http://127.0.0.1:4010')).toBe('sandbox');
		expect(gatewayOfBaseUrl('https://pay.little.africa.evil.example')).toBe('sandbox');
		expect(gatewayOfBaseUrl('not a url')).toBe('sandbox');
	});
});

const privateUrls = [
	'http://127.0.0.1:5678/webhook/x/littlepay',
	'http://localhost:5678/webhook/x',
	'http://10.0.0.12/webhook/x',
	'http://172.16.4.2/x',
	'http://172.31.255.1/x',
	'http://192.168.1.20:5678/webhook/x',
	'http://169.254.1.1/x',
	'http://[::1]:5678/x',
	'http://n8n:5678/webhook/x',
	// Payday red team #20: each of these passed as public.
	'http://localhost./webhook/x',
	'https://LOCALHOST../x',
	'http://n8n.home.arpa/webhook/x',
	'https://router.lan/x',
	'https://printer.local./x',
	'https://n8n.corp.internal/x',
	'http://[::127.0.0.1]/x',
	'http://[0:0:0:0:0:ffff:7f00:1]/x',
	'http://[::ffff:192.168.1.20]/x',
	'http://[::ffff:0:10.0.0.1]/x',
	'http://[64:ff9b::10.1.2.3]/x',
	'http://198.18.0.1/x',
	'http://198.19.255.254/x',
	'https://192.168.1.20/webhook/x',
	'https://10.1.2.3:8443/webhook/x',
	'https://172.20.0.5/x',
	'http://[fe80::1]/x',
	'http://[::]/x',
	'http://0/x',
	'http://2130706433/x',
	'http://127.1/x',
];
const publicUrls = [
	'https://n8n.example.com/webhook/x/littlepay',
	'https://10.example.com/x',
	'http://172.32.0.1/x',
	'https://pay.little.africa/x',
	'http://8.8.8.8/x',
	// Public hosts that look close to a private one: none may be flagged.
	'https://localhost.example.com/x',
	'https://my-lan.com/x',
	'https://n8n.local.example.org/x',
	'https://internal.example.com/x',
	'https://home.arpa.example.net/x',
	'https://198.20.0.1/x',
	'https://198.17.255.255/x',
	'https://172.15.0.1/x',
	'https://100.128.0.1/x',
	'https://192.169.1.1/x',
	'https://11.0.0.1/x',
	'http://[2001:4860:4860::8888]/x',
	'http://[::ffff:8.8.8.8]/x',
	'http://[64:ff9b::8.8.8.8]/x',
	'https://n8n.example.co.ke./webhook/x',
];

describe('isPrivateUrl', () => {
	it.each(privateUrls)('%s is private', (url) => {
		expect(isPrivateUrl(url)).toBe(true);
	});
	it.each(publicUrls)('%s is public', (url) => {
		expect(isPrivateUrl(url)).toBe(false);
	});
	it('reads IPv4 addresses inside IPv6 and unique-local IPv6 as private', () => {
		expect(isPrivateUrl('http://[::ffff:127.0.0.1]/x')).toBe(true);
		expect(isPrivateUrl('http://[fd12:3456::1]/x')).toBe(true);
		expect(isPrivateUrl('http://[2001:db8::1]/x')).toBe(false);
	});
});

describe('unreachableCallbackWarning', () => {
	it('warns only when Little Pay is the gateway, naming the address but never the path or its token', () => {
		const url = 'http://127.0.0.1:5678/webhook/abc/littlepay?token=s3cret';
		expect(unreachableCallbackWarning(url, 'sandbox')).toBeUndefined();
		expect(unreachableCallbackWarning('https://n8n.example.com/w', 'littlepay')).toBeUndefined();
		const warning = unreachableCallbackWarning(url, 'littlepay');
		expect(warning).toContain('http://127.0.0.1:5678 is on this machine or a private network');
		expect(warning).not.toContain('s3cret');
		expect(warning).not.toContain('/webhook/');
	});
});

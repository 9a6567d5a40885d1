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
];
const publicUrls = [
	'https://n8n.example.com/webhook/x/littlepay',
	'https://10.example.com/x',
	'http://172.32.0.1/x',
	'https://pay.little.africa/x',
	'http://8.8.8.8/x',
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

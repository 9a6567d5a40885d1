// Issue 56, family 2 on the money side: a re-run looks a payout's key up before sending, and a 2xx
// answer that does not prove this key's payout (its status, its amount, its key) must not count as
// "already paid" (the employee would stay unpaid) nor as "not there" (it would be paid twice). A proxy
// in front of the sandbox rewrites the key lookup's record; every generated rewrite must leave the
// row with an unknown outcome and nothing sent, and the untouched record (the control) must be found.
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import axios from 'axios';

import { useNodeTestSandbox } from '../../testkit/nodeSandbox';
import { moneyRun, NODE, outputs, payoutParameters, workflow } from '../../testkit/moneyRun';
import { newKey } from '../../testkit/sandbox';

type Json = Record<string, unknown>;

const sb = useNodeTestSandbox();
const money = moneyRun(sb);

/** How the proxy rewrites the record of GET /api/disbursements/<key> (not the charges table). */
let rewrite: ((record: Json) => unknown) | undefined;
let proxy: Server;
let proxyUrl: string;

beforeAll(async () => {
	proxy = createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', async () => {
			const answer = await axios.request({
				method: req.method,
				url: `${sb.base}${req.url}`,
				headers: { ...req.headers, host: undefined },
				data: chunks.length ? Buffer.concat(chunks) : undefined,
				validateStatus: () => true,
				transformResponse: (raw: string) => raw,
			});
			let body = answer.data as string;
			const lookup =
				req.method === 'GET' &&
				/^\/api\/disbursements\/[^/?]+/.test(req.url ?? '') &&
				!req.url?.startsWith('/api/disbursements/charges');
			if (lookup && rewrite && answer.status === 200) {
				const parsed = JSON.parse(body) as { data: Json };
				body = JSON.stringify({ ...parsed, data: rewrite(parsed.data) });
			}
			res.writeHead(answer.status, { 'content-type': 'application/json' });
			res.end(body);
		});
	});
	await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', () => r()));
	proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(async () => await new Promise((r) => proxy.close(r)));
afterEach(() => (rewrite = undefined));

const parameters = payoutParameters({ keySource: 'mapped', key: '={{ $json.key }}' });

/** Pays a row once straight on the sandbox, then re-runs it (or checks it only) through the proxy. */
async function rerunThroughProxy(
	change: ((record: Json) => unknown) | undefined,
	extra: Json = {},
) {
	const row = { key: newKey('pay'), amount: 1500, to: '254712345670' };
	const first = await money.run(workflow(NODE, parameters, [row]));
	expect(first.error).toBeUndefined();
	const before = await money.payouts();
	await sb.received();
	rewrite = change;
	const again = await money.run(
		workflow(NODE, { ...parameters, ...extra }, [row], { continueOnFail: true }),
		{ credentials: money.withCredential({ baseUrl: proxyUrl }) },
	);
	return { row, again, sent: await money.newPayouts(before), posts: await money.moneyRequests() };
}

const without = (field: string) => (record: Json) => {
	const copy = { ...record };
	delete copy[field];
	return copy;
};
const set = (field: string, value: unknown) => (record: Json) => ({ ...record, [field]: value });

const rewrites: Array<[string, (record: Json) => unknown]> = [];
for (const field of ['status', 'amount'])
	for (const [name, change] of [
		['removed', without(field)],
		['null', set(field, null)],
		['empty', set(field, '')],
		['an object', set(field, {})],
	] as Array<[string, (record: Json) => unknown]>)
		rewrites.push([`${field} ${name}`, change]);
rewrites.push(['amount "many"', set('amount', 'many')]);
rewrites.push(["another payout's key and id", (r) => ({ ...r, key: 'someoneelse1', id: 'x1' })]);
rewrites.push(['no key and no id', (r) => ({ ...(without('key')(r) as Json), id: undefined })]);
rewrites.push(['no record', () => null]);
rewrites.push(['a list', (r) => [r]]);

describe('a re-run whose key lookup answers a record that proves nothing (generated)', () => {
	it.each(rewrites)(
		'%s: not its record, nothing sent, never "already paid"',
		async (_name, change) => {
			const { again, sent, posts } = await rerunThroughProxy(change);
			expect(sent).toEqual([]);
			expect(posts).toEqual([]);
			const [row] = outputs(again);
			expect(row.alreadyExisted).not.toBe(true);
			expect(String(row.error ?? again.error?.message)).toMatch(
				/answer for key \w+ is not its record: the (record has no|record is for another|answer holds no)/,
			);
		},
	);

	it.each(rewrites)(
		'%s, in a Check Only run: the row is not counted as found already sent',
		async (_name, change) => {
			const { again, sent, posts } = await rerunThroughProxy(change, { checkOnly: true });
			expect(sent).toEqual([]);
			expect(posts).toEqual([]);
			const [row] = outputs(again);
			expect(row.alreadyExisted).not.toBe(true);
			expect(row.valid).not.toBe(true);
		},
	);

	it("the record as Little Pay gives it is found: 'already paid', nothing sent (the control)", async () => {
		const { again, sent, posts } = await rerunThroughProxy(undefined);
		expect(sent).toEqual([]);
		expect(posts).toEqual([]);
		expect(outputs(again)[0]).toMatchObject({ alreadyExisted: true });
	});
});

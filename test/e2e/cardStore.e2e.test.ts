// Card data and n8n's execution store (issue 50, point 2), in a real n8n 2.41.1 (SQLite) against the
// sandbox. Example 2 takes the card on Little Pay's hosted checkout: n8n's database and user folder are
// read while the payment runs, after it, and after n8n is killed, and hold no card number and no CVV.
// Example 13 (the server-side card form, a sandbox demo) is the control: the same reads find its card
// in n8n's store after its run ended with "save no execution data", as its sticky note says.
import { execFileSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

import axios from 'axios';

import { startSandbox } from '../../sandbox';
import type { SandboxHandle } from '../../sandbox';
import { N8nApi, startN8n } from '../../testkit/n8n';
import type { N8nServer } from '../../testkit/n8n';
import { loadExample, sandboxCredentials, settledExecutions, waitFor } from '../../testkit/n8nRuns';

jest.setTimeout(600000);

/** A Luhn-valid Visa number no file of the repository holds (the sandbox pays any valid card). */
function freshCardNumber(): string {
	const body = `4${Array.from({ length: 14 }, () => randomInt(10)).join('')}`;
	for (let check = 0; check < 10; check++) {
		const digits = body + check;
		let sum = 0;
		for (let i = 0; i < digits.length; i++) {
			let d = Number(digits[digits.length - 1 - i]);
			if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
			sum += d;
		}
		if (sum % 10 === 0) return digits;
	}
	throw new Error('unreachable');
}

interface Card {
	number: string;
	cvv: string;
}

const newCard = (): Card => ({ number: freshCardNumber(), cvv: String(randomInt(1000, 10000)) });

/**
 * Every file n8n keeps in its user folder (the database, its WAL, binary data, logs, config), but not the
 * installed community package (nodes/), which n8n only reads.
 */
function filesUnder(dir: string): string[] {
	return readdirSync(dir).flatMap((entry) => {
		const path = join(dir, entry);
		if (entry === 'nodes' && dir.endsWith('.n8n')) return [];
		try {
			return statSync(path).isDirectory() ? filesUnder(path) : [path];
		} catch {
			return []; // removed while listed (a WAL checkpoint)
		}
	});
}

/** Where in n8n's user folder a card's number or CVV (as a JSON string, as n8n stores a value) is found. */
function whereStored(n8n: N8nServer, card: Card): string[] {
	const found: string[] = [];
	for (const file of filesUnder(join(n8n.userFolder, '.n8n'))) {
		let bytes: Buffer;
		try {
			bytes = readFileSync(file);
		} catch {
			continue;
		}
		if (bytes.includes(card.number)) found.push(`${file}: card number`);
		if (bytes.includes(`"${card.cvv}"`)) found.push(`${file}: CVV`);
	}
	return found;
}

/** The executions' rows as SQLite gives them (through its own reader, WAL included). */
function executionRows(n8n: N8nServer): string {
	const db = join(n8n.userFolder, '.n8n', 'database.sqlite');
	return execFileSync(
		'sqlite3',
		[
			'-cmd',
			'.timeout 5000',
			db,
			'SELECT e.id, e.status, e.deletedAt, d.data FROM execution_entity e LEFT JOIN execution_data d ON d.executionId = e.id',
		],
		{ encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
	);
}

describe("card data in n8n's store", () => {
	let sandbox: SandboxHandle;
	let n8n: N8nServer;
	let api: N8nApi;
	let ids: { basicId: string; apiKeyId: string };

	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0, quiet: true, pinDelayMs: 300 });
		// Its own n8n, not the run's shared one (testkit/sharedN8n.ts): the last test kills it and reads its whole store.
		n8n = await startN8n();
		api = new N8nApi(n8n.url);
		await api.setupOwner();
		ids = await sandboxCredentials(api, sandbox, 'cards');
	});

	afterAll(async () => {
		await n8n?.stop();
		await sandbox?.close();
	});

	async function publish(file: string, path: string): Promise<string> {
		const workflow = loadExample(file, {
			BASIC_CREDENTIAL_ID: ids.basicId,
			API_KEY_CREDENTIAL_ID: ids.apiKeyId,
		});
		const text = JSON.stringify(workflow).split('http://127.0.0.1:5678').join(n8n.url);
		const { id, versionId } = await api.createWorkflow(JSON.parse(text));
		await api.activateWorkflow(id, versionId);
		await waitFor(`the webhook ${path}`, async () =>
			(
				await axios.get(`${n8n.url}/webhook/${path}`, {
					maxRedirects: 0,
					validateStatus: () => true,
				})
			).status !== 404
				? true
				: undefined,
		);
		return id;
	}

	const hostedCard = newCard();
	const demoCard = newCard();
	let hostedWorkflow = '';

	it('example 2 (hosted checkout): no card number or CVV in n8n while the payment runs or after it', async () => {
		hostedWorkflow = await publish('2-card-checkout.json', 'littlepay-card-checkout');
		// Read n8n's store all the time the payment runs: every file, as often as the machine allows.
		const seen: string[] = [];
		let reads = 0;
		let watching = true;
		const watcher = (async () => {
			while (watching) {
				seen.push(...whereStored(n8n, hostedCard));
				reads++;
				await new Promise((r) => setTimeout(r, 200));
			}
		})();
		try {
			const start = await axios.get(`${n8n.url}/webhook/littlepay-card-checkout`, {
				maxRedirects: 0,
				validateStatus: () => true,
			});
			expect(start.status).toBe(307);
			expect(start.headers['x-frame-options']).toBe('DENY');
			const checkoutUrl = String(start.headers.location);
			expect(checkoutUrl.startsWith(`${sandbox.baseUrl}/checkout/`)).toBe(true);
			const reference = checkoutUrl.split('/checkout/')[1];
			// The payer types the card on the gateway's page, which posts it to the gateway itself.
			const paid = await axios.post(
				`${sandbox.baseUrl}/checkout/${reference}/card`,
				new URLSearchParams({
					cc_number: hostedCard.number,
					cc_exp: '01/39',
					cc_cvv: hostedCard.cvv,
					cc_name: 'Amina Wanjiru',
				}).toString(),
				{
					headers: { 'content-type': 'application/x-www-form-urlencoded' },
					maxRedirects: 0,
					validateStatus: () => true,
				},
			);
			expect(paid.status).toBe(303);
			// The gateway's page sends the payer back to the Return URL once the payment is done.
			const returnUrl = await waitFor('the checkout to send the payer back', async () => {
				const back = await axios.get(`${sandbox.baseUrl}/checkout/${reference}`, {
					maxRedirects: 0,
					validateStatus: () => true,
				});
				return back.status === 303 ? String(back.headers.location) : undefined;
			});
			expect(returnUrl.startsWith(`${n8n.url}/webhook/littlepay-card-returned?`)).toBe(true);
			const result = await axios.get(returnUrl, { validateStatus: () => true });
			expect(result.status).toBe(200);
			expect(result.headers['x-frame-options']).toBe('DENY');
			expect(result.headers['x-content-type-options']).toBe('nosniff');
			expect(String(result.data)).toContain('<h1 id="status">Payment COMPLETED</h1>');
			expect(String(result.data)).toContain(`<span id="reference">${reference}</span>`);
			// The gateway took the card and the payment: it is COMPLETED in the sandbox's ledger.
			const intents = (await axios.get(`${sandbox.baseUrl}/sandbox/ledger`)).data.data
				.intents as Array<{ reference: string; status: string }>;
			expect(intents.find((i) => i.reference === reference)?.status).toBe('COMPLETED');
			// The same link without its signature, or with another key, is refused before any read.
			const url = new URL(returnUrl);
			url.searchParams.delete('signature');
			const bare = await axios.get(url.toString(), { validateStatus: () => true });
			expect(bare.status).toBe(403);
			url.searchParams.set('signature', new URL(returnUrl).searchParams.get('signature') ?? '');
			url.searchParams.set('key', 'someoneelse1');
			const forged = await axios.get(url.toString(), { validateStatus: () => true });
			expect(forged.status).toBe(403);
			await settledExecutions(api, hostedWorkflow);
		} finally {
			watching = false;
			await watcher;
		}
		expect(reads).toBeGreaterThan(3);
		expect(seen).toEqual([]);
		const rows = executionRows(n8n);
		// Its executions are saved (they hold no card): the start, the return, the two refused links.
		expect((await api.executions(hostedWorkflow)).length).toBeGreaterThanOrEqual(4);
		expect(rows).not.toContain(hostedCard.number);
		expect(rows).not.toContain(`"${hostedCard.cvv}"`);
		expect(whereStored(n8n, hostedCard)).toEqual([]);
		expect(n8n.logs()).not.toContain(hostedCard.number);
	});

	it("example 13 (server-side form, sandbox demo), the control: its card is in n8n's store after the run ended, as its note says", async () => {
		const demoWorkflow = await publish('13-card-server-side-sandbox-demo.json', 'littlepay-card');
		const submitted = await axios.post(
			`${n8n.url}/webhook/littlepay-card-pay`,
			new URLSearchParams({
				email: 'amina@example.com',
				name: 'Amina Wanjiru',
				cardNumber: demoCard.number,
				expiry: '01/39',
				cvv: demoCard.cvv,
			}).toString(),
			{
				headers: { 'content-type': 'application/x-www-form-urlencoded' },
				validateStatus: () => true,
			},
		);
		expect(submitted.status).toBe(200);
		expect(submitted.headers['x-frame-options']).toBe('DENY');
		// The device check page posts on to a signed continue link.
		expect(String(submitted.data)).toMatch(
			/littlepay-card-continue\?expires=\d+&amp;signature=[0-9a-f]{64}/,
		);
		await settledExecutions(api, demoWorkflow);
		// Saved: none. Yet the execution's row, soft-deleted, still holds the Webhook's item.
		expect(await api.executions(demoWorkflow)).toEqual([]);
		expect(executionRows(n8n)).toContain(demoCard.number);
		expect(whereStored(n8n, demoCard)).toEqual(
			expect.arrayContaining([expect.stringMatching(/database\.sqlite(-wal)?: card number$/)]),
		);
	});

	it('n8n killed while a hosted payment comes back (as a crash does): no card number or CVV left behind', async () => {
		const crashCard = newCard();
		const start = await axios.get(`${n8n.url}/webhook/littlepay-card-checkout`, {
			maxRedirects: 0,
			validateStatus: () => true,
		});
		const reference = String(start.headers.location).split('/checkout/')[1];
		await axios.post(
			`${sandbox.baseUrl}/checkout/${reference}/card`,
			new URLSearchParams({
				cc_number: crashCard.number,
				cc_exp: '01/39',
				cc_cvv: crashCard.cvv,
				cc_name: 'Amina Wanjiru',
			}).toString(),
			{
				headers: { 'content-type': 'application/x-www-form-urlencoded' },
				maxRedirects: 0,
				validateStatus: () => true,
			},
		);
		const returnUrl = await waitFor('the checkout to send the payer back', async () => {
			const back = await axios.get(`${sandbox.baseUrl}/checkout/${reference}`, {
				maxRedirects: 0,
				validateStatus: () => true,
			});
			return back.status === 303 ? String(back.headers.location) : undefined;
		});
		// The payer's browser comes back, and n8n dies while it answers (SIGKILL: nothing is flushed).
		const coming = axios.get(returnUrl, { validateStatus: () => true }).catch(() => undefined);
		await new Promise((r) => setTimeout(r, 20));
		await n8n.kill();
		await coming;
		for (const card of [hostedCard, crashCard]) {
			expect(whereStored(n8n, card)).toEqual([]);
			expect(executionRows(n8n)).not.toContain(card.number);
		}
	});
});

// Issue 37, the books of a day in a real n8n 2.41.1: example 10 takes 50 orders, example 3 refunds 6 of the
// paid ones, example 4 pays out 20 rows, and every callback (payments and refunds) goes to a dead URL. One
// sweep (example 10's of the payments, example 11's of the payouts and refunds) must leave every payment and payout row final and every refund row final or open with
// the reason and the next step; the daily statement must equal the sandbox's ledger line by line (counts and
// sums per kind, fees, net) to the cent (example 11's statement). Then the lost callbacks are delivered late: the refunds they close
// are closed once, nothing ships or changes otherwise, and a second delivery runs nothing. Examples 3 and 4
// run a second time: still one row per refund and payout, nobody refunded or paid twice.
import { randomUUID } from 'node:crypto';

import axios from 'axios';

import { refundOutcome } from '../../sandbox';
import type { CallbackLogEntry } from '../../sandbox';
import { startExample10, statementBlock, stopExample10 } from '../../testkit/example10';
import type { Figure } from '../../testkit/example10';
import type { Mail } from '../../testkit/mailSink';
import {
	loadExample,
	postToNewWebhook,
	runWorkflowViaWebhook,
	settledExecutions,
	waitFor,
} from '../../testkit/n8nRuns';

jest.setTimeout(420000);

type Json = Record<string, unknown>;
type Intent = { reference: string; key: string; status: string; amount: number };
type Refund = { id: string; reference: string; amount: number; reason: string; status: string };
type Payout = {
	id: string;
	key: string;
	amount: number;
	charges: number;
	status: string;
	to: string;
};

/** Every callback of this day goes here, where nothing listens. */
const DEAD = 'http://127.0.0.1:9/cb';
const cents = (amount: number) => Math.round(amount * 100);
const money = (c: number) => (c / 100).toFixed(2);
const sum = <T>(list: T[], value: (t: T) => number): number =>
	list.reduce((total, t) => total + cents(value(t)), 0);
const figure = <T>(list: T[], value: (t: T) => number): Figure => ({
	count: list.length,
	cents: sum(list, value),
});

describe('the books of a day: payments, refunds and payouts, every callback lost (n8n 2.41.1)', () => {
	let ctx: Awaited<ReturnType<typeof startExample10>>;
	const tag = randomUUID().replace(/-/g, '').slice(0, 6);
	const orderIds: string[] = [];
	const references: string[] = [];
	let refundRows: Json[] = [];
	let payoutRows: Json[] = [];

	beforeAll(async () => {
		// Payouts settle between 0.3 and 4 s; example 4 waits 1 s, so some come out pending (settled late).
		ctx = await startExample10(
			'books',
			{
				pinDelayMs: 100,
				callbackRetryDelaysMs: [200],
				payoutSettleMs: { minMs: 300, maxMs: 4000 },
			},
			{ callbackUrl: DEAD },
		);
	});

	afterAll(async () => {
		await stopExample10(ctx?.n8n, ctx?.sandbox, ctx?.mailbox);
	});

	const ledger = async () =>
		(await axios.get(`${ctx.sandbox.baseUrl}/sandbox/ledger`)).data.data as {
			intents: Intent[];
			refunds: Refund[];
			disbursements: Payout[];
		};
	const requests = async (): Promise<Array<{ method: string; path: string }>> =>
		(await axios.get(`${ctx.sandbox.baseUrl}/sandbox/requests`)).data.data.requests;
	const callbackLog = async (): Promise<CallbackLogEntry[]> =>
		(await axios.get(`${ctx.sandbox.baseUrl}/sandbox/callbacks`)).data.data.callbacks;
	const rows = (tableId: string) => ctx.api.dataTableRows(tableId);
	/** The executions of examples 10 and 11 once they have settled. */
	const executions = async () => [
		...(await settledExecutions(ctx.api, ctx.workflowId)),
		...(await settledExecutions(ctx.api, ctx.booksWorkflowId)),
	];
	const pay = (reference: string, mobile: string) =>
		axios.post(`${ctx.sandbox.baseUrl}/pay/${reference}/process`, {
			type: 'MPESA',
			payment: { mobile },
		});
	const post = async (url: string): Promise<void> => {
		const answer = await axios.post(url, {}, { validateStatus: () => true, timeout: 120000 });
		if (answer.status !== 200) throw new Error(`${url}: HTTP ${answer.status}`);
	};
	const statement = async (): Promise<Mail> => {
		const before = ctx.mailbox.messages().length;
		await post(ctx.statementUrl);
		return await waitFor('the statement e-mail', async () => ctx.mailbox.messages()[before]);
	};

	/** Example 3 or 4 with this test's rows, run once through a webhook; returns its last node's items. */
	const runExample = async (
		file: string,
		patch: (node: Json & { parameters: Json }) => void,
	): Promise<Json[]> => {
		const workflow = loadExample(file, ctx.replacements);
		for (const node of workflow.nodes as Array<Json & { parameters: Json }>) patch(node);
		return (await runWorkflowViaWebhook(ctx.api, ctx.n8n.url, workflow)).items;
	};
	const setRows = (node: Json & { parameters: Json }, name: string, list: Json[]) => {
		const assignments = (node.parameters.assignments as { assignments: Json[] }).assignments;
		assignments[0].value = JSON.stringify(list);
		if (assignments[0].name !== name) throw new Error(`${String(node.name)} holds no ${name}`);
	};
	const example3 = () =>
		runExample('3-refunds.json', (node) => {
			if (node.name === 'Refund Rows') setRows(node, 'refunds', refundRows);
			if (node.name === 'Refund the Order') (node.parameters.options as Json).callbackUrl = DEAD;
		});
	const example4 = () =>
		runExample('4-payout-run.json', (node) => {
			if (node.name === 'Payout Rows') setRows(node, 'recipients', payoutRows);
			if (node.name === 'Pay Out') node.parameters.waitTimeoutSeconds = 1;
		});

	it('a seeded day: one sweep closes every payment and payout, names every open refund, and the statement equals the ledger to the cent; late callbacks change only the refunds they close', async () => {
		// 50 orders through New Order: 30 paid, 5 paid after a failed try, 10 failed tries then expired, 5 never
		// tried and expired. Amounts with cents, so that sums are checked to the cent.
		const plan = Array.from({ length: 50 }, (_, i) =>
			i % 10 <= 5
				? 'paid'
				: i % 10 === 6
					? 'paid after a failed try'
					: i % 10 <= 8
						? 'failed'
						: 'untried',
		);
		for (let start = 0; start < plan.length; start += 5) {
			const answers = await Promise.all(
				plan.slice(start, start + 5).map(async (_, j) => {
					const orderId = `bk${tag}${start + j}`;
					const answer = await postToNewWebhook(ctx.orderUrl, {
						orderId,
						amount: (100000 + 1379 * (start + j)) / 100,
					});
					if (answer.status !== 200) throw new Error(`New Order: HTTP ${answer.status}`);
					return { orderId, reference: String((answer.data as Json).reference) };
				}),
			);
			for (const a of answers) {
				orderIds.push(a.orderId);
				references.push(a.reference);
			}
		}
		await Promise.all(
			plan.map((p, i) =>
				p === 'untried'
					? undefined
					: pay(references[i], p === 'paid' ? '254712345670' : '254712345671'),
			),
		);
		// Every try is over when only the untried intents are still PENDING (a failed try makes the record FAILED).
		const attemptsOver = async () => {
			const mine = (await ledger()).intents.filter((i) => references.includes(i.reference));
			const waiting = mine.filter((i) => i.status === 'PENDING').length;
			return mine.length === plan.length && waiting === plan.filter((p) => p === 'untried').length
				? true
				: undefined;
		};
		await waitFor('every first try to be over', attemptsOver);
		await Promise.all(
			plan.map((p, i) =>
				p === 'paid after a failed try'
					? pay(references[i], '254712345670')
					: p === 'failed' || p === 'untried'
						? axios.post(`${ctx.sandbox.baseUrl}/sandbox/payments/${references[i]}/expire`)
						: undefined,
			),
		);
		const paid = plan.flatMap((p, i) => (p.startsWith('paid') ? [i] : []));
		await waitFor('the paid orders to be paid', async () => {
			const completed = (await ledger()).intents.filter(
				(i) => references.includes(i.reference) && i.status === 'COMPLETED',
			);
			return completed.length === paid.length ? true : undefined;
		});

		// Example 3: six refunds of paid orders, the sandbox's outcome by the reason's words.
		const amountOf = (i: number) => (100000 + 1379 * i) / 100;
		refundRows = [
			[paid[0], amountOf(paid[0]), 'Customer returned the order'],
			[paid[1], 250.5, 'One item was out of stock'],
			[paid[2], 300.25, 'Goodwill, but the provider will fail it'],
			[paid[3], 400.4, 'Late delivery, settles pending'],
			[paid[4], 150.15, 'Damaged parcel, pending fail'],
			[paid[5], 99.99, 'Wrong size, pending'],
		].map(([i, amount, reason], n) => ({
			refundKey: `rf${tag}${n}`,
			orderId: orderIds[Number(i)],
			amount,
			reason,
		}));
		const refunded = await example3();
		expect(refunded.map((row) => [row.key, row.status])).toEqual(
			refundRows.map((r) => [r.refundKey, refundOutcome(String(r.reason)).status]),
		);

		// Example 4: 21 rows, one refused by the preview (amount 5); by the number's last digit 0 and 5-9
		// are paid, 1 and 2 fail.
		const digits = [0, 1, 2, 0, 5, 0, 6, 1, 0, 2, 7, 0, 8, 0, 1, 9, 0, 2, 0, 0];
		payoutRows = [
			...digits.map((d, i) => ({
				payoutId: `po${tag}${i}`,
				name: `Recipient ${i}`,
				phone: `2547${String(i).padStart(7, '0')}${d}`,
				amount: (15000 + 3725 * i) / 100,
			})),
			{ payoutId: `po${tag}x`, name: 'Too small', phone: '254712345670', amount: 5 },
		];
		await example4();
		const recordedPayouts = await rows(ctx.tables.payoutsId);
		expect(recordedPayouts).toHaveLength(20);
		const settledLate = recordedPayouts.filter((row) => row.status === 'PENDING').length;
		// Some payouts had not settled when the run ended: the sweep is what closes them.
		expect(settledLate).toBeGreaterThan(0);
		await waitFor('every payout to settle at the sandbox', async () =>
			(await ledger()).disbursements.every((d) => d.status !== 'pending') ? true : undefined,
		);

		// No callback reached n8n: every one went to the dead URL.
		const log = await callbackLog();
		expect(log.filter((c) => c.url !== DEAD)).toEqual([]);

		// One sweep.
		const postsBefore = (await requests()).filter((r) => r.method === 'POST').length;
		await post(ctx.sweepUrl);
		await post(ctx.booksSweepUrl);
		const afterSweep = await executions();
		expect(afterSweep.filter((e) => e.status !== 'success')).toEqual([]);
		// A sweep reads: only the shipments' claims wrote (in n8n), no request that moves money was sent.
		expect(
			(await requests())
				.filter((r) => r.method === 'POST')
				.slice(postsBefore)
				.map((r) => r.path),
		).toEqual([]);
		const day = await ledger();
		const intents = day.intents.filter((i) => references.includes(i.reference));
		const payments = await rows(ctx.tables.paymentsId);
		expect(payments.map((row) => [row.reference, row.status]).sort()).toEqual(
			intents.map((i) => [i.reference, i.status]).sort(),
		);
		const payouts = await rows(ctx.tables.payoutsId);
		const word = { success: 'COMPLETED', failed: 'FAILED', pending: 'PENDING' } as Record<
			string,
			string
		>;
		expect(payouts.map((row) => [row.key, row.status, row.fee]).sort()).toEqual(
			day.disbursements.map((d) => [d.key, word[d.status], d.charges]).sort(),
		);
		const refunds = await rows(ctx.tables.refundsId);
		for (const row of refunds) {
			if (row.status === 'COMPLETED' || row.status === 'FAILED') continue;
			expect(row).toMatchObject({
				status: 'PENDING',
				nextStep: expect.stringContaining(
					`Ask Little Pay support about the refund of KES ${Number(row.amount).toFixed(2)} on payment ${String(row.reference)} (reason "${String(row.reason)}")`,
				),
			});
		}
		const answeredPending = (r: Refund) => refundOutcome(r.reason).status === 'PENDING';
		expect(refunds.filter((row) => row.status === 'PENDING')).toHaveLength(
			day.refunds.filter(answeredPending).length,
		);

		// The statement against the ledger. Refunds that answered PENDING are pending in the books whatever
		// the gateway did since: its interface has no refund lookup and their callbacks were lost.
		const mail = await statement();
		const kes = statementBlock(mail.html, 'KES');
		const completedPayments = intents.filter((i) => i.status === 'COMPLETED');
		const paidOut = day.disbursements.filter((d) => d.status === 'success');
		const refundsKnown = day.refunds.filter((r) => !answeredPending(r));
		const net = (refundedCents: number) =>
			sum(completedPayments, (i) => i.amount) -
			refundedCents -
			sum(paidOut, (d) => d.amount) -
			sum(paidOut, (d) => d.charges);
		expect({
			started: kes.started,
			completed: kes.completed,
			failed: kes.failed,
			open: kes.open,
			refundsCompleted: kes.refundsCompleted,
			refundsFailed: kes.refundsFailed,
			refundsPending: kes.refundsPending,
			payoutsCompleted: kes.payoutsCompleted,
			payoutsFailed: kes.payoutsFailed,
			payoutsPending: kes.payoutsPending,
			net: kes.netCents,
		}).toEqual({
			started: figure(intents, (i) => i.amount),
			completed: figure(completedPayments, (i) => i.amount),
			failed: figure(
				intents.filter((i) => i.status === 'FAILED'),
				(i) => i.amount,
			),
			open: { count: 0, cents: 0 },
			refundsCompleted: figure(
				refundsKnown.filter((r) => r.status === 'COMPLETED'),
				(r) => r.amount,
			),
			refundsFailed: figure(
				refundsKnown.filter((r) => r.status === 'FAILED'),
				(r) => r.amount,
			),
			refundsPending: figure(day.refunds.filter(answeredPending), (r) => r.amount),
			payoutsCompleted: {
				...figure(paidOut, (d) => d.amount),
				feeCents: sum(paidOut, (d) => d.charges),
			},
			payoutsFailed: figure(
				day.disbursements.filter((d) => d.status === 'failed'),
				(d) => d.amount,
			),
			payoutsPending: { count: 0, cents: 0, feeCents: 0 },
			net: net(
				sum(
					refundsKnown.filter((r) => r.status === 'COMPLETED'),
					(r) => r.amount,
				),
			),
		});
		// The open refunds are listed with their age and next step; the period names the shop's time zone.
		const openRefundLines = kes.lines.filter((l) => l.startsWith('  refund '));
		expect(openRefundLines).toHaveLength(day.refunds.filter(answeredPending).length);
		expect(mail.html).toContain('time zone Africa/Nairobi');

		// The late callbacks: the last attempt of every lost delivery, as it was signed, to the trigger that
		// takes its kind (refunds to the Refund Callbacks trigger, with its token).
		const deliveries = new Map<string, CallbackLogEntry>();
		for (const c of await callbackLog()) deliveries.set(c.id, c);
		const late = [...deliveries.values()];
		const deliver = (entry: CallbackLogEntry) =>
			axios.post(entry.event === 'refund' ? ctx.refundCallbackUrl : ctx.triggerUrl, entry.body, {
				headers: {
					'content-type': 'application/json',
					'x-littlepay-timestamp': entry.timestamp,
					'x-littlepay-signature': entry.signature,
				},
				validateStatus: () => true,
			});
		const shipmentsBefore = await rows(ctx.tables.shipmentsId);
		const known = new Set((await executions()).map((e) => e.id));
		const answers = await Promise.all(late.map(deliver));
		expect(answers.filter((a) => a.status !== 200)).toEqual([]);
		const afterLate = await executions();
		const fresh = afterLate.filter((e) => !known.has(e.id));
		expect(fresh.filter((e) => e.status !== 'success')).toEqual([]);
		// payment.completed and the refund events run once each; payment.failed is not listened for.
		const listened = late.filter(
			(c) => c.event === 'refund' || (JSON.parse(c.body) as Json).status === 'COMPLETED',
		);
		expect(fresh).toHaveLength(listened.length);
		// Delivered once more: duplicates, nothing runs.
		const again = await Promise.all(listened.map(deliver));
		expect(again.map((a) => [a.status, (a.data as Json).duplicate])).toEqual(
			listened.map(() => [200, true]),
		);
		expect((await executions()).length).toBe(afterLate.length);

		// Nothing shipped again, no payment or payout row changed, and each open refund took the ledger's status.
		expect(await rows(ctx.tables.shipmentsId)).toEqual(shipmentsBefore);
		expect(await rows(ctx.tables.paymentsId)).toEqual(payments);
		expect(await rows(ctx.tables.payoutsId)).toEqual(payouts);
		const refundsAfter = await rows(ctx.tables.refundsId);
		const ledgerStatus = (row: Json) =>
			day.refunds.find(
				(r) => r.reference === row.reference && cents(r.amount) === cents(Number(row.amount)),
			)?.status;
		expect(refundsAfter.map((row) => [row.key, row.status])).toEqual(
			refunds.map((row) => [row.key, ledgerStatus(row)]),
		);
		expect(
			refundsAfter.filter((row) => refunds.find((r) => r.key === row.key)?.status !== 'PENDING'),
		).toEqual(refunds.filter((row) => row.status !== 'PENDING'));

		// The statement now equals the ledger for the refunds too.
		const closed = statementBlock((await statement()).html, 'KES');
		const refundsCompleted = day.refunds.filter((r) => r.status === 'COMPLETED');
		expect([
			closed.refundsCompleted,
			closed.refundsFailed,
			closed.refundsPending,
			closed.netCents,
		]).toEqual([
			figure(refundsCompleted, (r) => r.amount),
			figure(
				day.refunds.filter((r) => r.status === 'FAILED'),
				(r) => r.amount,
			),
			{ count: 0, cents: 0 },
			net(sum(refundsCompleted, (r) => r.amount)),
		]);

		const shown = (f: Figure) =>
			`${f.count} (${money(f.cents)}${f.feeCents === undefined ? '' : `, fees ${money(f.feeCents)}`})`;
		process.stdout.write(
			`books: ${intents.length} payments, ${day.refunds.length} refunds, ${day.disbursements.length} payouts ` +
				`(${settledLate} settled after the run), ${log.length} callback attempts lost; after one sweep the statement = ledger: ` +
				`payments started ${shown(kes.started)}, completed ${shown(kes.completed)}, failed ${shown(kes.failed)}, open ${shown(kes.open)}; ` +
				`refunds completed ${shown(kes.refundsCompleted)}, failed ${shown(kes.refundsFailed)}, pending ${shown(kes.refundsPending)}; ` +
				`payouts completed ${shown(kes.payoutsCompleted)}, failed ${shown(kes.payoutsFailed)}, pending ${shown(kes.payoutsPending)}; ` +
				`net ${money(kes.netCents)}. ${late.length} late callbacks: ${fresh.length} executions, 0 shipments; ` +
				`after them refunds completed ${shown(closed.refundsCompleted)}, failed ${shown(closed.refundsFailed)}, net ${money(closed.netCents)}\n`,
		);
	});

	it('examples 3 and 4 run again: still one row per refund and payout, nobody refunded or paid twice', async () => {
		const before = await ledger();
		const seen = (await requests()).length;
		const refundsBefore = await rows(ctx.tables.refundsId);
		const payoutsBefore = await rows(ctx.tables.payoutsId);
		await example3();
		await example4();
		const sent = (await requests()).slice(seen).filter((r) => r.method === 'POST');
		expect(sent.map((r) => r.path)).toEqual([]);
		const after = await ledger();
		expect([after.refunds.length, after.disbursements.length]).toEqual([
			before.refunds.length,
			before.disbursements.length,
		]);
		expect(await rows(ctx.tables.refundsId)).toEqual(refundsBefore);
		expect(await rows(ctx.tables.payoutsId)).toEqual(payoutsBefore);
		process.stdout.write(
			`books, second runs: ${refundsBefore.length} refund rows and ${payoutsBefore.length} payout rows kept, ` +
				`0 refunds and 0 payouts sent\n`,
		);
	});
});

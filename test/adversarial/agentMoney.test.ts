// Issue 53: an AI agent's money at the payment world's bar. Each test tries one attack of the
// scorecard in docs/ai-agents.md through n8n-core's engine against the sandbox: the node run as
// `littlePayTool`, fed one item per tool call as n8n 2.x's AI Agent does (the agent's item merged with
// the model's arguments and `toolCallId`), or with no execution id as the MCP Server Trigger runs it.
import { randomUUID } from 'node:crypto';

import { chatWorkflow, toolAnswers } from '../../testkit/agentCall';
import { grantExpired } from '../../nodes/LittlePay/money/grant';
import { useNodeTestSandbox } from '../../testkit/nodeSandbox';
import {
	call,
	moneyRun,
	NODE,
	outputs,
	payoutParameters,
	TOOL,
	workflow,
} from '../../testkit/moneyRun';

const sb = useNodeTestSandbox({ pinDelayMs: 50, longPollTimeoutMs: 400 });

type Json = Record<string, unknown>;

const { withCredential, payouts, run, newPayouts, moneyRequests, paid } = moneyRun(sb);

describe('A6 kill switch: Pause Money Moves on the credential', () => {
	const paused = () => withCredential({ pauseMoneyMoves: true });

	it('an agent payout (AI Agent path) is refused as data naming the switch, and nothing is sent', async () => {
		const before = await payouts();
		const result = await run(
			workflow(TOOL, payoutParameters({ allowMoneyMoves: true }), [
				call({ amount: 100, to: '254712345670' }),
			]),
			{ credentials: paused() },
		);
		expect(result.error).toBeUndefined();
		const [out] = outputs(result);
		expect(out).toMatchObject({
			refused: true,
			sent: false,
			limit: { field: 'pauseMoneyMoves', label: 'Pause Money Moves', setOn: 'credential' },
		});
		expect(out.reason).toContain('Pause Money Moves is on in the credential littlePayApiKeyApi');
		expect(await moneyRequests()).toEqual([]);
		expect(await newPayouts(before)).toEqual([]);
	});

	it('an MCP payout (no execution) is refused the same way', async () => {
		const before = await payouts();
		const result = await run(
			workflow(TOOL, payoutParameters({ allowMoneyMoves: true }), [
				{ amount: 100, to: '254712345670' },
			]),
			{ credentials: paused(), mcp: true },
		);
		expect(outputs(result)[0]).toMatchObject({
			refused: true,
			limit: { field: 'pauseMoneyMoves' },
		});
		expect(await newPayouts(before)).toEqual([]);
	});

	it('an ordinary payout run of three rows stops before any is sent, naming the switch', async () => {
		const before = await payouts();
		const result = await run(
			workflow(NODE, payoutParameters(), [
				{ amount: 300, to: '254712345670' },
				{ amount: 301, to: '254712345671' },
				{ amount: 302, to: '254712345672' },
			]),
			{ credentials: paused() },
		);
		expect(result.error?.message).toContain(
			'Pause Money Moves is on in the credential littlePayApiKeyApi',
		);
		expect(await moneyRequests()).toEqual([]);
		expect(await newPayouts(before)).toEqual([]);
	});

	it('an ordinary refund is refused, and a read (Get Status) still works', async () => {
		const reference = await paid(500);
		const refund = await run(
			workflow(
				NODE,
				{ resource: 'refund', operation: 'create', paymentId: reference, refundType: 'full' },
				[{}],
			),
			{ credentials: paused() },
		);
		expect(refund.error?.message).toContain('Pause Money Moves is on in the credential');
		expect(await moneyRequests()).toEqual([]);
		const status = await run(
			workflow(TOOL, { resource: 'payment', operation: 'getStatus', paymentId: reference }, [
				call({}),
			]),
			{ credentials: paused() },
		);
		expect(outputs(status)[0]).toMatchObject({ reference, status: 'COMPLETED' });
	});

	it('off (the default, or a credential saved before the switch), a payout is paid', async () => {
		const before = await payouts();
		const result = await run(
			workflow(TOOL, payoutParameters({ allowMoneyMoves: true }), [
				call({ amount: 110, to: '254712345670' }),
			]),
			{ credentials: withCredential({ pauseMoneyMoves: false }) },
		);
		expect(outputs(result)[0]).toMatchObject({ outcome: 'accepted', amount: 110 });
		expect(await newPayouts(before)).toHaveLength(1);
	});
});

const STOP =
	'Inform the user; do not retry this call, split it into smaller ones or try another way.';

describe('A8 every refusal tells the model to inform the user and not to retry or split', () => {
	it.each([
		['the switch off', payoutParameters(), {}],
		['Pause Money Moves', payoutParameters({ allowMoneyMoves: true }), { pauseMoneyMoves: true }],
		[
			'Max Amount',
			payoutParameters({ allowMoneyMoves: true, spendingLimits: { maxAmount: 100 } }),
			{},
		],
		[
			'Allowed Recipients on the credential',
			payoutParameters({ allowMoneyMoves: true }),
			{ allowedRecipients: '254799999999' },
		],
	])('%s', async (_label, parameters, credential) => {
		const result = await run(
			workflow(TOOL, parameters, [call({ amount: 150, to: '254712345670' })]),
			{ credentials: withCredential(credential) },
		);
		const [out] = outputs(result);
		expect(out).toMatchObject({ refused: true, sent: false });
		expect(String(out.whatToDo).endsWith(STOP)).toBe(true);
		expect(await moneyRequests()).toEqual([]);
	});
});

describe('A9 numbers in tool answers show only their last digits', () => {
	const full = () => withCredential({ payerDetails: 'full' });

	it('a paid payout and a refusal naming the number, with Payer Details Full, over the Agent path', async () => {
		const result = await run(
			chatWorkflow(
				TOOL,
				payoutParameters({
					allowMoneyMoves: true,
					spendingLimits: { allowedRecipients: '254712345670' },
				}),
				{ sessionId: randomUUID(), chatInput: 'pay them' },
				[
					{ amount: 120, to: '254712345670' },
					{ amount: 121, to: '254712345689' },
				],
			),
			{ credentials: full() },
		);
		const [paidOut, refused] = toolAnswers(result);
		expect(paidOut).toMatchObject({ outcome: 'accepted', to: '•••••••••670' });
		expect(refused).toMatchObject({ refused: true });
		expect(refused.reason).toContain('•••••••••689 is not on the list');
		const text = JSON.stringify([paidOut, refused]);
		expect(text).not.toContain('2547123456');
		expect(text).not.toContain('712345');
	});

	it('an ordinary workflow keeps the credential setting (Full shows the number)', async () => {
		const result = await run(
			workflow(NODE, payoutParameters(), [{ amount: 122, to: '254712345670' }]),
			{ credentials: full() },
		);
		expect(outputs(result)[0]).toMatchObject({ to: '254712345670' });
	});
});

describe('A2 splitting is stopped by caps per day and per recipient', () => {
	const daily = (limits: Json) =>
		payoutParameters({ allowMoneyMoves: true, spendingLimits: limits });

	it('a payout split over executions (agent runs) stops at Max Total per Day', async () => {
		const node = { id: randomUUID() };
		const before = await payouts();
		const answers: Json[] = [];
		for (const amount of [200, 200, 200]) {
			const result = await run(
				workflow(
					TOOL,
					daily({ maxTotalPerDay: 500 }),
					[call({ amount, to: '254712345670' })],
					node,
				),
			);
			answers.push(outputs(result)[0]);
		}
		expect(answers.map((a) => a.refused ?? false)).toEqual([false, false, true]);
		expect(answers[2]).toMatchObject({
			limit: { field: 'maxTotalPerDay', label: 'Max Total per Day', value: 500, setOn: 'node' },
		});
		expect(String(answers[2].reason)).toContain('would bring the total of one day to KES 600');
		expect((await newPayouts(before)).map((p) => p.amount)).toEqual([200, 200]);
	});

	it('a payout split across chat sessions stops at Max Count per Day', async () => {
		const node = { id: randomUUID() };
		const before = await payouts();
		const answers: Json[] = [];
		for (const amount of [210, 211]) {
			const result = await run(
				chatWorkflow(
					TOOL,
					daily({ maxCountPerDay: 1, maxTotalPerSession: 1000 }),
					{ sessionId: randomUUID(), chatInput: `pay ${amount}` },
					[{ amount, to: '254712345670' }],
					node,
				),
			);
			answers.push(toolAnswers(result)[0]);
		}
		expect(answers[0]).toMatchObject({ outcome: 'accepted' });
		expect(answers[1]).toMatchObject({ refused: true, limit: { field: 'maxCountPerDay' } });
		expect((await newPayouts(before)).map((p) => p.amount)).toEqual([210]);
	});

	it('over MCP, concurrent calls cannot both pass a day total only one fits in', async () => {
		const node = { id: randomUUID() };
		const before = await payouts();
		const results = await Promise.all(
			[220, 221, 222, 223].map((amount) =>
				run(
					workflow(TOOL, daily({ maxTotalPerDay: 500 }), [{ amount, to: '254712345670' }], node),
					{
						mcp: true,
					},
				),
			),
		);
		const answers = results.map((result) => outputs(result)[0]);
		expect(answers.filter((a) => a.refused === true)).toHaveLength(2);
		expect(await newPayouts(before)).toHaveLength(2);
	});

	it('a dry run (Check Only) of a split payout run refuses the rows over the day cap, and sends nothing', async () => {
		const node = { id: randomUUID() };
		const result = await run(
			workflow(
				NODE,
				payoutParameters({ checkOnly: true, spendingLimits: { maxTotalPerDay: 500 } }),
				[
					{ amount: 200, to: '254712345670' },
					{ amount: 200, to: '254712345670' },
					{ amount: 200, to: '254712345670' },
				],
				node,
			),
		);
		const rows = outputs(result).filter((o) => o.summary !== true);
		expect(rows.map((o) => o.valid)).toEqual([true, true, false]);
		expect(String(rows[2].reason)).toContain('would bring the total of one day to KES 600');
		expect(await moneyRequests()).toEqual([]);
	});

	it('a dry run counts each recipient apart: the second 200 to the same number passes 300, another number does not', async () => {
		const result = await run(
			workflow(
				NODE,
				payoutParameters({ checkOnly: true, spendingLimits: { maxTotalPerRecipientPerDay: 300 } }),
				[
					{ amount: 200, to: '254712345670' },
					{ amount: 200, to: '254712345671' },
					{ amount: 200, to: '254712345670' },
				],
				{ id: randomUUID() },
			),
		);
		const rows = outputs(result).filter((o) => o.summary !== true);
		expect(rows.map((o) => o.valid)).toEqual([true, true, false]);
		expect(String(rows[2].reason)).toContain('one day to this recipient');
		expect(await moneyRequests()).toEqual([]);
	});

	it('Max Total per Recipient per Day on the credential: one number is capped, another is paid', async () => {
		const credentials = withCredential({ maxTotalPerRecipientPerDay: 300 });
		const before = await payouts();
		const pay = async (amount: number, to: string) =>
			outputs(await run(workflow(TOOL, daily({}), [call({ amount, to })]), { credentials }))[0];
		expect(await pay(230, '254712340001')).toMatchObject({ outcome: 'accepted' });
		expect(await pay(231, '254712340001')).toMatchObject({
			refused: true,
			limit: { field: 'maxTotalPerRecipientPerDay', setOn: 'credential' },
		});
		expect(await pay(232, '254712340002')).toMatchObject({ outcome: 'accepted' });
		expect((await newPayouts(before)).map((p) => p.amount)).toEqual([230, 232]);
	});
});

describe("the agent grant on the credential (the owner's mandate)", () => {
	const grant = (fields: Json) =>
		withCredential({ agentGrant: true, grantMoves: ['payout'], ...fields });
	const toolPayout = payoutParameters({ allowMoneyMoves: true });

	it('a grant used after its expiry refuses every tool money move; an ordinary workflow still pays', async () => {
		const credentials = grant({ grantValidUntil: '2026-01-01T00:00:00' });
		const before = await payouts();
		const tool = await run(
			workflow(TOOL, toolPayout, [call({ amount: 240, to: '254712345670' })]),
			{
				credentials,
			},
		);
		expect(outputs(tool)[0]).toMatchObject({
			refused: true,
			limit: { field: 'grantValidUntil', setOn: 'credential' },
		});
		expect(String(outputs(tool)[0].reason)).toContain('The agent grant on the credential ended on');
		const ordinary = await run(
			workflow(NODE, payoutParameters(), [{ amount: 241, to: '254712345670' }]),
			{ credentials },
		);
		expect(outputs(ordinary)[0]).toMatchObject({ outcome: 'accepted', amount: 241 });
		expect((await newPayouts(before)).map((p) => p.amount)).toEqual([241]);
	});

	it('with Binds Workflows Too, an ordinary workflow is held to the expired grant as well', async () => {
		const result = await run(
			workflow(NODE, payoutParameters(), [{ amount: 242, to: '254712345670' }]),
			{ credentials: grant({ grantValidUntil: '2026-01-01', grantBindsWorkflows: true }) },
		);
		expect(result.error?.message).toContain(
			'The agent grant on the credential ended on 2026-01-01',
		);
		expect(await moneyRequests()).toEqual([]);
	});

	it('a move the grant does not list (a refund) and a number it does not list are refused', async () => {
		const credentials = grant({ grantRecipients: '2547123456*', grantValidUntil: '2999-12-31' });
		const refund = await run(
			workflow(
				TOOL,
				{
					resource: 'refund',
					operation: 'create',
					paymentId: await paid(500),
					refundType: 'partial',
					amount: 100,
					allowMoneyMoves: true,
				},
				[call({})],
			),
			{ credentials },
		);
		expect(outputs(refund)[0]).toMatchObject({
			refused: true,
			limit: { field: 'grantMoves', value: ['payout'] },
		});
		const other = await run(
			workflow(TOOL, toolPayout, [call({ amount: 243, to: '254799999999' })]),
			{
				credentials,
			},
		);
		expect(outputs(other)[0]).toMatchObject({
			refused: true,
			limit: { field: 'grantRecipients', setOn: 'credential' },
		});
		expect(String(outputs(other)[0].reason)).toContain('set on the agent grant of the credential');
		// The rule, never the list of numbers the grant allows.
		expect(outputs(other)[0].limit).not.toHaveProperty('value');
		expect(await moneyRequests()).toEqual([]);
	});

	it("the grant's day total counts the tools' moves only", async () => {
		// Its own credential id: the grant's day is counted per credential.
		const credentials = grant({ grantMaxTotalPerDay: 300 });
		const node = { credentials: { littlePayApiKeyApi: { id: randomUUID(), name: 'Shop' } } };
		const before = await payouts();
		const pay = async (type: string, amount: number) =>
			outputs(
				await run(
					workflow(
						type,
						type === TOOL ? toolPayout : payoutParameters(),
						[type === TOOL ? call({ amount, to: '254712345670' }) : { amount, to: '254712345670' }],
						node,
					),
					{ credentials },
				),
			)[0];
		expect(await pay(TOOL, 200)).toMatchObject({ outcome: 'accepted' });
		expect(await pay(NODE, 250)).toMatchObject({ outcome: 'accepted' });
		expect(await pay(TOOL, 150)).toMatchObject({
			refused: true,
			limit: { field: 'grantMaxTotalPerDay', value: 300 },
		});
		expect(await pay(TOOL, 100)).toMatchObject({ outcome: 'accepted' });
		expect((await newPayouts(before)).map((p) => p.amount)).toEqual([200, 250, 100]);
	});
});

describe("grantExpired: the Valid Until in the account's time zone", () => {
	const now = new Date('2026-11-27T22:30:00Z'); // 01:30 on 28 November in Nairobi (UTC+3)
	it.each([
		['2026-11-27', 'Africa/Nairobi', true],
		['2026-11-28', 'Africa/Nairobi', false],
		['2026-11-27', 'UTC', false],
		['2026-11-28T01:00:00', 'Africa/Nairobi', true],
		['2026-11-28T02:00:00', 'Africa/Nairobi', false],
		['2026-11-27T23:00:00Z', 'Africa/Nairobi', false],
		['', 'UTC', false],
		['2026-11-28T01:30:00', 'Africa/Nairobi', false],
		['2026-11-28T01:29:59', 'Africa/Nairobi', true],
		['2026-11-27T22:30:00+00:00', 'Africa/Nairobi', false],
		// A Valid Until that names no date ends the grant: it is never read as "no end".
		['27/11/2027', 'UTC', true],
		['next friday', 'UTC', true],
		['2026-02-30', 'UTC', true],
		['2027-01-01', 'Not/AZone', true],
	])('%s in %s: expired %s', (until, zone, expired) => {
		expect(grantExpired(until, zone, now)).toBe(expired);
	});
});

describe('A1 over-limit amounts are refused, not split', () => {
	it('1,500 over a cap of 1,000 is refused; the model splitting it into 2 x 750 is stopped by the run total', async () => {
		const before = await payouts();
		const result = await run(
			workflow(
				TOOL,
				payoutParameters({
					allowMoneyMoves: true,
					spendingLimits: { maxAmount: 1000, maxTotalPerExecution: 1000 },
				}),
				[
					call({ amount: 1500, to: '254712345670' }),
					call({ amount: 750, to: '254712345670' }),
					call({ amount: 750, to: '254712345671' }),
				],
			),
		);
		const [whole, firstHalf, secondHalf] = outputs(result);
		expect(whole).toMatchObject({ refused: true, limit: { field: 'maxAmount' } });
		expect(firstHalf).toMatchObject({ outcome: 'accepted', amount: 750 });
		expect(secondHalf).toMatchObject({ refused: true, limit: { field: 'maxTotalPerExecution' } });
		expect((await newPayouts(before)).map((p) => p.amount)).toEqual([750]);
	});
});

describe('A3 invented numbers are refused before any call', () => {
	it('a number off the allowlist and a number that is not one send nothing', async () => {
		const parameters = payoutParameters({
			allowMoneyMoves: true,
			spendingLimits: { allowedRecipients: '254712345670' },
		});
		const offList = await run(
			workflow(TOOL, parameters, [call({ amount: 100, to: '254711111111' })]),
		);
		expect(outputs(offList)[0]).toMatchObject({
			refused: true,
			limit: { field: 'allowedRecipients' },
		});
		const notANumber = await run(
			workflow(TOOL, parameters, [call({ amount: 100, to: 'Amina (ask her)' })]),
		);
		expect(notANumber.error?.message).toMatch(/Destination Number/);
		expect(await moneyRequests()).toEqual([]);
	});
});

describe('A7 a crash mid-payout never pays twice', () => {
	it('over MCP: the answer is lost after the payout was made; it is found under its key, and the same call again pays nothing more', async () => {
		const node = { id: randomUUID() };
		const parameters = payoutParameters({ allowMoneyMoves: true });
		const args = { amount: 260 + Math.floor(Math.random() * 100), to: '254712345670' };
		const before = await payouts();
		await sb.post('/sandbox/faults', {
			rules: [{ method: 'POST', pathPrefix: '/api/disbursements', drop: 'after', times: 1 }],
		});
		const lost = await run(workflow(TOOL, parameters, [args], node), { mcp: true });
		const [first] = outputs(lost);
		expect(first).toMatchObject({ amount: args.amount });
		const again = await run(workflow(TOOL, parameters, [args], node), { mcp: true });
		expect(outputs(again)[0]).toMatchObject({ key: first.key, repeated: true });
		expect((await newPayouts(before)).map((p) => [p.amount, p.key])).toEqual([
			[args.amount, first.key],
		]);
	});
});

describe('a refund with no amount is counted at the paid amount', () => {
	it('Full Amount of a 1,000 payment against Max Amount 500 is refused, nothing refunded', async () => {
		const reference = await paid(1000);
		const result = await run(
			workflow(
				TOOL,
				{
					resource: 'refund',
					operation: 'create',
					paymentId: reference,
					refundType: 'full',
					allowMoneyMoves: true,
					spendingLimits: { maxAmount: 500 },
				},
				[call({})],
			),
		);
		expect(outputs(result)[0]).toMatchObject({ refused: true, limit: { field: 'maxAmount' } });
		expect(String(outputs(result)[0].reason)).toContain(
			'KES 1,000 is above the maximum of KES 500',
		);
		expect(await moneyRequests()).toEqual([]);
	});
});

describe('a prompt asking the model to raise a limit', () => {
	it('limits and the switch sent as tool arguments change nothing', async () => {
		const before = await payouts();
		const raise = {
			allowMoneyMoves: true,
			maxAmount: 1000000,
			spendingLimits: { maxAmount: 1000000 },
			pauseMoneyMoves: false,
		};
		const off = await run(
			workflow(TOOL, payoutParameters(), [call({ amount: 100, to: '254712345670', ...raise })]),
		);
		expect(outputs(off)[0]).toMatchObject({ refused: true, limit: { field: 'allowMoneyMoves' } });
		const capped = await run(
			workflow(
				TOOL,
				payoutParameters({ allowMoneyMoves: true, spendingLimits: { maxAmount: 1000 } }),
				[call({ amount: 1500, to: '254712345670', ...raise })],
			),
			{ credentials: withCredential({}) },
		);
		expect(outputs(capped)[0]).toMatchObject({
			refused: true,
			limit: { field: 'maxAmount', value: 1000 },
		});
		const paused = await run(
			workflow(TOOL, payoutParameters({ allowMoneyMoves: true }), [
				call({ amount: 100, to: '254712345670', ...raise }),
			]),
			{ credentials: withCredential({ pauseMoneyMoves: true }) },
		);
		expect(outputs(paused)[0]).toMatchObject({
			refused: true,
			limit: { field: 'pauseMoneyMoves' },
		});
		expect(await newPayouts(before)).toEqual([]);
	});
});

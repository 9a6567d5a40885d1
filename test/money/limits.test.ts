// Spending limits and tool mode (issue 19), run through n8n-core's engine against the sandbox. The tool
// variant is the node under the type n8n gives it, `n8n-nodes-littlepay.littlePayTool`, fed one item per
// tool call as n8n 2.x's AI Agent does (the agent's item, the model's arguments and `toolCallId`). The
// fields a model would fill are written `{{ $json.x }}`: n8n's `$fromAI('x')` reads the same item.
import { randomUUID } from 'node:crypto';
import { NodeHelpers, Workflow } from 'n8n-workflow';
import type { INode, INodeTypes } from 'n8n-workflow';

import { LittlePay } from '../../nodes/LittlePay/LittlePay.node';
import { chatWorkflow, toolAnswers } from '../../testkit/agentCall';
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
type Refund = { reference: string; amount: number };

const {
	withCredential: withCredentialLimits,
	payouts,
	run,
	newPayouts,
	moneyRequests,
	paid,
} = moneyRun(sb);

const refundParameters = (extra: Json = {}): Json => ({
	resource: 'refund',
	operation: 'create',
	paymentId: '={{ $json.paymentId }}',
	refundType: 'partial',
	amount: '={{ $json.amount }}',
	...extra,
});

describe('tool mode: money moves are off until the author turns them on', () => {
	it('a payout tool at its defaults is refused as data, and nothing is sent', async () => {
		const before = await payouts();
		const result = await run(
			workflow(TOOL, payoutParameters(), [call({ amount: 9999999, to: '254712345670' })]),
		);
		expect(result.error).toBeUndefined();
		expect(outputs(result)).toEqual([
			{
				refused: true,
				reason:
					"This tool may not pay out: the workflow's author has not turned on Allow Money Moves as a Tool",
				limit: {
					field: 'allowMoneyMoves',
					label: 'Allow Money Moves as a Tool',
					value: false,
					setOn: 'node',
				},
				sent: false,
				whatToDo:
					'Tell the user that a person has to do this; nothing was sent. Inform the user; do not retry this call, split it into smaller ones or try another way.',
				gateway: 'sandbox',
			},
		]);
		// No payout run summary above a tool's answer: it sent nothing, and says so itself.
		expect(result.hints('Little Pay').map((hint) => hint.message)).not.toContainEqual(
			expect.stringMatching(/^Payout run:/),
		);
		expect(await sb.received()).toEqual([]);
		expect(await newPayouts(before)).toEqual([]);
	});

	it.each([
		[
			'Payment Intent: Create',
			{
				resource: 'paymentIntent',
				operation: 'create',
				amount: 10,
				description: 'Order 1',
				callbackUrl: 'http://127.0.0.1:9/cb',
			},
		],
		[
			'Mobile Money: Collect',
			{
				resource: 'mobileMoney',
				operation: 'collect',
				amount: 10,
				description: 'Order 1',
				callbackUrl: 'http://127.0.0.1:9/cb',
				mobile: '0712345670',
			},
		],
		[
			'Mobile Money: Request Payment',
			{
				resource: 'mobileMoney',
				operation: 'requestPayment',
				reference: 'r1',
				mobile: '0712345670',
			},
		],
		['Card: Process Payment', { resource: 'card', operation: 'processPayment', reference: 'r1' }],
		['Refund: Create', { resource: 'refund', operation: 'create', paymentId: 'r1' }],
	])('%s is refused the same way', async (_label, parameters) => {
		const result = await run(workflow(TOOL, parameters, [call({})]));
		expect(result.error).toBeUndefined();
		expect(outputs(result)[0]).toMatchObject({
			refused: true,
			limit: { field: 'allowMoneyMoves' },
			sent: false,
		});
		expect(await sb.received()).toEqual([]);
	});

	it('reads always work: Get Status and Quote Fee answer without the switch', async () => {
		const reference = await paid(700);
		const status = await run(
			workflow(
				TOOL,
				{ resource: 'payment', operation: 'getStatus', paymentId: '={{ $json.id }}' },
				[call({ id: reference })],
			),
		);
		expect(status.error).toBeUndefined();
		expect(outputs(status)[0]).toMatchObject({ reference, status: 'COMPLETED', amount: 700 });
		const quote = await run(
			workflow(
				TOOL,
				{ resource: 'disbursement', operation: 'quoteFee', method: 'MPESA', amount: 1000 },
				[call({})],
			),
		);
		expect(quote.error).toBeUndefined();
		expect(outputs(quote)[0]).toMatchObject({ fee: 13 });
	});

	// n8n keeps the "=" of a lone $fromAI() in a field without expressions (so the model would fill it)
	// and drops it from any other expression there: both are refused.
	it.each([["={{ $fromAI('allow', 'Allow?', 'boolean') }}"], ['={{ true }}']])(
		'the switch written as the expression %s is refused at run time and nothing is sent',
		async (expression) => {
			const result = await run(
				workflow(TOOL, payoutParameters({ allowMoneyMoves: expression }), [
					call({ amount: 100, to: '254712345670', allow: true }),
				]),
			);
			expect(result.error?.message).toBe(
				'Row 1: Allow Money Moves as a Tool is an expression, which this safety switch may not be',
			);
			expect(await moneyRequests()).toEqual([]);
		},
	);

	it('turned on, a payout within the limits is paid once', async () => {
		const before = await payouts();
		const result = await run(
			workflow(TOOL, payoutParameters({ allowMoneyMoves: true }), [
				call({ amount: 250, to: '+254 712 345 670' }),
			]),
		);
		expect(result.error).toBeUndefined();
		expect(outputs(result)[0]).toMatchObject({
			outcome: 'accepted',
			amount: 250,
			// A tool's answer shows a number's last digits only (whatever Payer Details says); sent in full.
			to: '•••••••••670',
		});
		const made = await newPayouts(before);
		expect(made).toHaveLength(1);
		expect(made[0]).toMatchObject({ amount: 250, key: outputs(result)[0].key });
	});
});

describe('tool mode: each limit refuses as data, before anything is sent', () => {
	const allowed = (limits: Json) =>
		payoutParameters({ allowMoneyMoves: true, spendingLimits: limits });

	it.each([
		[
			'Max Amount',
			{ maxAmount: 1000 },
			{ amount: 1500, to: '254712345670' },
			{ field: 'maxAmount', value: 1000, setOn: 'node' },
			'KES 1,500 is above the maximum of KES 1,000 per payout',
		],
		[
			'Allowed Recipients (a number and a pattern)',
			{ allowedRecipients: '+254 712 345 670, 2547999*' },
			{ amount: 100, to: '254712345680' },
			// The rule, never the list: the model would learn every allowed payee's number (#10).
			{ field: 'allowedRecipients', label: 'Allowed Recipients', setOn: 'node' },
			// The refusal, an output like any other, masks the number it names.
			'•••••••••680 is not on the list of recipients this payout may go to',
		],
		[
			'Allowed Networks',
			{ allowedNetworks: ['MPESA'] },
			{ amount: 100, to: '254712345670', network: 'AIRTEL' },
			{ field: 'allowedNetworks', value: ['MPESA'] },
			'AIRTEL is not an allowed network for this payout',
		],
		[
			'Allowed Currencies',
			{ allowedCurrencies: 'KES' },
			{ amount: 100, to: '256712345670', network: 'AIRTEL', currency: 'UGX' },
			{ field: 'allowedCurrencies', value: ['KES'] },
			'UGX is not an allowed currency for this payout',
		],
	])('%s', async (_label, limits, args, limit, reason) => {
		const before = await payouts();
		const result = await run(workflow(TOOL, allowed(limits), [call(args)]));
		expect(result.error).toBeUndefined();
		const [out] = outputs(result);
		expect(out).toMatchObject({ refused: true, sent: false, limit });
		if (limit.field === 'allowedRecipients') expect(out.limit).not.toHaveProperty('value');
		expect(String(out.reason)).toContain(reason);
		expect(await moneyRequests()).toEqual([]);
		expect(await newPayouts(before)).toEqual([]);
	});

	it('a pattern on the allowlist lets a matching number through', async () => {
		const before = await payouts();
		const result = await run(
			workflow(TOOL, allowed({ allowedRecipients: '2547123456*' }), [
				call({ amount: 100, to: '0712345670' }),
			]),
		);
		expect(outputs(result)[0]).toMatchObject({ outcome: 'accepted', to: '•••••••••670' });
		const made = await newPayouts(before);
		expect(made).toHaveLength(1);
		// The national number typed is sent normalised, in full.
		expect(JSON.stringify(made[0])).toContain('254712345670');
	});

	it('Max Count and Max Total per Execution count the calls of one execution', async () => {
		const before = await payouts();
		const counted = await run(
			workflow(TOOL, allowed({ maxCountPerExecution: 2 }), [
				call({ amount: 100, to: '254712345670' }),
				call({ amount: 101, to: '254712345670' }),
				call({ amount: 102, to: '254712345670' }),
			]),
		);
		const counts = outputs(counted);
		expect(counts.map((o) => o.refused ?? false)).toEqual([false, false, true]);
		expect(counts[2]).toMatchObject({
			limit: { field: 'maxCountPerExecution', value: 2, setOn: 'node' },
			reason:
				"This would be money move 3 in this execution; at most 2 are allowed (set on this node's Spending Limits)",
		});
		const totalled = await run(
			workflow(TOOL, allowed({ maxTotalPerExecution: 1000 }), [
				call({ amount: 600, to: '254712345670' }),
				call({ amount: 500, to: '254712345670' }),
				call({ amount: 400, to: '254712345670' }),
			]),
		);
		const totals = outputs(totalled);
		expect(totals.map((o) => o.refused ?? false)).toEqual([false, true, false]);
		expect(totals[1]).toMatchObject({
			limit: { field: 'maxTotalPerExecution', value: 1000 },
			whatToDo:
				'At most KES 400 more can be moved in this execution. Inform the user; do not retry this call, split it into smaller ones or try another way.',
		});
		expect((await newPayouts(before)).map((p) => p.amount).sort()).toEqual([100, 101, 400, 600]);
	});

	it('a limit on the credential binds the tool too, and the stricter limit wins', async () => {
		const before = await payouts();
		const result = await run(
			workflow(TOOL, allowed({ maxAmount: 5000 }), [call({ amount: 800, to: '254712345670' })]),
			{ credentials: withCredentialLimits({ maxPayoutAmount: 500 }) },
		);
		expect(outputs(result)[0]).toMatchObject({
			refused: true,
			limit: { field: 'maxAmount', label: 'Max Payout Amount', value: 500, setOn: 'credential' },
		});
		expect(await newPayouts(before)).toEqual([]);
	});

	it.each([["={{ $fromAI('max', 'Limit', 'number') }}"], ['={{ $json.max ?? 100000 }}']])(
		'a limit written as the expression %s is refused at run time and nothing is sent',
		async (expression) => {
			const result = await run(
				workflow(TOOL, allowed({ maxAmount: expression }), [
					call({ amount: 100, to: '254712345670', max: 99999999 }),
				]),
			);
			expect(result.error?.message).toBe(
				'Row 1: Max Amount in Spending Limits is an expression, which a limit may not be',
			);
			expect(result.error?.description).toMatch(/switch the field from Expression to Fixed/);
			expect(await moneyRequests()).toEqual([]);
		},
	);

	it('a refund above what is still refundable (paid less refunded) is refused, a smaller one goes through', async () => {
		const reference = await paid(1000);
		await sb.post(`/api/refund/${reference}`, { amount: 300 }, sb.apiKeyHeaders);
		await sb.received();
		const result = await run(
			workflow(TOOL, refundParameters({ allowMoneyMoves: true }), [
				call({ paymentId: reference, amount: 800 }),
				call({ paymentId: reference, amount: 700 }),
			]),
		);
		const [tooMuch, rest] = outputs(result);
		expect(tooMuch).toMatchObject({
			refused: true,
			limit: { field: 'refundable', value: 700, setOn: 'gateway record' },
			reason: `KES 800 is more than the KES 700 still refundable on payment ${reference} (paid less already refunded)`,
		});
		expect(rest).toMatchObject({ reference, amount: 700, status: 'COMPLETED' });
		const refunds = (await sb.get('/sandbox/ledger')).data.data.refunds as Refund[];
		expect(refunds.filter((r) => r.reference === reference).map((r) => r.amount)).toEqual([
			300, 700,
		]);
	});
});

describe('tool mode: a call moves money at most once, and distinct calls get distinct keys', () => {
	const allowed = payoutParameters({ allowMoneyMoves: true });

	it('distinct calls in one execution get distinct generated keys', async () => {
		const result = await run(
			workflow(TOOL, allowed, [
				call({ amount: 110, to: '254712345670' }),
				call({ amount: 120, to: '254712345670' }),
			]),
		);
		const keys = outputs(result).map((o) => o.key);
		expect(keys[0]).not.toEqual(keys[1]);
		expect(keys.every((k) => /^[0-9a-f]{12}$/.test(String(k)))).toBe(true);
	});

	it('the same call in two executions (two chat turns) gets two keys', async () => {
		const node = { id: randomUUID() };
		const first = await run(
			workflow(TOOL, allowed, [call({ amount: 130, to: '254712345670' })], node),
		);
		const second = await run(
			workflow(TOOL, allowed, [call({ amount: 130, to: '254712345670' })], node),
		);
		expect(outputs(first)[0].key).not.toEqual(outputs(second)[0].key);
	});

	it('an identical call repeated in the same execution returns the first answer and pays once', async () => {
		const before = await payouts();
		const args = { amount: 140, to: '254712345670' };
		const result = await run(workflow(TOOL, allowed, [call(args), call(args)]));
		const [first, repeat] = outputs(result);
		expect(first.repeated).toBeUndefined();
		expect(repeat).toMatchObject({
			id: first.id,
			key: first.key,
			outcome: 'accepted',
			repeated: true,
		});
		expect(await newPayouts(before)).toHaveLength(1);
	});

	it('an identical refund repeated in the same execution refunds once', async () => {
		const reference = await paid(900);
		const args = { paymentId: reference, amount: 200 };
		const result = await run(
			workflow(TOOL, refundParameters({ allowMoneyMoves: true }), [call(args), call(args)]),
		);
		expect(outputs(result).map((o) => o.repeated ?? false)).toEqual([false, true]);
		const refunds = (await sb.get('/sandbox/ledger')).data.data.refunds as Refund[];
		expect(refunds.filter((r) => r.reference === reference)).toHaveLength(1);
	});

	it('MCP path (no execution): distinct calls get distinct keys, an identical one pays nothing new', async () => {
		const node = { id: randomUUID() };
		const before = await payouts();
		const first = await run(workflow(TOOL, allowed, [{ amount: 150, to: '254712345670' }], node), {
			mcp: true,
		});
		const other = await run(workflow(TOOL, allowed, [{ amount: 160, to: '254712345670' }], node), {
			mcp: true,
		});
		const again = await run(workflow(TOOL, allowed, [{ amount: 150, to: '254712345670' }], node), {
			mcp: true,
		});
		expect(outputs(first)[0].key).not.toEqual(outputs(other)[0].key);
		expect(outputs(again)[0]).toMatchObject({ key: outputs(first)[0].key, repeated: true });
		expect((await newPayouts(before)).map((p) => p.amount).sort()).toEqual([150, 160]);
	});

	it('MCP in queue mode (an execution per call, no toolCallId): the same call in a second execution pays nothing new', async () => {
		const node = { id: randomUUID() };
		const before = await payouts();
		const args = { amount: 155, to: '254712345670' };
		const first = await run(workflow(TOOL, allowed, [args], node));
		const again = await run(workflow(TOOL, allowed, [args], node));
		const other = await run(workflow(TOOL, allowed, [{ ...args, amount: 165 }], node));
		expect(outputs(again)[0]).toMatchObject({ key: outputs(first)[0].key, repeated: true });
		expect(outputs(other)[0].key).not.toEqual(outputs(first)[0].key);
		expect((await newPayouts(before)).map((p) => p.amount)).toEqual([155, 165]);
	});

	it('MCP path (no execution): Max Total per Execution counts the calls of the last hour', async () => {
		const node = { id: randomUUID() };
		const limited = payoutParameters({
			allowMoneyMoves: true,
			spendingLimits: { maxTotalPerExecution: 300 },
		});
		const results: Json[] = [];
		for (const amount of [170, 180]) {
			const result = await run(workflow(TOOL, limited, [{ amount, to: '254712345670' }], node), {
				mcp: true,
			});
			results.push(outputs(result)[0]);
		}
		expect(results[0]).toMatchObject({ outcome: 'accepted', amount: 170 });
		expect(results[1]).toMatchObject({
			refused: true,
			limit: { field: 'maxTotalPerExecution', value: 300 },
		});
	});

	it('Retry On Fail resends a payout only under its key: a lost answer is found, not paid twice', async () => {
		const before = await payouts();
		// The payout is made but its answer lost, and every lookup fails too: the try ends unknown. (No
		// charges read first, so the faults hit only the payout and its lookups.)
		await sb.post('/sandbox/faults', {
			rules: [
				{ method: 'POST', pathPrefix: '/api/disbursements', drop: 'after', times: 1 },
				{ method: 'GET', pathPrefix: '/api/disbursements/', status: 503, times: 5 },
			],
		});
		const result = await run(
			workflow(
				TOOL,
				{ ...allowed, options: { checkLimits: false } },
				[call({ amount: 190, to: '254712345670' })],
				{
					retryOnFail: true,
					maxTries: 2,
					waitBetweenTries: 0,
				},
			),
		);
		expect(result.error).toBeUndefined();
		const [out] = outputs(result);
		const made = await newPayouts(before);
		expect(made).toHaveLength(1);
		expect(out).toMatchObject({ key: made[0].key, alreadyExisted: true });
	});
});

describe('tool mode: a chat session ties its messages together (AI Agent, one execution per message)', () => {
	/** One chat message's execution: the Chat Trigger's item, the agent merging the model's arguments. */
	const chat = (
		sessionId: string,
		chatInput: string,
		parameters: Json,
		calls: Json[],
		node: Json = {},
	) => chatWorkflow(TOOL, parameters, { sessionId, chatInput, action: 'sendMessage' }, calls, node);
	const answers = toolAnswers;

	it('an identical payout asked for again in a later message pays nothing new; another session pays', async () => {
		const node = { id: randomUUID() };
		const allowed = payoutParameters({ allowMoneyMoves: true });
		const session = randomUUID();
		const args = { amount: 210, to: '254712345670' };
		const before = await payouts();
		const first = await run(chat(session, 'pay Amina 210', allowed, [args], node));
		const again = await run(chat(session, 'did you pay Amina? pay her 210', allowed, [args], node));
		const other = await run(chat(randomUUID(), 'pay Amina 210', allowed, [args], node));
		expect(answers(again)[0]).toMatchObject({
			id: answers(first)[0].id,
			key: answers(first)[0].key,
			repeated: true,
		});
		expect(answers(other)[0].repeated).toBeUndefined();
		expect((await newPayouts(before)).map((p) => p.key)).toEqual([
			answers(first)[0].key,
			answers(other)[0].key,
		]);
	});

	it('the chat message merged into the call does not make an identical call look new', async () => {
		const before = await payouts();
		const args = { amount: 220, to: '254712345670' };
		const result = await run(
			workflow(TOOL, payoutParameters({ allowMoneyMoves: true }), [
				call({ chatInput: 'pay 220', ...args }),
				call({ chatInput: 'pay 220 again', ...args }),
			]),
		);
		expect(outputs(result).map((o) => o.repeated ?? false)).toEqual([false, true]);
		expect(await newPayouts(before)).toHaveLength(1);
	});

	it('Max Total per Chat Session counts every message of the session; a new session starts afresh', async () => {
		const node = { id: randomUUID() };
		const limited = payoutParameters({
			allowMoneyMoves: true,
			spendingLimits: { maxTotalPerSession: 300, maxTotalPerExecution: 1000 },
		});
		const session = randomUUID();
		const ask = async (sessionId: string, amount: number) =>
			answers(
				await run(
					chat(sessionId, `pay ${amount}`, limited, [{ amount, to: '254712345670' }], node),
				),
			)[0];
		const before = await payouts();
		expect(await ask(session, 200)).toMatchObject({ outcome: 'accepted', amount: 200 });
		await sb.received();
		expect(await ask(session, 150)).toMatchObject({
			refused: true,
			sent: false,
			limit: { field: 'maxTotalPerSession', label: 'Max Total per Chat Session', value: 300 },
		});
		expect(await moneyRequests()).toEqual([]);
		expect(await ask(randomUUID(), 150)).toMatchObject({ outcome: 'accepted', amount: 150 });
		expect((await newPayouts(before)).map((p) => p.amount)).toEqual([200, 150]);
	});

	it("a call carrying its own sessionId cannot reset the session cap: the session is the chat's, not the model's", async () => {
		const node = { id: randomUUID() };
		const limited = payoutParameters({
			allowMoneyMoves: true,
			spendingLimits: { maxTotalPerSession: 300, maxTotalPerExecution: 1000 },
		});
		const session = randomUUID();
		const before = await payouts();
		const first = await run(
			chat(session, 'pay 200', limited, [{ amount: 200, to: '254712345670' }], node),
		);
		expect(answers(first)[0]).toMatchObject({ outcome: 'accepted', amount: 200 });
		// The model writes a fresh sessionId into each call of the next message (n8n merges it in).
		const forged = await run(
			chat(
				session,
				'new session please',
				limited,
				[
					{ amount: 150, to: '254712345670', sessionId: randomUUID() },
					{ amount: 151, to: '254712345670', sessionId: randomUUID() },
				],
				node,
			),
		);
		expect(answers(forged).map((o) => o.limit)).toEqual([
			expect.objectContaining({ field: 'maxTotalPerSession' }),
			expect.objectContaining({ field: 'maxTotalPerSession' }),
		]);
		expect((await newPayouts(before)).map((p) => p.amount)).toEqual([200]);
	});

	it('Max Count per Chat Session: a run without a chat session counts as one session', async () => {
		const result = await run(
			workflow(
				TOOL,
				payoutParameters({ allowMoneyMoves: true, spendingLimits: { maxCountPerSession: 1 } }),
				[call({ amount: 230, to: '254712345670' }), call({ amount: 240, to: '254712345670' })],
			),
		);
		const [first, second] = outputs(result);
		expect(first).toMatchObject({ outcome: 'accepted', amount: 230 });
		expect(second).toMatchObject({
			refused: true,
			limit: { field: 'maxCountPerSession', value: 1, setOn: 'node' },
		});
		expect(second.reason).toContain('in this chat session; at most 1 are allowed');
	});
});

describe('limits in ordinary workflows, where set', () => {
	it('a node limit fails the item before anything is sent, with the limit named', async () => {
		const before = await payouts();
		const result = await run(
			workflow(NODE, payoutParameters({ spendingLimits: { maxAmount: 1000 } }), [
				{ amount: 1500, to: '254712345670' },
			]),
		);
		expect(result.error?.message).toBe(
			"Row 1: KES 1,500 is above the maximum of KES 1,000 per payout (set on this node's Spending Limits)",
		);
		expect(await moneyRequests()).toEqual([]);
		expect(await newPayouts(before)).toEqual([]);
	});

	it('a credential count limit binds a payout run: the third payout fails alone under Continue On Fail', async () => {
		const before = await payouts();
		const result = await run(
			workflow(
				NODE,
				payoutParameters(),
				[
					{ amount: 200, to: '254712345670' },
					{ amount: 201, to: '254712345670' },
					{ amount: 202, to: '254712345670' },
				],
				{ onError: 'continueRegularOutput' },
			),
			{ credentials: withCredentialLimits({ maxCountPerExecution: 2 }) },
		);
		expect(result.error).toBeUndefined();
		const out = outputs(result);
		expect(out[2]).toEqual({
			error:
				'Row 3: This would be money move 3 in this execution; at most 2 are allowed (set on the credential)',
			description: 'Nothing more can be sent in this execution; have a person make this one',
			key: null,
			itemIndex: 2,
			row: 3,
			failureCode: 'limit-refused',
			retry: 'no',
			nextStep: expect.any(String),
			gateway: 'sandbox',
		});
		expect((await newPayouts(before)).map((p) => p.amount).sort()).toEqual([200, 201]);
	});

	it.each([
		['retried from the Executions list', false],
		["the node's own Retry On Fail", true],
	])(
		'a payout run under a count limit of 3 whose third payout was lost, %s: each paid once, none refused',
		async (_label, retryOnFail) => {
			const before = await payouts();
			const base = 3000 + Math.floor(Math.random() * 9000);
			const items = [base, base + 1, base + 2].map((amount) => ({ amount, to: '254712345670' }));
			const json = workflow(
				NODE,
				payoutParameters({ options: { checkLimits: false } }),
				items,
				retryOnFail ? { retryOnFail: true, maxTries: 2, waitBetweenTries: 0 } : {},
			);
			const credentials = withCredentialLimits({ maxCountPerExecution: 3 });
			// The first two payouts go through; the third is made but its answer and lookups are lost.
			await sb.post('/sandbox/faults', {
				rules: [
					{ method: 'POST', pathPrefix: '/api/disbursements', times: 2 },
					{ method: 'POST', pathPrefix: '/api/disbursements', drop: 'after', times: 1 },
					{ method: 'GET', pathPrefix: '/api/disbursements/', status: 503, times: 5 },
				],
			});
			let result = await run(json, { credentials });
			if (!retryOnFail) {
				expect(result.error?.message).toMatch(/Row 3: the outcome of the payout is unknown/);
				result = await run(json, { credentials, retryOf: result });
			}
			expect(result.error).toBeUndefined();
			expect(outputs(result).map((o) => o.refused ?? o.error ?? 'paid')).toEqual([
				'paid',
				'paid',
				'paid',
			]);
			const made = await newPayouts(before);
			expect(made.map((p) => p.amount).sort()).toEqual([base, base + 1, base + 2]);
		},
	);

	it('the same call twice in an ordinary workflow is two payouts (repeats are a tool-mode rule)', async () => {
		const before = await payouts();
		const result = await run(
			workflow(NODE, payoutParameters({ spendingLimits: { maxAmount: 1000 } }), [
				{ amount: 210, to: '254712345670' },
				{ amount: 210, to: '254712345670' },
			]),
		);
		expect(result.error).toBeUndefined();
		expect(await newPayouts(before)).toHaveLength(2);
	});
});

describe("the tool's default description", () => {
	/** The description n8n gives the model for a tool node, rendered as n8n renders it. */
	function describeTool(parameters: Json): string {
		const tool = new LittlePay();
		tool.description = { ...tool.description, name: 'littlePayTool' };
		const nodeTypes = {
			getByName: () => tool,
			getByNameAndVersion: () => tool,
			getKnownTypes: () => ({}),
		} as unknown as INodeTypes;
		const workflow = new Workflow({
			nodes: [
				{
					id: 'tool',
					name: 'Pay',
					type: TOOL,
					typeVersion: 1,
					position: [0, 0],
					parameters: parameters as INode['parameters'],
				},
			],
			connections: {},
			nodeTypes,
			active: false,
		});
		const node = workflow.getNode('Pay') as INode;
		return String(
			NodeHelpers.getToolDescriptionForNode(node, tool, () =>
				String(
					workflow.expression.getParameterValue(
						node.parameters.toolDescription as string,
						null,
						0,
						0,
						'Pay',
						[{ json: {} }],
						'internal',
						{},
					),
				),
			),
		);
	}

	it('states units, number formats and the limits in force for a payout tool', () => {
		const text = describeTool({
			resource: 'disbursement',
			operation: 'create',
			spendingLimits: {
				maxAmount: 5000,
				maxTotalPerExecution: 20000,
				maxTotalPerSession: 30000,
				allowedRecipients: '+254712345670, 2547*',
				allowedNetworks: ['MPESA'],
			},
		});
		expect(text).toContain(
			"Amounts are in the currency's main unit, not cents: 1500 means KES 1,500.",
		);
		expect(text).toContain('Phone numbers with their country code, as +254712345678');
		expect(text).toContain('returns refused: true with the reason and the limit');
		expect(text).toContain(
			'Limits in force: at most 5000 per call; at most 20000 in total per agent run (over MCP: per hour), per currency; at most 30000 in total per chat session, per currency; networks MPESA; only to these numbers: +254712345670, 2547*.',
		);
	});

	it('counts one call in the singular: "at most 1 call that moves money", not "1 calls"', () => {
		const one = describeTool({
			resource: 'disbursement',
			operation: 'create',
			spendingLimits: { maxCountPerExecution: 1, maxCountPerSession: 3 },
		});
		expect(one).toContain('at most 1 call that moves money per agent run (over MCP: per hour)');
		expect(one).toContain('at most 3 calls that move money per chat session');
		expect(one).not.toMatch(/\b1 calls\b/);
	});

	it("keeps a 0.1.0 tool's manual description (n8n's selector set to Set Manually)", () => {
		expect(
			describeTool({
				resource: 'refund',
				operation: 'create',
				descriptionType: 'manual',
				toolDescription: 'Refunds an order',
			}),
		).toBe('Refunds an order');
	});

	it('says limits may be set when the node has none, and reads keep n8n own description', () => {
		expect(describeTool({ resource: 'refund', operation: 'create' })).toContain(
			'The workflow owner may set limits; a refusal names the one that applied.',
		);
		expect(describeTool({ resource: 'payment', operation: 'getStatus' })).toBe(
			'Get the status of a payment in Little Pay',
		);
	});
});

// Card (3-D Secure): token, device data page, enrolment, step-up page and process, run as workflows
// through n8n-core's engine against the sandbox. Card numbers and CVVs must never come back out.
import axios from 'axios';

import { loadFixture, runWorkflow } from '../../testkit/engine';
import type { RunResult, WorkflowJson } from '../../testkit/engine';
import { useNodeTestSandbox } from '../../testkit/nodeSandbox';

const sb = useNodeTestSandbox();

const CARDS = {
	frictionless: '4111111111111111',
	challenge: '5200000000002151',
	enrolFails: '4000000000000010',
	declined: '4000000000000002',
};
const CVV = '737';
const LIVE = 'https://pay.little.africa';

function cardItem(reference: string, cardNumber: string, overrides: Record<string, unknown> = {}) {
	return { reference, cardNumber, cvv: CVV, expiry: '01/39', name: 'Amina Wanjiru', ...overrides };
}

async function run(
	fixture: string,
	items: Array<Record<string, unknown>>,
	onError = 'stopWorkflow',
): Promise<RunResult> {
	return runWorkflow(loadFixture(fixture, { ITEMS: JSON.stringify(items), ON_ERROR: onError }), {
		credentials: sb.credentials,
	});
}

/** Everything the Little Pay nodes produced: outputs and errors of every run. */
function littlePayRunData(result: RunResult): string {
	const runData = result.run.data.resultData.runData;
	return JSON.stringify(Object.entries(runData).filter(([name]) => name !== 'Items'));
}

describe('Card (3-D Secure)', () => {
	it('pays a frictionless card: token, device data page, enrolment MAKE_PAYMENT, process COMPLETED', async () => {
		const { reference } = await sb.createIntent();
		const result = await run('card-frictionless.json', [cardItem(reference, CARDS.frictionless)]);
		expect(result.error).toBeUndefined();
		const token = result.output('Card Token')[0].json;
		expect(token).toMatchObject({
			reference,
			accessToken: expect.any(String),
			deviceDataCollectionUrl: `${sb.base}/sandbox/3ds/collect`,
			card: { brand: 'VISA', last4: '1111', masked: '************1111' },
		});
		const page = result.output('Device Page')[0].json;
		expect(page.messageOrigin).toBe(new URL(sb.base).origin);
		expect(page.html).toContain(`action="${sb.base}/sandbox/3ds/collect"`);
		expect(page.html).toContain(`name="JWT" value="${token.accessToken as string}"`);
		expect(result.output('Enrolment')[0].json).toMatchObject({
			reference,
			action: 'MAKE_PAYMENT',
			stepUpUrl: null,
		});
		expect(result.output('Process')[0].json).toMatchObject({
			reference,
			status: 'COMPLETED',
			provider: 'CARDS',
		});
		expect((await sb.status(reference)).status).toBe('COMPLETED');
		const enrolRequest = (await sb.received()).find((r) => r.path === `/pay/${reference}/enroll`);
		// Form-posted strings from the device page arrive as numbers; unset fields use desktop defaults.
		expect(enrolRequest?.body).toEqual({
			deviceInformation: {
				httpBrowserColorDepth: 24,
				httpBrowserJavaEnabled: false,
				httpBrowserJavaScriptEnabled: true,
				httpBrowserLanguage: 'en-KE',
				httpBrowserScreenHeight: 1080,
				httpBrowserScreenWidth: 1440,
				httpBrowserTimeDifference: -180,
			},
		});
		const everything = littlePayRunData(result);
		expect(everything).not.toContain(CARDS.frictionless);
		expect(everything).not.toContain(`"${CVV}"`);
	});

	it('returns a declined card and a failed enrolment as status FAILED outputs, not errors', async () => {
		const declined = await sb.createIntent();
		const enrolFails = await sb.createIntent();
		const result = await run('card-frictionless.json', [
			cardItem(declined.reference, CARDS.declined),
			cardItem(enrolFails.reference, CARDS.enrolFails),
		]);
		expect(result.error).toBeUndefined();
		expect(result.output('Enrolment').map((i) => i.json.action)).toEqual([
			'MAKE_PAYMENT',
			'FAILED',
		]);
		expect(result.output('Enrolment')[1].json.nextStep).toMatch(/another payment method/);
		const processed = result.output('Process').map((i) => i.json);
		expect(processed[0]).toMatchObject({
			status: 'FAILED',
			message: expect.stringMatching(/declined/i),
			failureCode: 'card-declined',
			retry: 'new-attempt',
		});
		expect(processed[1]).toMatchObject({
			status: 'FAILED',
			message: expect.stringMatching(/enrolment failed/i),
			failureCode: 'card-not-enrolled',
		});
		expect(result.output('Process').map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});

	it.each([
		['approve', 'COMPLETED', undefined],
		['decline', 'FAILED', 'authentication-declined'],
		['abandon', 'FAILED', 'authentication-failed'],
	])(
		'builds the step-up page for a challenge card; after the cardholder chooses %s the payment is %s (%s)',
		async (decision, expected, failureCode) => {
			const { reference } = await sb.createIntent();
			const result = await run('card-step-up.json', [cardItem(reference, CARDS.challenge)]);
			expect(result.error).toBeUndefined();
			const enrolment = result.output('Enrolment')[0].json;
			expect(enrolment).toMatchObject({
				action: 'AUTHENTICATE',
				stepUpUrl: `${sb.base}/sandbox/3ds/step-up`,
				accessToken: expect.any(String),
			});
			const html = result.output('Step-Up Page')[0].json.html as string;
			expect(html).toContain(`action="${sb.base}/sandbox/3ds/step-up"`);
			expect(html).toContain(`name="MD" value="${reference}"`);
			expect(html).toContain(`name="JWT" value="${enrolment.accessToken as string}"`);
			// What the payer's bank page would do: post the decision with the JWT and MD from the page
			// (a payer who abandons the bank's page posts nothing).
			const decide =
				decision === 'abandon'
					? { status: 302 }
					: await axios.post(
							`${sb.base}/sandbox/3ds/step-up/decide`,
							new URLSearchParams({
								JWT: String(enrolment.accessToken),
								MD: reference,
								decision,
							}).toString(),
							{
								headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
								maxRedirects: 0,
								validateStatus: () => true,
							},
						);
			expect(decide.status).toBeLessThan(400);
			const processed = await run('card-process.json', [{ reference }]);
			expect(processed.output('Process')[0].json).toMatchObject({
				status: expected,
				provider: 'CARDS',
			});
			expect(processed.output('Process')[0].json.failureCode).toBe(failureCode);
		},
	);

	it.each([
		['Card Number', { cardNumber: '4111111111111112' }],
		['Card Number', { cardNumber: '4111 1111' }],
		['CVV', { cvv: '12a' }],
		['Expiry', { expiry: '13/30' }],
		['Expiry', { expiry: '01/20' }],
		['Cardholder Name', { name: ' ' }],
	])(
		'fails the item naming %s, without the card number, and sends nothing',
		async (field, overrides) => {
			const { reference } = await sb.createIntent();
			await sb.received();
			const result = await run('card-frictionless.json', [
				cardItem(reference, CARDS.frictionless, overrides),
			]);
			expect(result.error?.message).toContain(`Row 1: ${field}`);
			expect(
				JSON.stringify({ message: result.error?.message, description: result.error?.description }),
			).not.toMatch(/4111/);
			expect(await sb.received()).toEqual([]);
		},
	);

	it('with Continue On Fail, a bad card is an error item and the good one is paid', async () => {
		const good = await sb.createIntent();
		const bad = await sb.createIntent();
		const result = await run(
			'card-frictionless.json',
			[
				cardItem(bad.reference, CARDS.frictionless, { cvv: '' }),
				cardItem(good.reference, CARDS.frictionless),
			],
			'continueRegularOutput',
		);
		const tokens = result.output('Card Token').map((i) => i.json);
		expect(tokens[0].error).toMatch(/Row 1: CVV/);
		expect(tokens[1]).toMatchObject({ reference: good.reference, card: { last4: '1111' } });
		// The error item flows on as an error at every later step; it never reaches the gateway.
		expect(result.output('Process').map((i) => i.json.status ?? 'error')).toEqual([
			'error',
			'COMPLETED',
		]);
		expect((await sb.status(good.reference)).status).toBe('COMPLETED');
		expect((await sb.status(bad.reference)).status).not.toBe('COMPLETED');
	});

	it('resolves a card payment whose answer was lost from the status record instead of charging again', async () => {
		const { reference } = await sb.createIntent();
		const setup = await run('card-step-up.json', [cardItem(reference, CARDS.frictionless)]);
		expect(setup.output('Enrolment')[0].json.action).toBe('MAKE_PAYMENT');
		await sb.post('/sandbox/faults', {
			rules: [{ method: 'POST', pathPrefix: `/pay/${reference}/process`, drop: 'after', times: 1 }],
		});
		try {
			const result = await run('card-process.json', [{ reference }]);
			expect(result.error).toBeUndefined();
			expect(result.output('Process')[0].json).toMatchObject({
				reference,
				status: 'COMPLETED',
				recovered: true,
			});
		} finally {
			await axios.delete(`${sb.base}/sandbox/faults`);
		}
		const ledger = await sb.get('/sandbox/ledger');
		const intent = (
			ledger.data.data.intents as Array<{
				reference: string;
				attempts: Array<{ provider: string }>;
			}>
		).find((i) => i.reference === reference);
		expect(intent?.attempts.filter((a) => a.provider === 'CARDS')).toHaveLength(1);
	});
});

describe('page URLs are https outside the sandbox (issue 50, point 3)', () => {
	/** A page operation alone, fed one item, with the API key credential at `baseUrl`. */
	async function page(operation: string, urlField: string, url: string, baseUrl: string) {
		const json: WorkflowJson = {
			nodes: [
				{
					id: 'Items',
					name: 'Items',
					type: 'test.fixtureItems',
					typeVersion: 1,
					position: [0, 0],
					parameters: { items: JSON.stringify([{ url }]) },
				},
				{
					id: 'Page',
					name: 'Page',
					type: 'n8n-nodes-littlepay.littlePay',
					typeVersion: 1,
					position: [200, 0],
					parameters: {
						resource: 'card',
						operation,
						reference: 'R1',
						accessToken: 'jwt',
						deviceDataCollectionUrl: 'https://centinelapistag.cardinalcommerce.com/collect',
						[urlField]: '={{ $json.url }}',
					},
				},
			],
			connections: { Items: { main: [[{ node: 'Page', type: 'main', index: 0 }]] } },
		};
		return runWorkflow(json, {
			credentials: {
				littlePayApiKeyApi: { ...sb.credentials.littlePayApiKeyApi, baseUrl },
			},
		});
	}

	it.each([
		['buildStepUpPage', 'stepUpUrl', 'Step-Up URL'],
		['buildDeviceDataCollectionPage', 'continueUrl', 'Continue URL'],
	])(
		'%s: a plain-http %s fails naming the field when the credential points at Little Pay',
		async (operation, urlField, label) => {
			const live = await page(operation, urlField, 'http://shop.example/next', LIVE);
			expect(live.error?.message).toBe(
				`Row 1: ${label} must be an https address: the page sends the payer's browser there with the payment's token`,
			);
			const https = await page(operation, urlField, 'https://shop.example/next', LIVE);
			expect(https.error).toBeUndefined();
			expect(https.output('Page')[0].json.html).toContain('https://shop.example/next');
			const sandbox = await page(operation, urlField, 'http://127.0.0.1:5678/next', sb.base);
			expect(sandbox.error).toBeUndefined();
		},
	);
});

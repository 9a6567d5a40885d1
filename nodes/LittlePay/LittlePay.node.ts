import { NodeConnectionTypes } from 'n8n-workflow';
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import { credentials, properties, subtitle } from './actions/registry';
import { router } from './actions/router';
import { resumeOnCallback, resumeWebhooks } from './callbacks/resume';

export class LittlePay implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Little Pay',
		name: 'littlePay',
		icon: { light: 'file:littlepay.svg', dark: 'file:littlepay.dark.svg' },
		group: ['transform'],
		version: 1,
		// What the canvas shows under each node, in words ("Collect · Mobile Money"): each operation's own subtitle.
		subtitle,
		description:
			'Collect M-Pesa, Airtel, MTN, Tigo Pesa and card payments, refund them and pay out with Little Pay',
		defaults: { name: 'Little Pay' },
		usableAsTool: true,
		// Credential-equivalent values n8n redacts from every stored and served execution (n8n 2.41);
		// the next node of the same execution still gets them: the 3-D Secure JWTs, the card token, and
		// the card pages' HTML, which carries the JWT.
		sensitiveOutputFields: ['accessToken', 'token', 'html'],
		// What n8n's AI workflow builder reads to find and wire this node.
		builderHint: {
			searchHint:
				'Little Pay payments in East Africa: collect mobile money (M-Pesa, Airtel, MTN, Tigo Pesa) by PIN prompt or checkout link, 3-D Secure cards, payment status and waiting, refunds, payouts (disbursements) to mobile wallets. Amounts are in the main currency unit (1500 = KES 1,500). Map a key from the data (order or payout ID) so a re-run never pays twice.',
			relatedNodes: [
				{
					nodeType: 'n8n-nodes-littlepay.littlePayTrigger',
					relationHint: "Starts a workflow from Little Pay's signed payment and refund callbacks",
				},
				{
					nodeType: 'n8n-nodes-base.dataTable',
					relationHint:
						'Keeps a row per payment or payout started, to reconcile and to run a step exactly once',
				},
				{
					nodeType: 'n8n-nodes-base.respondToWebhook',
					relationHint: "Serves the card steps' HTML pages (device check, bank check)",
				},
				{
					nodeType: 'n8n-nodes-base.wait',
					relationHint:
						'Not needed to wait for a payment: Wait for Completion holds or pauses the execution itself',
				},
			],
		},
		inputs: [NodeConnectionTypes.Main],
		// Pay Out with Options > Output Run Summary, and a Reconcile with Options > Output Summary, have a
		// second output with the run's one summary item.
		outputs: `={{ ["disbursement:create", "disbursement:reconcile", "payment:reconcile"].includes($parameter["resource"] + ":" + $parameter["operation"]) && ($parameter["options"] || {})["runSummaryOutput"] === true ? [{ "type": "${NodeConnectionTypes.Main}", "displayName": $parameter["resource"] === "payment" ? "Payments" : "Payouts" }, { "type": "${NodeConnectionTypes.Main}", "displayName": "Summary" }] : ["${NodeConnectionTypes.Main}"] }}`,
		// Resume webhooks for "Pause Until Little Pay Calls Back": nothing is registered anywhere.
		webhooks: resumeWebhooks,
		credentials,
		properties: properties({
			displayName: 'Resource',
			name: 'resource',
			type: 'options',
			noDataExpression: true,
			options: [
				// n8n lists the actions by these names, alphabetically (its linter's rule): named so that
				// what most merchants come for, Mobile Money, comes first and the five card steps later.
				{
					name: 'Mobile Money',
					value: 'mobileMoney',
					description: 'Collect by M-Pesa, Airtel, MTN or Tigo Pesa PIN prompt',
				},
				{
					name: 'Payment',
					value: 'payment',
					description: 'Look up or wait for the payment of an existing intent',
				},
				{
					name: 'Payment Card (3-D Secure)',
					value: 'card',
					description: 'The five steps of a card payment with the bank check',
				},
				{
					name: 'Payment Intent',
					value: 'paymentIntent',
					description: 'A payment request: amount, description and checkout link',
				},
				{
					name: 'Payout',
					value: 'disbursement',
					description: 'Pay out to mobile money wallets',
				},
				{
					name: 'Refund',
					value: 'refund',
					description: 'Give back all or part of a completed payment',
				},
			],
			default: 'mobileMoney',
		}),
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return router.call(this);
	}

	/** Resumes an execution paused for a payment when Little Pay's signed callback arrives. */
	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return resumeOnCallback.call(this);
	}
}

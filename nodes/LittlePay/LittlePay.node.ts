import { NodeConnectionTypes } from 'n8n-workflow';
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import * as card from './actions/card/Card.resource';
import * as disbursement from './actions/disbursement/Disbursement.resource';
import * as mobileMoney from './actions/mobileMoney/MobileMoney.resource';
import * as payment from './actions/payment/Payment.resource';
import { resumeOnCallback, resumeWebhooks } from './flows/pause';
import * as paymentIntent from './actions/paymentIntent/PaymentIntent.resource';
import * as refund from './actions/refund/Refund.resource';
import { router } from './actions/router';
import { moneyNotices, moneyProperties } from './money/toolProperties';

/**
 * The panel's order: each operation's own fields, then the money settings (the tool switch, Spending
 * Limits, the tool description), and every operation's Options collection last, as n8n's nodes do.
 */
function optionsLast(properties: INodeProperties[]): INodeProperties[] {
	return [
		...properties.filter((property) => property.name !== 'options'),
		...properties.filter((property) => property.name === 'options'),
	];
}

export class LittlePay implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Little Pay',
		name: 'littlePay',
		icon: { light: 'file:littlepay.svg', dark: 'file:littlepay.dark.svg' },
		group: ['transform'],
		version: 1,
		// What the canvas shows under each node: words ("Collect · Mobile Money"), short enough not to be cut off.
		subtitle:
			'={{ {"paymentIntent:create":"Create · Payment Intent","mobileMoney:collect":"Collect · Mobile Money","mobileMoney:requestPayment":"Request Payment · Mobile Money","payment:getStatus":"Get Status · Payment","payment:waitForCompletion":"Wait for Completion · Payment","refund:create":"Create · Refund","disbursement:create":"Pay Out · Disbursement","disbursement:get":"Get · Disbursement","disbursement:getCharges":"Get Charges · Disbursement","disbursement:quoteFee":"Quote Fee · Disbursement","card:getDeviceDataCollectionToken":"Card 1/5 · Send Card","card:buildDeviceDataCollectionPage":"Card 2/5 · Device Check Page","card:checkEnrolment":"Card 3/5 · Check Enrolment","card:buildStepUpPage":"Card 4/5 · Bank Check Page","card:processPayment":"Card 5/5 · Charge Card"}[$parameter["resource"] + ":" + $parameter["operation"]] }}',
		description:
			'Collect M-Pesa, Airtel, MTN, Tigo Pesa and card payments, refund them and pay out with Little Pay',
		defaults: { name: 'Little Pay' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		// Resume webhooks for "Pause Until Little Pay Calls Back": nothing is registered anywhere.
		webhooks: resumeWebhooks,
		credentials: [
			{
				// Every operation reads with the API key; creating intents also looks a lost create up with it.
				name: 'littlePayApiKeyApi',
				required: true,
			},
			{
				// Only the two operations that create an intent sign in with the client ID and secret.
				name: 'littlePayBasicApi',
				required: true,
				displayOptions: {
					show: { resource: ['paymentIntent', 'mobileMoney'], operation: ['create', 'collect'] },
				},
			},
		],
		properties: optionsLast([
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{
						name: 'Card (3-D Secure)',
						value: 'card',
						description: 'The five steps of a card payment with the bank check',
					},
					{
						name: 'Disbursement',
						value: 'disbursement',
						description: 'Pay out to mobile money wallets',
					},
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
						name: 'Payment Intent',
						value: 'paymentIntent',
						description: 'A payment request: amount, description and checkout link',
					},
					{
						name: 'Refund',
						value: 'refund',
						description: 'Give back all or part of a completed payment',
					},
				],
				default: 'mobileMoney',
			},
			...moneyNotices,
			...paymentIntent.description,
			...mobileMoney.description,
			...card.description,
			...payment.description,
			...refund.description,
			...disbursement.description,
			...moneyProperties,
		]),
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return router.call(this);
	}

	/** Resumes an execution paused for a payment when Little Pay's signed callback arrives. */
	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return resumeOnCallback.call(this);
	}
}

import { NodeConnectionTypes } from 'n8n-workflow';
import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';

import * as card from './actions/card/Card.resource';
import * as disbursement from './actions/disbursement/Disbursement.resource';
import * as mobileMoney from './actions/mobileMoney/MobileMoney.resource';
import * as payment from './actions/payment/Payment.resource';
import { resumeOnCallback, resumeWebhooks } from './actions/payment/pause';
import * as paymentIntent from './actions/paymentIntent/PaymentIntent.resource';
import * as refund from './actions/refund/Refund.resource';
import { router } from './actions/router';
import { moneyProperties } from './money/toolProperties';

export class LittlePay implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Little Pay',
		name: 'littlePay',
		icon: { light: 'file:littlepay.svg', dark: 'file:littlepay.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description: 'Collect mobile money and card payments, refund them and pay out with Little Pay',
		defaults: { name: 'Little Pay' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		// Resume webhooks for "Pause Until Little Pay Calls Back": nothing is registered anywhere.
		webhooks: resumeWebhooks,
		credentials: [
			{
				name: 'littlePayBasicApi',
				required: true,
				displayOptions: { show: { resource: ['paymentIntent', 'mobileMoney'] } },
			},
			{
				// Also needed when creating intents: it is how a create whose answer was lost is looked up.
				name: 'littlePayApiKeyApi',
				required: true,
			},
		],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Card (3-D Secure)', value: 'card' },
					{ name: 'Disbursement', value: 'disbursement' },
					{ name: 'Mobile Money', value: 'mobileMoney' },
					{ name: 'Payment', value: 'payment' },
					{ name: 'Payment Intent', value: 'paymentIntent' },
					{ name: 'Refund', value: 'refund' },
				],
				default: 'mobileMoney',
			},
			...paymentIntent.description,
			...mobileMoney.description,
			...card.description,
			...payment.description,
			...refund.description,
			...disbursement.description,
			...moneyProperties,
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return router.call(this);
	}

	/** Resumes an execution paused for a payment when Little Pay's signed callback arrives. */
	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return resumeOnCallback.call(this);
	}
}

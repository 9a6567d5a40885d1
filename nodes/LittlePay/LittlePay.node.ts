import { NodeConnectionTypes } from 'n8n-workflow';
import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';

import { disbursementFields, disbursementOperations } from './actions/disbursement';
import { mobileMoneyFields, mobileMoneyOperations } from './actions/mobileMoney';
import { paymentFields, paymentOperations } from './actions/payment';
import { paymentIntentFields, paymentIntentOperations } from './actions/paymentIntent';
import { refundFields, refundOperations } from './actions/refund';
import { router } from './actions/router';

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
		credentials: [
			{
				name: 'littlePayBasicApi',
				required: true,
				displayOptions: { show: { resource: ['paymentIntent', 'mobileMoney'] } },
			},
			{
				name: 'littlePayApiKeyApi',
				required: true,
				displayOptions: { show: { resource: ['mobileMoney', 'payment', 'refund', 'disbursement'] } },
			},
		],
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Disbursement', value: 'disbursement' },
					{ name: 'Mobile Money', value: 'mobileMoney' },
					{ name: 'Payment', value: 'payment' },
					{ name: 'Payment Intent', value: 'paymentIntent' },
					{ name: 'Refund', value: 'refund' },
				],
				default: 'mobileMoney',
			},
			paymentIntentOperations,
			mobileMoneyOperations,
			paymentOperations,
			refundOperations,
			disbursementOperations,
			...paymentIntentFields,
			...mobileMoneyFields,
			...paymentFields,
			...refundFields,
			...disbursementFields,
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return router.call(this);
	}
}

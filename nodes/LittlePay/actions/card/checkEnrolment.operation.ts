import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { showFor } from '../common';
import type { Item } from '../../item';
import type { OperationMeta } from '../common';
import { intentReferenceField, sendCardStep } from './fields';
import { enrolmentPath } from '../../transport/gateway';

/** What the registry knows of this operation (actions/registry.ts). */
export const meta: OperationMeta = {
	subtitle: 'Card 3/5 · Check Enrolment',
	rowKey: { parameter: 'reference', field: 'reference' },
};

export const description: INodeProperties[] = showFor('card', 'checkEnrolment', [
	intentReferenceField,
	{
		displayName: 'Device Information',
		name: 'deviceInformation',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		description:
			"The payer's browser, as posted by the device data collection page; unset fields use the defaults of a desktop browser",
		options: [
			{
				displayName: 'Color Depth',
				name: 'httpBrowserColorDepth',
				type: 'number',
				default: 24,
				description: 'Screen colour depth in bits',
			},
			{
				displayName: 'Java Enabled',
				name: 'httpBrowserJavaEnabled',
				type: 'boolean',
				default: false,
				description: 'Whether the browser has Java enabled',
			},
			{
				displayName: 'JavaScript Enabled',
				name: 'httpBrowserJavaScriptEnabled',
				type: 'boolean',
				default: true,
				description: 'Whether the browser runs JavaScript',
			},
			{
				displayName: 'Language',
				name: 'httpBrowserLanguage',
				type: 'string',
				default: 'en-US',
				description: 'Language tag of the browser, e.g. en-KE',
			},
			{
				displayName: 'Screen Height',
				name: 'httpBrowserScreenHeight',
				type: 'number',
				default: 1080,
				description: 'Screen height in pixels',
			},
			{
				displayName: 'Screen Width',
				name: 'httpBrowserScreenWidth',
				type: 'number',
				default: 1920,
				description: 'Screen width in pixels',
			},
			{
				displayName: 'Time Difference (Minutes)',
				name: 'httpBrowserTimeDifference',
				type: 'number',
				default: 0,
				description:
					'Browser time zone offset from UTC in minutes, as getTimezoneOffset() gives it (Nairobi: -180)',
			},
		],
	},
]);

const DEFAULT_DEVICE: IDataObject = {
	httpBrowserColorDepth: 24,
	httpBrowserJavaEnabled: false,
	httpBrowserJavaScriptEnabled: true,
	httpBrowserLanguage: 'en-US',
	httpBrowserScreenHeight: 1080,
	httpBrowserScreenWidth: 1920,
	httpBrowserTimeDifference: 0,
};

const NUMBER_FIELDS = [
	'httpBrowserColorDepth',
	'httpBrowserScreenHeight',
	'httpBrowserScreenWidth',
	'httpBrowserTimeDifference',
];
const BOOLEAN_FIELDS = ['httpBrowserJavaEnabled', 'httpBrowserJavaScriptEnabled'];

/** Device information with defaults filled in and form-posted strings turned into numbers and booleans. */
export function readDeviceInformation(item: Item, given: IDataObject): IDataObject {
	const device: IDataObject = { ...DEFAULT_DEVICE };
	for (const [name, value] of Object.entries(given)) {
		if (value === '' || value === undefined || value === null) continue;
		if (NUMBER_FIELDS.includes(name)) {
			const number = Number(value);
			if (!Number.isFinite(number))
				item.fail(
					`Device Information ${name}`,
					`must be a number (got ${JSON.stringify(value)})`,
					'Map the value posted by the device data collection page, or remove the field to use the default',
				);
			device[name] = number;
		} else if (BOOLEAN_FIELDS.includes(name)) {
			device[name] = value === true || value === 'true';
		} else {
			device[name] = String(value);
		}
	}
	return device;
}

const NEXT_STEP: Record<string, string> = {
	MAKE_PAYMENT: 'Process the card payment',
	AUTHENTICATE: 'Serve the step-up page (Build Step-Up Page), then process the card payment',
	FAILED: 'The card cannot be used: ask the payer for another payment method',
};

/** Checks whether the card needs 3-D Secure step-up before the payment. */
export async function execute(this: IExecuteFunctions, item: Item): Promise<IDataObject> {
	const reference = item.text('reference', 'Intent Reference');
	const deviceInformation = readDeviceInformation(
		item,
		item.param<IDataObject>('deviceInformation', {}),
	);
	const data = await sendCardStep(
		item,
		enrolmentPath(reference),
		{ deviceInformation },
		'enrolment check',
		'No payment was made; running Check Enrolment again is safe',
	);
	const action = String(data.action ?? '');
	return {
		reference,
		action,
		accessToken: data.accessToken ?? null,
		stepUpUrl: data.stepUpUrl ?? null,
		nextStep: NEXT_STEP[action] ?? null,
	};
}

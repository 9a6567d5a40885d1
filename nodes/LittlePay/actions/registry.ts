import type { INodeCredentialDescription, INodeProperties } from 'n8n-workflow';

import { moneyFields, moneyNotices, toolDescriptionField } from '../money/toolProperties';
import * as card from './card/Card.resource';
import type { Operation } from './common';
import { showFor } from './common';
import * as disbursement from './disbursement/Disbursement.resource';
import * as mobileMoney from './mobileMoney/MobileMoney.resource';
import * as payment from './payment/Payment.resource';
import * as paymentIntent from './paymentIntent/PaymentIntent.resource';
import * as refund from './refund/Refund.resource';

/** A resource: its header (the operation selector, a notice) and its operations, in the selector's order. */
interface Resource {
	header: INodeProperties[];
	operations: Record<string, Operation>;
}

/** The resources in the order their operations are numbered on the canvas. */
const RESOURCES: Record<string, Resource> = {
	paymentIntent,
	mobileMoney,
	payment,
	refund,
	disbursement,
	card,
};

/** One operation of the node, with where it lives. */
export interface RegisteredOperation {
	resource: string;
	operation: string;
	/** `resource:operation`, as the money memory and the canvas subtitle know it. */
	id: string;
	run: Operation;
}

/** Every operation of the node: the one list the node's tables are derived from. */
export const OPERATIONS: RegisteredOperation[] = Object.entries(RESOURCES).flatMap(
	([resource, { operations }]) =>
		Object.entries(operations).map(([operation, run]) => ({
			resource,
			operation,
			id: `${resource}:${operation}`,
			run,
		})),
);

/** The operation a node runs, or undefined for an unknown pair. */
export function findOperation(resource: string, operation: string): Operation | undefined {
	return OPERATIONS.find((o) => o.resource === resource && o.operation === operation)?.run;
}

/**
 * One displayOptions `show` for a set of operations: their resources and their operation names. The
 * registry test checks that no other operation shares both (the pair is then exactly the set).
 */
export function showForOperations(operations: RegisteredOperation[]): {
	resource: string[];
	operation: string[];
} {
	return {
		resource: [...new Set(operations.map((o) => o.resource))],
		operation: [...new Set(operations.map((o) => o.operation))],
	};
}

/** The operations that move money. */
export const MONEY_OPERATIONS = OPERATIONS.filter((o) => o.run.meta.moves !== undefined);

const OPERATION_ID = '$parameter["resource"] + ":" + $parameter["operation"]';

/** What the canvas shows under each node: words ("Collect · Mobile Money"), from each operation. */
export const subtitle = `={{ ${OPERATIONS.flatMap(({ id, run }) => {
	const when = run.meta.subtitleWhen;
	if (!when) return [];
	const test = `${OPERATION_ID} === ${JSON.stringify(id)} && $parameter[${JSON.stringify(when.parameter)}] === ${JSON.stringify(when.value)}`;
	return [`(${test}) ? ${JSON.stringify(when.subtitle)} : `];
}).join('')}${JSON.stringify(
	Object.fromEntries(OPERATIONS.map((o) => [o.id, o.run.meta.subtitle])),
)}[${OPERATION_ID}] }}`;

/** The credentials: the API key for every operation, the Client ID and Secret where an intent is created. */
export const credentials: INodeCredentialDescription[] = [
	{
		// Every operation reads with the API key; creating intents also looks a lost create up with it.
		name: 'littlePayApiKeyApi',
		required: true,
	},
	{
		name: 'littlePayBasicApi',
		required: true,
		displayOptions: { show: showForOperations(OPERATIONS.filter((o) => o.run.meta.createsIntent)) },
	},
];

/**
 * Creating an intent needs both credentials, and n8n 2.41 fills in only one on a new node (it selects a
 * credential only while the node has none): the panel says so before the run, not the run's error after.
 */
const twoCredentialsNotice: INodeProperties = {
	displayName:
		'This step needs two credentials: the API key one and "Little Pay (Client ID and Secret) API". n8n selects only one on a new node: if one of the two just below is empty, pick it before you run.',
	name: 'twoCredentialsNotice',
	type: 'notice',
	default: '',
	displayOptions: { show: showForOperations(OPERATIONS.filter((o) => o.run.meta.createsIntent)) },
};

/**
 * One operation's panel: its own fields, then the fields every operation of its kind has (for money
 * operations the tool switch, Spending Limits and the tool description; for the others the tool
 * description), then its Options collection last, as n8n's nodes do.
 */
function panelOf({ resource, operation, run }: RegisteredOperation): INodeProperties[] {
	const own = run.description.filter((property) => property.name !== 'options');
	const options = run.description.filter((property) => property.name === 'options');
	const shared =
		run.meta.moves !== undefined
			? moneyFields(resource, run.meta.toolSummary ?? '')
			: [toolDescriptionField];
	return [...own, ...showFor(resource, operation, shared), ...options];
}

/** The node's properties: Resource, the money notices, then each resource's selector and panels. */
export function properties(resourceSelector: INodeProperties): INodeProperties[] {
	const byResource = Object.entries(RESOURCES).flatMap(([resource, { header }]) => [
		...header,
		...OPERATIONS.filter((o) => o.resource === resource).flatMap(panelOf),
	]);
	return [
		resourceSelector,
		twoCredentialsNotice,
		...moneyNotices(showForOperations(MONEY_OPERATIONS)),
		...byResource,
	];
}

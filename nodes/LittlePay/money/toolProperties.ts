import type { INodeProperties } from 'n8n-workflow';

import { LIMITS_IN_FORCE, spendingLimitsProperty } from './limitWords';

/** Where the money notices show: in tool mode, on the money operations (from the registry). */
type MoneyOperations = { resource: string[]; operation: string[] };

const UNITS =
	"Amounts are in the currency's main unit, not cents: 1500 means KES 1,500. Decimals are allowed; M-Pesa pays whole shillings.";
const NUMBERS =
	'Phone numbers with their country code, as +254712345678 or 254712345678 (0712345678 is read with the Country set in the tool).';
const REFUSALS =
	'A call outside the limits returns refused: true with the reason and the limit, and sends nothing: tell the user, do not retry it or split it into smaller ones. An identical call repeated in the same agent run or chat session (over MCP: within an hour) returns the first answer (repeated: true) and moves no money again.';

/** A money tool's default description: what it does, units, number formats, refusals and the limits in force. */
function moneyDescription(resource: string, what: string): INodeProperties {
	return {
		displayName: 'Description',
		name: 'toolDescription',
		type: 'string',
		typeOptions: { rows: 4 },
		default: `=${what} ${UNITS} ${resource === 'refund' ? '' : `${NUMBERS} `}${REFUSALS} {{ $parameter.limitsInForce }}`,
		description:
			'Explain to the AI model what this tool does; the default states units, number formats and the limits in force',
		displayOptions: { show: { '@tool': [true] } },
	};
}

/**
 * What a money-moving tool may do, in plain words, shown only in tool mode: placed right under the
 * Resource so the author reads it before anything else on the panel.
 */
export function moneyNotices(money: MoneyOperations): INodeProperties[] {
	const inToolModeForMoney = { '@tool': [true], ...money };
	return [
		{
			displayName:
				'As a tool this operation moves no money: every call answers refused: true and sends nothing. Reads such as Payment: Get Status always work. To let the AI model move money, turn on Allow Money Moves as a Tool and set Spending Limits.',
			name: 'moneyMovesOffNotice',
			type: 'notice',
			default: '',
			displayOptions: { show: { ...inToolModeForMoney, allowMoneyMoves: [false] } },
		},
		{
			displayName:
				'The AI model can now move money with this tool: it chooses every value written as $fromAI (✨), so anyone who can prompt it can ask for any amount or number. Only the Spending Limits below and on the credential hold it; an identical call in one agent run or chat session moves money once.',
			name: 'moneyMovesOnNotice',
			type: 'notice',
			default: '',
			displayOptions: { show: { ...inToolModeForMoney, allowMoneyMoves: [true] } },
		},
	];
}

/**
 * The fields every money operation has after its own (the registry shows them for that operation):
 * the switch that lets a tool move money and the tool description (both only in tool mode, where n8n
 * shows them when the node is attached to an AI Agent or an MCP Server Trigger), and the Spending
 * Limits (in workflows too).
 */
export function moneyFields(resource: string, toolSummary: string): INodeProperties[] {
	return [
		{
			displayName: 'Allow Money Moves as a Tool',
			name: 'allowMoneyMoves',
			type: 'boolean',
			builderHint: {
				propertyHint:
					'Leave off unless the user asked for an agent that moves money; when on, also set Spending Limits',
			},
			default: false,
			noDataExpression: true,
			description:
				'Whether the AI model may collect, charge, refund or pay out through this tool, within the Spending Limits; off, every call is refused and nothing is sent',
			displayOptions: { show: { '@tool': [true] } },
		},
		// Chat sessions exist only for an AI Agent's tool: a workflow's panel does not offer their limits.
		{ ...spendingLimitsProperty, displayOptions: { show: { '@tool': [true] } } },
		{
			...spendingLimitsProperty,
			options: (spendingLimitsProperty.options as INodeProperties[]).filter(
				(option) => !option.name.endsWith('PerSession'),
			),
			displayOptions: { hide: { '@tool': [true] } },
		},
		moneyDescription(resource, toolSummary),
		{
			displayName: 'Limits in Force',
			name: 'limitsInForce',
			type: 'hidden',
			default: `=${LIMITS_IN_FORCE}`,
			displayOptions: { show: { '@tool': [true] } },
		},
	];
}

/** The tool description of the operations that move no money. */
export const toolDescriptionField: INodeProperties = {
	displayName: 'Description',
	name: 'toolDescription',
	type: 'string',
	typeOptions: { rows: 2 },
	default: '',
	placeholder: 'Empty: n8n describes the tool by its operation',
	description: 'Explain to the AI model what this tool does',
	displayOptions: { show: { '@tool': [true] } },
};

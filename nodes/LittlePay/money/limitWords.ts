import type { INodeProperties } from 'n8n-workflow';

import { LIMITS } from './limits';
import type { Limit } from './limits';
import type { LimitSource, MoveKind } from './moves';

// The limits' words: the node's Spending Limits field and the tool description's limits in force,
// both built from LIMITS, and a limit's label where it was set.

/** The node's Spending Limits: every money-moving operation shows them (registry), in workflows and in tool mode. */
export const spendingLimitsProperty: INodeProperties = {
	displayName: 'Spending Limits',
	name: 'spendingLimits',
	type: 'collection',
	builderHint: {
		propertyHint:
			'Fixed values only, never expressions. Set Max Amount and Max Total per Execution on any payout or refund an AI Agent or a run over many rows can trigger',
	},
	placeholder: 'Add Limit',
	default: {},
	noDataExpression: true,
	description:
		"Limits checked before anything is sent; a call outside them is refused and sends nothing. Amounts are in the currency's main unit (1500 = KES 1,500). Limits on the API-key credential apply as well; the stricter wins.",
	options: LIMITS.filter((limit) => !limit.grant)
		.sort((a, b) => a.label.localeCompare(b.label))
		.map(({ name, label, field: { placeholder, description, ...field } }) => ({
			displayName: label,
			name,
			...field,
			noDataExpression: true,
			...(placeholder === undefined ? {} : { placeholder }),
			description,
		})) as INodeProperties[],
};

/** "Limits in force: ..." of the tool description, an expression over the node's own limits. */
export const LIMITS_IN_FORCE = [
	'{{ (() => { const l = $parameter.spendingLimits || {}; const parts = [];',
	...LIMITS.map((limit) => limit.inForce),
	"return parts.length ? 'Limits in force: ' + parts.join('; ') + '. The credential may set stricter ones.' : 'The workflow owner may set limits; a refusal names the one that applied.'; })() }}",
].join(' ');

export const CREDENTIAL_MAX_BY_KIND: Record<MoveKind, [string, string]> = {
	payment: ['maxPaymentAmount', 'Max Payment Amount'],
	payout: ['maxPayoutAmount', 'Max Payout Amount'],
	refund: ['maxRefundAmount', 'Max Refund Amount'],
};

/** A limit's label where it was set: the credential has one maximum per kind of move. */
export function labelOf(limit: Limit, source: LimitSource, kind: MoveKind): string {
	return limit.name === 'maxAmount' && source === 'credential'
		? CREDENTIAL_MAX_BY_KIND[kind][1]
		: limit.label;
}

import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import {
	pastedKeyNotice,
	pastedKeyWarning,
	signatureOptionFields,
} from './callbacks/callbackRequest';
import { warnOnce } from './flows/output';
import { recordAcceptedItems } from './callbacks/eventMemory';
import { takeProductionUrlNotes } from './callbacks/productionUrl';
import {
	answerTriggerCallback,
	confirmsWithAccount,
	refundTokenOf,
} from './callbacks/triggerWebhook';
import { confirmationRefusal, refundTokenRefusal } from './callbacks/authorize';
import { optionsCollection } from './actions/common';
import { nodeError } from './errors';
import { gatewayOf } from './transport';

export class LittlePayTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Little Pay Trigger',
		name: 'littlePayTrigger',
		icon: { light: 'file:littlepay.svg', dark: 'file:littlepay.dark.svg' },
		group: ['trigger'],
		// Version 2 behaves exactly as 1. It exists because n8n treats a webhook start node of typeVersion 1
		// like its old Webhook node and evaluates the expression `$parameter.options.binaryData` on every
		// call, which needs an expression isolate; from 2 on n8n skips that, so callbacks are answered faster.
		version: [1, 2],
		defaultVersion: 2,
		// Words on the canvas: "Any Event", or the events chosen.
		subtitle:
			'={{ $parameter["events"].includes("*") ? "Any Event" : $parameter["events"].join(", ") }}',
		// n8n's node creator lists this trigger and the Little Pay node as one entry, under the Little Pay
		// node's name and aliases but with this description (n8n 2.41, generateMergedNodesAndActions):
		// so it says what both do, whatever the search matched.
		description:
			"Collect mobile money and card payments, refund, pay out, and start workflows on Little Pay's callbacks",
		defaults: { name: 'Little Pay Trigger' },
		builderHint: {
			searchHint:
				'Starts a workflow when Little Pay calls back about a payment (completed or failed) or a refund. Verifies the RSA signature. A failed payment may be followed by a completed one for the same reference: ship on payment.completed.',
			relatedNodes: [
				{
					nodeType: 'n8n-nodes-littlepay.littlePay',
					relationHint: "Creates the payments whose Callback URL is this trigger's Production URL",
				},
				{
					nodeType: 'n8n-nodes-base.dataTable',
					relationHint:
						'Flip an order row from PENDING to COMPLETED so fulfilment runs once per payment',
				},
			],
		},
		inputs: [],
		// A second output, Refused, only when the user asks for alerts on refused callbacks.
		outputs: `={{ $parameter["refusedOutput"] ? [{ "type": "${NodeConnectionTypes.Main}", "displayName": "Accepted" }, { "type": "${NodeConnectionTypes.Main}", "displayName": "Refused" }] : ["${NodeConnectionTypes.Main}"] }}`,
		// The API key credential says which gateway calls: its Base URL picks the key signatures verify
		// against (the sandbox's own, or Little Pay's published key). Shown without conditions, so n8n
		// selects the only one there is when the trigger is added; optional, as Little Pay's key needs none.
		credentials: [
			{
				name: 'littlePayApiKeyApi',
				required: false,
			},
		],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				// Empty, so n8n answers with webhook()'s small JSON instead of its default 'firstEntryJson'.
				responseData: '',
				path: 'littlepay',
			},
		],
		triggerPanel: {
			header: 'Make Little Pay call this trigger: pay a payment whose Callback URL is its URL',
			executionsHelp: {
				inactive:
					"<b>To test while you build:</b> click <i>Execute step</i> (n8n then listens for a test event), then create a payment whose <b>Callback URL</b> is this trigger's <b>Test URL</b> (Webhook URLs at the top of the parameters) and pay it. Signatures are checked with the key of the gateway your API key credential points at: with the sandbox's credential (<code>npm start</code>'s <i>Little Pay sandbox (API key)</i>) the sandbox's callbacks verify, nothing to paste. Against the sandbox, run a Little Pay node <i>Mobile Money: Collect</i> with that Callback URL and the number 0712345670 (ends in 0: completes; 1: fails): the signed callback arrives here within seconds. A refused callback ends the test with the reason and the fix. <br /><br /><b>In production:</b> publish the workflow and use the <b>Production URL</b> as the Callback URL; those executions show in the executions list.",
				active:
					'<b>This workflow is published:</b> every payment whose Callback URL is this trigger\'s <b>Production URL</b> starts it when Little Pay calls back; those executions show in the <a data-key="executions">executions list</a>. <br /><br /><b>To test here:</b> click <i>Execute step</i> and pay a payment whose Callback URL is the <b>Test URL</b> (sandbox: Mobile Money: Collect with 0712345670).',
			},
			activationHint:
				"When it works, publish the workflow and put this trigger's Production URL into the Callback URL of your Little Pay nodes: Little Pay then starts it for every payment, without this button.",
		},
		properties: [
			{
				displayName: 'Confirm With Status API',
				name: 'confirmWithStatusApi',
				type: 'boolean',
				default: true,
				hint: "Keep it on: Little Pay signs every merchant's callbacks with one key, so a signature proves Little Pay sent it, not that the payment is yours. On, the payment is looked up with your API key first",
				description:
					"Whether to look the callback's payment up in your Little Pay account (with the API key credential above, needed for this) before starting the workflow, and refuse callbacks your account does not confirm: another merchant's payment, or one whose status, amount or key differ",
			},
			{
				displayName:
					"Confirm With Status API is OFF: another Little Pay merchant can pay a KES 10 payment of their own with your order's key and this trigger's URL as its Callback URL, and Little Pay's signature on it verifies. Branch on the amount and reference yourself, or turn this back on.",
				name: 'unconfirmedNotice',
				type: 'notice',
				default: '',
				displayOptions: { show: { confirmWithStatusApi: [false] } },
			},
			{
				displayName:
					'Wiring: open Webhook URLs at the top of this panel, choose Production URL and copy it into the Callback URL of your Little Pay nodes (or map it with an expression). Use the Test URL while listening for a test event. For refund callbacks add ?token= and your Refund Callback Token.',
				name: 'wiringNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Events',
				name: 'events',
				type: 'multiOptions',
				required: true,
				default: ['*'],
				description: 'The callbacks that start the workflow; others are acknowledged and ignored',
				options: [
					{ name: 'Any Event', value: '*', description: 'Every payment and refund callback' },
					{
						name: 'Payment Completed',
						value: 'payment.completed',
						description: 'The payment status became COMPLETED',
					},
					{
						name: 'Payment Failed',
						value: 'payment.failed',
						description: 'The payment status became FAILED',
					},
					{
						name: 'Refund Completed',
						value: 'refund.completed',
						description: 'A refund that answered PENDING completed',
					},
					{
						name: 'Refund Failed',
						value: 'refund.failed',
						description: 'A refund that answered PENDING failed',
					},
				],
			},
			{
				displayName: 'Verify Signatures',
				name: 'verifySignatures',
				type: 'boolean',
				default: true,
				hint: "Keep it on: off, anyone who learns this URL can send a made-up 'paid' callback and the workflow ships an order nobody paid for. A sandbox callback refused? Select the sandbox's API key credential above.",
				description:
					"Whether to refuse payment callbacks whose X-LittlePay-Signature does not verify against the key of the credential's gateway (or Options > Public Key)",
			},
			{
				displayName:
					"Signature verification is OFF: anyone who learns this URL can start this workflow with a made-up 'paid' payment, and an order nobody paid for ships. Callbacks from the sandbox verify with the sandbox's API key credential selected above: turn this back on. Off, only Confirm With Status API stands between a forged callback and your workflow.",
				name: 'unverifiedNotice',
				type: 'notice',
				default: '',
				displayOptions: { show: { verifySignatures: [false] } },
			},
			pastedKeyNotice(),
			{
				displayName: 'Refund Callback Token',
				name: 'refundToken',
				type: 'string',
				typeOptions: { password: true },
				default: '',
				hint: 'Refund callbacks are accepted signed, or with ?token= and this value (at least 16 characters) in their URL',
				description:
					'Secret that unsigned refund callbacks must carry as ?token= in their URL. Refund callbacks are not documented as signed; without a token or a valid signature they are refused.',
			},
			{
				displayName: 'Output Refused Callbacks',
				name: 'refusedOutput',
				type: 'boolean',
				default: false,
				noDataExpression: true,
				hint: 'Adds a Refused output: wire it to an e-mail or chat alert, and sweep its refusedReferences with Payment: Reconcile',
				description:
					'Whether a refused callback (bad or missing signature, stale, wrong token, not confirmed) starts an alert on a second output: still answered 401, at most one alert per reason every 5 minutes, listing the references refused since the last one (first 50), with the likely cause and the fix',
			},
			optionsCollection([
				...signatureOptionFields,
				{
					displayName: 'Include Raw Body',
					name: 'includeRawBody',
					type: 'boolean',
					default: false,
					description:
						"Whether each item also carries raw, a copy of the callback's body as received; off, the item's own fields say everything, and the payer's details are not stored twice. Masked as the credential's Payer Details says.",
				},
			]),
		],
	};

	webhookMethods = {
		default: {
			// Little Pay has no API to register callback URLs: the URL travels with each intent or refund.
			// These methods only keep the activation mark in static data. The memory of accepted events
			// (static data key acceptedEvents, see callbacks/eventMemory.ts) is deliberately kept across
			// deactivation, activation and edits: a gateway retry after any of them must not run again.
			async checkExists(this: IHookFunctions): Promise<boolean> {
				const memory = this.getWorkflowStaticData('node');
				return typeof memory.activatedAt === 'string';
			},
			async create(this: IHookFunctions): Promise<boolean> {
				const refusal =
					refundTokenRefusal(refundTokenOf(this)) ??
					confirmationRefusal(
						confirmsWithAccount(this),
						this.getNode().credentials?.littlePayApiKeyApi !== undefined,
					);
				if (refusal)
					throw nodeError(this.getNode(), refusal.message, { description: refusal.description });
				const memory = this.getWorkflowStaticData('node');
				memory.activatedAt = new Date().toISOString();
				// Version 0.1 kept a list here that it cleared on activation; its ids are not comparable.
				delete memory.seenEventIds;
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				const memory = this.getWorkflowStaticData('node');
				delete memory.activatedAt;
				return true;
			},
		},
	};

	/** Answers one call to the Production or Test URL (callbacks/triggerWebhook.ts decides). */
	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await answerTriggerCallback(this);
	}

	/**
	 * Runs inside the execution n8n recorded for an accepted callback, before the next nodes: it
	 * records the event in static data, which n8n saves when the execution finishes (the worker in
	 * queue mode). Written here rather than in webhook(), whose static data n8n does not save when it
	 * answers after recording the execution.
	 */
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		recordAcceptedItems(this, items);
		for (const note of takeProductionUrlNotes(items)) warnOnce(this, note);
		const options = this.getNodeParameter('options', 0, {}) as IDataObject;
		if (options.publicKey)
			warnOnce(this, pastedKeyWarning(options.publicKey, await gatewayOf(this, 0)));
		// Alerts about refused callbacks (only with Output Refused Callbacks on) go out on the Refused output.
		const refused = items.filter((i) => i.json.refused === true);
		if (refused.length === 0) return [items];
		if (this.getNodeParameter('refusedOutput', 0, false) as boolean)
			return [items.filter((i) => i.json.refused !== true), refused];
		// Refused items without a Refused output come only from a test event (Execute step): the test
		// run ends here with the reason, and nothing after the trigger runs on an unverified callback.
		const first = refused[0].json;
		throw nodeError(
			this.getNode(),
			`Refused a callback (${String(first.reason)}): the caller was answered ${String(first.answered ?? 401)} and nothing after this trigger ran`,
			{ description: `${String(first.likelyCause)}. Fix: ${String(first.fix)}.` },
		);
	}
}

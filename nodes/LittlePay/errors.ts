import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import type { IDataObject, IExecuteFunctions, INode, JsonObject } from 'n8n-workflow';

// Every error the node raises is made here: bad input (an item, before anything is sent), a gateway
// refusal, an outcome that is unknown, a cancelled run. Messages name the item; descriptions say how
// to fix it; the router's exit (flows/output.ts) masks payer details and card values in all of it.

/**
 * How a message names an item: "Row 42", counted from 1 as a person counts rows. The error leaves out
 * n8n's itemIndex, which the editor would add as "[item 41]", naming the same row twice and 0-based.
 */
export function rowOf(itemIndex: number): string {
	return `Row ${itemIndex + 1}`;
}

/** A bad value of an item: which field and what is wrong with it, for a run that lists every refused row. */
export class ItemInputError extends NodeOperationError {
	constructor(
		node: INode,
		readonly itemIndex: number,
		readonly reason: string,
		fix: string,
		readonly field?: string,
	) {
		super(node, `${rowOf(itemIndex)}: ${reason}`, { description: fix });
	}
}

/**
 * Runs a check and hands back the refusal it raised (an error of `kind`) instead of throwing it, so a
 * run can collect every refused row; any other error (the gateway, a cancelled run) is thrown.
 */
export async function refusalOf<E extends Error>(
	check: () => Promise<void> | void,
	kind: abstract new (...args: never[]) => E,
): Promise<E | undefined> {
	let failure: unknown;
	try {
		await check();
		return undefined;
	} catch (error) {
		failure = error;
	}
	if (failure instanceof kind) return failure;
	throw failure;
}

/** The error for a bad item, raised before anything is sent: it names the row and says how to fix it. */
export function itemError(node: INode, itemIndex: number, message: string, fix: string): never {
	throw new ItemInputError(node, itemIndex, message, fix);
}

/**
 * A value a pure validator refuses: the field, what is wrong and how to fix it, not yet tied to an
 * item. `atItem` (and so every reader of the item scope, item.ts) turns it into the item error.
 */
export class InvalidValue {
	constructor(
		readonly field: string,
		readonly problem: string,
		readonly fix: string,
	) {}
}

/** The one way a pure validator refuses a value: the field, the problem and the fix. */
export function invalid(field: string, problem: string, fix: string): InvalidValue {
	return new InvalidValue(field, problem, fix);
}

/** Runs a pure check for one item: a refused value fails the item, naming it and the field. */
export function atItem<T>(node: INode, itemIndex: number, check: () => T | InvalidValue): T {
	const checked = check();
	if (checked instanceof InvalidValue)
		invalidInput(node, itemIndex, checked.field, checked.problem, checked.fix);
	return checked;
}

/** Raises the item error every validator uses: names the item and the field, says how to fix it. */
export function invalidInput(
	node: INode,
	itemIndex: number,
	field: string,
	problem: string,
	fix: string,
): never {
	throw new ItemInputError(node, itemIndex, `${field} ${problem}`, fix, field);
}

const HINTS: Record<number, string> = {
	400: 'Little Pay rejected the request body; check the fields named in the message',
	401: 'Check the credentials: client ID/secret for intents, the API key for everything else',
	404: 'No payment or payout with this reference or key exists for this merchant',
	409: 'This key was already used; use a new key or look up the existing one',
	422: 'Little Pay refused the request by its rules (expired intent, limits, refund above the paid amount, ...)',
	429: 'Little Pay is rate limiting; wait and try again',
};

/**
 * For 401 and 403: which credential Little Pay refused, by the name the editor shows, and where the
 * values come from, as the credential test says it.
 */
function credentialHint(response: GatewayAnswer): string | undefined {
	if ((response.statusCode !== 401 && response.statusCode !== 403) || !response.credential)
		return undefined;
	const help = CREDENTIAL_HELP[response.credential];
	return `Check the credentials: Little Pay refused the ${help.values} of the "${help.name}" credential. ${help.fix}`;
}

/** What Little Pay answered, in the package's own words: the gateway's text is not declared output. */
const OWN_WORDS: Record<number, string> = {
	400: 'rejected',
	401: 'refused the credential for',
	403: 'refused the credential for',
	404: 'has nothing at',
	409: 'already has something else under the key of',
	422: 'refused by its rules',
	429: 'is rate limiting',
};

// The gateway's own words of an error, kept beside it rather than on it: n8n stores every own field of
// an error, and these may repeat a payee's number or name. The exit shows them only with Payer Details:
// Full (flows/output.ts); failure codes are read from them (helpers/failures.ts).
const gatewayWords = new WeakMap<object, string>();

/** Little Pay's own words for an error it answered, when there were any (not stored with the error). */
export function gatewayWordsOf(error: unknown): string | undefined {
	return typeof error === 'object' && error !== null ? gatewayWords.get(error) : undefined;
}

/**
 * Turns a Little Pay error answer into a NodeApiError built from what is declared: the HTTP status,
 * Little Pay's error code when it is a code, and the package's words for them. For 401 and 403 the
 * message leads with the credential refused, by the name the merchant gave it.
 */
export function throwGatewayError(
	context: IExecuteFunctions,
	response: GatewayAnswer,
	itemIndex: number,
	cardData = false,
): never {
	const words =
		typeof response.data.message === 'string' && response.data.message.trim() !== ''
			? response.data.message
			: undefined;
	const given = typeof response.data.code === 'string' ? response.data.code : '';
	const code = /^[A-Za-z0-9_.-]{1,64}$/.test(given) ? given : null;
	// n8n stores a NodeApiError's errorResponse with the execution: what is declared, never the answer.
	const body: JsonObject = {
		statusCode: response.statusCode,
		code,
		...(cardData ? { cardRequest: true } : {}),
	};
	const said = `HTTP ${response.statusCode}${code ? `, ${code}` : ''}`;
	const own =
		OWN_WORDS[response.statusCode] ??
		(response.statusCode >= 500 ? 'failed with a server error on' : 'answered with an error to');
	const asked = response.asked ?? 'the request';
	const refused =
		(response.statusCode === 401 || response.statusCode === 403) && response.credential
			? `Little Pay refused the credential "${context.getNode().credentials?.[response.credential]?.name ?? CREDENTIAL_HELP[response.credential].name}" (${said})`
			: undefined;
	const error = new NodeApiError(context.getNode(), body, {
		message: refused ?? `Little Pay ${own} ${asked} (${said})`,
		description:
			credentialHint(response) ??
			HINTS[response.statusCode] ??
			'Little Pay answered with an error; try again later',
		httpCode: String(response.statusCode),
		itemIndex,
	});
	// After a card request Little Pay's words are never kept: they may repeat the card.
	if (words !== undefined && !cardData) gatewayWords.set(error, words);
	throw error;
}

/** The package's two credential types. */
export type LittlePayCredential = 'littlePayBasicApi' | 'littlePayApiKeyApi';

/** A gateway answer as transport/ returns it: the status code, the envelope's data and the credential it was sent with. */
export interface GatewayAnswer {
	statusCode: number;
	data: IDataObject;
	/** The credential the request was sent with, so a refusal can name it. */
	credential?: LittlePayCredential;
	/** The request as the package built it (`GET /api/payments-v2/order1001`): an error names it. */
	asked?: string;
}

/** What each credential is called in the editor, what it is for, and where its values are. */
export const CREDENTIAL_HELP: Record<
	LittlePayCredential,
	{ name: string; usedFor: string; values: string; fix: string }
> = {
	littlePayBasicApi: {
		name: 'Little Pay (Client ID and Secret) API',
		usedFor:
			'Creating a payment intent (Payment Intent: Create, Mobile Money: Collect) signs in with it',
		values: 'Client ID, Client Secret or Token ID',
		fix: 'Open it under Credentials and copy the three values again from the Little Pay dashboard: Merchants, Merchant Settings, Security tab.',
	},
	littlePayApiKeyApi: {
		name: 'Little Pay (API Key) API',
		usedFor: 'Every Little Pay operation reads payments with it',
		values: 'API key',
		fix: 'Open it under Credentials and paste the current key from the Little Pay dashboard: Merchants, Merchant Settings, Security tab (after a rotation only the new key works, and it is shown once).',
	},
};

/** The error that ends a node run the user cancelled, saying what it was doing. */
export function cancelledError(context: IExecuteFunctions, message: string, itemIndex?: number) {
	return new NodeOperationError(context.getNode(), message, { itemIndex });
}

/** Raises the error for a request whose outcome is unknown, saying what to check before retrying. */
export function throwUnknownOutcome(
	context: IExecuteFunctions,
	itemIndex: number,
	what: string,
	detail: string,
	check: string,
): never {
	throw new UnknownOutcomeError(
		context.getNode(),
		`${rowOf(itemIndex)}: the outcome of the ${what} is unknown (${detail})`,
		{ description: check, itemIndex },
	);
}

/**
 * A request that may have moved money ended without an answer that settles it: it may be at Little Pay.
 * Its type is the fact (the failure code, a stopped run's report), never its message's words.
 */
export class UnknownOutcomeError extends NodeOperationError {}

/** The error of a status check from a webhook call that Little Pay answered with neither a record nor 404. */
export function statusCheckError(node: INode, statusCode: number): NodeOperationError {
	return new NodeOperationError(node, `Little Pay status check answered HTTP ${statusCode}`);
}

/** A path asked to name a payment or payout by a value that names none (`..`): nothing is sent. */
export function notARecordNameError(): Error {
	return new Error('A Little Pay path was asked for a value that cannot name a payment or payout');
}

/**
 * Little Pay answered 2xx with something that is not the record asked for (no status, no amount,
 * another payment's): it proves nothing, so nothing is decided on it.
 */
export function notARecordError(
	context: IExecuteFunctions,
	itemIndex: number,
	what: string,
	problem: string,
): never {
	throw new NodeOperationError(
		context.getNode(),
		`${rowOf(itemIndex)}: Little Pay's answer is not the ${what} asked for: ${problem}`,
		{
			description: `Nothing was decided on it. Look the ${what} up again in a minute; if it keeps happening, check that the credential's Base URL is Little Pay's (or the sandbox's) and not another service.`,
		},
	);
}

/** An error of the node run, not of a bad value: a message as it is, with the options given. */
export function nodeError(
	node: INode,
	message: string | Error,
	options?: ConstructorParameters<typeof NodeOperationError>[2],
): NodeOperationError {
	return new NodeOperationError(node, message, options);
}

/** What an item failed with when it threw nothing (`throw undefined`). */
export function unknownFailure(): Error {
	return new Error('Unknown failure');
}

/** Fails an item whose credential is not selected, by the name the editor shows (n8n's own error names the type). */
export function noCredentialError(
	node: INode,
	type: LittlePayCredential,
	itemIndex: number,
): never {
	const help = CREDENTIAL_HELP[type];
	throw new NodeOperationError(node, `No ${help.name} credential is selected`, {
		itemIndex,
		description: `${help.usedFor}. Open the node and choose one under "Credential for ${help.name}", or create one with the values from the Little Pay dashboard: Merchants, Merchant Settings, Security tab.`,
	});
}

/** The limit a refused money move hit, as the refusal output shows it. */
export interface AppliedLimit {
	/** The limit's field: maxAmount, maxTotalPerExecution, allowedRecipients, ... */
	field: string;
	/** Its name in the panel, e.g. Max Payout Amount. */
	label: string;
	value: number | string[] | boolean;
	setOn: 'node' | 'credential' | 'gateway record';
}

/**
 * A money move refused by a limit or by the tool switch, before anything was sent. In tool mode the
 * router returns `refusal` as the tool's output, so the agent can tell the user; otherwise it fails
 * the item like any bad input.
 */
export class MoneyRefusal extends NodeOperationError {
	readonly refusal: { reason: string; limit: AppliedLimit | null };

	constructor(
		node: INode,
		itemIndex: number,
		reason: string,
		limit: AppliedLimit | null,
		fix: string,
	) {
		super(node, `${rowOf(itemIndex)}: ${reason}`, { description: fix });
		this.refusal = { reason, limit };
	}
}

/** Refuses a money move (see MoneyRefusal). */
export function refuseMove(
	node: INode,
	itemIndex: number,
	reason: string,
	limit: AppliedLimit | null,
	fix: string,
): never {
	throw new MoneyRefusal(node, itemIndex, reason, limit, fix);
}

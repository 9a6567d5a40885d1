// Runs workflow JSON through n8n-core's real execution engine (WorkflowExecute), with the Little Pay
// credentials applied by their own `authenticate` definitions, so node tests exercise what n8n runs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ExecutionLifecycleHooks, WorkflowExecute } from 'n8n-core';
import { ICredentialsHelper, NodeHelpers, Workflow } from 'n8n-workflow';
import type {
	ICredentialDataDecryptedObject,
	ICredentials,
	ICredentialType,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeExecutionData,
	NodeExecutionHint,
	INodeProperties,
	INodeType,
	INodeTypes,
	IRun,
	IRunExecutionData,
	IVersionedNodeType,
	IWorkflowExecuteAdditionalData,
	IWorkflowSettings,
	IConnections,
} from 'n8n-workflow';

import { LittlePayApiKeyApi } from '../credentials/LittlePayApiKeyApi.credentials';
import { LittlePayBasicApi } from '../credentials/LittlePayBasicApi.credentials';
import { LittlePay } from '../nodes/LittlePay/LittlePay.node';
import { engineLogMark, engineLogSince } from './engineLog';
import type { EngineLogEntry } from './engineLog';

/**
 * Test-only start node: emits the items written in its `items` parameter (a JSON array), so a
 * fixture can feed any input to the node under test without n8n-nodes-base.
 */
class FixtureItems implements INodeType {
	description = {
		displayName: 'Fixture Items',
		name: 'fixtureItems',
		group: ['input'],
		version: 1,
		description: 'Emits fixed items',
		defaults: { name: 'Items' },
		inputs: [],
		outputs: ['main'],
		properties: [
			{ displayName: 'Items', name: 'items', type: 'json', default: '[{}]' } as INodeProperties,
		],
	} as INodeType['description'];

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const raw = this.getNodeParameter('items', 0) as string | IDataObject[];
		const items = (typeof raw === 'string' ? JSON.parse(raw) : raw) as IDataObject[];
		return [items.map((json) => ({ json }))];
	}
}

/**
 * The node as n8n offers it to AI Agents and the MCP Server Trigger: the same code under the type
 * `<package>.littlePayTool` (n8n's convertNodeToAiTool appends "Tool" to the name, which is what
 * `'@tool'` display options test). Its main input and output stay, so the engine runs it as n8n 2.x
 * runs an AI Agent's tool call: one item holding the agent's item, the model's arguments and `toolCallId`.
 */
function littlePayTool(): INodeType {
	const node = new LittlePay();
	node.description = {
		...node.description,
		name: 'littlePayTool',
		displayName: 'Little Pay Tool',
	};
	return node;
}

const NODE_TYPES: Record<string, INodeType> = {
	'n8n-nodes-littlepay.littlePay': new LittlePay(),
	'n8n-nodes-littlepay.littlePayTool': littlePayTool(),
	'test.fixtureItems': new FixtureItems(),
};

const CREDENTIAL_TYPES: Record<string, ICredentialType> = {
	littlePayBasicApi: new LittlePayBasicApi(),
	littlePayApiKeyApi: new LittlePayApiKeyApi(),
};

/** Makes another node type available to runs (benchmarks compare the node with a minimal one). */
export function registerNodeType(name: string, type: INodeType): void {
	NODE_TYPES[name] = type;
}

class TestNodeTypes implements INodeTypes {
	getByName(nodeType: string): INodeType | IVersionedNodeType {
		const type = NODE_TYPES[nodeType];
		if (!type) throw new Error(`Unknown node type ${nodeType}`);
		return type;
	}

	getByNameAndVersion(nodeType: string): INodeType {
		return this.getByName(nodeType) as INodeType;
	}

	getKnownTypes(): IDataObject {
		return {};
	}
}

/** Every authenticated request the node sent, as the credential helper saw it. */
export interface AuthenticatedRequest {
	credential: string;
	method: string;
	url: string;
}

/**
 * Applies a credential's generic `authenticate` the way n8n's server does: each value is an
 * expression resolved against `$credentials`, then set on the request.
 */
class TestCredentialsHelper extends ICredentialsHelper {
	readonly sent: AuthenticatedRequest[] = [];

	/** How often each credential type was decrypted (n8n decrypts on every read). */
	readonly decryptions: Record<string, number> = {};

	constructor(
		private readonly credentials: Record<string, ICredentialDataDecryptedObject>,
		private readonly littlePayAt?: string,
		private readonly onRequest?: (request: AuthenticatedRequest) => void,
	) {
		super();
	}

	getParentTypes(): string[] {
		return [];
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const type = CREDENTIAL_TYPES[typeName];
		// A sandbox standing in for Little Pay: the node believes it talks to pay.little.africa.
		if (this.littlePayAt && String(requestOptions.url).startsWith(LITTLE_PAY_URL))
			requestOptions.url =
				this.littlePayAt + String(requestOptions.url).slice(LITTLE_PAY_URL.length);
		const sent: AuthenticatedRequest = {
			credential: typeName,
			method: String(requestOptions.method ?? 'GET'),
			url: String(requestOptions.url),
		};
		this.sent.push(sent);
		this.onRequest?.(sent);
		const authenticate = type?.authenticate;
		if (!authenticate) return requestOptions;
		if (typeof authenticate === 'function') return authenticate(credentials, requestOptions);
		if (!workflow || !node) throw new Error('authenticate needs the workflow and node');
		const resolve = (value: string) =>
			workflow.expression.getSimpleParameterValue(
				node,
				value,
				'internal',
				{ $credentials: credentials },
				undefined,
				'',
			) as string;
		const options = requestOptions as unknown as Record<
			string,
			Record<string, unknown> | undefined
		>;
		for (const [outer, values] of Object.entries(authenticate.properties)) {
			const target = (options[outer] ??= {});
			for (const [key, value] of Object.entries(values as Record<string, string>)) {
				target[resolve(key)] = resolve(value);
			}
		}
		return requestOptions;
	}

	async preAuthentication(): Promise<undefined> {
		return undefined;
	}

	async runPreAuthentication(): Promise<undefined> {
		return undefined;
	}

	async getCredentials(): Promise<ICredentials> {
		throw new Error('not used by the node');
	}

	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentialDataDecryptedObject> {
		const found = this.credentials[type];
		if (!found) throw new Error(`Node does not have credentials of type ${type}`);
		this.decryptions[type] = (this.decryptions[type] ?? 0) + 1;
		// Defaults of the credential type apply, as in n8n.
		const defaults = Object.fromEntries(
			(CREDENTIAL_TYPES[type]?.properties ?? []).map((p) => [p.name, p.default]),
		);
		return { ...defaults, ...found } as ICredentialDataDecryptedObject;
	}

	async updateCredentials(): Promise<void> {}

	async updateCredentialsOauthTokenData(): Promise<void> {}

	getCredentialsProperties(type: string): INodeProperties[] {
		return CREDENTIAL_TYPES[type]?.properties ?? [];
	}
}

/** A workflow as n8n stores it (the part the engine needs). */
export interface WorkflowJson {
	name?: string;
	nodes: INode[];
	connections: IConnections;
	/** The workflow's settings, as n8n saves them (its time zone, `timezone`, among them). */
	settings?: IWorkflowSettings;
}

/** What a run produced. */
export interface RunResult {
	/** Output items of each node, first run, first output (or the output given). */
	output(nodeName: string, outputIndex?: number): INodeExecutionData[];
	/** The hints a node's first run showed above its output (addExecutionHints). */
	hints(nodeName: string): NodeExecutionHint[];
	/** The error the run stopped with, if any. */
	error: (Error & { description?: string }) | undefined;
	run: IRun;
	requests: AuthenticatedRequest[];
	/** How often each credential type was decrypted during the run. */
	decryptions: Record<string, number>;
	/** What n8n's engine logged during the run (kept, not printed; runs started together share it). */
	engineLog: EngineLogEntry[];
}

/** Options of one run. */
export interface RunOptions {
	credentials: Record<string, ICredentialDataDecryptedObject>;
	/** Replaces `{{NAME}}` placeholders in the fixture text (values are JSON-escaped). */
	replacements?: Record<string, string | number>;
	/** Called with a cancel function as soon as the run starts (cancellation tests). */
	onStart?: (cancel: () => void) => void;
	executionId?: string;
	/**
	 * Runs with no execution id, as n8n 2.x runs a tool called over its MCP Server Trigger (while
	 * answering the MCP request, before any execution exists).
	 */
	withoutExecutionId?: boolean;
	/**
	 * Retries this failed run as n8n's Executions list does: a new execution in mode `retry` that
	 * starts from the stored run data (saved as JSON), minus the failed node's errored run.
	 */
	retryOf?: RunResult;
	/**
	 * Resumes this waiting run as n8n's wait tracker does when its wait time is over: the stored run
	 * data (saved as JSON) is run on, which passes the waiting node's input on without running it.
	 */
	resumeOf?: RunResult;
	/**
	 * Sends what the node addresses to https://pay.little.africa to this address instead (a sandbox
	 * standing in for Little Pay), so a credential pointing at Little Pay can be run without the internet.
	 */
	littlePayAt?: string;
	/**
	 * Called as each authenticated request leaves the node, before it is sent: what a person does while
	 * the run goes on (turning a credential's switch, say, by changing `credentials` in place).
	 */
	onRequest?: (request: AuthenticatedRequest) => void;
}

const LITTLE_PAY_URL = 'https://pay.little.africa';

let executionSeq = 0;

/** Reads a workflow fixture from testkit/workflows and fills its placeholders. */
export function loadFixture(
	file: string,
	replacements: Record<string, string | number> = {},
): WorkflowJson {
	let text = readFileSync(join(__dirname, 'workflows', file), 'utf8');
	// Payout Key takes no expression (n8n strips it), so a fixture's {{KEY_SOURCE}} is one choice for the
	// run: generated when every item asks for it (keySource 'generated', or an empty key), else mapped.
	if (text.includes('{{KEY_SOURCE}}') && replacements.KEY_SOURCE === undefined) {
		const items = JSON.parse(String(replacements.ITEMS ?? '[]')) as Array<Record<string, unknown>>;
		const generated =
			items.length > 0 &&
			items.every((item) =>
				item.keySource !== undefined ? item.keySource === 'generated' : item.key === '',
			);
		replacements = { ...replacements, KEY_SOURCE: generated ? 'generated' : 'mapped' };
	}
	for (const [name, value] of Object.entries(replacements)) {
		text = text.split(`{{${name}}}`).join(JSON.stringify(String(value)).slice(1, -1));
	}
	return JSON.parse(text) as WorkflowJson;
}

/**
 * The run data a retry starts from, as n8n 2.41's ExecutionService.retry builds it: the failed
 * execution's stored data without its error, and without the failed node's last (errored) run.
 */
function retryData(failed: IRun): IRunExecutionData {
	const data = JSON.parse(JSON.stringify(failed.data)) as IRunExecutionData;
	const { lastNodeExecuted } = data.resultData;
	if (lastNodeExecuted) {
		delete data.resultData.error;
		const nodeRuns = data.resultData.runData[lastNodeExecuted];
		if (nodeRuns?.length && nodeRuns[nodeRuns.length - 1].error !== undefined) nodeRuns.pop();
	}
	return data;
}

/** Runs a workflow through n8n-core's WorkflowExecute from its fixture-items node. */
export async function runWorkflow(
	workflowJson: WorkflowJson,
	options: RunOptions,
): Promise<RunResult> {
	const executionId = options.executionId ?? `test-${process.pid}-${++executionSeq}`;
	const logMark = engineLogMark();
	const nodeTypes = new TestNodeTypes();
	// Little Pay nodes get every credential the run provides, as if the user had selected them.
	const attached = Object.fromEntries(
		Object.keys(options.credentials).map((type) => [type, { id: type, name: type }]),
	);
	const nodes = workflowJson.nodes.map((node) => ({
		...node,
		id: node.id ?? node.name,
		credentials: node.type.startsWith('n8n-nodes-littlepay.littlePay')
			? (node.credentials ?? attached)
			: node.credentials,
	}));
	for (const node of nodes) {
		const type = nodeTypes.getByNameAndVersion(node.type);
		node.parameters =
			NodeHelpers.getNodeParameters(
				type.description.properties,
				node.parameters,
				true,
				false,
				node,
				type.description,
			) ?? {};
	}
	const workflow = new Workflow({
		id: 'test-workflow',
		name: workflowJson.name ?? 'test',
		nodes,
		connections: workflowJson.connections,
		active: false,
		nodeTypes,
		staticData: {},
		settings: workflowJson.settings,
	});
	const credentialsHelper = new TestCredentialsHelper(
		options.credentials,
		options.littlePayAt,
		options.onRequest,
	);
	const mode = options.retryOf ? 'retry' : 'manual';
	const hooks = new ExecutionLifecycleHooks(mode, executionId, {
		id: 'test-workflow',
		name: 'test',
		nodes,
		connections: workflowJson.connections,
		active: false,
		settings: {},
		createdAt: new Date(),
		updatedAt: new Date(),
		isArchived: false,
		activeVersionId: null,
	} as never);
	const additionalData = {
		credentialsHelper,
		hooks,
		executionId: options.withoutExecutionId ? undefined : executionId,
		currentNodeExecutionIndex: 0,
		variables: {},
		restApiUrl: 'http://127.0.0.1:9/rest',
		instanceBaseUrl: 'http://127.0.0.1:9',
		webhookBaseUrl: 'http://127.0.0.1:9/webhook',
		webhookWaitingBaseUrl: 'http://127.0.0.1:9/webhook-waiting',
		webhookTestBaseUrl: 'http://127.0.0.1:9/webhook-test',
		formBaseUrl: 'http://127.0.0.1:9/form',
		formWaitingBaseUrl: 'http://127.0.0.1:9/form-waiting',
		formTestBaseUrl: 'http://127.0.0.1:9/form-test',
		mcpBaseUrl: 'http://127.0.0.1:9/mcp',
		mcpTestBaseUrl: 'http://127.0.0.1:9/mcp-test',
		logAiEvent: () => undefined,
		executeWorkflow: async () => {
			throw new Error('sub-workflows are not used');
		},
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		startRunnerTask: async () => {
			throw new Error('code tasks are not used');
		},
	} as unknown as IWorkflowExecuteAdditionalData;
	let running: ReturnType<WorkflowExecute['run']>;
	if (options.resumeOf) {
		const executionData = JSON.parse(
			JSON.stringify(options.resumeOf.run.data),
		) as IRunExecutionData;
		running = new WorkflowExecute(additionalData, 'manual', executionData).processRunExecutionData(
			workflow,
		);
	} else if (options.retryOf) {
		const executionData = retryData(options.retryOf.run);
		running = new WorkflowExecute(additionalData, 'retry', executionData).processRunExecutionData(
			workflow,
		);
	} else {
		const start = nodes.find((node) => node.type === 'test.fixtureItems');
		if (!start) throw new Error('The fixture needs a Fixture Items start node');
		running = new WorkflowExecute(additionalData, 'manual').run({ workflow, startNode: start });
	}
	options.onStart?.(() => running.cancel());
	let run: IRun;
	try {
		run = await running;
	} catch (error) {
		// A cancelled run rejects; the engine's own record of it is not needed by the tests.
		return {
			output: () => [],
			hints: () => [],
			error: error as Error,
			run: undefined as unknown as IRun,
			requests: credentialsHelper.sent,
			decryptions: credentialsHelper.decryptions,
			engineLog: engineLogSince(logMark),
		};
	}
	const runData = run.data.resultData.runData;
	return {
		output(nodeName: string, outputIndex = 0) {
			return runData[nodeName]?.[0]?.data?.main?.[outputIndex] ?? [];
		},
		hints(nodeName: string) {
			return runData[nodeName]?.[0]?.hints ?? [];
		},
		error: run.data.resultData.error as RunResult['error'],
		run,
		requests: credentialsHelper.sent,
		decryptions: credentialsHelper.decryptions,
		engineLog: engineLogSince(logMark),
	};
}

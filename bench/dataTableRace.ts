// Issue 30, "exactly once downstream": does a conditional Data Table update (`status = PENDING` → set
// COMPLETED, which returns the rows it changed) work as a compare-and-set, so that the step after it (here:
// an insert into a `shipments` table) runs once per payment when two or three executions see the same
// payment at the same moment (callback and reconciliation sweep, or a callback delivered twice)?
//
// Why it is a question: n8n's `updateRows` (dist/modules/data-table/data-table-rows.repository.js) runs one
// `UPDATE ... WHERE ... RETURNING` on Postgres, but on SQLite it selects the matching ids, updates, then
// reads those ids back (without the WHERE), so two racers that both selected before either updated would
// both get the row. They cannot, if n8n's SQLite transactions are serialised: its `sqlite-pooled` driver
// runs every transaction on its one write connection behind a mutex, with BEGIN IMMEDIATE. This measures it.
//
// The control workflow (get the PENDING row, then update, then ship: a check-then-act with no
// compare-and-set) shows the race window is real under this load, so a zero for the recipe means something.
import { randomUUID } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import { N8nApi, startN8n } from '../testkit/n8n';
import { waitForWebhook } from '../testkit/n8nRuns';
import { ensureQueueDependencies, postgresEnv, startPostgres } from '../testkit/queueCluster';
import { lastNodeWebhookNode } from '../testkit/workflowParts';
import { failureCount, mapConcurrent, note, percentile, result } from './lib';

/** Payments per round: each is raced by `racers` simultaneous webhook calls. */
const REFERENCES = 200;
/** References in flight at once, so `BATCH * racers` requests reach n8n together. */
const BATCH = 10;
/** Racers per reference in the recipe rounds: a duplicate callback, and callback + sweep + duplicate. */
const RACER_COUNTS = [2, 3];
/** n8n's own default for DB_SQLITE_POOL_SIZE (@n8n/config SqliteConfig.poolSize); the test kit sets 2. */
const N8N_DEFAULT_SQLITE_POOL_SIZE = '3';

type Json = Record<string, unknown>;
type Row = Record<string, unknown>;

interface Tables {
	projectId: string;
	paymentsId: string;
	shipmentsId: string;
}

/** The `data` of an n8n REST answer, or an error naming `what` when the status is not 2xx. */
function unwrap<T>(response: { status: number; data: unknown }, what: string): T {
	if (response.status >= 300)
		throw new Error(`${what}: HTTP ${response.status} ${JSON.stringify(response.data)}`);
	return (response.data as { data: T }).data;
}

/** Creates a data table of string columns in the project, through the editor's REST API; returns its id. */
async function createDataTable(
	api: N8nApi,
	projectId: string,
	name: string,
	columns: string[],
): Promise<string> {
	const res = await api.http.post(`/rest/projects/${projectId}/data-tables`, {
		name,
		columns: columns.map((column) => ({ name: column, type: 'string' })),
	});
	return unwrap<{ id: string }>(res, `create data table ${name}`).id;
}

/** Appends rows to a data table. */
async function insertRows(
	api: N8nApi,
	tables: Tables,
	tableId: string,
	rows: Row[],
): Promise<void> {
	const res = await api.http.post(
		`/rest/projects/${tables.projectId}/data-tables/${tableId}/insert`,
		{ data: rows },
	);
	unwrap(res, 'insert rows');
}

/** Every row of a data table (the REST API pages by at most 250). */
async function allRows(api: N8nApi, tables: Tables, tableId: string): Promise<Row[]> {
	const rows: Row[] = [];
	for (;;) {
		const res = await api.http.get(
			`/rest/projects/${tables.projectId}/data-tables/${tableId}/rows`,
			{
				params: { skip: rows.length, take: 250 },
			},
		);
		const page = unwrap<{ count: number; data: Row[] }>(res, 'list rows');
		rows.push(...page.data);
		if (page.data.length === 0 || rows.length >= page.count) return rows;
	}
}

/** A Data Table node on `tableId`, picked by id (as the editor's "From list" stores it, not by name). */
function dataTableNode(name: string, tableId: string, parameters: Json, x: number): Json {
	return {
		name,
		type: 'n8n-nodes-base.dataTable',
		typeVersion: 1.1,
		position: [x, 0],
		parameters: {
			resource: 'row',
			dataTableId: { __rl: true, mode: 'id', value: tableId },
			...parameters,
		},
	};
}

/** A `columns` resource-mapper value for string columns, as the editor saves it. */
function columnsMapping(values: Record<string, string>): Json {
	return {
		mappingMode: 'defineBelow',
		value: values,
		matchingColumns: [],
		schema: Object.keys(values).map((id) => ({
			id,
			displayName: id,
			required: false,
			defaultMatch: false,
			display: true,
			type: 'string',
			canBeUsedToMatch: true,
		})),
		attemptToConvertTypes: false,
		convertFieldsToString: false,
	};
}

/** Filter conditions on `reference` (from `referenceExpression`) and optionally `status = PENDING`. */
function conditions(referenceExpression: string, pendingOnly: boolean): Json {
	const list = [{ keyName: 'reference', condition: 'eq', keyValue: referenceExpression }];
	if (pendingOnly) list.push({ keyName: 'status', condition: 'eq', keyValue: 'PENDING' });
	// The node's default is anyCondition, which would update every PENDING row: ALL must be explicit.
	return { matchType: 'allConditions', filters: { conditions: list } };
}

/** The shipment insert both workflows end with: which reference, and which execution shipped it. */
function shipNode(tables: Tables, x: number): Json {
	return dataTableNode(
		'Ship order',
		tables.shipmentsId,
		{
			operation: 'insert',
			columns: columnsMapping({
				reference: '={{ $json.reference }}',
				executionId: '={{ $execution.id }}',
			}),
			options: {},
		},
		x,
	);
}

/** Chains `nodes` left to right with main connections. */
function chain(name: string, nodes: Json[]): Json {
	const connections: Json = {};
	for (let i = 0; i + 1 < nodes.length; i++)
		connections[String(nodes[i].name)] = {
			main: [[{ node: String(nodes[i + 1].name), type: 'main', index: 0 }]],
		};
	return { name, nodes, connections, settings: { executionOrder: 'v1' } };
}

/**
 * The recipe: Webhook → update `status` to COMPLETED where reference matches AND status = PENDING → ship.
 * The update returns only the rows it changed; an empty output ends the branch ("Always Output Data" off).
 */
function recipeWorkflow(path: string, tables: Tables): Json {
	return chain('data table compare-and-set', [
		lastNodeWebhookNode(path, 'Webhook'),
		dataTableNode(
			'Claim payment',
			tables.paymentsId,
			{
				operation: 'update',
				...conditions('={{ $json.body.reference }}', true),
				columns: columnsMapping({ status: 'COMPLETED' }),
				options: {},
			},
			220,
		),
		shipNode(tables, 440),
	]);
}

/** The control: get the row if still PENDING, then update it and ship (check-then-act, no compare-and-set). */
function controlWorkflow(path: string, tables: Tables): Json {
	return chain('data table check-then-act', [
		lastNodeWebhookNode(path, 'Webhook'),
		dataTableNode(
			'Find pending',
			tables.paymentsId,
			{ operation: 'get', ...conditions('={{ $json.body.reference }}', true), returnAll: true },
			220,
		),
		dataTableNode(
			'Mark completed',
			tables.paymentsId,
			{
				operation: 'update',
				...conditions('={{ $json.reference }}', false),
				columns: columnsMapping({ status: 'COMPLETED' }),
				options: {},
			},
			440,
		),
		shipNode(tables, 660),
	]);
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/** POSTs `{ reference }` to a webhook; resolves with the status and the time until the answer ended. */
function post(url: string, reference: string): Promise<{ status: number; ms: number }> {
	const started = performance.now();
	const body = JSON.stringify({ reference });
	return new Promise((resolve, reject) => {
		const req = request(
			url,
			{ method: 'POST', headers: { 'content-type': 'application/json' }, agent },
			(res) => {
				res.resume();
				res.on('end', () =>
					resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }),
				);
			},
		);
		req.on('error', reject);
		req.end(body);
	});
}

interface RoundOutcome {
	double: number;
	lost: number;
	stillPending: number;
	failedRequests: number;
	ms: number;
	p50: number;
	p95: number;
}

/**
 * One round: `REFERENCES` new PENDING payments, each hit by `racers` simultaneous calls (`BATCH`
 * references in flight), then shipments counted per reference. Returns what went wrong and the timings.
 */
async function raceRound(
	api: N8nApi,
	tables: Tables,
	url: string,
	racers: number,
	label: string,
): Promise<RoundOutcome> {
	const references = Array.from({ length: REFERENCES }, (_, i) => `${label}-${i}-${randomUUID()}`);
	await insertRows(
		api,
		tables,
		tables.paymentsId,
		references.map((reference) => ({ reference, status: 'PENDING' })),
	);
	const started = performance.now();
	const outcomes = await mapConcurrent(references, BATCH, (reference) =>
		Promise.all(Array.from({ length: racers }, () => post(url, reference))),
	);
	const ms = performance.now() - started;
	const flat = outcomes.flat();
	const wanted = new Set(references);
	const shipped = new Map<string, number>();
	for (const row of await allRows(api, tables, tables.shipmentsId)) {
		const reference = String(row.reference);
		if (wanted.has(reference)) shipped.set(reference, (shipped.get(reference) ?? 0) + 1);
	}
	const payments = (await allRows(api, tables, tables.paymentsId)).filter((row) =>
		wanted.has(String(row.reference)),
	);
	const times = flat.map((o) => o.ms);
	return {
		double: references.filter((r) => (shipped.get(r) ?? 0) > 1).length,
		lost: references.filter((r) => (shipped.get(r) ?? 0) === 0).length,
		stillPending: payments.filter((row) => row.status !== 'COMPLETED').length,
		failedRequests: flat.filter((o) => o.status !== 200).length,
		ms,
		p50: percentile(times, 0.5),
		p95: percentile(times, 0.95),
	};
}

/**
 * Runs the whole measurement against one started n8n: tables, both workflows, a one-request check,
 * the recipe rounds (printed as RESULT lines named `dataTableRace.<prefix>_...`) and the control round.
 */
async function measure(prefix: string, env: Record<string, string>): Promise<void> {
	const bootStarted = performance.now();
	const n8n = await startN8n({ env });
	try {
		note(`${prefix}: n8n started in ${((performance.now() - bootStarted) / 1000).toFixed(1)} s`);
		const api = new N8nApi(n8n.url);
		await api.setupOwner();
		const projectId = unwrap<{ id: string }>(
			await api.http.get('/rest/projects/personal'),
			'personal project',
		).id;
		const paymentsId = await createDataTable(api, projectId, 'payments', ['reference', 'status']);
		const shipmentsId = await createDataTable(api, projectId, 'shipments', [
			'reference',
			'executionId',
		]);
		const tables: Tables = { projectId, paymentsId, shipmentsId };
		const urls: Record<'recipe' | 'control', string> = { recipe: '', control: '' };
		for (const [kind, build] of [
			['recipe', recipeWorkflow],
			['control', controlWorkflow],
		] as const) {
			const path = `race-${kind}-${randomUUID().slice(0, 8)}`;
			const created = await api.createWorkflow(build(path, tables));
			await api.activateWorkflow(created.id, created.versionId);
			urls[kind] = `${n8n.url}/webhook/${path}`;
			// Activation returns before n8n has registered the webhook (on a loaded machine a first call
			// got 404 "not registered"): wait for it, while both tables are still empty, so the probe's
			// run (a body without a reference) has no row to claim.
			await waitForWebhook(urls[kind]);
		}

		// One request, one shipment; a second request for the same payment ships nothing.
		const check = `check-${randomUUID()}`;
		await insertRows(api, tables, tables.paymentsId, [{ reference: check, status: 'PENDING' }]);
		const first = await post(urls.recipe, check);
		const second = await post(urls.recipe, check);
		const checkShipments = (await allRows(api, tables, tables.shipmentsId)).filter(
			(row) => row.reference === check,
		).length;
		if (first.status !== 200 || second.status !== 200 || checkShipments !== 1)
			throw new Error(
				`${prefix}: workflow check failed (HTTP ${first.status}, ${second.status}; ` +
					`${checkShipments} shipments, expected 1)\n${n8n.logs().slice(-3000)}`,
			);

		let double = 0;
		let lost = 0;
		for (const racers of RACER_COUNTS) {
			const round = await raceRound(api, tables, urls.recipe, racers, `${prefix}-x${racers}`);
			double += round.double;
			lost += round.lost;
			note(
				`${prefix} recipe: ${REFERENCES} payments x ${racers} simultaneous calls, ` +
					`${BATCH * racers} requests in flight: double=${round.double} lost=${round.lost} ` +
					`still_pending=${round.stillPending} non_200=${round.failedRequests} ` +
					`in ${(round.ms / 1000).toFixed(1)} s (p50 ${round.p50.toFixed(0)} ms, ` +
					`p95 ${round.p95.toFixed(0)} ms per call)`,
			);
		}
		result(`dataTableRace.${prefix}_double_ships`, double, '0', double === 0);
		result(`dataTableRace.${prefix}_lost`, lost, '0', lost === 0);

		const control = await raceRound(api, tables, urls.control, 2, `${prefix}-control`);
		note(
			`${prefix} control (get PENDING row, then update, then ship; no compare-and-set), ` +
				`${REFERENCES} payments x 2 calls: double=${control.double} lost=${control.lost} ` +
				`non_200=${control.failedRequests} in ${(control.ms / 1000).toFixed(1)} s ` +
				`(a double here shows the race window is real)`,
		);
		// Not a goal but a sanity check: with no double in the control, the recipe's zero would prove nothing.
		result(`dataTableRace.${prefix}_control_doubles`, control.double, '>0', control.double > 0);
	} finally {
		await n8n.stop();
	}
}

/** Bench for issue 30: conditional Data Table update as compare-and-set, on SQLite and on Postgres. */
export async function benchDataTableRace(): Promise<void> {
	const started = performance.now();
	await measure('sqlite', {});
	await measure('sqlite_defaultpool', { DB_SQLITE_POOL_SIZE: N8N_DEFAULT_SQLITE_POOL_SIZE });

	ensureQueueDependencies();
	const dir = mkdtempSync(join(tmpdir(), 'littlepay-dtrace-'));
	// Postgres runs as its own user when we are root (see startPostgres): it must reach its folder.
	chmodSync(dir, 0o755);
	try {
		const postgres = await startPostgres(dir);
		try {
			await measure('postgres', postgresEnv(postgres));
		} finally {
			await postgres.process.stop();
		}
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
	note(`dataTableRace took ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

if (require.main === module) {
	benchDataTableRace()
		.then(() => process.exit(failureCount() > 0 ? 1 : 0))
		.catch((error: unknown) => {
			process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
			process.exit(2);
		});
}

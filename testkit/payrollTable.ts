// The Data Tables example 12 (payroll over queue-mode workers) keeps its rows and claims in. Never shipped.
import type { N8nApi } from './n8n';

/** The columns of `littlepay_payroll`: the employee's row, its claim and its outcome. */
export const PAYROLL_COLUMNS: Array<{ name: string; type: 'string' | 'number' | 'date' }> = [
	{ name: 'payrollId', type: 'string' },
	{ name: 'payoutId', type: 'string' },
	{ name: 'name', type: 'string' },
	{ name: 'to', type: 'string' },
	{ name: 'amount', type: 'number' },
	{ name: 'currency', type: 'string' },
	{ name: 'network', type: 'string' },
	// Rows are claimed a block (100 rows) at a time.
	{ name: 'block', type: 'number' },
	// open -> claimed (claimedBy = the chunk execution) -> done; the claim compares status and claimedBy.
	{ name: 'status', type: 'string' },
	{ name: 'claimedBy', type: 'string' },
	{ name: 'claimedFor', type: 'string' },
	{ name: 'claimedAt', type: 'date' },
	{ name: 'outcome', type: 'string' },
	{ name: 'run', type: 'string' },
	{ name: 'fee', type: 'number' },
	{ name: 'reason', type: 'string' },
	{ name: 'littlePayId', type: 'string' },
	{ name: 'doneAt', type: 'date' },
];

/** The columns of `littlepay_payroll_outcomes`: each row's outcome, under the execution that claimed it. */
export const PAYROLL_OUTCOME_COLUMNS: Array<{ name: string; type: 'string' | 'number' | 'date' }> =
	[
		{ name: 'payrollId', type: 'string' },
		{ name: 'payoutId', type: 'string' },
		{ name: 'claimedBy', type: 'string' },
		{ name: 'outcome', type: 'string' },
		{ name: 'run', type: 'string' },
		{ name: 'fee', type: 'number' },
		{ name: 'reason', type: 'string' },
		{ name: 'littlePayId', type: 'string' },
		{ name: 'doneAt', type: 'date' },
	];

/** Creates the two Data Tables example 12 needs and returns their ids. */
export async function createPayrollTables(
	api: N8nApi,
): Promise<{ payrollId: string; payrollOutcomesId: string }> {
	return {
		payrollId: await api.createDataTable('littlepay_payroll', PAYROLL_COLUMNS),
		payrollOutcomesId: await api.createDataTable(
			'littlepay_payroll_outcomes',
			PAYROLL_OUTCOME_COLUMNS,
		),
	};
}

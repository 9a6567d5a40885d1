// `npm run bench`: every benchmark in one run, each compared against its baseline measured in the same run.
// Prints `RESULT <name> value=<x> target=<y> ok|FAIL` lines; exits non-zero if any says FAIL.
import { benchCallbackFaults } from './callbackFaults';
import { benchCallbacks } from './callbacks';
import { benchDataTableRace } from './dataTableRace';
import { failureCount } from './lib';
import { benchNodeOverhead } from './nodeOverhead';
import { benchPausedWaits } from './pausedWaits';
import { benchPayroll, benchPayrollProfile } from './payroll';
import { benchPayouts } from './payouts';
import { benchPayoutSettlement } from './payoutSettlement';
import { benchPayrollQueue } from './payrollQueue';
import { benchQueueCallbacks } from './queueCallbacks';
import { benchQueuePayouts } from './queuePayouts';
import { benchReconcile } from './reconcile';
import { benchReliability } from './reliability';
import { benchTriggerLoad } from './triggerLoad';
import { benchWaiting } from './waiting';

const benches: Record<string, () => Promise<void>> = {
	callbackFaults: benchCallbackFaults,
	callbacks: benchCallbacks,
	dataTableRace: benchDataTableRace,
	nodeOverhead: benchNodeOverhead,
	pausedWaits: benchPausedWaits,
	payroll: benchPayroll,
	payrollProfile: benchPayrollProfile,
	'payroll-queue': benchPayrollQueue,
	payouts: benchPayouts,
	payoutSettlement: benchPayoutSettlement,
	queueCallbacks: benchQueueCallbacks,
	queuePayouts: benchQueuePayouts,
	reconcile: benchReconcile,
	reliability: benchReliability,
	triggerLoad: benchTriggerLoad,
	waiting: benchWaiting,
};

async function main(): Promise<void> {
	const only = process.argv.slice(2);
	for (const [name, run] of Object.entries(benches)) {
		if (only.length > 0 && !only.includes(name)) continue;
		process.stdout.write(`# bench ${name}\n`);
		await run();
	}
	process.exit(failureCount() > 0 ? 1 : 0);
}

main().catch((error: unknown) => {
	process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
	process.exit(2);
});

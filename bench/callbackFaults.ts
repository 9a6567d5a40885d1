// Callbacks acknowledged and then lost (issue 18): the kill scenario (300 genuine signed callbacks, 25 at a
// time, n8n SIGKILLed once 100 are answered, restarted on the same SQLite database, every callback without
// a 2xx delivered again) for the Little Pay Trigger and, as the baseline in the same run, n8n's own Webhook
// node; then the same trigger with the database file write-locked for 10 s mid-burst.
import { runCallbackFault } from '../testkit/callbackFaults';
import type { CallbackFaultReport } from '../testkit/callbackFaults';
import { note, result } from './lib';

function describe(name: string, r: CallbackFaultReport): void {
	note(
		`${name}: ${r.acknowledgedBeforeFault} acknowledged before the fault, ${r.acknowledged} of ${r.callbacks} in the end, ` +
			`${r.redelivered} redelivered (${r.redeliveredRan} ran), ${r.executions} executions, ${r.ranTwice} ran twice, ` +
			`refusals ${JSON.stringify(r.refusals)}`,
	);
}

/** Runs the kill scenario for the trigger and n8n's Webhook node, and the database-lock scenario. */
export async function benchCallbackFaults(): Promise<void> {
	const kill = { kind: 'kill' as const, afterAcks: 100 };
	const trigger = await runCallbackFault({
		receiver: 'littlePayTrigger',
		fault: kill,
		callbacks: 300,
		concurrency: 25,
	});
	describe('trigger, kill', trigger);
	const webhook = await runCallbackFault({
		receiver: 'n8nWebhook',
		fault: kill,
		callbacks: 300,
		concurrency: 25,
	});
	describe("n8n's Webhook node, kill", webhook);
	result(
		'callbacks.acknowledged_then_lost',
		trigger.acknowledgedThenLost,
		'0',
		trigger.acknowledgedThenLost === 0,
	);
	result(
		'callbacks.webhook_node_acknowledged_then_lost',
		webhook.acknowledgedThenLost,
		'baseline',
		true,
	);
	result('callbacks.ran_twice_after_kill', trigger.ranTwice, 'info', true);

	const locked = await runCallbackFault({
		receiver: 'littlePayTrigger',
		fault: { kind: 'lockDatabase', afterAcks: 30, forMs: 10000 },
		callbacks: 100,
		concurrency: 25,
	});
	describe('trigger, database locked 10 s', locked);
	const lockLost = locked.acknowledgedThenLost + (locked.redelivered - locked.redeliveredRan);
	result('callbacks.lost_during_database_lock', lockLost, '0', lockLost === 0);
}

// A callback the trigger acknowledges is never lost (issue 18), in a real n8n 2.41.1 (regular mode,
// SQLite): n8n killed with SIGKILL in the middle of a burst and restarted on the same database, and the
// database file write-locked by another connection in the middle of a burst. Every callback answered 2xx
// has an execution; every one left unanswered is delivered again and runs.
import { runCallbackFault } from '../../testkit/callbackFaults';

jest.setTimeout(900000);

describe('acknowledged callbacks survive faults (real n8n 2.41.1)', () => {
	it('loses no acknowledged callback when n8n is killed mid-burst and restarted', async () => {
		const report = await runCallbackFault({
			receiver: 'littlePayTrigger',
			// 25 callbacks in flight when n8n is killed, and 100 more after it: redelivered once it is back.
			fault: { kind: 'kill', afterAcks: 50 },
			callbacks: 150,
			concurrency: 25,
		});
		expect(report.redelivered).toBeGreaterThan(0);
		// The whole report on failure: which references were lost, and executions without a callback.
		expect({
			...report,
			lost: report.acknowledgedThenLost,
			faultMidBurst: report.acknowledgedBeforeFault >= 50,
		}).toMatchObject({
			faultMidBurst: true,
			lost: 0,
			neverAcknowledged: 0,
			redeliveredRan: report.redelivered,
		});
	});

	it('runs every redelivery of a callback that got no 2xx while the database refused writes', async () => {
		const report = await runCallbackFault({
			receiver: 'littlePayTrigger',
			fault: { kind: 'lockDatabase', afterAcks: 30, forMs: 10000 },
			callbacks: 100,
			concurrency: 25,
		});
		// The whole report on failure: which references were lost, and executions without a callback.
		expect({
			...report,
			lost: report.acknowledgedThenLost,
			faultMidBurst: report.acknowledgedBeforeFault >= 30,
		}).toMatchObject({
			faultMidBurst: true,
			lost: 0,
			neverAcknowledged: 0,
			redeliveredRan: report.redelivered,
		});
		// Each callback ran; a duplicate answer for one that never ran would show up here.
		expect(report.executions - report.ranTwice).toBe(report.callbacks);
	});
});

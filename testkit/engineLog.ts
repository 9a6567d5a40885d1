// n8n-core reports every error a node throws to its ErrorReporter, which writes it through n8n's Logger
// (winston, console transport): every expected item error of the node suites came out as a console.log
// block, hundreds per `npm test`, burying a real failure. The harness gives the engine a Logger that
// keeps the lines instead; a run's result carries the lines logged during it, so tests can still read
// what n8n would have logged (info and up, n8n's default level). LITTLEPAY_ENGINE_LOG=1 prints them
// as well, debug lines included, to debug a run.
import { dirname } from 'node:path';
import { LoggerProxy } from 'n8n-workflow';
import type { Logger } from 'n8n-workflow';

/** One line n8n's engine logged. */
export interface EngineLogEntry {
	level: keyof Logger;
	message: string;
}

const entries: EngineLogEntry[] = [];
const echo = process.env.LITTLEPAY_ENGINE_LOG === '1';

function keep(level: keyof Logger): Logger[keyof Logger] {
	return (message) => {
		if (level !== 'debug') entries.push({ level, message });
		if (echo) process.stderr.write(`[n8n ${level}] ${message}\n`);
	};
}

const capturingLogger = {
	error: keep('error'),
	warn: keep('warn'),
	info: keep('info'),
	debug: keep('debug'),
	scoped: () => capturingLogger,
};

// n8n-core takes its Logger from its own nested copies of @n8n/di and @n8n/backend-common (the
// top-level copies are other versions, with another container), so the logger is registered there.
const n8nCoreDir = dirname(require.resolve('n8n-core'));
function fromN8nCore<T>(id: string): T {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	return require(require.resolve(id, { paths: [n8nCoreDir] })) as T;
}
const { Container } = fromN8nCore<typeof import('@n8n/di')>('@n8n/di');
const { Logger: N8nLogger } =
	fromN8nCore<typeof import('@n8n/backend-common')>('@n8n/backend-common');
Container.set(N8nLogger, capturingLogger as unknown as InstanceType<typeof N8nLogger>);
LoggerProxy.init(capturingLogger);

/** How many lines the engine has logged so far (a mark to read the lines after it). */
export function engineLogMark(): number {
	return entries.length;
}

/** The lines the engine logged since a mark. */
export function engineLogSince(mark: number): EngineLogEntry[] {
	return entries.slice(mark);
}

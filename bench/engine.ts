// The workflow harness (testkit/engine) for benchmarks run by tsx. Under tsx, Node's resolver
// picks `LittlePay.node.json` (the codex file) for the harness's extensionless import of
// `LittlePay.node`, so that one specifier is pointed at the TypeScript source before the harness loads.
// Jest resolves .ts first and needs none of this.
import Module from 'node:module';
import { join } from 'node:path';

type Resolve = (request: string, ...rest: unknown[]) => string;
const moduleWithResolver = Module as unknown as { _resolveFilename: Resolve };
const original = moduleWithResolver._resolveFilename;
const nodeSource = join(__dirname, '..', 'nodes', 'LittlePay', 'LittlePay.node.ts');
moduleWithResolver._resolveFilename = function (request: string, ...rest: unknown[]): string {
	if (request.endsWith('/LittlePay/LittlePay.node')) return nodeSource;
	return original.call(this, request, ...rest);
};

// eslint-disable-next-line @typescript-eslint/no-require-imports
const harness = require('../testkit/engine') as typeof import('../testkit/engine');

export const { loadFixture, registerNodeType, runWorkflow } = harness;
export type { RunResult, WorkflowJson } from '../testkit/engine';

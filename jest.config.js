// Two projects: `unit` (the sandbox, engine and node suites, no n8n install needed; `npm run test:unit`)
// and `e2e` (test/e2e, real n8n servers). `jest` alone runs both. The shared test kit (testkit/) is
// imported by the suites, never a test root.
const shared = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	transform: {
		'^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.dev.json' }],
	},
};

/** @type {import('jest').Config} */
module.exports = {
	testTimeout: 30000,
	projects: [
		{
			...shared,
			displayName: 'unit',
			testMatch: ['<rootDir>/test/**/*.test.ts'],
			testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/e2e/'],
		},
		{
			...shared,
			displayName: 'e2e',
			testMatch: ['<rootDir>/test/e2e/**/*.test.ts'],
			// One connection per call: a kept-alive socket n8n has closed fails a test by load alone.
			setupFiles: ['<rootDir>/testkit/noKeepAlive.ts'],
			// The run's folder for the servers its files share (testkit/sharedN8n.ts), and their stop.
			globalSetup: '<rootDir>/testkit/e2eGlobalSetup.ts',
			globalTeardown: '<rootDir>/testkit/e2eGlobalTeardown.ts',
		},
	],
};

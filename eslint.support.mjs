// Lint config for code that never ships to n8n (sandbox, tests, benchmarks, scripts).
// The package's own code is linted by eslint.config.mjs, n8n's strict config, unmodified.
// `npm run lint` turns on ESLint's per-directory config lookup so each tree gets its own.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(js.configs.recommended, tseslint.configs.recommended, {
	files: ['**/*.ts'],
	rules: { '@typescript-eslint/no-explicit-any': 'error' },
});

// Lint: typescript-eslint's rules that need no types, and import rules that keep the layers apart
// (docs/architecture.md): transport never reaches the store, the domain never reaches HTTP, SQL or the
// file system. The type-aware rules (lost promises, strict booleans in the domain) are oxlint's, run by
// tsgolint on TypeScript 7 (.oxlintrc.json): through typescript-eslint they made ESLint take 77 core-seconds, not 15.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { areaImportsPlugin } from './support/area-imports.mjs';

const STORE = ['**/store/*', '**/store/**', 'kysely', 'pg', 'better-sqlite3'];
// What transport (src/http, src/cli) never imports: it calls the domain services of src/services.ts.
const TRANSPORT = [
  { group: STORE, message: 'Transport calls the domain services it receives (src/services.ts), never the store.' },
  {
    group: ['**/gateways/**'],
    message: 'Transport reaches the gateways through the domain services (src/services.ts).',
  },
];

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'data/', 'test-artifacts/', 'reports/', '.stryker-tmp/', 'bin/', 'scratch/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { globals: globals.node },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  {
    // The domain stays apart from transport, storage and files.
    files: ['src/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['node:fs', 'fs', 'node:fs/promises', 'fastify', 'playwright-core'].map((name) => ({
            name,
            message: 'The domain knows nothing of HTTP or files: take what you need as a dependency.',
          })),
          patterns: [
            {
              group: [...STORE, '**/http/**', '**/cli/**', '**/files/**', '**/gateways/**', '**/services.ts'],
              message: 'The domain imports only the domain; the rest is passed in through ports.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/cli/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: TRANSPORT }] },
  },
  {
    files: ['src/http/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...TRANSPORT,
            {
              group: ['**/worker.ts'],
              message: 'The web server hears of the worker through the domain (WorkerReport).',
            },
          ],
        },
      ],
    },
  },
  {
    // The domain's areas: what each may import, and only through its index.ts (support/area-imports.mjs).
    files: ['src/**/*.ts'],
    plugins: { opentill: areaImportsPlugin },
    rules: { 'opentill/area-imports': 'error' },
  },
  {
    // E-mails and pages share markup (src/markup); an e-mail never depends on the web server.
    files: ['src/mail/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/http/**', ...STORE],
              message: 'Mail takes its markup from src/markup and its data from the domain.',
            },
          ],
        },
      ],
    },
  },
  {
    // The pages' browser scripts (bundled by src/http/pages/page-scripts-build.ts) run in the browser, not in Node.
    files: ['src/http/pages/browser/**/*.ts'],
    languageOptions: { globals: globals.browser },
  },
  {
    // A nested ternary hides which branch wins: src spells such choices out with early returns.
    files: ['src/**/*.ts'],
    rules: { 'no-nested-ternary': 'error' },
  },
  {
    // One place reads the environment, so every setting is checked and documented there.
    files: ['src/**/*.ts'],
    ignores: ['src/config.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message: 'Only src/config.ts reads process.env; take the value from Config.',
        },
      ],
    },
  },
  {
    // Migrations are written against Kysely<any>: the schema they see is the one before them.
    files: ['src/store/migrations/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'support/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    // Issue 33: a function a reader can hold in view, a file that is one room (docs/architecture.md).
    files: ['src/**/*.ts'],
    rules: { 'max-lines': ['error', 400], 'max-lines-per-function': ['error', 80] },
  },
  {
    // A migration is one schema step written out whole.
    files: ['src/store/migrations/*.ts'],
    rules: { 'max-lines-per-function': 'off' },
  },
  {
    // The SDK (packages/client) holds to the same sizes. Its generated/openapi.ts is exempt: openapi-typescript
    // writes the whole OpenAPI document as one file (scripts/generate-client-types.ts), and nobody edits it.
    files: ['packages/client/src/**/*.ts'],
    ignores: ['packages/client/src/generated/**'],
    rules: { 'max-lines': ['error', 400], 'max-lines-per-function': ['error', 80] },
  },
);

// ESLint flat config: typescript-eslint's strict type-checked rules over every TypeScript
// file of the repository, typed through the nearest tsconfig (projectService). Prettier owns
// formatting (eslint-config-prettier, last, turns off every rule that would fight it).
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  // packages/sdk/src/schema.ts is generated (openapi-typescript; scripts/generate-sdk.ts).
  { ignores: ['node_modules/', 'web/dist/', 'dist/', 'coverage/', 'tmp/', 'bench/.data/', 'data/', 'packages/*/dist/', 'packages/sdk/src/schema.ts'] },
  js.configs.recommended,
  tseslint.configs.strictTypeChecked,
  tseslint.configs.stylisticTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: {
          // It belongs to test/dashboard/tsconfig.json, which is not its nearest tsconfig. Named exactly: a file
          // both here and in a tsconfig is an error, and other scripts may be in the root tsconfig.
          allowDefaultProject: ['scripts/dashboard-screenshots.ts'],
          defaultProject: 'test/dashboard/tsconfig.json',
        },
        tsconfigRootDir: import.meta.dirname,
      },
      globals: { ...globals.node },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Numbers read fine in messages; what the rule is for is objects, null and undefined.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      // `(event) => setValue(…)` and `return printJson(job)` in a void function are idioms here; braces would add only noise.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true, ignoreVoidReturningFunctions: true }],
      // `() => {}` is how this code says "ignore": best-effort cleanup (`.catch(() => {})`) and no-op implementations.
      '@typescript-eslint/no-empty-function': 'off',
      // An async implementation of a Promise-returning interface rejects instead of throwing synchronously: wanted, not a smell.
      '@typescript-eslint/require-await': 'off',
      // noUncheckedIndexedAccess makes every indexed read `T | undefined`; `!` after a bounds check says "checked here", and `as T`, the only other spelling, is no safer.
      '@typescript-eslint/no-non-null-assertion': 'off',
      // `T[]` for simple types and `Array<{ … }>` for the rest, as the code was written.
      '@typescript-eslint/array-type': ['error', { default: 'array-simple' }],
      // `record['key']` on an index signature marks a key that may be absent, as the code was written.
      '@typescript-eslint/dot-notation': ['error', { allowIndexSignaturePropertyAccess: true }],
      // Raw SQL rows are typed by assertion (`select<Row>(…)`) and drivers return bigint and numeric as strings: `Number(row.count)` is the conversion such a type cannot show.
      '@typescript-eslint/no-unnecessary-type-conversion': 'off',
      // `''` means "not set" for environment variables, names and regex groups: `value || fallback` is meant where the value is a string.
      '@typescript-eslint/prefer-nullish-coalescing': ['error', { ignorePrimitives: { string: true } }],
      // A leading underscore names what is left out on purpose (an unused parameter of an interface, a key dropped from a rest object).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // The sanitisers (paths, refs, Markdown, logs) match control characters on purpose.
      'no-control-regex': 'off',
      // One idea per file: a file that grows past 400 lines holds two, so split it (docs/development.md).
      'max-lines': ['error', { max: 400 }],
    },
  },
  {
    files: ['test/**'],
    rules: {
      // Tests read response bodies as `any` (light-my-request's json()); the assertions are the type check.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // `let app: TestApp` is set in beforeAll and closed with `app?.close()` in afterAll, in case setup failed: a check the types cannot show.
      '@typescript-eslint/no-unnecessary-condition': 'off',
    },
  },
  {
    files: ['web/src/**'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      // `onSubmit={submit}` may be async: every dashboard handler catches its own failure (useSubmission's run, or try/catch) and shows it.
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }],
    },
  },
  {
    // Plain JavaScript (entry points, worker bootstraps, configs) is not in a tsconfig: untyped rules only.
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },
  prettier,
);

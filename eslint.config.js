// ESLint flat config: typescript-eslint's strict type-checked rules over every TypeScript
// file of the repository, typed through the nearest tsconfig (projectService). Prettier owns
// formatting (eslint-config-prettier, last, turns off every rule that would fight it).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'web/dist/', 'dist/', 'coverage/', 'tmp/', 'bench/.data/', 'data/'] },
  js.configs.recommended,
  tseslint.configs.strictTypeChecked,
  tseslint.configs.stylisticTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: {
          // scripts/*.ts belong to test/dashboard/tsconfig.json, which is not the nearest tsconfig.
          allowDefaultProject: ['scripts/*.ts'],
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
    },
  },
  {
    files: ['web/src/**'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  prettier,
);

// ESLint flat config: typescript-eslint's type-aware recommended rules on every
// TypeScript file (sources, tests, benchmarks, through tsconfig.test.json), plain
// recommended rules on the few JavaScript files, and eslint-config-prettier last so
// that no rule argues with Prettier about layout (`npm run lint` checks both).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    ignores: ['dist/', 'data/', 'node_modules/', 'test-artifacts/', 'coverage/'],
  },
  js.configs.recommended,
  {
    // French text puts no-break spaces before « : ; ? ! » and inside « »: in template
    // literals as in strings, they are text, not stray whitespace in code.
    rules: { 'no-irregular-whitespace': ['error', { skipStrings: true, skipTemplates: true }] },
  },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: {
        project: './tsconfig.test.json',
        tsconfigRootDir: import.meta.dirname,
      },
      globals: globals.node,
    },
    rules: {
      // Express 5 awaits a handler's promise and sends a rejection to the error handler,
      // so passing an async function where a callback is expected is fine; returning a
      // promise from a void-typed property or attribute still is not.
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          args: 'after-used',
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
    },
  },
  {
    // supertest types a response body as any, and asserting on it is what a test does:
    // the no-unsafe-* rules would ask for a cast on every `response.body.x`.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },
  {
    // Browser scripts served as they are (classic scripts, no bundler).
    files: ['public/**/*.js'],
    languageOptions: { sourceType: 'script', globals: globals.browser },
  },
  prettier,
);

// `npm run lint`: ESLint's and typescript-eslint's recommended rules; formatting is Prettier's (eslint-config-prettier).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '.tmp/', 'coverage/', 'ui/dist/', 'bench/results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: globals.node },
    // `_name` drops a value on purpose (a rest sibling left out, a handler's unused parameter).
    rules: { '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }] },
  },
  // Plain JavaScript run by node as it is (CI summary, jest configs, build and fuzz scripts): CommonJS.
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  { files: ['ui/src/**'], languageOptions: { globals: globals.browser } },
  // Tests read JSON answers whose shape the assertions check: `any` there is deliberate.
  { files: ['test/**', 'bench/**'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
);

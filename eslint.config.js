// Lint rules that the type checker cannot state, on the server's code: every promise is awaited or handled. The
// server is asynchronous end to end (its store's API is), so a call whose promise is dropped would run outside the
// transaction it was written for, or fail unseen; `npm run lint` (part of `npm run check`) refuses it.
import tseslint from 'typescript-eslint';

export default tseslint.config({
  files: ['server/**/*.ts'],
  languageOptions: {
    parser: tseslint.parser,
    parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
  },
  plugins: { '@typescript-eslint': tseslint.plugin },
  // The code names other rules of typescript-eslint in places (for editors that run its full set): not reported here.
  linterOptions: { reportUnusedDisableDirectives: 'off' },
  rules: {
    '@typescript-eslint/no-floating-promises': 'error',
    '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
    '@typescript-eslint/await-thenable': 'error',
  },
});

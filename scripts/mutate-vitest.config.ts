// The vitest settings of a mutation run (`npm run mutate`, scripts/mutate.ts): the API suites on SQLite in process,
// without PostgreSQL (TEST_POSTGRES=off), as the quick tier runs them. Stryker runs the files that reach the mutated
// code (its `testFiles`, from scripts/mutate.ts: the API's, or those `--tests` names), one at a time in each worker.
import { configDefaults, defineConfig } from 'vitest/config';
import { SHARED } from '../vitest.config.ts';

export default defineConfig({
  test: {
    ...SHARED,
    root: new URL('..', import.meta.url).pathname,
    include: ['test/**/*.test.ts'],
    // engines.test.ts compares SQLite with a PostgreSQL server it starts.
    exclude: [...configDefaults.exclude, 'test/api/engines.test.ts'],
    env: { TEST_POSTGRES: 'off', GENERATED_CHECKED: '1' },
  },
});

import { defineConfig } from 'vitest/config';
import { SHARED } from './vitest.config.ts';

/**
 * The quick tier, `npm run test:quick`: what a change to a handler, a domain rule, the store on SQLite, the client or
 * the contract breaks, found in about a minute on two cores, before `npm test` (the whole suite, what CI runs). It runs
 * the API suites on SQLite in process, the server's tests below the API, the client's, and the contract's checks;
 * it leaves out PostgreSQL (TEST_POSTGRES=off: a test of both engines runs on SQLite alone), the packages, the other
 * runtimes, the development loop, the browser, servers as processes (start-up, signals, instances, outages, a full
 * disk), the bounds probes, the consumer corpus and the whole-repository tooling (the gate's release story in a copy,
 * `npm run check`'s own test, lint runs).
 * test/README.md gives what it caught of mistakes seeded in the server against the whole suite.
 */
export default defineConfig({
  test: {
    ...SHARED,
    include: ['test/api/**/*.test.ts', 'test/server/**/*.test.ts', 'test/client/**/*.test.ts', 'test/contract/**/*.test.ts'],
    exclude: [
      // PostgreSQL's own.
      'test/api/engines.test.ts',
      'test/server/caller.test.ts',
      'test/server/postgres-writes.test.ts',
      'test/server/postgres-connections.test.ts',
      'test/server/postgres-traffic.test.ts',
      'test/server/store-schema.test.ts',
      'test/server/instances.test.ts',
      'test/server/job-instances.test.ts',
      'test/server/database-outage.test.ts',
      // Servers as processes, and a mounted file system.
      'test/server/main.test.ts',
      'test/server/signals.test.ts',
      'test/server/shutdown.test.ts',
      'test/server/process-warnings.test.ts',
      'test/server/harness.test.ts',
      'test/server/harness-usage.test.ts',
      'test/server/full-disk.test.ts',
      'test/server/upgrade.test.ts',
      'test/server/log-format.test.ts',
      // Servers as processes that call out over TLS (openssl makes their certificates).
      'test/server/outbound-tls.test.ts',
      // Whole-repository tooling: compiles (tsc) and commands in copies of the repository.
      'test/contract/breaking.test.ts',
      'test/contract/breaking-ci.test.ts',
      'test/contract/check.test.ts',
      'test/contract/spec-rules.test.ts',
      'test/server/enumerations.test.ts',
      'test/server/seed-type.test.ts',
      // The client's declarations built (tsc) and its type-level checks compiled by each consumer TypeScript: a third
      // of the tier's time; `npm run typecheck` checks client-types.ts against the sources meanwhile.
      'test/client/client-types.test.ts',
      // The gate's comparison at random on the whole contract (its cases and rules run here, one by one).
      'test/contract/breaking-properties-changes.test.ts',
      'test/contract/breaking-properties-rewrites.test.ts',
      'test/contract/breaking-properties-unions-schemes.test.ts',
      // Probes of thousands of requests (what the server keeps stays bounded) and the consumer corpus through the real
      // commands and PactFlow's engine: a third of the tier's time, for changes a handler rarely makes.
      'test/api/request-bounds.test.ts',
      'test/server/pipelining-bounds.test.ts',
      'test/contract/consumer-corpus.test.ts',
      // The guard of the validator wrapper, which a change to the server's behaviour does not reach (CI runs it on
      // every runtime).
      'test/server/validator.test.ts',
    ],
    // The drift check compiles spec/ (`npm run check` does it, and `npm test`): the quick tier reads generated/ as it is.
    env: { TEST_POSTGRES: 'off', GENERATED_CHECKED: '1' },
  },
});

import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import { SPEEDUPS_OFF_TIMEOUT } from './test/support/timeouts.ts';

/**
 * The API suites: the behaviour of each resource group through the typed client, over HTTP (test/api/), and the
 * runner's property phase against the reference server. They run twice, on SQLite and on PostgreSQL (project
 * `postgres`, TEST_ENGINE=postgres: each test server gets a database of its own on the run's PostgreSQL server).
 */
export const API_SUITES = ['test/api/**/*.test.ts', 'test/conformance/conformance-property.test.ts'];

/**
 * The bad-input and round-trip runs of the conformance runner (test/api/bad-input.test.ts, round-trip.test.ts):
 * test/api/engines.test.ts sends the same runs to a server on each engine, holding their checks on SQLite's answers
 * and comparing PostgreSQL's with them, so a run with engines.test.ts leaves the two files out (the quick tier runs
 * them). ENGINES_TEST=off leaves engines.test.ts out instead, and the two run on SQLite: .ci/run on its other
 * runtimes, where what engines.test.ts compares does not change.
 */
const enginesOff = process.env.ENGINES_TEST === 'off';
export const HELD_BY_ENGINES = ['test/api/bad-input.test.ts', 'test/api/round-trip.test.ts'];

/** The settings every run shares: `npm test`'s (below) and the quick tier's (vitest.quick.config.ts). */
export const SHARED = {
    // The contract checks parse and lint the whole document; the drift test sets its own, longer timeout. With the
    // speed mechanisms off (SPEEDUPS_OFF) every timeout is longer: test/support/timeouts.ts.
    testTimeout: process.env.SPEEDUPS_OFF ? SPEEDUPS_OFF_TIMEOUT : 30_000,
    // A beforeAll that starts servers (each file's own, on its own database) can take more than vitest's 10 s while
    // the other files load the same cores; a start that fails still fails at once.
    hookTimeout: process.env.SPEEDUPS_OFF ? SPEEDUPS_OFF_TIMEOUT : 60_000,
    // A test file spends most of its time on the CPU (its in-process server), the rest waiting on processes it
    // started (servers, npm, tsc, PostgreSQL): one file more than the cores keeps them busy (on 2 cores, `npm test`
    // used 1.5 of them with two files at a time). Vitest's default, one less than the cores, runs one at a time here.
    maxWorkers: availableParallelism() + 1,
    // The files of a worker share its modules instead of each loading the server, the client and their packages
    // again (the import phase went from 38 to 13 s of the summed file time). Every file starts its own servers on
    // their own databases and leaves no global state behind; the suite passes in any order of the files
    // (checked with --sequence.shuffle.files).
    isolate: false,
    // Each file's CPU, its children's included, for vitest's JSON report (scripts/suite-figures.ts reads it).
    setupFiles: ['test/support/file-cpu.ts'],
};

export default defineConfig({
  test: {
    ...SHARED,
    // Each project starts its own PostgreSQL server (test/support/postgres-setup.ts); the SQLite project, which runs
    // every test (but those engines.test.ts holds: HELD_BY_ENGINES), also records which operations they exercise and checks that none is left out
    // (test/support/operation-coverage.ts), builds the server its tests start as a process (test/support/built-server.ts),
    // and gives the package tests a folder where the release they share is made once (test/support/package-run.ts).
    projects: [
      {
        extends: true,
        test: {
          name: 'sqlite',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...(enginesOff ? ['test/api/engines.test.ts'] : HELD_BY_ENGINES)],
          globalSetup: ['test/support/operation-coverage.ts', 'test/support/postgres-setup.ts', 'test/support/built-server.ts', 'test/support/package-run.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: API_SUITES,
          // Their run on PostgreSQL is test/api/engines.test.ts's: the same requests (the runner's seed) sent to both
          // engines, every answer of PostgreSQL compared with SQLite's, and the same checks held on the answers.
          exclude: [...configDefaults.exclude, ...HELD_BY_ENGINES],
          env: { TEST_ENGINE: 'postgres' },
          globalSetup: ['test/support/postgres-setup.ts'],
        },
      },
    ],
  },
});

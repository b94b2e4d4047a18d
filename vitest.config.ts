import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Records which operations the tests exercise and checks that none is left out (see the file).
    globalSetup: ['test/support/operation-coverage.ts'],
    // The contract checks parse and lint the whole document; the drift test sets its own, longer timeout.
    testTimeout: 30_000,
    // A test file spends its time in its in-process server, on the CPU: use every core (vitest's default, one less
    // than the cores, runs the files one at a time on a 2-core machine).
    maxWorkers: availableParallelism(),
  },
});

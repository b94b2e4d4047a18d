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
    // The files of a worker share its modules instead of each loading the server, the client and their packages
    // again (the import phase went from 38 to 13 s of the summed file time). Every file starts its own servers on
    // their own databases and leaves no global state behind; the suite passes in any order of the files
    // (checked with --sequence.shuffle.files).
    isolate: false,
  },
});

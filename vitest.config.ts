import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The contract checks parse and lint the whole document; the drift test sets its own, longer timeout.
    testTimeout: 30_000,
  },
});

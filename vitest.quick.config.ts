import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { filesWithNeeds } from './test/support/needs.ts';
import { SHARED } from './vitest.config.ts';

/**
 * The quick tier, `npm run test:quick`: what a change to a handler, a domain rule, the store on SQLite, the client or
 * the contract breaks, found in about a minute on two cores, before `npm test` (the whole suite, what CI runs). It runs
 * the files of QUICK_FOLDERS but those that declare a need in their header (`// @needs postgres processes`: the words
 * and what they mean in test/support/needs.ts): PostgreSQL, processes (servers, npm, tsc, copies of the repository), a
 * mount, TLS certificates, a browser, the network, or a large share of the tier's time. No PostgreSQL server runs
 * (TEST_POSTGRES=off: a test of both engines runs on SQLite alone).
 * test/README.md gives what it caught of mistakes seeded in the server against the whole suite.
 */
export const QUICK_FOLDERS = ['test/api', 'test/server', 'test/client', 'test/contract'] as const;

/** The files of QUICK_FOLDERS the quick tier leaves out, read from their `@needs` lines when the config loads. */
export const quickExclusions = (root: string): string[] => [...filesWithNeeds(root, QUICK_FOLDERS).keys()];

export default defineConfig({
  test: {
    ...SHARED,
    include: QUICK_FOLDERS.map((folder) => `${folder}/**/*.test.ts`),
    exclude: quickExclusions(path.dirname(fileURLToPath(import.meta.url))),
    // The drift check compiles spec/ (`npm run check` does it, and `npm test`): the quick tier reads generated/ as it is.
    env: { TEST_POSTGRES: 'off', GENERATED_CHECKED: '1' },
  },
});

// What the test harness (testing/index.ts) and the server it started as a child process (harness-control.ts) say to
// each other, over the IPC channel Node gives a forked process and its environment. Node's modules only: the
// harness's declarations must not reach the server.
import path from 'node:path';

/** Set to `ipc` by the harness in the environment of the command it starts. */
export const HARNESS_VARIABLE = 'DOCS_SERVER_HARNESS';

/**
 * The configuration variables the harness gives the server, as JSON: the server reads its configuration from these
 * alone, as the in-process server does, so that variables of the test run's own environment (a DATABASE_URL, a PORT)
 * do not reach it.
 */
export const HARNESS_CONFIG_VARIABLE = 'DOCS_SERVER_HARNESS_CONFIG';

/**
 * The path of a JSON file holding the seed object given to the harness (`startDocsServer({ seed })`): the server reads
 * it in SEED_FILE's place, and names it SEED_OBJECT in its errors, not by the temporary file's path.
 */
export const HARNESS_SEED_VARIABLE = 'DOCS_SERVER_HARNESS_SEED';

/** How the command's line on stderr starts when it cannot start (main.ts): the harness's error of the start is that line. */
export const START_FAILURE = 'docs-platform server failed to start: ';

/** What a seed object given to the harness is called in the errors about it. */
export const SEED_OBJECT = 'the seed object';

/** From the harness to the server: a fault is http/faults.ts's `FaultSpec`, checked by the server. */
export type ToServer =
  | { type: 'reset'; id: number }
  | { type: 'fault'; id: number; fault: object }
  | { type: 'clear-faults'; id: number }
  | { type: 'stop' };

/** From the server to the harness: the answer to a request with an id, with what failed if it did. */
export type FromServer = { type: 'listening'; url: string } | { type: 'done'; id: number; error?: string };

/** The variable that turns coverage on: a folder, or `1`/`true` for `docs-platform-coverage`. */
export const COVERAGE_VARIABLE = 'DOCS_SERVER_COVERAGE';
export const DEFAULT_COVERAGE_FOLDER = 'docs-platform-coverage';

/** The folder a variable's or an option's `value` names (absolute; `fallback` for `1` or `true`), or undefined: off. */
function folderOf(value: string | boolean | undefined, fallback: string): string | undefined {
  if (value === undefined || value === false || value === '' || value === '0' || value === 'false') return undefined;
  return path.resolve(value === true || value === '1' || value === 'true' ? fallback : value);
}

/** The coverage folder `value` names (absolute), or undefined when it does not turn coverage on. */
export const coverageFolder = (value: string | boolean | undefined = process.env[COVERAGE_VARIABLE]): string | undefined => folderOf(value, DEFAULT_COVERAGE_FOLDER);

/** Where a server's records go. */
export const recordsFolder = (folder: string): string => path.join(folder, 'records');

/** The variable that turns the consumer's usage record on: a folder, or `1`/`true` for `docs-platform-usage`. */
export const USAGE_VARIABLE = 'DOCS_SERVER_USAGE';
export const DEFAULT_USAGE_FOLDER = 'docs-platform-usage';
/** The consumer the usage record names, instead of the name of the package.json in the working directory. */
export const USAGE_CONSUMER_VARIABLE = 'DOCS_SERVER_USAGE_CONSUMER';

/** The usage folder `value` names (absolute), or undefined when it does not turn the usage record on. */
export const usageFolder = (value: string | boolean | undefined = process.env[USAGE_VARIABLE]): string | undefined => folderOf(value, DEFAULT_USAGE_FOLDER);

/** Where a server's usage records go: where the typed client's recording mode writes its own, so that one merge reads both. */
export const usageRecordsFolder = (folder: string): string => path.join(folder, 'records');

/** What a server records usage with: the folder, and the consumer, named by the harness's process. */
export interface HarnessUsage {
  folder: string;
  consumer: { name: string; version?: string; commit?: string };
}

/** The harness's usage setting, as JSON, given to a server it starts as a child process (empty: off). */
export const HARNESS_USAGE_VARIABLE = 'DOCS_SERVER_HARNESS_USAGE';

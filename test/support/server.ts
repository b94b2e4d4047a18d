// Starts the real server in-process for a test file, through the test harness the server package gives its users
// (server/testing/): port 0 on 127.0.0.1, an in-memory SQLite database (or a folder), or with TEST_ENGINE=postgres a
// PostgreSQL database of its own (test/support/databases.ts), response validation on, a manual clock, and typed
// clients for the fixture's users.
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, inject } from 'vitest';
import { createDocsClient, type DocsClient } from '../../client/index.ts';
import { ManualClock } from '../../server/common/clock.ts';
import type { RunningServer, StartOptions } from '../../server/start/server.ts';
import { type DocsServer, startDocsServerWith } from '../../server/testing/index.ts';
import { createTestDatabase, type TestDatabase, testEngine } from './databases.ts';
import { type RoleUser, standardFixture } from './fixture.ts';

export interface TestServer {
  url: string;
  clock: ManualClock;
  running: RunningServer;
  /** A client authenticated as a fixture user (their token is their id), or with no token at all; deprecations untold (test/server/deprecations.test.ts tells them). */
  as(user: RoleUser | 'anonymous' | (string & {})): DocsClient;
  /** A client with an arbitrary token. */
  withToken(token: string): DocsClient;
  restart(): Promise<void>;
  close(): Promise<void>;
}

/**
 * fetch for test clients: after a restart, a pooled keep-alive connection to the old, closed server fails at the
 * socket; the request never reached a server, so it is sent once more, on a fresh connection.
 */
async function fetchOverRestarts(input: Request): Promise<Response> {
  const retry = input.clone();
  try {
    return await fetch(input);
  } catch (error) {
    const code = (error as { cause?: { code?: string } }).cause?.code;
    if (code !== 'UND_ERR_SOCKET' && code !== 'ECONNRESET') throw error;
    return fetch(retry);
  }
}

/** Appends each answered operation to this run's coverage record (see operation-coverage.ts). */
function recordOperation(operationId: string, status: number): void {
  const dir = inject('operationCoverageDir');
  if (dir) appendFileSync(path.join(dir, `${process.pid}.log`), `${operationId} ${status}\n`);
}

export interface TestServerOptions extends Omit<StartOptions, 'clock'> {
  /** A folder for the database; in memory when absent (SQLite). */
  dataDir?: string;
  /** The engine: TEST_ENGINE's (SQLite unless it says postgres) when absent. */
  engine?: 'sqlite' | 'postgres';
  /** On PostgreSQL, this database (dropped when the server closes) instead of a new one. */
  database?: TestDatabase;
  env?: Record<string, string>;
  /** Whether the operations this server answers count in the test suite's operation coverage (default true). */
  recordCoverage?: boolean;
  /** The time of the manual clock at the start (1 March 2026, 09:00 UTC, by default). */
  startAt?: string;
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const clock = new ManualClock(options.startAt ?? '2026-03-01T09:00:00.000Z');
  // On PostgreSQL, a database of the server's own, kept across its restarts and dropped when it closes.
  const database: TestDatabase | undefined = (options.engine ?? testEngine()) === 'postgres' ? (options.database ?? (await createTestDatabase())) : undefined;
  const { dataDir, engine: _engine, database: _database, env, recordCoverage, startAt: _startAt, ...startOptions } = options;
  const internals: StartOptions = {
    ...startOptions,
    clock,
    fixture: options.fixture ?? standardFixture,
    // Every list page sent from memory is made again and compared (server/http/list-page-cache.ts).
    verifyListPageCache: options.verifyListPageCache ?? true,
    ...(recordCoverage === false ? {} : { onOperation: recordOperation }),
  };
  const start = async (port = 0) =>
    (await startDocsServerWith(
      {
        port,
        token: 'demo-token',
        // A development context: an operation the contract has and the server does not implement yet (pending:
        // server/handlers/pending.ts) is answered from the contract, and the rest is served and tested.
        answerFromContract: true,
        env: {
          DATA_DIR: dataDir ?? ':memory:',
          LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error',
          VALIDATE_RESPONSES: 'true',
          ALLOW_PRIVATE_NETWORKS: 'true',
          // The speed mechanisms turned off for the run (`.ci/run` runs the API suites with all of them off).
          ...(process.env.SPEEDUPS_OFF ? { SPEEDUPS_OFF: process.env.SPEEDUPS_OFF } : {}),
          ...(database ? { DATABASE_URL: database.url } : {}),
          ...env,
        },
      },
      internals,
    )) as DocsServer & { readonly running: RunningServer };
  let harnessed: DocsServer & { readonly running: RunningServer };
  try {
    harnessed = await start();
  } catch (error) {
    await database?.drop();
    throw error;
  }
  const running = () => harnessed.running;
  const test: TestServer = {
    get url() {
      return harnessed.url;
    },
    clock,
    get running() {
      return running();
    },
    as: (user) =>
      createDocsClient({ baseUrl: harnessed.url, fetch: fetchOverRestarts as typeof fetch, onDeprecated: false, ...(user === 'anonymous' ? {} : { token: user }) }),
    withToken: (token) => createDocsClient({ baseUrl: harnessed.url, fetch: fetchOverRestarts as typeof fetch, onDeprecated: false, token }),
    /** Stops the server and starts it again on the same port (addresses in answers stay the same). */
    async restart() {
      const port = Number(new URL(harnessed.url).port);
      await harnessed.stop();
      harnessed = await start(port);
    },
    async close() {
      await harnessed.stop();
      await database?.drop();
    },
  };
  return test;
}

/** Starts a server before the tests of the file and closes it after them. */
export function useTestServer(options: TestServerOptions = {}): { readonly server: TestServer } {
  const holder: { server?: TestServer } = {};
  beforeAll(async () => {
    holder.server = await startTestServer(options);
  });
  afterAll(async () => {
    await holder.server?.close();
  });
  return {
    get server() {
      if (!holder.server) throw new Error('the test server has not started');
      return holder.server;
    },
  };
}

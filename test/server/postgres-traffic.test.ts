// Generated traffic on PostgreSQL: the conformance runner (its scenario, then its property phase: generated and
// mutated requests over every operation) against one server with few pool connections, while another caller's valid
// requests and Git exports whose remote cannot be reached (jobs that fail and are recorded failed) run beside it. No
// answer is a 5xx, the other caller's requests are answered as alone, and the database logged no error of the
// server's connections but conflicts between transactions (tried again): a caller's bad input is refused before SQL.
// @needs postgres
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runConformance } from '../../conformance/runner/runner.ts';
import type { PostgresStore } from '../../server/store/postgres/store.ts';
import { createTestDatabase, postgresRuns, type TestDatabase } from '../support/databases.ts';
import { LOCAL_GIT, RUNNER_TOKEN, runnerFixture } from '../support/runner.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { timeout } from '../support/timeouts.ts';

/**
 * The runs: in `npm test`, one connection and one seed, with the runner's smallest budget (a minute or two of CPU);
 * POSTGRES_TRAFFIC=heavy (test/README.md) runs seeds 1 to 3 on 1, 2 and the default number of connections, with the
 * runner's default budget, and prints what each run sent and what the database logged.
 */
const heavy = process.env.POSTGRES_TRAFFIC === 'heavy';
const runs = heavy ? [1, 2, undefined].flatMap((poolSize) => [1, 2, 3].map((seed) => ({ poolSize, seed }))) : [{ poolSize: 1, seed: 11 }];
const EXAMPLES = heavy ? 3 : 1;
/** The pause between two rounds of the other caller's valid requests, and between two rounds of exports, in ms. */
const PAUSE = heavy ? { valid: 20, exports: 500 } : { valid: 50, exports: 2000 };

/** The other caller: an organization and a user of their own, which the runner neither sees nor changes. */
const SIDE = 'initech';
const sideSpaces = Array.from({ length: 3 }, (_, i) => ({ id: `side-space-${i}`, title: `Side space ${i}` }));
const fixture = {
  users: [...runnerFixture.users!, { id: 'side', displayName: 'Side Caller', email: 'side@initech.test', tokens: ['side-token'] }],
  organizations: [
    ...runnerFixture.organizations!,
    { id: SIDE, title: 'Initech', emailDomains: ['initech.test'], members: [{ user: 'side', role: 'admin' as const }], spaces: sideSpaces },
  ],
};
/** Nothing listens on port 1: each export's job fails, and records its failure. */
const UNREACHABLE = 'http://127.0.0.1:1/nowhere.git';

/** What the database logged at ERROR (with the statement) from the backends `pids`, after byte `from` of its log, in order. */
function loggedErrors(log: string, from: number, pids: Set<number>): { pid: number; error: string }[] {
  const lines = readFileSync(log).subarray(from).toString().split('\n');
  const errors: { pid: number; error: string }[] = [];
  lines.forEach((line, i) => {
    const match = /\[(\d+)\] ERROR:\s+(.*)$/.exec(line);
    if (!match || !pids.has(Number(match[1]))) return;
    const statement = /\[\d+\] STATEMENT:\s+(.*)$/.exec(lines[i + 1] ?? '')?.[1];
    errors.push({ pid: Number(match[1]), error: `${match[2]}${statement ? ` | ${statement.slice(0, 200)}` : ''}` });
  });
  return errors;
}

/** Errors of a transaction that conflicted with another: the store tries it again (server/docs/store.md). */
const CONFLICT = /^(could not serialize access|deadlock detected|duplicate key value violates unique constraint)/;
/** What the statements of a transaction sent after its failed one meet (25P02): the failure's consequence. */
const ABORTED = /^current transaction is aborted/;

/**
 * The errors that are neither a conflict nor a statement of a transaction that a conflict aborted (one that follows a
 * conflict on its connection, before any other error there).
 */
function notConflicts(errors: { pid: number; error: string }[]): string[] {
  const lastFailure = new Map<number, string>();
  return errors.flatMap(({ pid, error }) => {
    if (ABORTED.test(error)) return CONFLICT.test(lastFailure.get(pid) ?? '') ? [] : [error];
    lastFailure.set(pid, error);
    return CONFLICT.test(error) ? [] : [error];
  });
}

describe.skipIf(!postgresRuns()).each(runs)('the runner on PostgreSQL, DATABASE_POOL_SIZE $poolSize (undefined: the default), seed $seed', ({ poolSize, seed }) => {
  let database: TestDatabase;
  let server: TestServer;
  let watcher: pg.Client;
  beforeAll(async () => {
    database = await createTestDatabase();
    server = await startTestServer({
      engine: 'postgres',
      database,
      fixture,
      recordCoverage: false,
      env: { VALIDATE_RESPONSES: 'false', LOG_LEVEL: 'silent', ...LOCAL_GIT, ...(poolSize === undefined ? {} : { DATABASE_POOL_SIZE: String(poolSize) }) },
    });
    watcher = new pg.Client({ connectionString: database.url });
    await watcher.connect();
  });
  afterAll(async () => {
    await watcher?.end();
    await server?.close();
  });

  test('beside failing jobs and another caller: no 5xx, the other caller answered as alone, no database error but conflicts', { timeout: timeout(600_000) }, async () => {
    const log = path.join(path.dirname(new URL(database.url).searchParams.get('host')!), 'server.log');
    const logFrom = statSync(log).size;
    // The log is read as the database writes it: a statement of this test's own that fails is found there.
    await watcher.query('SELECT 1 / 0').catch(() => undefined);
    const own = (await watcher.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    const side = server.withToken('side-token');
    const pids = new Set<number>();
    const notePids = async () => {
      const found = await watcher.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
      for (const row of found.rows) pids.add(row.pid);
    };

    let running = true;
    const sideAnswers: string[] = [];
    /** The other caller's valid requests, one after the other: each answered as it would be alone. */
    const valid = async () => {
      for (let round = 0; running; round++) {
        const title = `Side ${round}`;
        const created = await side.POST('/v1/orgs/{organizationId}/collections', { params: { path: { organizationId: SIDE } }, body: { title } });
        sideAnswers.push(`create ${created.response.status}`);
        if (created.response.status !== 201) continue;
        const collection = { params: { path: { collectionId: created.data!.id } } };
        const read = await side.GET('/v1/collections/{collectionId}', collection);
        sideAnswers.push(`read ${read.response.status} ${read.data?.title === title}`);
        const renamed = await side.PATCH('/v1/collections/{collectionId}', { ...collection, body: { title: `${title} renamed` } });
        sideAnswers.push(`rename ${renamed.response.status} ${renamed.data?.title === `${title} renamed`}`);
        const listed = await side.GET('/v1/orgs/{organizationId}/collections', { params: { path: { organizationId: SIDE }, query: { limit: 100 } } });
        sideAnswers.push(`list ${listed.response.status} ${listed.data?.items.map((item) => item.id).join() === created.data!.id}`);
        const deleted = await side.DELETE('/v1/collections/{collectionId}', collection);
        sideAnswers.push(`delete ${deleted.response.status}`);
        const gone = await side.GET('/v1/collections/{collectionId}', collection);
        sideAnswers.push(`gone ${gone.response.status}`);
        if (round % 4 === 0) await notePids();
        await new Promise((resolve) => setTimeout(resolve, PAUSE.valid));
      }
    };
    /** Git exports to a remote that cannot be reached, a few at a time: each is queued, its job fails. */
    let exports = 0;
    const failing = async () => {
      while (running) {
        const answers = await Promise.all(
          sideSpaces.map((space) =>
            side.POST('/v1/spaces/{spaceId}/git/export', { params: { path: { spaceId: space.id } }, body: { url: UNREACHABLE, ref: 'refs/heads/main', commitMessage: 'Export' } }),
          ),
        );
        for (const answer of answers) sideAnswers.push(`export ${answer.response.status}`);
        exports += answers.length;
        await new Promise((resolve) => setTimeout(resolve, PAUSE.exports));
      }
    };

    const beside = Promise.all([valid(), failing()]);
    // Awaited once the runner ends; until then, a failure of theirs is not left unhandled.
    beside.catch(() => undefined);
    let report: Awaited<ReturnType<typeof runConformance>>;
    try {
      report = await runConformance({ baseUrl: server.url, token: RUNNER_TOKEN, property: { seed, examples: EXAMPLES } });
    } finally {
      running = false;
      await beside;
    }
    await notePids();

    // The runner's every answer: no 5xx, no violation, no finding of the property phase.
    const calls = report.calls.filter((call) => call.status >= 500 || call.status === 0).map((call) => `${call.method} ${call.url} ${call.status}`);
    expect(calls).toEqual([]);
    expect(report.violations).toEqual([]);
    expect(report.property!.results.filter((result) => !result.ok)).toEqual([]);
    // The other caller: every answer as alone.
    const expected: Record<string, string> = { create: 'create 201', read: 'read 200 true', rename: 'rename 200 true', list: 'list 200 true', delete: 'delete 204', gone: 'gone 404', export: 'export 204' };
    expect(sideAnswers.filter((answer) => answer !== expected[answer.split(' ')[0]!])).toEqual([]);
    expect(sideAnswers.filter((answer) => answer.startsWith('create')).length).toBeGreaterThan(3);

    // The exports' jobs end failed, their failure recorded.
    const sideJobs = async () =>
      (await watcher.query<{ status: string; error: string | null }>(`SELECT status, error FROM jobs WHERE resource LIKE '%side-space-%'`)).rows;
    for (let wait = 0; (await sideJobs()).some((job) => job.status === 'queued' || job.status === 'running') && wait < 600; wait++) await new Promise((resolve) => setTimeout(resolve, 50));
    const jobs = await sideJobs();
    expect(jobs.length).toBeGreaterThanOrEqual(Math.min(exports, 3));
    expect(jobs.filter((job) => job.status !== 'failed')).toEqual([]);

    // The database: no error of the server's connections but conflicts, which the store tries again.
    expect((server.running.ctx.store as PostgresStore).connectionsReplaced).toBe(0);
    expect(notConflicts(loggedErrors(log, logFrom, new Set([own])))).toEqual([expect.stringMatching(/^division by zero \| SELECT 1 \/ 0/)]);
    const errors = loggedErrors(log, logFrom, pids);
    if (heavy) console.info(`TRAFFIC pool ${poolSize} seed ${seed}: ${report.calls.length} runner calls, property ${report.property!.durationMs} ms, ${sideAnswers.length} side answers, ${exports} exports, ${jobs.length} jobs, pids ${pids.size}, db errors ${errors.length}: ${JSON.stringify(notConflicts(errors).slice(0, 20))}`);
    expect(notConflicts(errors)).toEqual([]);
  });
});

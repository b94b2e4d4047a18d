// Several instances of the server on one PostgreSQL database behave as one: one migration, no duplicate from
// concurrent writes, every acknowledged write read back from the other, a job run once and taken over from a killed
// instance; and a server whose database cannot be reached fails to start in one line, or answers 503 until it
// returns.
// The cases, and the other jobs tests: test/README.md, "Several instances and their jobs".
// @needs postgres processes
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { serverArguments } from '../support/built-server.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { ok } from '../support/expect.ts';
import { serveWithGitHttpBackend } from '../../scripts/git-http-backend.ts';
import { eventually, heldServer, type Instance, query, runServer, seedFile, startInstance } from '../support/instances.ts';
import { startPostgres } from '../../scripts/postgres-server.ts';
import { LOCAL_GIT, RUNNER_TOKEN, runnerFixture } from '../support/runner.ts';
import { repoRoot } from '../support/repo.ts';
import { spawn } from 'node:child_process';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'instances-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const ORGANIZATION = 'acme';
const common = (database: TestDatabase) => ({
  DATABASE_URL: database.url,
  SEED_FILE: seedFile(scratch, runnerFixture),
  DOCS_API_TOKEN: 'instances-admin',
  ALLOW_PRIVATE_NETWORKS: 'true',
  JOB_LEASE_MS: '1500',
  ...LOCAL_GIT,
});

/** Two instances started together on an empty database (the describe below), and that database. */
let database: TestDatabase;
let a: Instance;
let b: Instance;
const as = (instance: Instance) => instance.client(RUNNER_TOKEN);

describe('two instances on one PostgreSQL database', () => {
  beforeAll(async () => {
    // An empty database: the two instances starting together race to migrate it.
    database = await createTestDatabase({ empty: true });
    [a, b] = await Promise.all([startInstance(common(database)), startInstance(common(database))]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await database?.drop();
  });

  test('started together on an empty database, they applied each migration once, and each names its engine', async () => {
    const applied = await query<{ version: number; n: number }>(database.url, 'SELECT version, count(*)::int AS n FROM schema_migrations GROUP BY version');
    expect(applied.length).toBeGreaterThan(0);
    expect(applied.every((row) => row.n === 1)).toBe(true);
    for (const instance of [a, b]) {
      const health = await fetch(`${instance.url}/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ status: 'ok', engine: 'postgres', database: 'reachable' });
    }
  });

  test('a burst of change requests through both gets the numbers 1 to n, each once, each read back from the other', async () => {
    const space = ok(await as(a).POST('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: ORGANIZATION } }, body: { title: 'Burst' } }), 201);
    const burst = 40;
    const made = await Promise.all(
      Array.from({ length: burst }, (_, index) =>
        as(index % 2 === 0 ? a : b).POST('/v1/spaces/{spaceId}/change-requests', {
          params: { path: { spaceId: space.id } },
          body: { subject: `Change ${index}` },
        }),
      ),
    );
    const requests = made.map((answer) => ok(answer, 201));
    expect(requests.map((request) => request.number).sort((x, y) => x - y)).toEqual(Array.from({ length: burst }, (_, index) => index + 1));
    for (const [index, request] of requests.entries()) {
      const other = index % 2 === 0 ? b : a;
      const read = ok(await as(other).GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}', { params: { path: { spaceId: space.id, changeRequestId: request.id } } }));
      expect(read).toMatchObject({ id: request.id, number: request.number, subject: `Change ${index}` });
    }
    const listed = ok(await as(b).GET('/v1/spaces/{spaceId}/change-requests', { params: { path: { spaceId: space.id }, query: { limit: 1000 } } }));
    expect(listed.count).toBe(burst);
  });

  test('a burst of spaces through both places each at its own position, and both list every one', async () => {
    const collection = ok(
      await as(a).POST('/v1/orgs/{organizationId}/collections', { params: { path: { organizationId: ORGANIZATION } }, body: { title: 'Positions' } }),
      201,
    );
    const burst = 30;
    const made = await Promise.all(
      Array.from({ length: burst }, (_, index) =>
        as(index % 2 === 0 ? a : b).POST('/v1/orgs/{organizationId}/spaces', {
          params: { path: { organizationId: ORGANIZATION } },
          body: { title: `Placed ${index}`, parent: collection.id },
        }),
      ),
    );
    const ids = made.map((answer) => ok(answer, 201).id);
    const positions = await query<{ position: number }>(database.url, 'SELECT position FROM spaces WHERE parent_id = $1', [collection.id]);
    expect(positions).toHaveLength(burst);
    expect(new Set(positions.map((row) => row.position)).size).toBe(burst);
    for (const instance of [a, b]) {
      for (const id of ids) ok(await as(instance).GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: id } } }));
    }
  });

  test('background jobs queued through both run exactly once each', async () => {
    const text = JSON.stringify({ openapi: '3.1.0', info: { title: 'Pets', version: '1.0.0' }, paths: { '/pets': { get: { responses: { '200': { description: 'The pets' } } } } } });
    const slugs = Array.from({ length: 8 }, (_, index) => `pets-${index}`);
    for (const [index, slug] of slugs.entries()) {
      ok(
        await as(index % 2 === 0 ? a : b).POST('/v1/orgs/{organizationId}/openapi', {
          params: { path: { organizationId: ORGANIZATION } },
          body: { slug, source: { text } },
        }),
        201,
      );
    }
    for (const slug of slugs) {
      await eventually(async () => {
        const spec = ok(await as(b).GET('/v1/orgs/{organizationId}/openapi/{specSlug}', { params: { path: { organizationId: ORGANIZATION, specSlug: slug } } }));
        return spec.processingState === 'complete' ? spec : undefined;
      });
      const versions = ok(await as(a).GET('/v1/orgs/{organizationId}/openapi/{specSlug}/versions', { params: { path: { organizationId: ORGANIZATION, specSlug: slug } } }));
      expect(versions.count).toBe(1);
    }
    const jobs = await query<{ status: string; attempts: number }>(database.url, `SELECT status, attempts::int AS attempts FROM jobs WHERE kind LIKE '%openapi%'`);
    expect(jobs).toHaveLength(slugs.length);
    expect(jobs.every((job) => job.status === 'done' && job.attempts === 1)).toBe(true);
  });

  whileOneWaitsOrRunsTheRunner();
});

/** The tests of the two instances while one waits on the network, and while the conformance runner runs against one. */
function whileOneWaitsOrRunsTheRunner(): void {
  test('no transaction stays open while an instance waits on the network (a website import, an OpenAPI fetch)', async () => {
    const spec = JSON.stringify({ openapi: '3.1.0', info: { title: 'Held', version: '1' }, paths: { '/held': { get: { responses: { '200': { description: 'Held' } } } } } });
    const remote = await heldServer({
      '/site': { type: 'text/html', body: '<html><head><title>Held page</title></head><body><h1>Held page</h1><p>Fetched slowly.</p></body></html>' },
      '/held.json': { type: 'application/json', body: spec },
    });
    try {
      const space = ok(await as(a).POST('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: ORGANIZATION } }, body: { title: 'Held' } }), 201);
      const importing = as(a).POST('/v1/spaces/{spaceId}/content/import', { params: { path: { spaceId: space.id } }, body: { url: `${remote.url}/site`, source: 'website' } });
      ok(await as(b).POST('/v1/orgs/{organizationId}/openapi', { params: { path: { organizationId: ORGANIZATION } }, body: { slug: 'held', source: { url: `${remote.url}/held.json` } } }), 201);
      // Both wait on the remote server: the import in A's request, the fetch in a job of either instance. Every
      // transaction open then ends while they still wait; one held across the wait would stay open (the same
      // connection, the same start) until the remote server answers.
      await eventually(async () => (remote.held() >= 2 ? true : undefined));
      type Open = { pid: number; started: string; state: string; query: string };
      const transactions = () =>
        query<Open>(
          database.url,
          `SELECT pid, xact_start::text AS started, state, left(query, 100) AS query FROM pg_stat_activity
           WHERE datname = current_database() AND xact_start IS NOT NULL AND pid <> pg_backend_pid()`,
        );
      const openWhileHeld = await transactions();
      let open: Open[] = [];
      await eventually(async () => {
        open = (await transactions()).filter((transaction) => openWhileHeld.some((held) => held.pid === transaction.pid && held.started === transaction.started));
        return open.length === 0 ? true : undefined;
      }, 5_000).catch(() => undefined);
      expect(remote.held()).toBeGreaterThanOrEqual(2);
      expect(open).toEqual([]);
      // Writes through both go on meanwhile.
      for (const instance of [a, b]) {
        ok(await as(instance).POST('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: ORGANIZATION } }, body: { title: 'Meanwhile' } }), 201);
      }
      remote.release();
      ok(await importing, 201);
      const pages = ok(await as(b).GET('/v1/spaces/{spaceId}/content/pages', { params: { path: { spaceId: space.id } } }));
      expect(pages.pages.map((page) => page.title)).toContain('Held page');
      await eventually(async () => {
        const found = ok(await as(a).GET('/v1/orgs/{organizationId}/openapi/{specSlug}', { params: { path: { organizationId: ORGANIZATION, specSlug: 'held' } } }));
        return found.processingState === 'complete' ? found : undefined;
      });
    } finally {
      remote.release();
      await remote.close();
    }
  });

  test('the conformance runner passes against one instance while the other takes writes', async () => {
    let writing = true;
    let writes = 0;
    const writer = (async () => {
      while (writing) {
        ok(await as(b).POST('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: ORGANIZATION } }, body: { title: `Beside ${writes}` } }), 201);
        writes++;
      }
    })();
    try {
      const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, ['--import', 'tsx', 'conformance/cli.ts', '--base-url', a.url, '--token', RUNNER_TOKEN, '--examples', '0'], { cwd: repoRoot });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
        child.once('exit', (code) => resolve({ code, stdout, stderr }));
      });
      const summary = run.stdout.trim().split('\n').at(-1) ?? '';
      expect(summary, `${run.stdout}\n${run.stderr}`).toMatch(/conformance: (\d+)\/\1 operations exercised, 0 violations/);
      expect(run.code).toBe(0);
    } finally {
      writing = false;
      await writer;
    }
    expect(writes).toBeGreaterThan(0);
  }, 240_000);
}

/**
 * A Git server over HTTP (git http-backend) on 127.0.0.1 whose first `hold` requests get no answer until released:
 * an import fetching from it is under way for as long as the test wants.
 */
async function slowGitServer(root: string): Promise<{ server: Server; url: string; held: () => number; release: () => void }> {
  let held = 0;
  const waiting: (() => void)[] = [];
  let released = false;
  const server = createServer((req, res) => {
    const serve = () => serveWithGitHttpBackend(req, res, root);
    if (released) return serve();
    held++;
    waiting.push(serve);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    held: () => held,
    release() {
      released = true;
      for (const serve of waiting.splice(0)) serve();
    },
  };
}

describe('an instance killed while it runs a job', () => {
  let database: TestDatabase;
  let a: Instance;
  let b: Instance;
  let git: Awaited<ReturnType<typeof slowGitServer>>;

  beforeAll(async () => {
    database = await createTestDatabase();
    // A repository with one page, served over HTTP.
    const root = path.join(scratch, 'git');
    const work = path.join(scratch, 'work');
    const run = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, stdio: 'ignore' });
    execFileSync('mkdir', ['-p', path.join(root, 'handbook.git'), work]);
    run(path.join(root, 'handbook.git'), 'init', '--bare', '--initial-branch=main');
    run(work, 'init', '--initial-branch=main');
    execFileSync('sh', ['-c', 'printf "# Taken over\\n\\nImported by the instance that took the job over.\\n" > README.md'], { cwd: work });
    run(work, 'add', '.');
    run(work, '-c', 'user.name=Test', '-c', 'user.email=test@example.com', 'commit', '-m', 'First');
    run(work, 'push', path.join(root, 'handbook.git'), 'main');
    git = await slowGitServer(root);
    [a, b] = await Promise.all([startInstance(common(database)), startInstance(common(database))]);
  }, 60_000);
  afterAll(async () => {
    git?.release();
    await Promise.all([a?.stop(), b?.stop()]);
    await new Promise<void>((resolve) => (git ? git.server.close(() => resolve()) : resolve()));
    await database?.drop();
  });

  test('kill -9 of the instance running a Git import: the other takes the job over after its lease and finishes it', async () => {
    const client = a.client(RUNNER_TOKEN);
    const space = ok(await client.POST('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: ORGANIZATION } }, body: { title: 'Imported' } }), 201);
    ok(await client.POST('/v1/spaces/{spaceId}/git/import', { params: { path: { spaceId: space.id } }, body: { url: `${git.url}/handbook.git`, ref: 'refs/heads/main' } }));
    // The import is under way once the Git server holds its first request; the job's row names the instance.
    await eventually(async () => (git.held() > 0 ? true : undefined));
    const [running] = await query<{ owner: string }>(database.url, `SELECT owner FROM jobs WHERE status = 'running'`);
    const victim = [a, b].find((instance) => running!.owner.includes(`:${instance.pid}:`))!;
    const survivor = victim === a ? b : a;
    victim.child.kill('SIGKILL');
    await victim.exited;
    git.release();
    const imported = await eventually(async () => {
      const pages = ok(await survivor.client(RUNNER_TOKEN).GET('/v1/spaces/{spaceId}/content/pages', { params: { path: { spaceId: space.id } } }));
      return pages.pages.some((page) => page.title === 'Taken over') ? pages : undefined;
    });
    expect(imported.pages.map((page) => page.title)).toContain('Taken over');
    const [job] = await query<{ status: string; attempts: number; owner: string }>(database.url, `SELECT status, attempts::int AS attempts, owner FROM jobs WHERE kind LIKE '%git%'`);
    expect(job).toMatchObject({ status: 'done', attempts: 2 });
  }, 60_000);
});

describe('a server whose PostgreSQL is unreachable', () => {
  test('fails to start in one line naming DATABASE_URL, without its password', async () => {
    const { code, output } = await runServer({ DATABASE_URL: 'postgres://docs:secret-password@127.0.0.1:1/docs', DOCS_API_TOKEN: 'x' });
    expect(code).toBe(1);
    const lines = output.trim().split('\n');
    expect(lines.at(-1)).toMatch(/^docs-platform server failed to start: DATABASE_URL postgres:\/\/docs:\*\*\*@127\.0\.0\.1:1\/docs: cannot use the database \(/);
    expect(output).not.toContain('secret-password');
  });

  test('a request that arrives while it migrates and seeds its database waits, and is answered then', async () => {
    const database = await createTestDatabase({ empty: true });
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    // The server listens first (to learn its address), then migrates and seeds an empty database: the first request
    // it accepts comes in during that.
    const child = spawn(process.execPath, serverArguments(), {
      cwd: repoRoot,
      env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: database.url, DOCS_API_TOKEN: 'early-token' },
      stdio: 'ignore',
    });
    try {
      for (;;) {
        try {
          const response = await fetch(`http://127.0.0.1:${port}/v1/orgs`, { headers: { authorization: 'Bearer early-token' }, signal: AbortSignal.timeout(20_000) });
          expect(response.status).toBe(200);
          break;
        } catch (error) {
          if ((error as { cause?: { code?: string } }).cause?.code !== 'ECONNREFUSED') throw error;
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
      }
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      await database.drop();
    }
  }, 60_000);

  test('answers 503 while its database is down, without crashing, and recovers when it returns', async () => {
    const server = startPostgres({ port: 6400 + Math.floor(Math.random() * 500) });
    let instance: Instance | undefined;
    try {
      await query(server.url('postgres'), 'CREATE DATABASE down');
      instance = await startInstance({ DATABASE_URL: server.url('down'), DOCS_API_TOKEN: 'down-token', });
      const client = instance.client('down-token');
      const space = ok(await client.POST('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: 'demo' } }, body: { title: 'Kept' } }), 201);

      server.pause();
      const health = await fetch(`${instance.url}/health`);
      expect(health.status).toBe(503);
      expect(await health.json()).toMatchObject({ status: 'unavailable', engine: 'postgres', database: 'unreachable' });
      const read = await client.GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: space.id } } });
      expect(read.response.status).toBe(503);
      expect(read.error).toMatchObject({ error: { code: 503 } });
      const write = await client.POST('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: 'demo' } }, body: { title: 'Lost' } });
      expect(write.response.status).toBe(503);
      expect(instance.child.exitCode).toBeNull();

      server.resume();
      const back = await eventually(async () => {
        const answer = await client.GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: space.id } } });
        return answer.response.status === 200 ? answer.data : undefined;
      });
      expect(back).toMatchObject({ id: space.id, title: 'Kept' });
      expect((await fetch(`${instance.url}/health`)).status).toBe(200);
    } finally {
      await instance?.stop();
      server.stop();
    }
  }, 60_000);
});

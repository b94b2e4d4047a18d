// Background jobs stay single across instances on one PostgreSQL database, whatever happens to an instance (a host
// clock ahead, a pause past its lease), and a long queue of one integration's events holds back no Git sync of
// another space.
// The cases: test/README.md, "Several instances and their jobs".
// @needs postgres processes
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { JOB_CONCURRENCY } from '../../server/jobs/runner.ts';
import type { SeedFixture } from '../../server/start/seed.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { ok } from '../support/expect.ts';
import { eventually, heldServer, type Instance, query, seedFile, startInstance } from '../support/instances.ts';
import { LOCAL_GIT, RUNNER_TOKEN, runnerOrganizations, runnerUser } from '../support/runner.ts';
import { SKEWED_CLOCK } from '../support/skewed-clock.ts';

const scratch = mkdtempSync(path.join(os.tmpdir(), 'job-instances-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const ORGANIZATION = 'acme';
/** Organizations the runner's user administers, to install an integration in (an installation records an event). */
const FAN_OUT = Array.from({ length: 100 }, (_, i) => `fan-${String(i).padStart(3, '0')}`);
const fixture: SeedFixture = {
  users: [runnerUser],
  organizations: [...runnerOrganizations, ...FAN_OUT.map((id) => ({ id, title: `Fan ${id}`, members: [{ user: 'runner', role: 'admin' as const }] }))],
};
const seed = seedFile(scratch, fixture);

const LEASE_MS = 1500;
const common = (database: TestDatabase) => ({
  DATABASE_URL: database.url,
  SEED_FILE: seed,
  DOCS_API_TOKEN: 'job-instances-admin',
  ALLOW_PRIVATE_NETWORKS: 'true',
  JOB_LEASE_MS: String(LEASE_MS),
  // Remote servers here hold requests for as long as a test wants: longer than a usual outbound timeout.
  OUTBOUND_TIMEOUT_MS: '120000',
  ...LOCAL_GIT,
});

const SPEC = JSON.stringify({ openapi: '3.1.0', info: { title: 'Pets', version: '1.0.0' }, paths: { '/pets': { get: { responses: { '200': { description: 'The pets' } } } } } });

interface JobRow {
  id: string;
  status: string;
  owner: string;
  attempts: number;
}

/** The job that processes the spec of id `specId` (its only one here). */
const jobOfSpec = async (database: TestDatabase, specId: string): Promise<JobRow> =>
  (await query<JobRow>(database.url, `SELECT id, status, owner, attempts::int AS attempts FROM jobs WHERE payload LIKE $1`, [`%${specId}%`]))[0]!;

/** Whether the job row names `instance` as its owner (owners are `<host>:<pid>:<random>`). */
const ownedBy = (job: JobRow | undefined, instance: Instance) => job?.owner.includes(`:${instance.pid}:`) === true;

const specState = async (instance: Instance, slug: string) =>
  ok(await instance.client(RUNNER_TOKEN).GET('/v1/orgs/{organizationId}/openapi/{specSlug}', { params: { path: { organizationId: ORGANIZATION, specSlug: slug } } }));

const versionCount = async (instance: Instance, slug: string) =>
  ok(await instance.client(RUNNER_TOKEN).GET('/v1/orgs/{organizationId}/openapi/{specSlug}/versions', { params: { path: { organizationId: ORGANIZATION, specSlug: slug } } })).count;

const createSpec = async (instance: Instance, slug: string, source: { url: string } | { text: string }) =>
  ok(await instance.client(RUNNER_TOKEN).POST('/v1/orgs/{organizationId}/openapi', { params: { path: { organizationId: ORGANIZATION } }, body: { slug, source } }), 201);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const started: Instance[] = [];
const databases: TestDatabase[] = [];
const start = async (database: TestDatabase, env: Record<string, string> = {}, imports: string[] = []) => {
  const instance = await startInstance({ ...common(database), ...env }, { imports });
  started.push(instance);
  return instance;
};
const database = async () => {
  const made = await createTestDatabase();
  databases.push(made);
  return made;
};
afterAll(async () => {
  for (const instance of started) instance.child.kill('SIGCONT');
  await Promise.all(started.map((instance) => instance.stop()));
  await Promise.all(databases.map((made) => made.drop()));
});

test('an instance whose clock is ten minutes ahead takes over no live job, and its own lease ends on time when it dies', async () => {
  const db = await database();
  const remote = await heldServer({ '/pets.json': { type: 'application/json', body: SPEC }, '/filler.json': { type: 'application/json', body: SPEC } });
  try {
    // A, on time, runs a job that waits on a remote server, and as many more as fill its slots (so that the jobs
    // queued later are B's to claim, where A, notified as fast, could win every race for them).
    const a = await start(db);
    const held = await createSpec(a, 'skewed', { url: `${remote.url}/pets.json` });
    const heldJob = () => jobOfSpec(db, held.id);
    for (let i = 1; i < JOB_CONCURRENCY; i++) await createSpec(a, `filler-${i}`, { url: `${remote.url}/filler.json` });
    await eventually(async () => (remote.held() === JOB_CONCURRENCY ? true : undefined));
    expect(ownedBy(await heldJob(), a)).toBe(true);
    const fetches = () => remote.received.filter((request) => request.path === '/pets.json').length;

    // B's host clock is ten minutes ahead: what it writes says so.
    const b = await start(db, { DOCS_TEST_CLOCK_SKEW_MS: String(10 * 60_000) }, [SKEWED_CLOCK]);
    const made = ok(await b.client(RUNNER_TOKEN).POST('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: ORGANIZATION } }, body: { title: 'Ahead' } }), 201);
    expect(Date.parse(made.createdAt) - Date.now()).toBeGreaterThan(9 * 60_000);

    // B claims and runs jobs while A's run: each of its claims looked for jobs whose lease ran out first, and A's
    // (renewed by A all along) were not among them.
    for (let i = 0; i < 3; i++) {
      const quick = await createSpec(b, `quick-${i}`, { text: SPEC });
      await eventually(async () => ((await specState(b, `quick-${i}`)).processingState === 'complete' ? true : undefined));
      expect(ownedBy(await jobOfSpec(db, quick.id), b)).toBe(true);
    }
    expect(await heldJob()).toMatchObject({ status: 'running', attempts: 1 });
    expect(ownedBy(await heldJob(), a)).toBe(true);

    // A dies: B takes its job over once the lease ran out, and fetches again.
    a.child.kill('SIGKILL');
    await a.exited;
    await eventually(async () => {
      const job = await heldJob();
      return ownedBy(job, b) && job.attempts === 2 ? job : undefined;
    });
    await eventually(async () => (fetches() >= 2 ? true : undefined));

    // B dies in turn: its lease, though written by a host ten minutes ahead, ran out on the database's clock, and C
    // (on time) takes the job over then, not ten minutes later.
    const c = await start(db);
    b.child.kill('SIGKILL');
    await b.exited;
    await eventually(async () => {
      const job = await heldJob();
      return ownedBy(job, c) && job.attempts === 3 ? job : undefined;
    }, 30_000);
    remote.release();
    await eventually(async () => ((await specState(c, 'skewed')).processingState === 'complete' ? true : undefined));
    expect(await versionCount(c, 'skewed')).toBe(1);
    expect(await heldJob()).toMatchObject({ status: 'done', attempts: 3 });
  } finally {
    remote.release();
    await remote.close();
  }
}, 180_000);

test('an instance paused past its lease loses its job to the other, and once resumed writes nothing of it', async () => {
  const db = await database();
  const remote = await heldServer({ '/pets.json': { type: 'application/json', body: SPEC } });
  try {
    const [a, b] = await Promise.all([start(db), start(db)]);
    const spec = await createSpec(a, 'paused', { url: `${remote.url}/pets.json` });
    await eventually(async () => (remote.held() === 1 ? true : undefined));
    const first = await jobOfSpec(db, spec.id);
    const paused = ownedBy(first, a) ? a : b;
    const other = paused === a ? b : a;

    // Paused while it waits on the remote server (not in the middle of a transaction, which would hold the job's
    // row: then it is resumed and paused again).
    for (let attempt = 1; ; attempt++) {
      paused.child.kill('SIGSTOP');
      await sleep(300);
      const [open] = await query<{ n: number }>(
        db.url,
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'`,
      );
      if (open!.n === 0) break;
      if (attempt >= 10) throw new Error('the instance was always paused inside a transaction');
      paused.child.kill('SIGCONT');
      await sleep(100);
    }

    // The other takes the job over once the lease ran out, fetches again, and records the outcome.
    await eventually(async () => {
      const job = await jobOfSpec(db, spec.id);
      return ownedBy(job, other) && job.attempts === 2 ? job : undefined;
    });
    await eventually(async () => (remote.received.length >= 2 ? true : undefined));
    remote.release();
    await eventually(async () => ((await specState(other, 'paused')).processingState === 'complete' ? true : undefined));
    const done = await specState(other, 'paused');
    expect(await versionCount(other, 'paused')).toBe(1);
    expect(await jobOfSpec(db, spec.id)).toMatchObject({ status: 'done', attempts: 2 });

    // Resumed, the paused one gets its answer too, and goes on: it learns that the job is no longer its own (from
    // its heartbeat or from its write, refused), stops, and nothing of what it did lands.
    paused.child.kill('SIGCONT');
    await eventually(async () => (paused.output().includes('job taken over by another instance') ? true : undefined));
    await eventually(async () => (paused.output().includes('job stopped: another instance took it over') ? true : undefined));
    expect(await versionCount(other, 'paused')).toBe(1);
    expect(await specState(paused, 'paused')).toMatchObject({ processingState: 'complete', lastProcessedAt: done.lastProcessedAt });
    const job = await jobOfSpec(db, spec.id);
    expect(job).toMatchObject({ status: 'done', attempts: 2 });
    expect(ownedBy(job, other)).toBe(true);
    expect(paused.output()).not.toMatch(/job failed/);
  } finally {
    remote.release();
    await remote.close();
  }
}, 120_000);

test('100 queued events of one integration do not hold back a Git sync of another space queued after them', async () => {
  const db = await database();
  // A repository on this machine's disk with one page.
  const repository = path.join(scratch, 'synced.git');
  const work = path.join(scratch, 'synced-work');
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, stdio: 'ignore' });
  execFileSync('mkdir', ['-p', repository, work]);
  git(repository, 'init', '--bare', '--initial-branch=main');
  git(work, 'init', '--initial-branch=main');
  execFileSync('sh', ['-c', 'printf "# Synced from Git\\n\\nImported while the events waited.\\n" > README.md'], { cwd: work });
  git(work, 'add', '.');
  git(work, '-c', 'user.name=Test', '-c', 'user.email=test@example.com', 'commit', '-m', 'First');
  git(work, 'push', repository, 'main');

  // The integration's development tunnel holds every delivery until released, then answers each after a moment;
  // another server holds the sources of OpenAPI specifications.
  const tunnel = await heldServer({ '/events': { type: 'application/json', body: '{}' } }, { answerDelayMs: 20 });
  const sources = await heldServer({ '/pets.json': { type: 'application/json', body: SPEC } });
  try {
    // A, alone at first, delivers the first of 100 events of one integration (each installation records one, and
    // its delivery is a job of the integration's resource), and processes three specifications: as many jobs as
    // it runs at once.
    const a = await start(db);
    const name = { params: { path: { integrationName: 'fan-out' } } };
    const admin = a.client(RUNNER_TOKEN);
    ok(await admin.POST('/v1/integrations/{integrationName}', { ...name, body: { title: 'Fan-out', organization: ORGANIZATION } }));
    expect((await admin.PUT('/v1/integrations/{integrationName}/dev', { ...name, body: { tunnelUrl: `${tunnel.url}/events`, all: true } })).response.status).toBe(204);
    const installed: string[] = [];
    for (const organization of FAN_OUT) {
      installed.push(ok(await admin.POST('/v1/integrations/{integrationName}/installations', { ...name, body: { organization } }), 201).id);
    }
    for (const slug of ['busy-1', 'busy-2', 'busy-3']) await createSpec(a, slug, { url: `${sources.url}/pets.json` });
    await eventually(async () => (tunnel.held() === 1 && sources.held() === 3 ? true : undefined));
    const running = await query<JobRow>(db.url, `SELECT id, status, owner, attempts::int AS attempts FROM jobs WHERE status = 'running'`);
    expect(running).toHaveLength(4);
    expect(running.every((job) => ownedBy(job, a))).toBe(true);

    // B starts, and a Git sync of a space is queued through it, after the 99 events that wait.
    const b = await start(db);
    const client = b.client(RUNNER_TOKEN);
    const space = ok(await client.POST('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: ORGANIZATION } }, body: { title: 'Synced' } }), 201);
    ok(await client.POST('/v1/spaces/{spaceId}/git/import', { params: { path: { spaceId: space.id } }, body: { url: repository, ref: 'refs/heads/main' } }));
    await eventually(async () => {
      const pages = ok(await client.GET('/v1/spaces/{spaceId}/content/pages', { params: { path: { spaceId: space.id } } }));
      return pages.pages.some((page) => page.title === 'Synced from Git') ? true : undefined;
    });
    // B ran it while the first event was still being delivered, and the 99 others waited behind it.
    expect(tunnel.received).toHaveLength(1);
    const states = await query<{ status: string; n: number }>(
      db.url,
      `SELECT status, count(*)::int AS n FROM jobs WHERE resource = 'integration:fan-out' GROUP BY status ORDER BY status`,
    );
    expect(states).toEqual([
      { status: 'queued', n: 99 },
      { status: 'running', n: 1 },
    ]);
    const [sync] = await query<JobRow>(db.url, `SELECT id, status, owner, attempts::int AS attempts FROM jobs WHERE resource = $1`, [`git:${space.id}`]);
    expect(sync).toMatchObject({ status: 'done', attempts: 1 });
    expect(ownedBy(sync, b)).toBe(true);

    // Released, the events go out one at a time, each once, in the order they were recorded.
    tunnel.release();
    sources.release();
    const listed = await eventually(async () => {
      const events = ok(await client.GET('/v1/integrations/{integrationName}/events', { ...name, params: { ...name.params, query: { limit: 1000 } } }));
      return events.count === 100 ? events : undefined;
    }, 120_000);
    expect(listed.items.every((event) => event.status === 'success')).toBe(true);
    expect(tunnel.received).toHaveLength(100);
    expect(new Set(tunnel.received.map((request) => request.headers['x-docs-event-id'])).size).toBe(100);
    expect(tunnel.received.map((request) => request.headers['x-docs-installation-id'])).toEqual(installed);
    expect(tunnel.mostAtOnce()).toBe(1);
    const attempts = await query<{ attempts: number; n: number }>(
      db.url,
      `SELECT attempts::int AS attempts, count(*)::int AS n FROM jobs WHERE resource = 'integration:fan-out' AND status = 'done' GROUP BY attempts`,
    );
    expect(attempts).toEqual([{ attempts: 1, n: 100 }]);
    for (const slug of ['busy-1', 'busy-2', 'busy-3']) {
      await eventually(async () => ((await specState(b, slug)).processingState === 'complete' ? true : undefined));
    }
  } finally {
    tunnel.release();
    sources.release();
    await Promise.all([tunnel.close(), sources.close()]);
  }
}, 240_000);

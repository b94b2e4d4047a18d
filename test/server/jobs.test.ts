// The job queue and its runner below the API, on both engines: a claim takes the first job of each resource, leases
// are the database's time, and a job another instance took over writes nothing and gets no outcome recorded.
// Why each holds, and where instances run as processes: test/README.md, "Several instances and their jobs".
import { sql } from 'kysely';
import pg from 'pg';
import pino from 'pino';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { type AppContext, createContext, inWrite, type ResolvedConfig } from '../../server/context/context.ts';
import { systemClock } from '../../server/common/clock.ts';
import { enqueue, type Job, JobRunner } from '../../server/jobs/runner.ts';
import type { Store } from '../../server/store/db.ts';
import * as jobs from '../../server/store/jobs.ts';
import { PostgresStore } from '../../server/store/postgres/store.ts';
import { SqliteStore } from '../../server/store/sqlite/store.ts';
import { createTestDatabase, runEngines } from '../support/databases.ts';

type Engine = 'sqlite' | 'postgres';

const opened: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of opened.splice(0).reverse()) await close();
});

/** A migrated store of the engine, closed (and its database dropped) after the test. */
async function openStore(engine: Engine): Promise<{ store: Store; url?: string }> {
  if (engine === 'sqlite') {
    const store = new SqliteStore(':memory:');
    opened.push(() => store.close());
    return { store };
  }
  const database = await createTestDatabase();
  const store = await PostgresStore.open({ url: database.url });
  opened.push(async () => {
    await store.close();
    await database.drop();
  });
  return { store, url: database.url };
}

/** Queues `count` jobs of `resource`, their order keys `<prefix>-000`, `<prefix>-001`…; answers their ids. */
async function queue(store: Store, resource: string, prefix: string, count = 1): Promise<string[]> {
  const ids = Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(3, '0')}`);
  await store.write(async (db) => {
    for (const id of ids) await jobs.insert(db, { id, kind: 'test', resource, orderKey: id, payload: '{}', createdAt: id });
  });
  return ids;
}

/** A claim by `owner`, as the runner makes it. */
const claim = (store: Store, owner: string, limit: number, options: { leaseMs?: number; busy?: string[] } = {}) =>
  store.write((db) => jobs.claim(db, { owner, leaseMs: options.leaseMs ?? 60_000, startedAt: new Date(0).toISOString(), limit, busy: options.busy ?? [] }), {
    isolation: 'read committed',
  });

const databaseNow = async (store: Store) =>
  Number((await store.reader.first(sql<{ now: number }>`SELECT ${store.reader.specific.clockMs} AS now`))!.now);

const jobRow = (store: Store, id: string) =>
  store.reader.first(sql<{ status: string; owner: string | null; attempts: number; lease_until: number | null }>`
    SELECT status, owner, attempts, lease_until FROM jobs WHERE id = ${id}`);

describe.each(runEngines())('the job queue on %s', (engine) => {
  test('a resource with a long queue holds back no other: while one instance runs its first job, another takes the next resource', async () => {
    const { store } = await openStore(engine);
    // 100 events of one integration share its resource; a Git sync of another space is queued after them.
    const events = await queue(store, 'integration:many', 'event', 100);
    const [sync] = await queue(store, 'git:other', 'sync');
    expect((await claim(store, 'instance-a', 1)).map((job) => job.id)).toEqual([events[0]]);
    expect((await claim(store, 'instance-b', 4)).map((job) => job.id)).toEqual([sync]);
    // Nothing else may run now: the other 99 wait behind the running event.
    expect(await jobs.claimable(store.reader, 'instance-c', [])).toBe(false);
    expect(await claim(store, 'instance-c', 4)).toEqual([]);
    // Once it is done, the next event runs, on whichever instance claims: one at a time, in order.
    expect(await store.write((db) => jobs.finish(db, { id: events[0]!, owner: 'instance-a', attempts: 1 }, new Date(0).toISOString()))).toBe(true);
    expect((await claim(store, 'instance-c', 4)).map((job) => job.id)).toEqual([events[1]]);
  });

  test('a claim skips the resources this instance runs, and takes the first job of each other resource in the queue\'s order', async () => {
    const { store } = await openStore(engine);
    await queue(store, 'spec:b', 'b', 3);
    await queue(store, 'spec:a', 'a', 3);
    await queue(store, 'spec:c', 'c', 3);
    expect((await claim(store, 'instance-a', 4, { busy: ['spec:b'] })).map((job) => job.id)).toEqual(['a-000', 'c-000']);
    expect((await claim(store, 'instance-b', 4)).map((job) => job.id)).toEqual(['b-000']);
  });

  test("a lease is the database's time plus the lease, whatever the host's clock says, and is taken over once it ran out", async () => {
    const { store } = await openStore(engine);
    const [id] = await queue(store, 'spec:clock', 'clock');
    // The host's clock an hour ahead, as a skewed host's would be: nothing about leases reads it.
    const real = Date.now.bind(Date);
    const skewed = vi.spyOn(Date, 'now').mockImplementation(() => real() + 3_600_000);
    try {
      expect(await claim(store, 'instance-a', 1, { leaseMs: 60_000 })).toMatchObject([{ id, attempts: 1, takenOver: 0 }]);
      const leaseLeft = Number((await jobRow(store, id!))!.leaseUntil) - (await databaseNow(store));
      expect(leaseLeft).toBeGreaterThan(0);
      expect(leaseLeft).toBeLessThanOrEqual(60_000);
      // Another instance does not take over a live lease, its host's clock an hour ahead or not.
      expect(await claim(store, 'instance-b', 4)).toEqual([]);
    } finally {
      skewed.mockRestore();
    }
    // Once the lease ran out by the database's clock, it does: a new claim, counted.
    await store.write((db) => db.run(sql`UPDATE jobs SET lease_until = ${db.specific.clockMs} - 1 WHERE id = ${id}`));
    expect(await claim(store, 'instance-b', 4)).toMatchObject([{ id, attempts: 2, takenOver: 1 }]);
    expect(await jobRow(store, id!)).toMatchObject({ status: 'running', owner: 'instance-b', attempts: 2 });
    // The first claim's lease is no longer the job's: it can neither renew, nor write, nor finish it.
    const first = { id: id!, owner: 'instance-a', attempts: 1 };
    expect(await store.write((db) => jobs.renew(db, [first], 60_000))).toEqual(new Set());
    expect(await store.write((db) => jobs.hold(db, first, 60_000))).toBe(false);
    expect(await store.write((db) => jobs.finish(db, first, new Date(0).toISOString()))).toBe(false);
    expect(await store.write((db) => jobs.fail(db, first, 'late', new Date(0).toISOString()))).toBe(false);
    expect(await jobRow(store, id!)).toMatchObject({ status: 'running', owner: 'instance-b', attempts: 2 });
  });

  test('a job marked done in the write of its outcome is done with it: finishing it again is no loss, and nothing takes it over', async () => {
    const { store } = await openStore(engine);
    const [id] = await queue(store, 'spec:done', 'done');
    await claim(store, 'instance-a', 1, { leaseMs: 60_000 });
    const lease = { id: id!, owner: 'instance-a', attempts: 1 };
    await store.write(async (db) => {
      expect(await jobs.hold(db, lease, 60_000)).toBe(true);
      await db.run(sql`INSERT INTO meta (key, value) VALUES ('outcome', 'written')`);
      expect(await jobs.finish(db, lease, new Date(0).toISOString())).toBe(true);
    });
    expect(await jobRow(store, id!)).toMatchObject({ status: 'done', owner: 'instance-a', attempts: 1, leaseUntil: null });
    // The runner's own finish, and a heartbeat that comes before it, find the job ended by this claim: not lost.
    expect(await store.write((db) => jobs.finish(db, lease, new Date(0).toISOString()))).toBe(true);
    expect(await store.write((db) => jobs.renew(db, [lease], 60_000))).toEqual(new Set([id]));
    // A later write of the claim is refused, and no instance takes the job over.
    expect(await store.write((db) => jobs.hold(db, lease, 60_000))).toBe(false);
    expect(await claim(store, 'instance-b', 4)).toEqual([]);
  });

  test.runIf(engine === 'postgres')('a claim locks the rows it takes and no other', async () => {
    const { store, url } = await openStore(engine);
    // A resource with a long queue, its first job running elsewhere; two other resources with one job each.
    const events = await queue(store, 'integration:locked', 'event', 40);
    const [free] = await queue(store, 'spec:free', 'free');
    const [other] = await queue(store, 'spec:other', 'other');
    expect((await claim(store, 'instance-a', 1)).map((job) => job.id)).toEqual([events[0]]);
    const probe = new pg.Client({ connectionString: url });
    await probe.connect();
    opened.push(() => probe.end());
    // While the claim's transaction is open, another connection sees which rows it holds.
    const { claimed, unlocked, otherResourceFree } = await store.write(
      async (db) => {
        const claimed = await jobs.claim(db, { owner: 'instance-b', leaseMs: 60_000, startedAt: new Date(0).toISOString(), limit: 1, busy: [] });
        const unlocked = (await probe.query<{ id: string }>('SELECT id FROM jobs FOR UPDATE SKIP LOCKED')).rows.map((row) => row.id);
        const lock = await probe.query<{ free: boolean }>(`SELECT pg_try_advisory_lock(hashtextextended('job:spec:other', 0)) AS free`);
        await probe.query(`SELECT pg_advisory_unlock_all()`);
        return { claimed, unlocked, otherResourceFree: lock.rows[0]!.free };
      },
      { isolation: 'read committed' },
    );
    expect(claimed.map((job) => job.id)).toEqual([free]);
    const all = [...events, free!, other!];
    expect(all.filter((id) => !unlocked.includes(id))).toEqual([free]);
    expect(otherResourceFree).toBe(true);
  });
});

/** A promise and its resolver. */
function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

/** A started runner on `store` with a job kind `gated` whose work the test drives, and the warnings it logs. */
async function runnerWithGatedJob(store: Store, leaseMs: number) {
  const warnings: string[] = [];
  const log = pino({ level: 'warn' }, { write: (line: string) => void warnings.push((JSON.parse(line) as { msg: string }).msg) });
  const ctx: AppContext = await createContext({ store, config: {} as ResolvedConfig, clock: systemClock, log });
  const runner = new JobRunner(ctx, { leaseMs, pollMs: 50 });
  ctx.jobs = runner;
  const started = deferred<Job>();
  const proceed = deferred();
  const outcome = { wrote: false, refused: undefined as unknown, failures: 0 };
  runner.register<Record<string, unknown>>('gated', {
    resumable: true,
    async run(jobCtx, job) {
      started.resolve(job);
      await proceed.promise;
      try {
        await inWrite(jobCtx, (scope) => scope.db.run(sql`INSERT INTO meta (key, value) VALUES (${`written-by-${job.id}`}, 'yes')`));
        outcome.wrote = true;
      } catch (error) {
        outcome.refused = error;
        throw error;
      }
    },
    fail: async () => void outcome.failures++,
  });
  await runner.start();
  opened.push(() => runner.stop());
  const id = await inWrite(ctx, (scope) => enqueue(scope, { kind: 'gated', resource: 'gated:one', createdAt: ctx.now() }));
  const job = await started.promise;
  expect(job.id).toBe(id);
  const written = async () =>
    (await store.reader.first(sql<{ value: string }>`SELECT value FROM meta WHERE key = ${`written-by-${id}`}`)) !== undefined;
  return { ctx, runner, job, proceed, outcome, warnings, written };
}

/** What another instance does to a job whose lease ran out (its owner paused): takes it over, in one write. */
const takeOver = (store: Store, id: string) =>
  store.write(
    async (db) => {
      await db.run(sql`UPDATE jobs SET lease_until = ${db.specific.clockMs} - 1 WHERE id = ${id}`);
      return jobs.claim(db, { owner: 'other-instance', leaseMs: 60_000, startedAt: new Date(0).toISOString(), limit: 1, busy: [] });
    },
    { isolation: 'read committed' },
  );

describe.each(runEngines())('a job taken over by another instance, on %s', (engine) => {
  test('writes nothing when it goes on: its write carries its lease and is refused; it is told, and no outcome is recorded', async () => {
    const { store } = await openStore(engine);
    // A lease long enough that no heartbeat comes before the job's write: the write itself finds out.
    const { job, proceed, outcome, warnings, written } = await runnerWithGatedJob(store, 60_000);
    expect(await takeOver(store, job.id)).toMatchObject([{ id: job.id, attempts: 2, takenOver: 1 }]);
    proceed.resolve();
    await expect.poll(() => job.signal.aborted).toBe(true);
    await expect.poll(() => outcome.refused).toBeDefined();
    expect((outcome.refused as Error).name).toBe('LeaseLostError');
    expect(outcome.wrote).toBe(false);
    expect(await written()).toBe(false);
    await expect.poll(() => warnings).toContain('job taken over by another instance: stopping it here, its writes refused');
    // The job is the other instance's, untouched: not failed, not done, and its kind's failure hook never ran.
    expect(await jobRow(store, job.id)).toMatchObject({ status: 'running', owner: 'other-instance', attempts: 2 });
    expect(outcome.failures).toBe(0);
  });

  test('is told by the next heartbeat, before it writes anything', async () => {
    const { store } = await openStore(engine);
    const { job, proceed, outcome, written } = await runnerWithGatedJob(store, 300);
    await takeOver(store, job.id);
    // The job waits for its signal: the heartbeat (every 100 ms here) finds the lease gone.
    await new Promise<void>((resolve) => job.signal.addEventListener('abort', () => resolve(), { once: true }));
    expect(job.signal.reason).toMatchObject({ name: 'LeaseLostError' });
    proceed.resolve();
    await expect.poll(() => outcome.refused).toBeDefined();
    expect(await written()).toBe(false);
    expect(await jobRow(store, job.id)).toMatchObject({ status: 'running', owner: 'other-instance', attempts: 2 });
    expect(outcome.failures).toBe(0);
  });

  test('a job that keeps its lease writes, and is marked done', async () => {
    const { store } = await openStore(engine);
    const { ctx, job, proceed, outcome, written } = await runnerWithGatedJob(store, 60_000);
    proceed.resolve();
    await ctx.jobs.idle();
    expect(outcome).toMatchObject({ wrote: true, refused: undefined, failures: 0 });
    expect(await written()).toBe(true);
    expect(job.signal.aborted).toBe(false);
    expect(await jobRow(store, job.id)).toMatchObject({ status: 'done', attempts: 1, leaseUntil: null });
  });
});

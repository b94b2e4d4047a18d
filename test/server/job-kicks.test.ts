// A job queued by a write is started once that write commits (`enqueue` registers the kick with Db.afterCommit): a
// write that queued nothing costs no query of the queue, one that queued a job and was undone starts nothing, and a
// queued job starts without waiting for the poll, also when its write commits after another one's.
import { afterEach, describe, expect, test } from 'vitest';
import { sql } from 'kysely';
import pino from 'pino';
import { createContext, type AppContext, inWrite, type ResolvedConfig } from '../../server/context/context.ts';
import { systemClock } from '../../server/common/clock.ts';
import { enqueue, JobRunner } from '../../server/jobs/runner.ts';
import { SqliteStore } from '../../server/store/sqlite/store.ts';

/** A read of the job queue (the runner's look for claimable jobs, and its claim). */
const QUEUE_QUERY = /^select\b.*\bfrom "jobs"/i;

/** A context on a fresh in-memory database whose runner is not started (so it never polls), and the queue queries it runs. */
async function setUp(): Promise<{ ctx: AppContext; runner: JobRunner; queueQueries: () => number; ran: string[]; close: () => Promise<void> }> {
  const store = new SqliteStore(':memory:');
  const ctx = await createContext({ store, config: {} as ResolvedConfig, clock: systemClock, log: pino({ level: 'silent' }) });
  const runner = new JobRunner(ctx);
  ctx.jobs = runner;
  let queries = 0;
  const statement = store.statement.bind(store);
  store.statement = (text: string) => {
    if (QUEUE_QUERY.test(text)) queries++;
    return statement(text);
  };
  const ran: string[] = [];
  runner.register<{ name: string }>('record', {
    run: async (_ctx, job) => void ran.push(job.payload.name),
    fail: async () => {},
    resumable: false,
  });
  const close = async () => {
    await runner.stop();
    await store.close();
  };
  return { ctx, runner, queueQueries: () => queries, ran, close };
}

const queue = (ctx: AppContext, name: string) =>
  inWrite(ctx, (scope) => enqueue(scope, { kind: 'record', resource: `record:${name}`, payload: { name }, createdAt: ctx.now() }));

// The runner is not started, so only a kick can run a job: waiting longer than vitest's 1 s default proves nothing
// less, and keeps a loaded machine from failing the test.
const SETTLED = { timeout: 10_000 };

const opened: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((close) => close()));
});

describe('jobs start once the write that queued them commits', () => {
  test('after a write that queued nothing, the runner reads nothing', async () => {
    const { ctx, queueQueries, close } = await setUp();
    opened.push(close);
    await ctx.store.write((db) => db.run(sql`INSERT INTO meta (key, value) VALUES ('k', 'v')`));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(queueQueries()).toBe(0);
  });

  test('after a write that queued a job, the job starts, once', async () => {
    const { ctx, queueQueries, ran, close } = await setUp();
    opened.push(close);
    await queue(ctx, 'first');
    await expect.poll(() => queueQueries(), SETTLED).toBeGreaterThan(0);
    await expect.poll(() => ran, SETTLED).toEqual(['first']);
  });

  test('a write that queued a job and was undone starts nothing', async () => {
    const { ctx, queueQueries, ran, close } = await setUp();
    opened.push(close);
    await expect(
      inWrite(ctx, async (scope) => {
        await enqueue(scope, { kind: 'record', resource: 'record:undone', payload: { name: 'undone' }, createdAt: ctx.now() });
        throw new Error('undone after queueing');
      }),
    ).rejects.toThrow('undone after queueing');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(queueQueries()).toBe(0);
    expect(ran).toEqual([]);
  });

  test('a job queued by a write still open while another write commits is started once its own write commits', async () => {
    const { ctx, ran, close } = await setUp();
    opened.push(close);
    let commitSecond!: () => void;
    const secondMayEnd = new Promise<void>((resolve) => (commitSecond = resolve));
    // The second write queues its job, then waits across turns: its transaction stays open.
    const second = inWrite(ctx, async (scope) => {
      await enqueue(scope, { kind: 'record', resource: 'record:pending', payload: { name: 'pending' }, createdAt: ctx.now() });
      await secondMayEnd;
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(ran).toEqual([]);
    commitSecond();
    await second;
    await expect.poll(() => ran, SETTLED).toEqual(['pending']);
  });

  test("one database's queued jobs do not make another's runner read its queue", async () => {
    const one = await setUp();
    const other = await setUp();
    opened.push(one.close, other.close);
    await queue(one.ctx, 'one');
    await expect.poll(() => one.ran, SETTLED).toEqual(['one']);
    expect(other.queueQueries()).toBe(0);
    expect(other.ran).toEqual([]);
  });
});

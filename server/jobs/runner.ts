// The background job runner. Handlers queue jobs with `enqueue` inside their write transaction; once that commits,
// `kickIfQueued` (which the app calls after each write; a write that queued nothing costs it nothing), a
// notification from another instance (PostgreSQL) or the poll starts them. Jobs of one resource run one at a time, in
// order; jobs of different resources run side by side, up to a limit per instance.
//
// Several instances may share the database (PostgreSQL). A job is claimed by exactly one of them (store/specific.ts,
// `claimJobs`) for a lease the claimer renews while the job runs (a heartbeat, every third of the lease); a job whose
// lease ran out, because its instance died or lost the database, is taken over by the next claim, of any instance:
// run again when its kind is resumable, and otherwise marked failed with a reason. A starting instance only ever
// takes over jobs whose lease ran out, never another's live job. With SQLite, which one server owns, the jobs the
// previous process left running are taken over at start.
//
// A job kind records its progress and outcome on its resource itself, and its `fail` hook lands any failure there too,
// so that a failure never crashes the server. Nothing here runs a network call inside a transaction: a kind's `run`
// waits on the network between its own writes.
import { hostname } from 'node:os';
import type { AppContext, Jobs, Scope } from '../context.ts';
import { inWrite } from '../context.ts';
import { newId, newRandomId } from '../domain/ids.ts';
import { fromJson, toJson } from '../store/db.ts';
import * as jobs from '../store/jobs.ts';

export interface Job<Payload = Record<string, unknown>> {
  id: string;
  kind: string;
  /** The resource the job works on, such as `openapi:<specId>`: its jobs run in order, one at a time. */
  resource: string;
  payload: Payload;
  attempts: number;
  createdAt: string;
}

export interface JobKind<Payload = Record<string, unknown>> {
  /** Does the work; state changes go through write transactions of its own (`inWrite`). Throwing fails the job. */
  run(ctx: AppContext, job: Job<Payload>): Promise<void>;
  /** Records a failure on the job's resource (called with the error's message), inside a write transaction. */
  fail(ctx: Scope, job: Job<Payload>, reason: string): Promise<void>;
  /** Whether a job interrupted (by a restart, or an instance lost) runs again; otherwise it fails with a reason. */
  resumable: boolean;
}

export interface RunnerOptions {
  /** Jobs this instance runs at once. */
  concurrency?: number;
  /** How often the queue is read when nothing announced work, in ms. */
  pollMs?: number;
  /** How long a claimed job stays this instance's without a heartbeat, in ms. */
  leaseMs?: number;
}

/** The reason a job interrupted by a restart or a lost instance fails with, when its kind cannot run again. */
export const INTERRUPTED = 'interrupted by a restart of the server';

/** Queues a job; call it inside the write transaction that starts the work. `orderKey` defaults to now. */
export async function enqueue(
  ctx: Scope,
  job: { kind: string; resource: string; payload?: object; orderKey?: string; createdAt: string },
): Promise<string> {
  const id = newId();
  await jobs.insert(ctx.db, {
    id,
    kind: job.kind,
    resource: job.resource,
    orderKey: job.orderKey ?? job.createdAt,
    payload: toJson(job.payload ?? {}),
    createdAt: job.createdAt,
  });
  await ctx.store.announceJobs(ctx.db);
  ctx.jobs.noteQueued();
  return id;
}

export class JobRunner implements Jobs {
  private readonly kinds = new Map<string, JobKind<never>>();
  /** The jobs this instance runs, by id, with their resources. */
  private readonly running = new Map<string, { resource: string; work: Promise<void> }>();
  private timer: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private stopped = false;
  private idleWaiters: (() => void)[] = [];
  /** A kick is under way; `again` asks it to look once more when it is done. */
  private kicking = false;
  private again = false;
  /** The claim under way, which `stop` waits for: the jobs it claims are launched, and run to their end. */
  private claiming: Promise<void> = Promise.resolve();
  /** How many jobs `enqueue` has queued through this runner (committed or not), and how many the last look saw. */
  private queued = 0;
  private queuedSeen = 0;
  /** This instance, as the owner of the jobs it claims. */
  readonly owner = `${hostname()}:${process.pid}:${newRandomId().slice(0, 8)}`;
  private readonly leaseMs: number;

  constructor(
    private readonly ctx: AppContext,
    private readonly options: RunnerOptions = {},
  ) {
    this.leaseMs = options.leaseMs ?? 30_000;
  }

  noteQueued(): void {
    this.queued++;
  }

  register<Payload>(kind: string, definition: JobKind<Payload>): void {
    this.kinds.set(kind, definition as unknown as JobKind<never>);
  }

  /** Takes over what a previous process left running (SQLite), then listens, polls and renews leases. */
  async start(): Promise<void> {
    const { store } = this.ctx;
    if (store.exclusive) await store.write((db) => jobs.expireOthers(db, this.owner));
    store.onJobsQueued(() => this.kick());
    this.timer = setInterval(() => this.kick(), this.options.pollMs ?? 1000);
    this.timer.unref();
    this.heartbeat = setInterval(() => void this.renewLeases(), Math.max(50, Math.floor(this.leaseMs / 3)));
    this.heartbeat.unref();
    this.kick();
  }

  /**
   * After a write: starts the jobs queued since the last look, if any. Most writes queue none and cost nothing here;
   * a job queued by a write that rolled back is not in the queue, and the kick finds nothing.
   */
  kickIfQueued(): void {
    if (this.queued === this.queuedSeen) return;
    this.queuedSeen = this.queued;
    this.kick();
  }

  /** Claims and starts whatever queued jobs this instance can run now. */
  kick(): void {
    if (this.stopped) return;
    if (this.kicking) {
      this.again = true;
      return;
    }
    this.kicking = true;
    this.claiming = this.claimAndLaunch()
      .catch((error) => this.ctx.log.error({ err: error }, 'claiming jobs failed'))
      .finally(() => {
        this.kicking = false;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  private async claimAndLaunch(): Promise<void> {
    const limit = (this.options.concurrency ?? 4) - this.running.size;
    // A read first: most looks (the poll) find nothing to claim, and need no write.
    if (limit > 0 && (await jobs.claimable(this.ctx.store.reader, Date.now(), this.owner))) {
      const now = Date.now();
      const claimed = await this.ctx.store.write(
        (db) =>
          jobs.claim(db, {
            owner: this.owner,
            now,
            leaseUntil: now + this.leaseMs,
            startedAt: this.ctx.now(),
            limit,
            busy: [...new Set([...this.running.values()].map((job) => job.resource))],
          }),
        { isolation: 'read committed' },
      );
      for (const row of claimed) this.launch(row);
    }
    if (this.idleWaiters.length > 0 && this.running.size === 0 && !(await jobs.pending(this.ctx.store.reader))) this.notifyIdle();
  }

  private launch(row: jobs.ClaimedJob): void {
    const kind = this.kinds.get(row.kind);
    const job: Job = {
      id: row.id,
      kind: row.kind,
      resource: row.resource,
      payload: fromJson(row.payload, {}),
      attempts: row.attempts,
      createdAt: row.created_at,
    };
    const work = (async () => {
      try {
        if (!kind) throw new Error(`no job kind "${row.kind}" is registered`);
        if (row.taken_over && !kind.resumable) throw new Error(INTERRUPTED);
        await kind.run(this.ctx, job as never);
        const mine = await this.ctx.store.write((db) => jobs.finish(db, row.id, this.owner, this.ctx.now()));
        if (!mine) this.ctx.log.warn({ job: row.id, kind: row.kind }, 'job finished after another instance took it over');
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        this.ctx.log.warn({ job: row.id, kind: row.kind, resource: row.resource, reason }, 'job failed');
        await inWrite(this.ctx, async (scope) => {
          if (await jobs.fail(scope.db, row.id, this.owner, reason, this.ctx.now())) await kind?.fail(scope, job as never, reason);
        }).catch((writeError) => this.ctx.log.error({ err: writeError, job: row.id }, 'recording a job failure failed'));
      }
    })();
    this.running.set(row.id, { resource: row.resource, work });
    void work.finally(() => {
      this.running.delete(row.id);
      this.kick();
    });
  }

  /** Extends the leases of the jobs this instance runs (a failure is logged; the next beat tries again). */
  private async renewLeases(): Promise<void> {
    if (this.running.size === 0) return;
    const ids = [...this.running.keys()];
    try {
      const kept = await this.ctx.store.write((db) => jobs.renew(db, this.owner, ids, Date.now() + this.leaseMs));
      if (kept < ids.length) this.ctx.log.warn({ jobs: ids.length - kept }, 'jobs of this instance were taken over by another');
    } catch (error) {
      this.ctx.log.warn({ err: error }, 'renewing the leases of running jobs failed');
    }
  }

  private notifyIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    waiters.forEach((resolve) => resolve());
  }

  /** Resolves when no job is queued or running, in any instance (tests use it to wait for background work). */
  idle(): Promise<void> {
    return new Promise((resolve) => {
      this.idleWaiters.push(resolve);
      this.kick();
    });
  }

  /** Stops starting jobs and waits for the running ones. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.heartbeat) clearInterval(this.heartbeat);
    // A claim that committed while stopping began launches its jobs: left unlaunched, they would stay running
    // under this instance's lease, which no one renews, and wait for it to run out before another instance runs them.
    await this.claiming;
    await Promise.allSettled([...this.running.values()].map((job) => job.work));
    this.notifyIdle();
  }
}

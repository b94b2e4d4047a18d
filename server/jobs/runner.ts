// The background job runner: jobs the domain queues with `enqueue` in a write start once it commits, one at a time per
// resource and side by side across resources, each claimed by one instance for a lease its heartbeat renews; a job
// whose lease ran out is taken over, and a write of a claim that is no longer the job's is refused
// (server/docs/design.md, "The job runner").
import { hostname } from 'node:os';
import type { AppContext, Jobs, Scope } from '../context/context.ts';
import { inWrite } from '../context/context.ts';
import { Refusal } from '../common/errors.ts';
import { newId, newRandomId } from '../common/ids.ts';
import { type Db, fromJson, toJson } from '../store/db.ts';
import * as jobs from '../store/jobs.ts';

export interface Job<Payload = Record<string, unknown>> {
  id: string;
  kind: string;
  /** The resource the job works on, such as `openapi:<specId>`: its jobs run in order, one at a time. */
  resource: string;
  payload: Payload;
  attempts: number;
  createdAt: string;
  /**
   * Aborted when this instance learns that the job is no longer its own: another instance took it over after its
   * lease ran out (this one was paused, or lost the database). The work should stop: pass it to what waits (outbound
   * requests), check it between steps. Its writes are refused by then whatever it does (see `confirmLease`).
   */
  signal: AbortSignal;
  /**
   * Resolves when the job is still this instance's (renewing its lease), throws LeaseLostError otherwise: call it
   * right before an effect outside the database that must not happen twice (a push, a delivery). A write needs no
   * such call: it carries the lease itself.
   */
  confirmLease(): Promise<void>;
  /**
   * Marks the job done inside the transaction of `db`: call it in the write that records the job's outcome, so that
   * the outcome and the job's end commit together (a job taken over between the two would run, and record its
   * outcome, again). Without it the runner marks the job done once `run` returns.
   */
  done(db: Db): Promise<void>;
}

export interface JobKind<Payload = Record<string, unknown>> {
  /** Does the work; state changes go through write transactions of its own (`inWrite`). Throwing fails the job. */
  run(ctx: AppContext, job: Job<Payload>): Promise<void>;
  /** Records a failure on the job's resource (called with the error's message), inside a write transaction. */
  fail(ctx: Scope, job: Job<Payload>, reason: string): Promise<void>;
  /** Whether a job interrupted (by a restart, or an instance lost) runs again; otherwise it fails with a reason. */
  resumable: boolean;
}

/** Jobs an instance runs at once, unless its runner is given another number. */
export const JOB_CONCURRENCY = 4;

export interface RunnerOptions {
  /** Jobs this instance runs at once (JOB_CONCURRENCY by default). */
  concurrency?: number;
  /** How often the queue is read when nothing announced work, in ms. */
  pollMs?: number;
  /** How long a claimed job stays this instance's without a heartbeat, in ms. */
  leaseMs?: number;
}

/** The reason a job interrupted by a restart or a lost instance fails with, when its kind cannot run again. */
export const INTERRUPTED = 'interrupted by a restart of the server';

/** A write, or `confirmLease`, of a job that another instance took over: nothing of it is kept. */
export class LeaseLostError extends Error {
  constructor(readonly jobId: string) {
    super(`job ${jobId} was taken over by another instance: its lease here is lost`);
    this.name = 'LeaseLostError';
  }
}

/** A job this instance runs. */
interface Running {
  resource: string;
  lease: jobs.Lease;
  controller: AbortController;
  /** The work is over and its outcome is being recorded (the heartbeat leaves it alone). */
  ending: boolean;
  work: Promise<void>;
}

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
  const { jobs: runner } = ctx;
  ctx.db.afterCommit(() => runner.kick());
  return id;
}

export class JobRunner implements Jobs {
  private readonly kinds = new Map<string, JobKind<never>>();
  /** The jobs this instance runs, by id. */
  private readonly running = new Map<string, Running>();
  private timer: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private stopped = false;
  private idleWaiters: (() => void)[] = [];
  /** A kick is under way; `again` asks it to look once more when it is done. */
  private kicking = false;
  private again = false;
  /** The claim under way, which `stop` waits for: the jobs it claims are launched, and run to their end. */
  private claiming: Promise<void> = Promise.resolve();
  /** This instance, as the owner of the jobs it claims. */
  readonly owner = `${hostname()}:${process.pid}:${newRandomId().slice(0, 8)}`;
  private readonly leaseMs: number;

  constructor(
    private readonly ctx: AppContext,
    private readonly options: RunnerOptions = {},
  ) {
    this.leaseMs = options.leaseMs ?? 30_000;
  }

  register<Payload>(kind: string, definition: JobKind<Payload>): void {
    this.kinds.set(kind, definition as unknown as JobKind<never>);
  }

  /**
   * Takes over what a previous process left running (SQLite; on a full disk, their leases run out instead), then
   * listens, polls and renews leases.
   */
  async start(): Promise<void> {
    const { store } = this.ctx;
    if (store.exclusive) {
      await store.write((db) => jobs.expireOthers(db, this.owner)).catch((error: unknown) => {
        if (!this.isRefusal(error)) throw error;
      });
    }
    store.onJobsQueued(() => this.kick());
    this.timer = setInterval(() => this.kick(), this.options.pollMs ?? 1000);
    this.timer.unref();
    this.heartbeat = setInterval(() => void this.renewLeases(), Math.max(50, Math.floor(this.leaseMs / 3)));
    this.heartbeat.unref();
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
      .catch((error) => {
        if (!this.isRefusal(error)) this.ctx.log.error({ err: error }, 'claiming jobs failed');
      })
      .finally(() => {
        this.kicking = false;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  private async claimAndLaunch(): Promise<void> {
    const limit = (this.options.concurrency ?? JOB_CONCURRENCY) - this.running.size;
    const busy = [...new Set([...this.running.values()].map((job) => job.resource))];
    // A read first: most looks (the poll) find nothing to claim, and need no write.
    if (limit > 0 && (await jobs.claimable(this.ctx.store.reader, this.owner, busy))) {
      const claimed = await this.ctx.store.write(
        (db) => jobs.claim(db, { owner: this.owner, leaseMs: this.leaseMs, startedAt: this.ctx.now(), limit, busy }),
        { isolation: 'read committed' },
      );
      for (const row of claimed) this.launch(row);
    }
    if (this.idleWaiters.length > 0 && this.running.size === 0 && !(await jobs.pending(this.ctx.store.reader))) this.notifyIdle();
  }

  private launch(row: jobs.ClaimedJob): void {
    const kind = this.kinds.get(row.kind);
    const lease: jobs.Lease = { id: row.id, owner: this.owner, attempts: row.attempts };
    const controller = new AbortController();
    const running: Running = { resource: row.resource, lease, controller, ending: false, work: Promise.resolve() };
    const ctx = this.jobContext(running);
    const job: Job = {
      id: row.id,
      kind: row.kind,
      resource: row.resource,
      payload: fromJson(row.payload, {}),
      attempts: row.attempts,
      createdAt: row.createdAt,
      signal: controller.signal,
      confirmLease: () => inWrite(ctx, async () => {}),
      done: async (db) => {
        if (!(await jobs.finish(db, lease, this.ctx.now()))) throw new LeaseLostError(row.id);
      },
    };
    running.work = (async () => {
      try {
        if (!kind) throw new Error(`no job kind "${row.kind}" is registered`);
        if (row.takenOver && !kind.resumable) throw new Error(INTERRUPTED);
        await kind.run(ctx, job as never);
        running.ending = true;
        const mine = await this.ctx.store.write((db) => jobs.finish(db, lease, this.ctx.now()));
        if (!mine) this.lost(running);
      } catch (error) {
        running.ending = true;
        // A job that lost its lease is the other instance's now: its failure here is not the job's.
        if (error instanceof LeaseLostError || controller.signal.aborted) {
          this.lost(running);
          return;
        }
        // Refused by the machine, not failed: its lease runs out and a claim takes it over (see the top of this file).
        if (this.isRefusal(error)) return;
        const reason = error instanceof Error ? error.message : String(error);
        this.ctx.log.warn({ job: row.id, kind: row.kind, resource: row.resource, reason }, 'job failed');
        await inWrite(this.ctx, async (scope) => {
          if (await jobs.fail(scope.db, lease, reason, this.ctx.now())) await kind?.fail(scope, job as never, reason);
          else this.lost(running);
        }).catch((writeError) => {
          if (!this.isRefusal(writeError)) this.ctx.log.error({ err: writeError, job: row.id }, 'recording a job failure failed');
        });
      }
    })();
    this.running.set(row.id, running);
    void running.work.finally(() => {
      // Whatever it did after losing its lease was refused: this is the end of it here.
      if (controller.signal.aborted) this.ctx.log.info({ job: row.id, kind: row.kind }, 'job stopped: another instance took it over');
      this.running.delete(row.id);
      this.kick();
    });
  }

  /**
   * The context a job runs with: the server's, with a `fence` that every write of the job (`inWrite`) runs first in
   * its transaction, renewing the lease, and refusing the write when the lease is no longer this claim's.
   */
  private jobContext(running: Running): AppContext {
    const fence = async (db: Db) => {
      if (running.controller.signal.aborted || !(await jobs.hold(db, running.lease, this.leaseMs))) {
        this.lost(running);
        throw new LeaseLostError(running.lease.id);
      }
    };
    return Object.assign(Object.create(this.ctx) as AppContext, { fence });
  }

  /** The job is no longer this instance's: tells its work (its signal), once, and says so in the log. */
  private lost(running: Running): void {
    if (running.controller.signal.aborted) return;
    this.ctx.log.warn(
      { job: running.lease.id, resource: running.resource, attempt: running.lease.attempts },
      'job taken over by another instance: stopping it here, its writes refused',
    );
    running.controller.abort(new LeaseLostError(running.lease.id));
  }

  /**
   * Extends the leases of the jobs this instance runs; a job that is no longer its own is told (a failure to reach the
   * database is logged, and the next beat tries again).
   */
  private async renewLeases(): Promise<void> {
    const beating = [...this.running.values()].filter((job) => !job.ending && !job.controller.signal.aborted);
    if (beating.length === 0) return;
    try {
      const kept = await this.ctx.store.write((db) => jobs.renew(db, beating.map((job) => job.lease), this.leaseMs));
      // A job whose outcome is being recorded meanwhile may have ended: only the others are lost.
      for (const job of beating) if (!kept.has(job.lease.id) && !job.ending) this.lost(job);
    } catch (error) {
      if (!this.isRefusal(error)) this.ctx.log.warn({ err: error }, 'renewing the leases of running jobs failed');
    }
  }

  /** Whether `error` is a refusal of a condition of the store: counted there, and tried again later. */
  private isRefusal(error: unknown): error is Refusal {
    if (!(error instanceof Refusal)) return false;
    error.counted('job');
    return true;
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

  /** How many jobs this instance runs now. */
  get runningCount(): number {
    return this.running.size;
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

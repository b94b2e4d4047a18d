// The background job runner. Handlers queue jobs with `enqueue` inside their write transaction; once that commits,
// `kickIfQueued` (which the app calls after each write; a write that queued nothing costs it no query) or the poll
// starts them. Jobs of one resource run one at a time, in order; jobs of different resources run side by side, up
// to a limit. A job kind records its progress and outcome on its resource itself, and its
// `fail` hook lands any failure there too, so that a failure never crashes the server. After a restart, jobs found
// running are resumed when their kind is resumable, and otherwise marked failed with a reason.
import type { AppContext } from '../context.ts';
import { newId } from '../domain/ids.ts';
import type { Db } from '../store/db.ts';
import { fromJson, toJson } from '../store/db.ts';

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
  /** Does the work; state changes go through `ctx.store.write`. Throwing fails the job. */
  run(ctx: AppContext, job: Job<Payload>): Promise<void>;
  /** Records a failure on the job's resource (called with the error's message), inside a write transaction. */
  fail(ctx: AppContext, job: Job<Payload>, reason: string): void;
  /** Whether a job interrupted by a restart runs again (otherwise it fails with "interrupted by a restart"). */
  resumable: boolean;
}

type JobRow = {
  id: string;
  kind: string;
  resource: string;
  payload: string;
  attempts: number;
  created_at: string;
};

/** How many jobs `enqueue` has queued in each database (committed or not): what `kickIfQueued` compares. */
const queuedIn = new WeakMap<Db, number>();

/** Queues a job; call it inside the write transaction that starts the work. `orderKey` defaults to now. */
export function enqueue(
  db: Db,
  job: { kind: string; resource: string; payload?: object; orderKey?: string; createdAt: string },
): string {
  const id = newId();
  db.prepare(
    `INSERT INTO jobs (id, kind, resource, order_key, payload, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
  ).run(id, job.kind, job.resource, job.orderKey ?? job.createdAt, toJson(job.payload ?? {}), job.createdAt);
  queuedIn.set(db, (queuedIn.get(db) ?? 0) + 1);
  return id;
}

export class JobRunner {
  private readonly kinds = new Map<string, JobKind<never>>();
  private readonly running = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  /** The one pending retry of a kick that found a write transaction open. */
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;
  private idleWaiters: (() => void)[] = [];
  /** `queuedIn` of the database when `kickIfQueued` last looked. */
  private queuedSeen = 0;

  constructor(
    private readonly ctx: AppContext,
    private readonly options: { concurrency?: number; pollMs?: number } = {},
  ) {}

  register<Payload>(kind: string, definition: JobKind<Payload>): void {
    this.kinds.set(kind, definition as unknown as JobKind<never>);
  }

  /** Resumes or fails the jobs a previous process left running, then starts polling. */
  async start(): Promise<void> {
    const interrupted = this.ctx.db.prepare(`SELECT * FROM jobs WHERE status = 'running'`).all() as JobRow[];
    await this.ctx.store.write(() => {
      for (const row of interrupted) {
        const kind = this.kinds.get(row.kind);
        if (kind?.resumable) {
          this.ctx.db.prepare(`UPDATE jobs SET status = 'queued' WHERE id = ?`).run(row.id);
        } else {
          const reason = 'interrupted by a restart of the server';
          this.ctx.db
            .prepare(`UPDATE jobs SET status = 'failed', error = ?, finished_at = ? WHERE id = ?`)
            .run(reason, this.ctx.now(), row.id);
          kind?.fail(this.ctx, toJob(row) as never, reason);
        }
      }
    });
    this.timer = setInterval(() => this.kick(), this.options.pollMs ?? 1000);
    this.timer.unref();
    this.kick();
  }

  /**
   * After a write: starts the jobs queued since the last look, if any. Most writes queue none, and a kick reads the
   * queue (a query of about 2.5 µs, after every create and change). A job queued by a write whose group has not
   * committed yet is started by the kick's retry (see `kick`), and one whose write rolled back is not in the queue.
   */
  kickIfQueued(): void {
    const queued = queuedIn.get(this.ctx.db) ?? 0;
    if (queued === this.queuedSeen) return;
    this.queuedSeen = queued;
    this.kick();
  }

  /** Starts whatever queued jobs can run now. */
  kick(): void {
    if (this.stopped) return;
    // The connection is shared: while a write transaction is open, its uncommitted rows are visible here and any
    // status change would join it. Try again once it is over.
    if (this.ctx.store.inWrite) {
      if (!this.retry) {
        this.retry = setTimeout(() => {
          this.retry = undefined;
          this.kick();
        }, 5);
        this.retry.unref();
      }
      return;
    }
    const limit = this.options.concurrency ?? 4;
    const queued = this.ctx.db
      .prepare(
        `SELECT * FROM jobs WHERE status = 'queued' AND resource NOT IN (SELECT resource FROM jobs WHERE status = 'running')
         ORDER BY order_key, created_at, id`,
      )
      .all() as JobRow[];
    const taken = new Set<string>();
    for (const row of queued) {
      if (this.running.size >= limit) break;
      // The first queued job of each resource only: the others wait for it.
      if (taken.has(row.resource) || this.running.has(row.resource)) {
        taken.add(row.resource);
        continue;
      }
      taken.add(row.resource);
      this.launch(row);
    }
    if (this.running.size === 0 && queued.length === 0) this.notifyIdle();
  }

  private launch(row: JobRow): void {
    const kind = this.kinds.get(row.kind);
    const db = this.ctx.db;
    // Marked running synchronously, so that no other kick starts it too.
    db.prepare(`UPDATE jobs SET status = 'running', attempts = attempts + 1, started_at = ? WHERE id = ?`).run(
      this.ctx.now(),
      row.id,
    );
    const job = { ...toJob(row), attempts: row.attempts + 1 };
    const work = (async () => {
      try {
        if (!kind) throw new Error(`no job kind "${row.kind}" is registered`);
        await kind.run(this.ctx, job as never);
        await this.ctx.store.write(() =>
          db.prepare(`UPDATE jobs SET status = 'done', finished_at = ? WHERE id = ?`).run(this.ctx.now(), row.id),
        );
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        this.ctx.log.warn({ job: row.id, kind: row.kind, resource: row.resource, reason }, 'job failed');
        await this.ctx.store
          .write(() => {
            db.prepare(`UPDATE jobs SET status = 'failed', error = ?, finished_at = ? WHERE id = ?`).run(
              reason,
              this.ctx.now(),
              row.id,
            );
            kind?.fail(this.ctx, job as never, reason);
          })
          .catch((writeError) => this.ctx.log.error({ err: writeError, job: row.id }, 'recording a job failure failed'));
      }
    })();
    this.running.set(row.resource, work);
    void work.finally(() => {
      this.running.delete(row.resource);
      this.kick();
    });
  }

  private notifyIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    waiters.forEach((resolve) => resolve());
  }

  /** Resolves when no job is queued or running (tests use it to wait for background work). */
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
    if (this.retry) clearTimeout(this.retry);
    await Promise.allSettled(this.running.values());
    this.notifyIdle();
  }
}

function toJob(row: JobRow): Job {
  return {
    id: row.id,
    kind: row.kind,
    resource: row.resource,
    payload: fromJson(row.payload, {}),
    attempts: row.attempts,
    createdAt: row.created_at,
  };
}

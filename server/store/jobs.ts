// The job queue (table `jobs`): jobs queued in the transaction of the write that starts them, claimed by an instance
// for a lease it renews while they run (specific.ts: `claimJobs`), then marked done or failed.
import type { Db } from './db.ts';
import type { ClaimedJob, JobClaim } from './specific.ts';

export type { ClaimedJob, JobClaim };

export interface NewJob {
  id: string;
  kind: string;
  /** The resource the job works on, such as `openapi:<specId>`: its jobs run in order, one at a time. */
  resource: string;
  /** The order among the resource's jobs (then creation time, then id). */
  orderKey: string;
  /** The job's payload, as JSON text. */
  payload: string;
  createdAt: string;
}

export async function insert(db: Db, job: NewJob): Promise<void> {
  await db.run(
    db.q.insertInto('jobs').values({
      id: job.id,
      kind: job.kind,
      resource: job.resource,
      order_key: job.orderKey,
      payload: job.payload,
      created_at: job.createdAt,
    }),
  );
}

/** Whether a job waits to be claimed: queued, or running under another owner whose lease ran out. */
export async function claimable(db: Db, now: number, owner: string): Promise<boolean> {
  const row = await db.first(
    db.q.selectFrom('jobs').select('id')
      .where((eb) =>
        eb.or([
          eb('status', '=', 'queued'),
          // A running job whose lease ran out, or that has none (left by a server from before leases).
          eb.and([
            eb('status', '=', 'running'),
            eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]),
            eb.or([eb('owner', 'is', null), eb('owner', '<>', owner)]),
          ]),
        ]),
      )
      .limit(1),
  );
  return row !== undefined;
}

/** Claims jobs to run now (see Specific.claimJobs); call it in a `read committed` write. */
export function claim(db: Db, claim: JobClaim): Promise<ClaimedJob[]> {
  return db.specific.claimJobs(db, claim);
}

/** Extends the lease of the jobs `owner` runs; resolves to how many are still its own. */
export function renew(db: Db, owner: string, ids: readonly string[], leaseUntil: number): Promise<number> {
  if (ids.length === 0) return Promise.resolve(0);
  return db.run(
    db.q.updateTable('jobs').set({ lease_until: leaseUntil })
      .where('status', '=', 'running').where('owner', '=', owner).where(db.specific.among('id', ids)),
  );
}

/** Marks a job `owner` runs done; false when it is no longer its own (its lease ran out and another took it over). */
export async function finish(db: Db, id: string, owner: string, finishedAt: string): Promise<boolean> {
  const changed = await db.run(
    db.q.updateTable('jobs').set({ status: 'done', finished_at: finishedAt, lease_until: null })
      .where('id', '=', id).where('status', '=', 'running').where('owner', '=', owner),
  );
  return changed > 0;
}

/**
 * Marks a job failed with `reason`: one `owner` runs (false when it is no longer its own), or, with no owner, one
 * whatever its state (a job taken over that cannot run again).
 */
export async function fail(db: Db, id: string, owner: string | undefined, reason: string, finishedAt: string): Promise<boolean> {
  let update = db.q.updateTable('jobs').set({ status: 'failed', error: reason, finished_at: finishedAt, lease_until: null }).where('id', '=', id);
  if (owner !== undefined) update = update.where('status', '=', 'running').where('owner', '=', owner);
  return (await db.run(update)) > 0;
}

/**
 * Ends the leases of the jobs other owners left running: for a store one process owns (SQLite), whose previous
 * owner is gone, so that they are taken over at once.
 */
export async function expireOthers(db: Db, owner: string): Promise<void> {
  await db.run(
    db.q.updateTable('jobs').set({ lease_until: 0 })
      .where('status', '=', 'running').where((eb) => eb.or([eb('owner', 'is', null), eb('owner', '<>', owner)])),
  );
}

/** Whether a job of `resource` is running, and whether one waits to run. */
export async function queueState(db: Db, resource: string): Promise<{ running: boolean; queued: boolean }> {
  const rows = await db.all(
    db.q.selectFrom('jobs').select('status').distinct().where('resource', '=', resource).where('status', 'in', ['running', 'queued']),
  );
  return { running: rows.some((row) => row.status === 'running'), queued: rows.some((row) => row.status === 'queued') };
}

/** Whether any job is queued or running, in any instance. */
export async function pending(db: Db): Promise<boolean> {
  const row = await db.first(db.q.selectFrom('jobs').select('id').where('status', 'in', ['queued', 'running']).limit(1));
  return row !== undefined;
}

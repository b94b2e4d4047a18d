// The job queue (table `jobs`): jobs queued in the transaction of the write that starts them, claimed by an instance
// for a lease it renews while they run (measured by the database's clock, and a fencing token that `hold` checks in
// each write of the job), then marked done or failed. A claim takes the first queued job of each resource, so no
// resource's queue holds back another's (server/docs/store.md, "Claims are fair").
import { sql } from 'kysely';
import type { Db } from './db.ts';

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

/** A job as the claim hands it over (the `jobs` row). */
export interface ClaimedJob {
  id: string;
  kind: string;
  resource: string;
  payload: string;
  /** The claims of the job so far, this one included: the fencing token of this claim. */
  attempts: number;
  createdAt: string;
  /** Whether the job was running under an owner whose lease ran out (it is taken over, not started). */
  takenOver: number;
}

/** One claim of a job: what its writes carry. */
export interface Lease {
  id: string;
  owner: string;
  attempts: number;
}

export interface JobClaim {
  /** The instance claiming. */
  owner: string;
  /** How long the claimed jobs stay the owner's without a renewal, in milliseconds of the database's clock. */
  leaseMs: number;
  /** The server's time (its clock, which tests move), as the jobs' `started_at`. */
  startedAt: string;
  /** At most this many jobs. */
  limit: number;
  /** Resources whose jobs this instance runs already: none of theirs is claimed. */
  busy: readonly string[];
}

export async function insert(db: Db, job: NewJob): Promise<void> {
  await db.send(
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

const COLUMNS = ['id', 'kind', 'resource', 'payload', 'attempts', 'created_at'] as const;
type JobColumns = Omit<ClaimedJob, 'takenOver'>;

/**
 * Running jobs of other owners whose lease ran out by the database's clock, or that have none (left by a server from
 * before leases), in the queue's order.
 */
function expired(db: Db, owner: string, limit: number): Promise<JobColumns[]> {
  return db.all(
    db.q.selectFrom('jobs').select(COLUMNS).where('status', '=', 'running')
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', db.specific.clockMs)]))
      .where((eb) => eb.or([eb('owner', 'is', null), eb('owner', '<>', owner)]))
      .orderBy('order_key').orderBy('created_at').orderBy('id')
      .limit(limit),
  );
}

/**
 * The first queued job of each resource that has no running job and is not `busy`, in the queue's order, at most
 * `limit`. The resources with queued jobs are walked one by one along the index (a recursive query: each step finds
 * the next resource name), so that the cost follows the number of resources waiting, not the number of jobs: 10 000
 * queued events of one integration are one step.
 */
function heads(db: Db, busy: readonly string[], limit: number): Promise<JobColumns[]> {
  return db.all(
    sql<JobColumns>`WITH RECURSIVE waiting (resource) AS (
        SELECT lowest.resource FROM (SELECT resource FROM jobs WHERE status = 'queued' ORDER BY resource LIMIT 1) AS lowest
        UNION ALL
        SELECT (SELECT following.resource FROM jobs AS following WHERE following.status = 'queued' AND following.resource > waiting.resource
                ORDER BY following.resource LIMIT 1)
        FROM waiting WHERE waiting.resource IS NOT NULL
      )
      SELECT head.id, head.kind, head.resource, head.payload, head.attempts, head.created_at
      FROM waiting JOIN jobs AS head ON head.id = (
        SELECT queued.id FROM jobs AS queued WHERE queued.status = 'queued' AND queued.resource = waiting.resource
        ORDER BY queued.order_key, queued.created_at, queued.id LIMIT 1)
      WHERE waiting.resource IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM jobs AS running WHERE running.status = 'running' AND running.resource = waiting.resource)
        AND NOT ${db.specific.among('waiting.resource', busy)}
      ORDER BY head.order_key, head.created_at, head.id
      LIMIT ${limit}`,
  );
}

/**
 * Whether a job waits that `owner` could claim now: a running job of another owner whose lease ran out, or the first
 * queued job of a resource no instance runs (not one of `busy`). A read, before the write of a claim: most looks
 * (the poll, and every resource's queue waiting behind its running job) find nothing, and write nothing.
 */
export async function claimable(db: Db, owner: string, busy: readonly string[]): Promise<boolean> {
  return (await expired(db, owner, 1)).length > 0 || (await heads(db, busy, 1)).length > 0;
}

/**
 * Claims jobs to run now: the running jobs of other owners whose lease ran out (taken over), then the first queued
 * job of each resource that no instance runs, in the queue's order, at most `limit`. Each is marked running under
 * `owner` until the database's time plus `leaseMs`, its attempts counted. Call it in a `read committed` write.
 *
 * The candidates are read without locks; each is then taken with the lock of its resource (taken without waiting:
 * a resource another instance is claiming is left to it) and one UPDATE that checks again, under that lock and its
 * row's lock (skipping a row another transaction holds), that it may still be taken: a queued job with no running
 * job of its resource and none queued before it; a running job whose lease ran out. Rows it does not take stay
 * unlocked. PostgreSQL's `read committed` gives each statement a snapshot of its own, taken after the resource's lock:
 * a claim of the same resource by another instance has committed by then, and is seen.
 */
export async function claim(db: Db, claim: JobClaim): Promise<ClaimedJob[]> {
  const { specific } = db;
  const claimed: ClaimedJob[] = [];
  const busy = new Set(claim.busy);
  // More candidates than the limit: some may be taken by another instance meanwhile.
  const room = claim.limit + 8;
  const take = async (job: JobColumns, takenOver: boolean) => {
    if (claimed.length >= claim.limit || busy.has(job.resource)) return;
    if (!(await specific.lockJobResource(db, job.resource))) return;
    const still = takenOver
      ? sql`status = 'running' AND (lease_until IS NULL OR lease_until < ${specific.clockMs})
          AND (owner IS NULL OR owner <> ${claim.owner})`
      : sql`status = 'queued' AND NOT EXISTS (
          SELECT 1 FROM jobs AS other WHERE other.resource = ${job.resource} AND other.id <> ${job.id}
            AND (other.status = 'running' OR (other.status = 'queued'
              AND (other.order_key < candidate.order_key
                OR (other.order_key = candidate.order_key AND (other.created_at < candidate.created_at
                  OR (other.created_at = candidate.created_at AND other.id < candidate.id)))))))`;
    const row = await db.first(
      sql<{ attempts: number }>`UPDATE jobs SET status = 'running', owner = ${claim.owner},
          lease_until = ${specific.clockMs} + ${claim.leaseMs}, attempts = attempts + 1, started_at = ${claim.startedAt}
        WHERE id = (SELECT candidate.id FROM jobs AS candidate WHERE candidate.id = ${job.id} AND ${still} ${specific.skipLocked})
        RETURNING attempts`,
    );
    if (row === undefined) return;
    busy.add(job.resource);
    claimed.push({ ...job, attempts: Number(row.attempts), takenOver: takenOver ? 1 : 0 });
  };
  for (const job of await expired(db, claim.owner, room)) await take(job, true);
  if (claimed.length < claim.limit) for (const job of await heads(db, [...busy], room)) await take(job, false);
  return claimed;
}

/** The check of a lease, for the WHERE of a statement on the job's row: still running, under this very claim. */
const leased = (lease: Lease) => sql`id = ${lease.id} AND status = 'running' AND owner = ${lease.owner} AND attempts = ${lease.attempts}`;

/** Whether the claim of `lease` marked its job done (in the transaction of its last write: Job.done). */
async function doneBy(db: Db, lease: Lease): Promise<boolean> {
  const row = await db.first(
    sql<{ id: string }>`SELECT id FROM jobs WHERE id = ${lease.id} AND status = 'done' AND owner = ${lease.owner} AND attempts = ${lease.attempts}`,
  );
  return row !== undefined;
}

/**
 * Extends the leases of these claims to the database's time plus `leaseMs`; resolves to the ids of the jobs still
 * theirs, or that they marked done (a job missing was taken over by another instance).
 */
export async function renew(db: Db, leases: readonly Lease[], leaseMs: number): Promise<Set<string>> {
  const kept = new Set<string>();
  for (const lease of leases) {
    const changed = await db.run(sql`UPDATE jobs SET lease_until = ${db.specific.clockMs} + ${leaseMs} WHERE ${leased(lease)}`);
    if (changed > 0 || (await doneBy(db, lease))) kept.add(lease.id);
  }
  return kept;
}

/**
 * The fence of a job's write, run inside its transaction: true when the job is still the claim's (the lease, renewed
 * here to the database's time plus `leaseMs`), false when another instance took it over or it ended. The row stays
 * locked to the end of the transaction, so a takeover waits for the write, and then finds a live lease.
 */
export async function hold(db: Db, lease: Lease, leaseMs: number): Promise<boolean> {
  return (await db.run(sql`UPDATE jobs SET lease_until = ${db.specific.clockMs} + ${leaseMs} WHERE ${leased(lease)}`)) > 0;
}

/**
 * Marks the job of `lease` done; true also when that claim marked it done already (in the transaction of its last
 * write), false when it is no longer that claim's (another instance took it over).
 */
export async function finish(db: Db, lease: Lease, finishedAt: string): Promise<boolean> {
  const changed = await db.run(
    sql`UPDATE jobs SET status = 'done', finished_at = ${finishedAt}, lease_until = NULL WHERE ${leased(lease)}`,
  );
  return changed > 0 || doneBy(db, lease);
}

/** Marks the job of `lease` failed with `reason`; false when it is no longer that claim's. */
export async function fail(db: Db, lease: Lease, reason: string, finishedAt: string): Promise<boolean> {
  const changed = await db.run(
    sql`UPDATE jobs SET status = 'failed', error = ${reason}, finished_at = ${finishedAt}, lease_until = NULL WHERE ${leased(lease)}`,
  );
  return changed > 0;
}

/**
 * Ends the leases of the jobs other owners left running: for a store one process owns (SQLite), whose previous
 * owner is gone, so that they are taken over at once.
 */
export async function expireOthers(db: Db, owner: string): Promise<void> {
  await db.send(
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

// What the job queue holds for one resource, so that a resource's state can say whether more work is coming.
import type { Db } from '../store/db.ts';

export interface QueueState {
  /** A job of the resource is running now. */
  running: boolean;
  /** A job of the resource waits to run. */
  queued: boolean;
}

export function queueState(db: Db, resource: string): QueueState {
  const row = db
    .prepare(
      `SELECT COALESCE(SUM(status = 'running'), 0) AS running, COALESCE(SUM(status = 'queued'), 0) AS queued
       FROM jobs WHERE resource = ? AND status IN ('running', 'queued')`,
    )
    .get(resource) as { running: number; queued: number };
  return { running: row.running > 0, queued: row.queued > 0 };
}

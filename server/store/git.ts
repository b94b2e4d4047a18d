// Git operations: one row per import or export a client started, with its outcome (where a failure is kept: the
// API's Git info has no error field). Ordered by creation, then by `rowid` (the order they were written in).
import { type Insertable, type Selectable, sql } from 'kysely';
import { columns, type Db } from './db.ts';
import type { Camelized, GitOperationsTable } from './schema.ts';

export type GitOperationRecord = Camelized<Selectable<GitOperationsTable>>;

export async function insert(
  db: Db,
  row: Pick<GitOperationRecord, 'id' | 'spaceId' | 'kind' | 'request' | 'credentials' | 'userId' | 'createdAt'>,
): Promise<void> {
  await db.send(db.q.insertInto('git_operations').values(columns<Insertable<GitOperationsTable>>(row)));
}

export function get(db: Db, id: string): Promise<GitOperationRecord | undefined> {
  return db.first(db.q.selectFrom('git_operations').selectAll().where('id', '=', id));
}

/** The operations of a space, latest first. */
export function ofSpace(db: Db, spaceId: string): Promise<GitOperationRecord[]> {
  return db.all(db.q.selectFrom('git_operations').selectAll().where('space_id', '=', spaceId).orderBy('created_at', 'desc').orderBy(sql`rowid`, 'desc'));
}

export async function markRunning(db: Db, id: string): Promise<void> {
  await db.send(db.q.updateTable('git_operations').set({ status: 'running' }).where('id', '=', id));
}

/** Records the outcome of an operation and erases its credentials. */
export async function finish(
  db: Db,
  id: string,
  outcome: { status: string; at: string; commit: string | null; revision: string | null; error: string | null },
): Promise<void> {
  await db.send(
    db.q.updateTable('git_operations')
      .set({ status: outcome.status, commit_oid: outcome.commit, revision_id: outcome.revision, error: outcome.error, finished_at: outcome.at, credentials: null })
      .where('id', '=', id),
  );
}

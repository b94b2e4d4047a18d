// Change requests of a space (numbered 1, 2, … per space), the users who contributed to each, and the PDFs made
// from them (served at their own address for an hour, then removed).
import type { Insertable, Selectable, Updateable } from 'kysely';
import { columns, type Db } from './db.ts';
import { after, type Key } from './keyset.ts';
import type { Camelized, ChangeRequestPdfsTable, ChangeRequestsTable } from './schema.ts';

export type ChangeRequestRecord = Camelized<Selectable<ChangeRequestsTable>>;

export function get(db: Db, id: string): Promise<ChangeRequestRecord | undefined> {
  return db.first(db.q.selectFrom('change_requests').selectAll().where('id', '=', id));
}

export function getInSpace(db: Db, spaceId: string, id: string): Promise<ChangeRequestRecord | undefined> {
  return db.first(db.q.selectFrom('change_requests').selectAll().where('space_id', '=', spaceId).where('id', '=', id));
}

export function byNumber(db: Db, spaceId: string, number: number): Promise<ChangeRequestRecord | undefined> {
  return db.first(db.q.selectFrom('change_requests').selectAll().where('space_id', '=', spaceId).where('number', '=', number));
}

/**
 * The number the space's next change request takes: one more than its highest. Two creates that read the same
 * number cannot both commit: SQLite runs one write at a time, and PostgreSQL's serializable transactions make the
 * second one try again (UNIQUE (space_id, number) stands behind both).
 */
export async function nextNumber(db: Db, spaceId: string): Promise<number> {
  const row = await db.first(db.q.selectFrom('change_requests').select((eb) => eb.fn.max('number').as('last')).where('space_id', '=', spaceId));
  return (row?.last ?? 0) + 1;
}

export async function insert(db: Db, row: Omit<ChangeRequestRecord, 'revisionMergedAncestor' | 'revisionMerged'>): Promise<void> {
  await db.send(db.q.insertInto('change_requests').values(columns<Insertable<ChangeRequestsTable>>(row)));
}

export async function update(db: Db, id: string, changes: Camelized<Updateable<Omit<ChangeRequestsTable, 'id'>>>): Promise<void> {
  if (Object.keys(changes).length === 0) return;
  await db.send(db.q.updateTable('change_requests').set(columns<Updateable<Omit<ChangeRequestsTable, 'id'>>>(changes)).where('id', '=', id));
}

/** Records that a user changed the content of a change request (nothing when already recorded). */
export async function addContributor(db: Db, changeRequestId: string, userId: string): Promise<void> {
  await db.send(
    db.q.insertInto('change_request_contributors').values({ change_request_id: changeRequestId, user_id: userId })
      .onConflict((oc) => oc.columns(['change_request_id', 'user_id']).doNothing()),
  );
}

/** Filters of the list of a space's change requests. */
export interface ChangeRequestFilters {
  spaceId: string;
  status: string;
  creator?: string;
  contributor?: string;
}

function filtered(db: Db, filters: ChangeRequestFilters) {
  let query = db.q.selectFrom('change_requests').where('space_id', '=', filters.spaceId).where('status', '=', filters.status);
  if (filters.creator !== undefined) query = query.where('created_by', '=', filters.creator);
  if (filters.contributor !== undefined) {
    const contributor = filters.contributor;
    query = query.where('id', 'in', (eb) =>
      eb.selectFrom('change_request_contributors').select('change_request_id').where('user_id', '=', contributor),
    );
  }
  return query;
}

export async function count(db: Db, filters: ChangeRequestFilters): Promise<number> {
  return (await db.first(filtered(db, filters).select((eb) => eb.fn.countAll<number>().as('n'))))?.n ?? 0;
}

/** The column of each order of change requests. */
const ORDER_COLUMNS = { updatedAt: 'updated_at', createdAt: 'created_at' } as const;

/** A page of change requests, newest first by `orderBy` then number, after `key`. */
export function page(
  db: Db,
  filters: ChangeRequestFilters,
  orderBy: keyof typeof ORDER_COLUMNS,
  key: Key | undefined,
  limit: number,
): Promise<ChangeRequestRecord[]> {
  const column = ORDER_COLUMNS[orderBy];
  let query = filtered(db, filters).selectAll();
  if (key) query = query.where(after([column, 'number'], key, 'desc'));
  return db.all(query.orderBy(column, 'desc').orderBy('number', 'desc').limit(limit));
}

/** Open comments (not replies) of each of these change requests; a change request without any has no row. */
export function openCommentCounts(db: Db, changeRequestIds: readonly string[]): Promise<{ changeRequestId: string; n: number }[]> {
  return db.all(
    db.q.selectFrom('comments')
      .select(['change_request_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where(db.specific.among('change_request_id', changeRequestIds))
      .where('parent_id', 'is', null).where('status', '=', 'open')
      .groupBy('change_request_id'),
  ) as Promise<{ changeRequestId: string; n: number }[]>;
}

/** Stores a PDF made from a change request, and removes those whose time is over. */
export async function storePdf(
  db: Db,
  pdf: Camelized<Insertable<ChangeRequestPdfsTable>>,
): Promise<void> {
  await db.send(db.q.deleteFrom('change_request_pdfs').where('expires_at', '<=', pdf.createdAt));
  await db.send(db.q.insertInto('change_request_pdfs').values(columns<Insertable<ChangeRequestPdfsTable>>(pdf)));
}

/** The PDF with this id, unless its time is over. */
export function findPdf(db: Db, id: string, now: string): Promise<{ fileName: string; content: Buffer } | undefined> {
  return db.first(db.q.selectFrom('change_request_pdfs').select(['file_name', 'content']).where('id', '=', id).where('expires_at', '>', now));
}

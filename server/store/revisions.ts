// Revisions: immutable snapshots of a space's content (`content`, the JSON of content/model.ts's RevisionContent).
// A space's first revision may have no row yet (`spaces.unwritten_revision_id`: content/revisions.ts explains).
import type { Insertable, Selectable } from 'kysely';
import { columns, type Db, prepared } from './db.ts';
import type { Camelized, RevisionsTable } from './schema.ts';

/** A revision's row without its content. */
export type RevisionMetaRow = Camelized<Omit<Selectable<RevisionsTable>, 'content'>>;

export async function insert(
  db: Db,
  row: RevisionMetaRow & { content: string },
): Promise<void> {
  await db.send(db.q.insertInto('revisions').values(columns<Insertable<RevisionsTable>>(row)));
}

/** A revision's row without its content. */
export function meta(db: Db, id: string): Promise<RevisionMetaRow | undefined> {
  return db.first(META, { id });
}

const META = prepared((q, p: { id: string }) =>
  q.selectFrom('revisions').select(['id', 'space_id', 'change_request_id', 'parents', 'type', 'created_at']).where('id', '=', p.id),
);

/** A revision's row with its content (JSON text). */
export function withContent(db: Db, id: string): Promise<(RevisionMetaRow & { content: string }) | undefined> {
  return db.first(WITH_CONTENT, { id });
}

const WITH_CONTENT = prepared((q, p: { id: string }) =>
  q.selectFrom('revisions').select(['id', 'space_id', 'change_request_id', 'parents', 'type', 'created_at', 'content']).where('id', '=', p.id),
);

/** When the space was made, if `id` is its unwritten first revision. */
export async function unwrittenFirst(db: Db, spaceId: string, id: string): Promise<string | undefined> {
  const row = await db.first(
    db.q.selectFrom('spaces').select('created_at').where('id', '=', spaceId).where('unwritten_revision_id', '=', id),
  );
  return row?.createdAt;
}

/** Takes the name of its unwritten first revision off a space; true when it was that revision's (once only). */
export async function clearUnwritten(db: Db, spaceId: string, id: string): Promise<boolean> {
  const changed = await db.run(
    db.q.updateTable('spaces').set({ unwritten_revision_id: null }).where('id', '=', spaceId).where('unwritten_revision_id', '=', id),
  );
  return changed === 1;
}

/** Makes a revision the current content of its space. */
export async function makeCurrent(db: Db, spaceId: string, revisionId: string, updatedAt: string): Promise<void> {
  await db.send(db.q.updateTable('spaces').set({ revision_id: revisionId, updated_at: updatedAt }).where('id', '=', spaceId));
}

// Translations of spaces into other languages, with the statistics of their runs.
import type { Insertable, Selectable, Updateable } from 'kysely';
import { columns, type Db } from './db.ts';
import { after, type Key } from './keyset.ts';
import type { Camelized, TranslationsTable } from './schema.ts';

export type TranslationRecord = Camelized<Selectable<TranslationsTable>>;

export function get(db: Db, id: string): Promise<TranslationRecord | undefined> {
  return db.first(db.q.selectFrom('translations').selectAll().where('id', '=', id));
}

export async function insert(
  db: Db,
  row: Pick<TranslationRecord, 'id' | 'organizationId' | 'language' | 'sourceSpaceId' | 'sourceLanguage' | 'instructions' | 'createdAt' | 'updatedAt'>,
): Promise<void> {
  await db.send(db.q.insertInto('translations').values(columns<Insertable<TranslationsTable>>(row)));
}

/** Changes columns of a translation; resolves to whether it exists. */
export async function update(db: Db, id: string, changes: Camelized<Updateable<Omit<TranslationsTable, 'id'>>>): Promise<boolean> {
  return (await db.run(db.q.updateTable('translations').set(columns<Updateable<Omit<TranslationsTable, 'id'>>>(changes)).where('id', '=', id))) > 0;
}

/** Records a run: its result, and its figures added to the totals. */
export async function recordRun(
  db: Db,
  id: string,
  run: { status: string; resultSpaceId: string; resultRevisionId: string; words: number; pages: number; duration: number; updatedAt: string },
): Promise<void> {
  await db.send(
    db.q.updateTable('translations')
      .set((eb) => ({
        status: run.status,
        result_space_id: run.resultSpaceId,
        result_revision_id: run.resultRevisionId,
        runs: eb('runs', '+', 1),
        total_words: eb('total_words', '+', run.words),
        total_pages: eb('total_pages', '+', run.pages),
        total_duration: eb('total_duration', '+', run.duration),
        latest_run_duration: run.duration,
        latest_pages: run.pages,
        latest_words: run.words,
        updated_at: run.updatedAt,
      }))
      .where('id', '=', id),
  );
}

export async function remove(db: Db, id: string): Promise<void> {
  await db.send(db.q.deleteFrom('translations').where('id', '=', id));
}

export async function count(db: Db, organizationId: string): Promise<number> {
  return (await db.first(db.q.selectFrom('translations').select((eb) => eb.fn.countAll<number>().as('n')).where('organization_id', '=', organizationId)))?.n ?? 0;
}

/** A page of an organization's translations by creation (created_at, id), after `key`. */
export function page(db: Db, organizationId: string, key: Key | undefined, limit: number): Promise<TranslationRecord[]> {
  let query = db.q.selectFrom('translations').selectAll().where('organization_id', '=', organizationId);
  if (key) query = query.where(after(['created_at', 'id'], key));
  return db.all(query.orderBy('created_at').orderBy('id').limit(limit));
}

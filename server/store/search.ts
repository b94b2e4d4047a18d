// The full-text index of spaces' current content: one row per section (the text under a heading) of every page.
// The index itself is each engine's own (specific.ts: FTS5 in SQLite, tsvector in PostgreSQL); this module adds
// which revision a space's rows were made from (`spaces.search_revision_id`).
import type { Db } from './db.ts';
import type { SearchScope, SearchSection, SearchWords, SectionHit } from './specific.ts';

export type { SearchScope, SearchSection, SearchWords, SectionHit };

/** The revision the index holds the space's rows of (null: none named; undefined: no such space). */
export async function indexedRevision(db: Db, spaceId: string): Promise<string | null | undefined> {
  const row = await db.first(db.q.selectFrom('spaces').select('search_revision_id').where('id', '=', spaceId));
  return row === undefined ? undefined : row.searchRevisionId;
}

/** Names the revision the index now holds the space's rows of (null: none). */
export async function setIndexedRevision(db: Db, spaceId: string, revisionId: string | null): Promise<void> {
  await db.send(db.q.updateTable('spaces').set({ search_revision_id: revisionId }).where('id', '=', spaceId));
}

/** Records that the index holds nothing of these spaces. */
export async function clearIndexedRevisions(db: Db, spaceIds: readonly string[]): Promise<void> {
  await db.send(db.q.updateTable('spaces').set({ search_revision_id: null }).where(db.specific.among('id', spaceIds)));
}

export const addSections = (db: Db, sections: readonly SearchSection[]): Promise<void> => db.specific.search.add(db, sections);

export const removePages = (db: Db, spaceId: string, pageIds: readonly string[]): Promise<void> =>
  db.specific.search.removePages(db, spaceId, pageIds);

export const removeSpaces = (db: Db, spaceIds: readonly string[]): Promise<void> => db.specific.search.removeSpaces(db, spaceIds);

/** Matching sections in the scope, best first (at most `max`), without their text (`bodies`). */
export const sections = (db: Db, scope: SearchScope, words: SearchWords, max: number): Promise<SectionHit[]> =>
  db.specific.search.sections(db, scope, words, max);

/** The whole text of matching sections (rows of `sections`): content/search.ts shows the words around the match. */
export const bodies = (db: Db, rows: readonly number[]): Promise<Map<number, string>> => db.specific.search.bodies(db, rows);

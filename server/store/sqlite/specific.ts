// What SQLite does its own way (see ../specific.ts): lists bound as JSON text, FTS5 for the full-text index, and a
// job claim that needs no lock (one server owns the database, and its writes run one at a time): only its clock.
import { sql } from 'kysely';
import type { Db } from '../db.ts';
import { type SearchScope, type SearchSection, type SearchWords, SECTION_HIT_COLUMNS, type SectionHit, type Specific } from '../specific.ts';
import { storableText } from '../../common/text.ts';

/**
 * A list of strings bound as one parameter, JSON text read by json_each: each string as the store binds any other
 * (storableText, as PostgreSQL's arrays are bound), since JSON would carry a NUL past it as `\u0000`.
 */
const textList = (values: readonly string[]) => JSON.stringify(values.map(storableText));

/** FTS5 query of the words, each a prefix, quoted so that no user input is FTS5 syntax. */
const ftsQuery = (words: SearchWords) => words.map((word) => `"${word.replaceAll('"', '""')}"*`).join(' ');

const HIT_ORDER = sql`ORDER BY content_search.rank, content_search.space_id, content_search.page_id, content_search.section_id`;

/** The full-text index: FTS5's `content_search`, and `content_search_spaces`, which finds a space's or a page's rows. */
const search = {
  async add(db: Db, sections: readonly SearchSection[]): Promise<void> {
    for (const section of sections) {
      await db.run(
        sql`INSERT INTO content_search (title, body, page_title, space_id, page_id, page_path, section_id)
            VALUES (${section.title}, ${section.body}, ${section.pageTitle}, ${section.spaceId}, ${section.pageId},
                    ${section.pagePath}, ${section.sectionId})`,
      );
      // FTS5 keeps space_id UNINDEXED: content_search_spaces (migrations 120 and 190) is how a space's rows are found.
      await db.run(
        sql`INSERT INTO content_search_spaces (search_rowid, space_id, page_id)
            VALUES (last_insert_rowid(), ${section.spaceId}, ${section.pageId})`,
      );
    }
  },

  async removePages(db: Db, spaceId: string, pageIds: readonly string[]): Promise<void> {
    if (pageIds.length === 0) return;
    const pages = sql`space_id = ${spaceId} AND page_id IN (SELECT value FROM json_each(${textList(pageIds)}))`;
    await db.run(sql`DELETE FROM content_search WHERE rowid IN (SELECT search_rowid FROM content_search_spaces WHERE ${pages})`);
    await db.run(sql`DELETE FROM content_search_spaces WHERE ${pages}`);
  },

  async removeSpaces(db: Db, spaceIds: readonly string[]): Promise<void> {
    const ofSpaces = sqliteSpecific.among('space_id', spaceIds);
    await db.run(sql`DELETE FROM content_search WHERE rowid IN (SELECT search_rowid FROM content_search_spaces WHERE ${ofSpaces})`);
    await db.run(sql`DELETE FROM content_search_spaces WHERE ${ofSpaces}`);
  },

  /**
   * An organization's spaces are joined to each match (CROSS JOIN keeps SQLite to that order): not listed as ids,
   * which cost a bound parameter each and failed beyond SQLite's 32 766 parameters (a 500 for a large organization).
   */
  sections(db: Db, scope: SearchScope, words: SearchWords, max: number): Promise<SectionHit[]> {
    const query = ftsQuery(words);
    if ('spaceId' in scope) {
      return db.all(
        sql<SectionHit>`SELECT ${SECTION_HIT_COLUMNS} FROM content_search
          WHERE content_search MATCH ${query} AND content_search.space_id = ${scope.spaceId} ${HIT_ORDER} LIMIT ${max}`,
      );
    }
    return db.all(
      sql<SectionHit>`SELECT ${SECTION_HIT_COLUMNS} FROM content_search CROSS JOIN spaces ON spaces.id = content_search.space_id
        WHERE content_search MATCH ${query} AND spaces.organization_id = ${scope.organizationId} AND spaces.deleted_at IS NULL
        ${HIT_ORDER} LIMIT ${max}`,
    );
  },

  /**
   * Read for the sections a page of results shows only; the words around the match are chosen from it in
   * content/search.ts, the same way on both engines (FTS5's snippet() and PostgreSQL's ts_headline() chose others).
   */
  async bodies(db: Db, rows: readonly number[]): Promise<Map<number, string>> {
    if (rows.length === 0) return new Map();
    const found = await db.all(
      sql<{ row: number; body: string }>`SELECT rowid AS "row", body FROM content_search
        WHERE rowid IN (SELECT value FROM json_each(${JSON.stringify(rows)}))`,
    );
    return new Map(found.map((hit) => [hit.row, hit.body]));
  },
};

export const sqliteSpecific: Specific<Db> = {
  /**
   * For several ids, `IN` a JSON array of them, read by json_each; for one id, as a single item's GET or update asks,
   * `= ?`, which spares SQLite the JSON text, the table-valued function and its Bloom filter on every such statement.
   */
  among: (column, ids) =>
    ids.length === 1
      ? sql`${sql.ref(column)} = ${ids[0]}`
      : sql`${sql.ref(column)} IN (SELECT value FROM json_each(${textList(ids)}))`,

  strings: (values, alias) => sql`(SELECT value FROM json_each(${textList(values)})) AS ${sql.id(alias)}`,

  jsonStrings: (column, alias) => sql`json_each(${sql.ref(column)}) AS ${sql.id(alias)}`,

  readsAhead: false,

  search,

  // The machine's clock, read by SQLite: one server owns the database, so it is the only clock there is.
  clockMs: sql<number>`CAST(unixepoch('subsec') * 1000 AS INTEGER)`,

  // One server owns the database and runs one write at a time: no other claim can be under way.
  lockJobResource: () => Promise.resolve(true),

  skipLocked: sql``,
};

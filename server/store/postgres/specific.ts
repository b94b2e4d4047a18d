// What PostgreSQL does its own way (see ../specific.ts): lists bound as arrays, a tsvector full-text index, and what
// lets several instances claim jobs at once (the database's clock, a lock per job resource, rows locked skipping
// what another transaction holds).
import { sql } from 'kysely';
import type { Db } from '../db.ts';
import { type SearchScope, type SearchSection, type SearchWords, SECTION_HIT_COLUMNS, type SectionHit, type Specific } from '../specific.ts';

/**
 * Text as the index holds it: lower case, without diacritics, each run of letters, digits and underscores a word
 * (what SQLite's FTS5 `unicode61 remove_diacritics 2` tokenizer makes of it). The 'simple' configuration then takes
 * the words as they are.
 */
export function fold(text: string): string {
  return (text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).join(' ');
}

/**
 * The most bytes a section's words take in its tsvector: PostgreSQL refuses a tsvector past 1 MiB (1 048 575 bytes,
 * "string is too long for tsvector"), which a page of 2 MiB of distinct words would pass; the margin covers words its
 * parser splits in two.
 */
const MOST_INDEXED_BYTES = 900_000;
/** Positions a tsvector keeps of one word (more are dropped). */
const MOST_POSITIONS = 256;
/** Bytes a word takes in a tsvector besides its own: its entry (4), an alignment byte, its count of positions (2), one position (2). */
const WORD_OVERHEAD = 9;
/** A longer word is left out by PostgreSQL's parser (with a notice): it takes nothing. */
const LONGEST_INDEXED_WORD = 2047;

/**
 * A section's folded title and body as its tsvector is made of them, within MOST_INDEXED_BYTES: what the words take is
 * counted from the title's first, and a word past it is left out (a section of hundreds of thousands of distinct words
 * is found by its first ones). Text that cannot reach it (each word at most 3 bytes a character and WORD_OVERHEAD more,
 * and followed by a space) is given back unchanged, uncounted.
 */
export function withinTsvector(title: string, body: string): { title: string; body: string } {
  if ((title.length + body.length + 2) * (3 + WORD_OVERHEAD / 2) < MOST_INDEXED_BYTES) return { title, body };
  const positions = new Map<string, number>();
  let used = 0;
  const kept = (text: string) =>
    text
      .split(' ')
      .filter((word) => {
        const bytes = Buffer.byteLength(word);
        if (bytes === 0) return false;
        if (bytes > LONGEST_INDEXED_WORD) return true;
        const seen = positions.get(word) ?? 0;
        const cost = seen === 0 ? bytes + WORD_OVERHEAD : seen < MOST_POSITIONS ? 2 : 0;
        if (used + cost > MOST_INDEXED_BYTES) return false;
        used += cost;
        positions.set(word, seen + 1);
        return true;
      })
      .join(' ');
  return { title: kept(title), body: kept(body) };
}

/** The tsquery of the words: each folded word a prefix, all of them required. */
function tsQuery(words: SearchWords): string {
  const terms = words.flatMap((word) => fold(word).split(' ')).filter(Boolean);
  // Folded words hold letters and digits only: nothing in them is tsquery syntax.
  return terms.map((term) => `${term}:*`).join(' & ');
}


const search = {
  async add(db: Db, sections: readonly SearchSection[]): Promise<void> {
    if (sections.length === 0) return;
    // One statement for the whole batch: a round trip per section was most of the cost of indexing a space.
    const rows = sections.map((section) => {
      const words = withinTsvector(fold(section.title), fold(section.body));
      return sql`(${section.spaceId}, ${section.pageId}, ${section.pagePath}, ${section.pageTitle}, ${section.sectionId}, ${section.title},
             ${section.body}, setweight(to_tsvector('simple', ${words.title}), 'A') || to_tsvector('simple', ${words.body}))`;
    });
    // Bound parameters are limited to 65 535 a statement: 8 a section.
    for (let start = 0; start < rows.length; start += 4000) {
      await db.send(
        sql`INSERT INTO content_search (space_id, page_id, page_path, page_title, section_id, title, body, words)
            VALUES ${sql.join(rows.slice(start, start + 4000))}`,
      );
    }
  },

  async removePages(db: Db, spaceId: string, pageIds: readonly string[]): Promise<void> {
    if (pageIds.length === 0) return;
    await db.send(sql`DELETE FROM content_search WHERE space_id = ${spaceId} AND page_id = ANY(${pageIds})`);
  },

  async removeSpaces(db: Db, spaceIds: readonly string[]): Promise<void> {
    await db.send(sql`DELETE FROM content_search WHERE ${postgresSpecific.among('space_id', spaceIds)}`);
  },

  async sections(db: Db, scope: SearchScope, words: SearchWords, max: number): Promise<SectionHit[]> {
    const query = tsQuery(words);
    if (query === '') return [];
    const matches = sql`content_search.words @@ to_tsquery('simple', ${query})`;
    const order = sql`ORDER BY ts_rank(content_search.words, to_tsquery('simple', ${query})) DESC,
      content_search.space_id, content_search.page_id, content_search.section_id LIMIT ${max}`;
    return 'spaceId' in scope
      ? db.all(sql<SectionHit>`SELECT ${SECTION_HIT_COLUMNS} FROM content_search
          WHERE ${matches} AND content_search.space_id = ${scope.spaceId} ${order}`)
      : db.all(sql<SectionHit>`SELECT ${SECTION_HIT_COLUMNS} FROM content_search JOIN spaces ON spaces.id = content_search.space_id
          WHERE ${matches} AND spaces.organization_id = ${scope.organizationId} AND spaces.deleted_at IS NULL ${order}`);
  },

  /** The sections' text; the words around the match are chosen from it in content/search.ts, as on SQLite. */
  async bodies(db: Db, rows: readonly number[]): Promise<Map<number, string>> {
    if (rows.length === 0) return new Map();
    const found = await db.all(
      sql<{ row: number; body: string }>`SELECT rowid AS "row", body FROM content_search WHERE rowid = ANY(${rows.map(Number)}::bigint[])`,
    );
    return new Map(found.map((hit) => [Number(hit.row), hit.body]));
  },
};

export const postgresSpecific: Specific<Db> = {
  among: (column, ids) => (ids.length === 1 ? sql`${sql.ref(column)} = ${ids[0]}` : sql`${sql.ref(column)} = ANY(${ids})`),

  // Under the "C" collation, as every text column: a comparison or a UNION with the tables' columns would otherwise
  // mix two collations.
  strings: (values, alias) => sql`(SELECT value COLLATE "C" AS value FROM unnest(${values}::text[]) AS value) AS ${sql.id(alias)}`,

  jsonStrings: (column, alias) =>
    sql`LATERAL (SELECT value COLLATE "C" AS value FROM jsonb_array_elements_text(${sql.ref(column)}::jsonb) AS value) AS ${sql.id(alias)}`,

  readsAhead: true,

  search,

  // clock_timestamp(), not now(): the time of the statement itself, not of the start of its transaction.
  clockMs: sql<number>`(extract(epoch from clock_timestamp()) * 1000)::bigint`,

  // The key space of hashtextextended is the one of pg_try_advisory_xact_lock(bigint); the store's own locks
  // (migrations, writers, write queues) are constants or SHA-1 prefixes of other names.
  async lockJobResource(db: Db, resource: string): Promise<boolean> {
    const row = await db.first(sql<{ locked: boolean }>`SELECT pg_try_advisory_xact_lock(hashtextextended(${`job:${resource}`}, 0)) AS locked`);
    return row?.locked === true;
  },

  skipLocked: sql`FOR UPDATE SKIP LOCKED`,
};

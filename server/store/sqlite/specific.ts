// What SQLite does its own way (see ../specific.ts): lists bound as JSON text, FTS5 for the full-text index, and a
// job claim that needs no lock (one server owns the database, and its writes run one at a time).
import { sql } from 'kysely';
import type { Db } from '../db.ts';
import type { ClaimedJob, JobClaim, SearchScope, SearchSection, SearchWords, SectionHit, Specific } from '../specific.ts';

/** FTS5 query of the words, each a prefix, quoted so that no user input is FTS5 syntax. */
const ftsQuery = (words: SearchWords) => words.map((word) => `"${word.replaceAll('"', '""')}"*`).join(' ');

const HIT_COLUMNS = sql`content_search.rowid AS "row", content_search.space_id AS "spaceId", content_search.page_id AS "pageId",
  content_search.page_title AS "pageTitle", content_search.page_path AS "pagePath", content_search.section_id AS "sectionId",
  content_search.title AS "sectionTitle"`;
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
    const pages = sql`space_id = ${spaceId} AND page_id IN (SELECT value FROM json_each(${JSON.stringify(pageIds)}))`;
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
        sql<SectionHit>`SELECT ${HIT_COLUMNS} FROM content_search
          WHERE content_search MATCH ${query} AND content_search.space_id = ${scope.spaceId} ${HIT_ORDER} LIMIT ${max}`,
      );
    }
    return db.all(
      sql<SectionHit>`SELECT ${HIT_COLUMNS} FROM content_search CROSS JOIN spaces ON spaces.id = content_search.space_id
        WHERE content_search MATCH ${query} AND spaces.organization_id = ${scope.organizationId} AND spaces.deleted_at IS NULL
        ${HIT_ORDER} LIMIT ${max}`,
    );
  },

  /**
   * Made for the sections a page of results shows only: FTS5's snippet() took 34 of the 41 ms of the query of 2 000
   * sections (a common word in a space of 4 900 pages), where a page shows 20 pages of results. `+rowid`: given to
   * FTS5 as a constraint, the list became one search per row (2 000 rows: 270 ms instead of 64).
   */
  async bodies(db: Db, words: SearchWords, rows: readonly number[]): Promise<Map<number, string>> {
    const found = await db.all(
      sql<{ row: number; body: string }>`SELECT rowid AS "row", snippet(content_search, 1, '', '', '\u2026', 32) AS body
        FROM content_search
        WHERE content_search MATCH ${ftsQuery(words)} AND +rowid IN (SELECT value FROM json_each(${JSON.stringify(rows)}))`,
    );
    return new Map(found.map((hit) => [hit.row, hit.body]));
  },
};

export const sqliteSpecific: Specific<Db> = {
  /**
   * For several ids, `IN` a JSON array of them, read by json_each; for one id, as a single item's GET or update asks,
   * `= ?`, which spares SQLite the JSON text, the table-valued function and its Bloom filter: about 1 µs a statement.
   */
  among: (column, ids) =>
    ids.length === 1
      ? sql`${sql.ref(column)} = ${ids[0]}`
      : sql`${sql.ref(column)} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`,

  strings: (values, alias) => sql`(SELECT value FROM json_each(${JSON.stringify(values)})) AS ${sql.id(alias)}`,

  jsonStrings: (column, alias) => sql`json_each(${sql.ref(column)}) AS ${sql.id(alias)}`,

  search,

  /**
   * One server owns the database and runs one write at a time: the candidates are read, then marked, with nothing
   * in between.
   */
  async claimJobs(db: Db, claim: JobClaim): Promise<ClaimedJob[]> {
    const { q } = db;
    const columns = ['id', 'kind', 'resource', 'payload', 'attempts', 'created_at'] as const;
    const expired = await db.all(
      q.selectFrom('jobs').select(columns).where('status', '=', 'running')
        .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', claim.now)]))
        .where('owner', 'is not', claim.owner).orderBy('order_key').orderBy('created_at').orderBy('id'),
    );
    const queued = await db.all(
      q.selectFrom('jobs').select(columns).where('status', '=', 'queued')
        .where('resource', 'not in', q.selectFrom('jobs').select('resource').where('status', '=', 'running'))
        .orderBy('order_key').orderBy('created_at').orderBy('id'),
    );
    const busy = new Set(claim.busy);
    const claimed: ClaimedJob[] = [];
    for (const [rows, takenOver] of [[expired, 1], [queued, 0]] as const) {
      for (const row of rows) {
        if (claimed.length >= claim.limit) break;
        // The first queued job of each resource only: the others wait for it.
        if (busy.has(row.resource)) continue;
        busy.add(row.resource);
        await db.run(
          q.updateTable('jobs')
            .set((eb) => ({
              status: 'running',
              owner: claim.owner,
              lease_until: claim.leaseUntil,
              attempts: eb('attempts', '+', 1),
              started_at: claim.startedAt,
            }))
            .where('id', '=', row.id),
        );
        claimed.push({ ...row, attempts: row.attempts + 1, taken_over: takenOver });
      }
    }
    return claimed;
  },
};

// What PostgreSQL does its own way (see ../specific.ts): lists bound as arrays, a tsvector full-text index, and a
// job claim that several instances can run at once.
import { sql } from 'kysely';
import type { Db } from '../db.ts';
import type { ClaimedJob, JobClaim, SearchScope, SearchSection, SearchWords, SectionHit, Specific } from '../specific.ts';

/**
 * Text as the index holds it: lower case, without diacritics, each run of letters, digits and underscores a word
 * (what SQLite's FTS5 `unicode61 remove_diacritics 2` tokenizer makes of it). The 'simple' configuration then takes
 * the words as they are.
 */
export function fold(text: string): string {
  return (text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).join(' ');
}

/** The tsquery of the words: each folded word a prefix, all of them required. */
function tsQuery(words: SearchWords): string {
  const terms = words.flatMap((word) => fold(word).split(' ')).filter(Boolean);
  // Folded words hold letters and digits only: nothing in them is tsquery syntax.
  return terms.map((term) => `${term}:*`).join(' & ');
}

const HIT_COLUMNS = sql`content_search.rowid AS "row", content_search.space_id AS "spaceId", content_search.page_id AS "pageId",
  content_search.page_title AS "pageTitle", content_search.page_path AS "pagePath", content_search.section_id AS "sectionId",
  content_search.title AS "sectionTitle"`;

const search = {
  async add(db: Db, sections: readonly SearchSection[]): Promise<void> {
    if (sections.length === 0) return;
    // One statement for the whole batch: a round trip per section was most of the cost of indexing a space.
    const rows = sections.map(
      (section) =>
        sql`(${section.spaceId}, ${section.pageId}, ${section.pagePath}, ${section.pageTitle}, ${section.sectionId}, ${section.title},
             ${section.body}, setweight(to_tsvector('simple', ${fold(section.title)}), 'A') || to_tsvector('simple', ${fold(section.body)}))`,
    );
    // Bound parameters are limited to 65 535 a statement: 8 a section.
    for (let start = 0; start < rows.length; start += 4000) {
      await db.run(
        sql`INSERT INTO content_search (space_id, page_id, page_path, page_title, section_id, title, body, words)
            VALUES ${sql.join(rows.slice(start, start + 4000))}`,
      );
    }
  },

  async removePages(db: Db, spaceId: string, pageIds: readonly string[]): Promise<void> {
    if (pageIds.length === 0) return;
    await db.run(sql`DELETE FROM content_search WHERE space_id = ${spaceId} AND page_id = ANY(${pageIds})`);
  },

  async removeSpaces(db: Db, spaceIds: readonly string[]): Promise<void> {
    await db.run(sql`DELETE FROM content_search WHERE ${postgresSpecific.among('space_id', spaceIds)}`);
  },

  async sections(db: Db, scope: SearchScope, words: SearchWords, max: number): Promise<SectionHit[]> {
    const query = tsQuery(words);
    if (query === '') return [];
    const matches = sql`content_search.words @@ to_tsquery('simple', ${query})`;
    const order = sql`ORDER BY ts_rank(content_search.words, to_tsquery('simple', ${query})) DESC,
      content_search.space_id, content_search.page_id, content_search.section_id LIMIT ${max}`;
    return 'spaceId' in scope
      ? db.all(sql<SectionHit>`SELECT ${HIT_COLUMNS} FROM content_search
          WHERE ${matches} AND content_search.space_id = ${scope.spaceId} ${order}`)
      : db.all(sql<SectionHit>`SELECT ${HIT_COLUMNS} FROM content_search JOIN spaces ON spaces.id = content_search.space_id
          WHERE ${matches} AND spaces.organization_id = ${scope.organizationId} AND spaces.deleted_at IS NULL ${order}`);
  },

  /** The words around the first match of the section's text (ts_headline), at most 32 of them. */
  async bodies(db: Db, words: SearchWords, rows: readonly number[]): Promise<Map<number, string>> {
    const query = tsQuery(words);
    if (query === '' || rows.length === 0) return new Map();
    const found = await db.all(
      sql<{ row: number; body: string }>`SELECT rowid AS "row",
        ts_headline('simple', body, to_tsquery('simple', ${query}),
          'StartSel="", StopSel="", MaxWords=32, MinWords=12, ShortWord=0, MaxFragments=1, FragmentDelimiter=" \u2026 "') AS body
        FROM content_search WHERE rowid = ANY(${rows.map(Number)}::bigint[])`,
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

  search,

  /**
   * Several instances claim at once. The candidates are locked with FOR UPDATE SKIP LOCKED, so that two claims never
   * take the same job nor wait for each other; a transaction-scoped advisory lock on each job's resource, taken
   * without waiting, keeps two instances from starting two jobs of one resource together (the job another instance
   * just marked running is not yet visible to this transaction's snapshot, but its lock is); the resource is then
   * checked again for a running job under that lock.
   */
  async claimJobs(db: Db, claim: JobClaim): Promise<ClaimedJob[]> {
    const candidates = await db.all(
      sql<ClaimedJob & { status: string }>`SELECT id, kind, resource, payload, attempts, created_at, status,
          (status = 'running')::int AS taken_over
        FROM jobs
        WHERE (status = 'queued' OR (status = 'running' AND (lease_until IS NULL OR lease_until < ${claim.now}) AND owner IS DISTINCT FROM ${claim.owner}))
          AND NOT (resource = ANY(${claim.busy as string[]}::text[]))
        ORDER BY (status = 'running') DESC, order_key, created_at, id
        LIMIT ${Math.max(claim.limit * 8, 32)}
        FOR UPDATE SKIP LOCKED`,
    );
    const seen = new Set<string>();
    const claimed: ClaimedJob[] = [];
    for (const job of candidates) {
      if (claimed.length >= claim.limit) break;
      if (seen.has(job.resource)) continue;
      seen.add(job.resource);
      const locked = await db.first(sql<{ locked: boolean }>`SELECT pg_try_advisory_xact_lock(hashtextextended(${job.resource}, 0)) AS locked`);
      if (!locked?.locked) continue;
      if (job.status === 'queued') {
        // Under the lock: a job of the resource that another instance runs (or one queued before this one, which
        // its claim locked) keeps this one waiting.
        const ahead = await db.first(
          sql<{ id: string }>`SELECT id FROM jobs WHERE resource = ${job.resource} AND id <> ${job.id}
            AND (status = 'running' OR (status = 'queued' AND (order_key, created_at, id) < (
              SELECT order_key, created_at, id FROM jobs WHERE id = ${job.id})))
            LIMIT 1`,
        );
        if (ahead) continue;
      }
      await db.run(
        sql`UPDATE jobs SET status = 'running', owner = ${claim.owner}, lease_until = ${claim.leaseUntil},
            attempts = attempts + 1, started_at = ${claim.startedAt} WHERE id = ${job.id}`,
      );
      const { status: _status, ...row } = job;
      claimed.push({ ...row, attempts: Number(row.attempts) + 1, taken_over: Number(row.taken_over) });
    }
    return claimed;
  },
};

// What the two engines do each their own way, behind one interface: sqlite/specific.ts and postgres/specific.ts are
// its two implementations, and the only places where a query is written twice. Everything else in the store is
// written once, with Kysely.
//
// - Lists bound as one parameter (`among`, `strings`): SQLite reads a JSON array with json_each, PostgreSQL an array.
// - JSON arrays held in a column (`jsonStrings`): json_each against jsonb_array_elements_text.
// - The full-text index of spaces' content (`search`): SQLite's FTS5 against PostgreSQL's tsvector.
// - Whether what an update reads beside its row goes in its RETURNING (`readsReturned`), a matter of cost only.
// - What the job queue needs of the engine (jobs.ts): the database's clock, which every lease is measured by; a lock
//   per resource for the length of a claim; row locks that skip what another transaction holds. SQLite, which one
//   server owns and writes one transaction at a time, needs neither lock.
import { type RawBuilder, sql, type SqlBool } from 'kysely';

/** A section of a page, as the full-text index holds it. */
export interface SearchSection {
  spaceId: string;
  pageId: string;
  pagePath: string;
  pageTitle: string;
  /** Anchor of the section's heading; empty for the text before the first heading. */
  sectionId: string;
  title: string;
  body: string;
}

export interface SectionHit {
  /** The index row: its text is read for the hits a page of results shows (`bodies`). */
  row: number;
  spaceId: string;
  pageId: string;
  pageTitle: string;
  pagePath: string;
  sectionId: string;
  sectionTitle: string;
}

/** The columns of a `SectionHit`, read from either engine's `content_search` (the same columns on both). */
export const SECTION_HIT_COLUMNS = sql`content_search.rowid AS "row", content_search.space_id AS "spaceId", content_search.page_id AS "pageId",
  content_search.page_title AS "pageTitle", content_search.page_path AS "pagePath", content_search.section_id AS "sectionId",
  content_search.title AS "sectionTitle"`;

/** Where to search: one space, or every live space of an organization. */
export type SearchScope = { spaceId: string } | { organizationId: string };

/** The words of a search, as both engines match them: each a prefix of a word of the text. */
export type SearchWords = readonly string[];

/** `Db` is the store's handle (db.ts), a parameter here so that this module imports nothing of the store's. */
export interface SearchIndex<Db> {
  /** Adds these sections to the index. */
  add(db: Db, sections: readonly SearchSection[]): Promise<void>;
  /** Removes the rows of these pages of the space. */
  removePages(db: Db, spaceId: string, pageIds: readonly string[]): Promise<void>;
  /** Removes every row of the space. */
  removeSpaces(db: Db, spaceIds: readonly string[]): Promise<void>;
  /** Matching sections in the scope, best first (at most `max`), without their text (`bodies`). */
  sections(db: Db, scope: SearchScope, words: SearchWords, max: number): Promise<SectionHit[]>;
  /** The whole text of these rows of `sections` (the words around the match are chosen from it, in content/search.ts). */
  bodies(db: Db, rows: readonly number[]): Promise<Map<number, string>>;
}

export interface Specific<Db> {
  /** `column` (a column reference such as `spaces.id`) is one of `ids`: one SQL text whatever their number. */
  among(column: string, ids: readonly string[]): RawBuilder<SqlBool>;
  /** A table of one text column `value`, the strings `values`, under `alias` (for FROM and JOIN). */
  strings(values: readonly string[], alias: string): RawBuilder<{ value: string }>;
  /**
   * A table of one text column `value`, the elements of the JSON array of strings in `column`, under `alias`: a FROM
   * item that may follow the table of `column` in the same FROM (`FROM revisions, <this>`).
   */
  jsonStrings(column: string, alias: string): RawBuilder<{ value: string }>;
  readonly search: SearchIndex<Db>;
  /**
   * Whether a row an UPDATE returns carries what is read with it (a space's counters: `updateByAdmin`, spaces.ts) as
   * scalar subqueries of its RETURNING, rather than a statement of its own sent with it. PostgreSQL: yes, a statement
   * more costs the server more than the subqueries cost the database. SQLite: no, those subqueries made the statement
   * cost the server a tenth of a PATCH of a space more than two statements did.
   */
  readonly readsReturned: boolean;
  /**
   * The database's time, in milliseconds since the epoch (an integer): what job leases are measured by, so that the
   * clocks of the hosts of several instances never enter them.
   */
  readonly clockMs: RawBuilder<number>;
  /**
   * Takes, without waiting, the lock of a job resource for the rest of the transaction: false when another
   * transaction holds it (PostgreSQL: a transaction-scoped advisory lock). SQLite: always true.
   */
  lockJobResource(db: Db, resource: string): Promise<boolean>;
  /** Appended to a SELECT: lock the rows it returns, skipping those another transaction holds (SQLite: nothing). */
  readonly skipLocked: RawBuilder<unknown>;
}

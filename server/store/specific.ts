// What the two engines do each their own way, behind one interface (sqlite/specific.ts, postgres/specific.ts): lists
// bound as one parameter, JSON arrays in a column, the full-text index, and what the job queue needs
// (the database's clock, a lock per resource, row locks that skip); everything else in the store is written once
// (server/docs/store.md, "Queries are written once").
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
   * Whether a read sent before anything asks for it (the caller's memberships, with a request's first statement:
   * `members.readAhead`) costs no round trip of its own. PostgreSQL: yes, it leaves with that statement and comes back
   * with its answer. SQLite: no, it would run in the server's thread whether asked for or not; it is read when first
   * asked for.
   */
  readonly readsAhead: boolean;
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

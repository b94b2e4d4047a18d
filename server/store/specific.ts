// What the two engines do each their own way, behind one interface: sqlite/specific.ts and postgres/specific.ts are
// its two implementations, and the only places where a query is written twice. Everything else in the store is
// written once, with Kysely.
//
// - Lists bound as one parameter (`among`, `strings`): SQLite reads a JSON array with json_each, PostgreSQL an array.
// - JSON arrays held in a column (`jsonStrings`): json_each against jsonb_array_elements_text.
// - The full-text index of spaces' content (`search`): SQLite's FTS5 against PostgreSQL's tsvector.
// - The job claim (`claimJobs`): one UPDATE in SQLite, which one server owns; row locks that skip what another
//   instance holds, and a lock per resource, in PostgreSQL.
import type { RawBuilder, SqlBool } from 'kysely';

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
  /** The index row: its text is made for the hits a page of results shows (`bodies`). */
  row: number;
  spaceId: string;
  pageId: string;
  pageTitle: string;
  pagePath: string;
  sectionId: string;
  sectionTitle: string;
}

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
  /** The words around the match in the text of these rows of `sections` for the same words. */
  bodies(db: Db, words: SearchWords, rows: readonly number[]): Promise<Map<number, string>>;
}

/** A job as the claim hands it over (the `jobs` row). */
export interface ClaimedJob {
  id: string;
  kind: string;
  resource: string;
  payload: string;
  attempts: number;
  created_at: string;
  /** Whether the job was running under an owner whose lease ran out (it is taken over, not started). */
  taken_over: number;
}

export interface JobClaim {
  /** The instance claiming. */
  owner: string;
  /** Now and the end of the lease the claimed jobs get, in milliseconds since the epoch (the machine's time). */
  now: number;
  leaseUntil: number;
  /** The server's time (its clock, which tests move), as the jobs' `started_at`. */
  startedAt: string;
  /** At most this many jobs. */
  limit: number;
  /** Resources whose jobs this instance runs already: none of theirs is claimed. */
  busy: readonly string[];
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
   * Claims jobs: the first queued job of each resource that no instance runs, in the queue's order, and the running
   * jobs whose lease ran out (`taken_over`). Each claimed job is marked running under `owner` until `leaseUntil`,
   * its attempts counted. Runs in a write transaction of its own (`Store.write`, read committed).
   */
  claimJobs(db: Db, claim: JobClaim): Promise<ClaimedJob[]>;
}

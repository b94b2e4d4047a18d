// Full-text search (SQLite FTS5) over the current content of spaces: one index row per section (the text under
// a heading) of every page. indexSpaceContent runs whenever a space's current revision changes, and indexes again
// the pages that changed.
import type { Db } from '../store/db.ts';
import { type PageEntry, type RevisionContent, uniquePages, walkPages } from './model.ts';

export interface Section {
  /** Anchor of the heading; empty for the text before the first heading. */
  id: string;
  title: string;
  body: string;
}

/** Anchor of a heading, as the app derives it: lower case, words joined with `-`. */
export function anchorOf(heading: string): string {
  return heading
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .trim()
    .replace(/\s+/g, '-');
}

/** Splits markdown into sections at its ATX headings (`#` to `######`), ignoring lines inside code fences. */
export function splitSections(pageTitle: string, markdown: string): Section[] {
  const sections: Section[] = [{ id: '', title: pageTitle, body: '' }];
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const fenceMatch = line.match(/^\s*(`{3,}|~{3,})/);
    if (fenceMatch) fence = fence === undefined ? fenceMatch[1]![0] : fenceMatch[1]![0] === fence ? undefined : fence;
    const heading = fence === undefined ? line.match(/^#{1,6}\s+(.*?)\s*#*\s*$/) : null;
    if (heading) sections.push({ id: anchorOf(heading[1]!), title: heading[1]!, body: '' });
    else sections.at(-1)!.body += `${line}\n`;
  }
  return sections
    .map((section) => ({ ...section, body: section.body.trim() }))
    .filter((section, index) => index > 0 || section.body !== '');
}

/**
 * Indexes `content`, the content of revision `revisionId`, as the space's, in place of what the index held for it.
 * Each row of the index is recorded with its space and page in content_search_spaces (migrations 120 and 190), which
 * is how a space's rows are found again: the index itself cannot look them up by space. When the index holds the
 * space's rows of a revision (spaces.search_revision_id) and `contentOf` gives that revision's content, only the pages
 * that differ from it are indexed again (a page's rows come from its title, text and path alone); otherwise the
 * space is indexed whole.
 */
export function indexSpaceContent(
  db: Db,
  spaceId: string,
  revisionId: string,
  content: RevisionContent,
  contentOf: (revisionId: string) => RevisionContent | undefined = () => undefined,
): void {
  const space = db.prepare('SELECT search_revision_id AS held FROM spaces WHERE id = ?').get(spaceId) as
    | { held: string | null }
    | undefined;
  const held = space?.held;
  const previous = held == null ? undefined : held === revisionId ? content : contentOf(held);
  const before = previous && uniquePages(previous);
  const after = uniquePages(content);
  if (before && after) {
    const stale: string[] = [];
    const fresh: PageEntry[] = [];
    for (const [id, entry] of after) {
      const old = before.get(id);
      const same = old && old.path === entry.path && old.page.title === entry.page.title && old.page.markdown === entry.page.markdown;
      if (same) continue;
      if (old) stale.push(id);
      fresh.push(entry);
    }
    for (const id of before.keys()) if (!after.has(id)) stale.push(id);
    removePagesFromIndex(db, spaceId, stale);
    addPagesToIndex(db, spaceId, fresh);
  } else {
    removeSpaceFromIndex(db, spaceId);
    addPagesToIndex(db, spaceId, walkPages(content.pages));
  }
  db.prepare('UPDATE spaces SET search_revision_id = ? WHERE id = ?').run(revisionId, spaceId);
}

/**
 * Indexes the pages of `content` as those of a space the index holds no rows of, whose row already names the
 * revision of `content` (`search_revision_id`): a space created with an id just made.
 */
export function indexNewSpace(db: Db, spaceId: string, content: RevisionContent): void {
  addPagesToIndex(db, spaceId, walkPages(content.pages));
}

/** Indexes the sections of these pages as the space's, beside what the index holds for it. */
function addPagesToIndex(db: Db, spaceId: string, pages: Iterable<PageEntry>): void {
  const insert = db.prepare(
    `INSERT INTO content_search (title, body, page_title, space_id, page_id, page_path, section_id)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const record = db.prepare('INSERT INTO content_search_spaces (search_rowid, space_id, page_id) VALUES (?, ?, ?)');
  for (const { page, path } of pages) {
    const sections = splitSections(page.title, page.markdown ?? '');
    // A page without text is still found by its title.
    if (sections.length === 0) sections.push({ id: '', title: page.title, body: '' });
    for (const section of sections) {
      const { lastInsertRowid } = insert.run(section.title, section.body, page.title, spaceId, page.id, path, section.id);
      record.run(lastInsertRowid, spaceId, page.id);
    }
  }
}

/** Removes the rows of these pages of the space from the index. */
function removePagesFromIndex(db: Db, spaceId: string, pageIds: string[]): void {
  if (pageIds.length === 0) return;
  const ids = JSON.stringify(pageIds);
  const pages = 'space_id = ? AND page_id IN (SELECT value FROM json_each(?))';
  db.prepare(`DELETE FROM content_search WHERE rowid IN (SELECT search_rowid FROM content_search_spaces WHERE ${pages})`).run(spaceId, ids);
  db.prepare(`DELETE FROM content_search_spaces WHERE ${pages}`).run(spaceId, ids);
}

/** Removes the space's rows from the index (found by content_search_spaces, then by rowid). */
export function removeSpaceFromIndex(db: Db, spaceId: string): void {
  db.prepare(
    'DELETE FROM content_search WHERE rowid IN (SELECT search_rowid FROM content_search_spaces WHERE space_id = ?)',
  ).run(spaceId);
  db.prepare('DELETE FROM content_search_spaces WHERE space_id = ?').run(spaceId);
  db.prepare('UPDATE spaces SET search_revision_id = NULL WHERE id = ?').run(spaceId);
}

/** FTS5 query of every word of `text` (each a prefix), quoted so that no user input is FTS5 syntax. */
export function ftsQuery(text: string): string | undefined {
  const words = text.match(/[\p{L}\p{N}_]+/gu) ?? [];
  if (words.length === 0) return undefined;
  return words.map((word) => `"${word}"*`).join(' ');
}

export interface SectionHit {
  /** The index row: its snippet is made for the hits a page of results shows (`sectionBodies`). */
  row: number;
  spaceId: string;
  pageId: string;
  pageTitle: string;
  pagePath: string;
  sectionId: string;
  sectionTitle: string;
  rank: number;
}

/** Where to search: one space, or every live space of an organization. */
export type SearchScope = { spaceId: string } | { organizationId: string };

const HIT_COLUMNS = `content_search.rowid AS row, content_search.space_id AS spaceId, content_search.page_id AS pageId,
  content_search.page_title AS pageTitle, content_search.page_path AS pagePath, content_search.section_id AS sectionId,
  content_search.title AS sectionTitle, content_search.rank`;

/**
 * The text shown for matching sections (index rows of `searchSections` for the same `text`): the words around the
 * match. Made for the sections a page of results shows only: FTS5's snippet() took 34 of the 41 ms of the query of
 * 2 000 sections (a common word in a space of 4 900 pages), where a page shows 20 pages of results.
 */
export function sectionBodies(db: Db, text: string, rows: readonly number[]): Map<number, string> {
  const query = ftsQuery(text);
  if (!query || rows.length === 0) return new Map();
  // `+rowid`: given to FTS5 as a constraint, the list became one search per row (2 000 rows: 270 ms instead of 64).
  const found = db
    .prepare<[string, string], { row: number; body: string }>(
      `SELECT rowid AS row, snippet(content_search, 1, '', '', '…', 32) AS body FROM content_search
       WHERE content_search MATCH ? AND +rowid IN (SELECT value FROM json_each(?))`,
    )
    .all(query, JSON.stringify(rows));
  snippets += found.length;
  return new Map(found.map((hit) => [hit.row, hit.body]));
}

let snippets = 0;
/** How many sections' text sectionBodies has made in this process (for tests). */
export const snippetsMade = () => snippets;

/**
 * Matching sections in the scope, best first (at most `max`), without their text (`sectionBodies`). An organization's
 * spaces are joined to each match (CROSS JOIN keeps SQLite to that order): not listed as ids, which cost a bound
 * parameter each, made a new SQL text for each number of spaces, and failed beyond SQLite's 32 766 parameters (a 500
 * for a large organization).
 */
export function searchSections(db: Db, scope: SearchScope, text: string, max = 2000): SectionHit[] {
  const query = ftsQuery(text);
  if (!query) return [];
  const order = 'ORDER BY content_search.rank, content_search.space_id, content_search.page_id, content_search.section_id LIMIT ?';
  if ('spaceId' in scope) {
    return db
      .prepare(`SELECT ${HIT_COLUMNS} FROM content_search WHERE content_search MATCH ? AND content_search.space_id = ? ${order}`)
      .all(query, scope.spaceId, max) as SectionHit[];
  }
  return db
    .prepare(
      `SELECT ${HIT_COLUMNS} FROM content_search CROSS JOIN spaces ON spaces.id = content_search.space_id
       WHERE content_search MATCH ? AND spaces.organization_id = ? AND spaces.deleted_at IS NULL ${order}`,
    )
    .all(query, scope.organizationId, max) as SectionHit[];
}

// Full-text search over the current content of spaces: one index row per section (the text under a heading) of every
// page (store/search.ts; each engine keeps its own index). indexSpaceContent runs whenever a space's current
// revision changes, and indexes again the pages that changed.
import type { Db } from '../store/db.ts';
import * as search from '../store/search.ts';
import { type PageEntry, type RevisionContent, uniquePages, walkPages } from './model.ts';

export type { SearchScope, SectionHit } from '../store/search.ts';

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
 * When the index holds the space's rows of a revision (spaces.search_revision_id) and `contentOf` gives that
 * revision's content, only the pages that differ from it are indexed again (a page's rows come from its title, text
 * and path alone); otherwise the space is indexed whole.
 */
export async function indexSpaceContent(
  db: Db,
  spaceId: string,
  revisionId: string,
  content: RevisionContent,
  contentOf: (revisionId: string) => Promise<RevisionContent | undefined> = async () => undefined,
): Promise<void> {
  const held = await search.indexedRevision(db, spaceId);
  const previous = held == null ? undefined : held === revisionId ? content : await contentOf(held);
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
    await search.removePages(db, spaceId, stale);
    await addPagesToIndex(db, spaceId, fresh);
  } else {
    await search.removeSpaces(db, [spaceId]);
    await addPagesToIndex(db, spaceId, walkPages(content.pages));
  }
  await search.setIndexedRevision(db, spaceId, revisionId);
}

/**
 * Indexes the pages of `content` as those of a space the index holds no rows of, whose row already names the
 * revision of `content` (`search_revision_id`): a space created with an id just made.
 */
export function indexNewSpace(db: Db, spaceId: string, content: RevisionContent): Promise<void> {
  return addPagesToIndex(db, spaceId, walkPages(content.pages));
}

/** Indexes the sections of these pages as the space's, beside what the index holds for it. */
function addPagesToIndex(db: Db, spaceId: string, pages: Iterable<PageEntry>): Promise<void> {
  const sections: search.SearchSection[] = [];
  for (const { page, path } of pages) {
    const found = splitSections(page.title, page.markdown ?? '');
    // A page without text is still found by its title.
    if (found.length === 0) found.push({ id: '', title: page.title, body: '' });
    for (const section of found) {
      sections.push({ spaceId, pageId: page.id, pagePath: path, pageTitle: page.title, sectionId: section.id, title: section.title, body: section.body });
    }
  }
  return search.addSections(db, sections);
}

/** Removes the space's rows from the index. */
export const removeSpaceFromIndex = (db: Db, spaceId: string): Promise<void> => removeSpacesFromIndex(db, [spaceId]);

/** Removes the rows of these spaces from the index: a few statements for any number of spaces. */
export async function removeSpacesFromIndex(db: Db, spaceIds: readonly string[]): Promise<void> {
  if (spaceIds.length === 0) return;
  await search.removeSpaces(db, spaceIds);
  await search.clearIndexedRevisions(db, spaceIds);
}

/** The words of a search: each run of letters, digits and underscores of `text` (none: nothing to search for). */
export function searchWords(text: string): string[] {
  return text.match(/[\p{L}\p{N}_]+/gu) ?? [];
}

/**
 * The text shown for matching sections (index rows of `searchSections` for the same `text`): the words around the
 * match (`snippet`), made for the sections a page of results shows only.
 */
export async function sectionBodies(db: Db, text: string, rows: readonly number[]): Promise<Map<number, string>> {
  const words = searchWords(text);
  if (words.length === 0 || rows.length === 0) return new Map();
  const terms = words.flatMap((word) => foldedWords(word));
  const found = new Map<number, string>();
  for (const [row, body] of await search.bodies(db, rows)) found.set(row, snippet(body, terms));
  snippets += found.size;
  return found;
}

/** How many words a section's text shows at most. */
export const SNIPPET_WORDS = 32;

const WORD = /[\p{L}\p{N}]+/gu;

/** A word as the index matches it: lower case, without diacritics (both engines' indexes fold text so). */
const fold = (word: string) => word.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase();

/** The words of a search term as the index holds them. */
const foldedWords = (text: string) => fold(text).match(WORD) ?? [];

/**
 * The text shown of a matching section: the whole text when it holds at most 32 words, otherwise 32 words from a few
 * words before the first one that starts with a search term, `…` where it is cut. Chosen here rather than by the
 * engines (FTS5's snippet(), PostgreSQL's ts_headline()), which choose and trim differently: both engines show the
 * same text.
 */
export function snippet(body: string, terms: readonly string[]): string {
  const words = [...body.matchAll(WORD)];
  if (words.length <= SNIPPET_WORDS) return body.trim();
  const first = words.findIndex((word) => {
    const folded = fold(word[0]);
    return terms.some((term) => folded.startsWith(term));
  });
  const start = Math.max(0, Math.min(first < 0 ? 0 : first - 4, words.length - SNIPPET_WORDS));
  const end = start + SNIPPET_WORDS;
  const from = start === 0 ? 0 : words[start]!.index!;
  const last = words[end - 1]!;
  const to = end === words.length ? body.length : last.index! + last[0].length;
  return `${start > 0 ? '…' : ''}${body.slice(from, to).trim()}${end < words.length ? '…' : ''}`;
}

let snippets = 0;
/** How many sections' text sectionBodies has made in this process (for tests). */
export const snippetsMade = () => snippets;

/** Matching sections in the scope, best first (at most `max`), without their text (`sectionBodies`). */
export async function searchSections(db: Db, scope: search.SearchScope, text: string, max = 2000): Promise<search.SectionHit[]> {
  const words = searchWords(text);
  if (words.length === 0) return [];
  return search.sections(db, scope, words, max);
}

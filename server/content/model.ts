// How content is stored: a revision is an immutable snapshot of a page tree, files, reusable contents and
// variables, kept as JSON in the `revisions` table. Every way content enters (template, import, merge, update,
// Git import, translation) builds a new RevisionContent and stores it with createRevision. A revision read with
// getRevision is parsed once and shared by later reads, frozen: build changed content anew (spread, map), never in
// place (content/revisions.ts).
import { badRequest } from '../common/errors.ts';
import type { Model } from '../common/contract.ts';

export type PageType = Model<'PageType'>;
export type RevisionType = Model<'RevisionType'>;

/**
 * Per `PageType`, what a page's body is: its own Markdown (`document`), none (`group`, a heading for its
 * children), its `href` (`link`), or Markdown computed when it is read (`computed`). Code that treats pages
 * differently by type asks `pageBody`, so a new page type is placed here once, checked by tsc.
 */
export const PAGE_BODIES = {
  document: 'markdown',
  group: 'none',
  link: 'href',
  computed: 'computed',
} as const satisfies Record<PageType, 'markdown' | 'none' | 'href' | 'computed'>;

export const pageBody = (page: { type: PageType }) => PAGE_BODIES[page.type];

export interface GitReference {
  oid: string;
  path: string;
}

export interface StoredPage {
  id: string;
  title: string;
  slug: string;
  type: PageType;
  description?: string;
  emoji?: string;
  icon?: string;
  /** Content of a document page, as markdown: the one stored representation, from which Block trees derive. */
  markdown?: string;
  /** Target address of a link page. */
  href?: string;
  createdAt: string;
  updatedAt: string;
  hidden?: boolean;
  noIndex?: boolean;
  noRobotsIndex?: boolean;
  layout?: Record<string, unknown>;
  cover?: Record<string, unknown>;
  variables?: Record<string, string>;
  computed?: { type: string; dependencies: Record<string, unknown>; props: Record<string, unknown> };
  computedSeed?: string;
  git?: GitReference;
  pages: StoredPage[];
}

export interface StoredFile {
  id: string;
  name: string;
  contentType: string;
  size: number;
  dimensions?: { width: number; height: number };
  git?: GitReference;
}

export interface StoredReusableContent {
  id: string;
  title: string;
  git?: GitReference;
}

export interface RevisionGit {
  oid: string;
  message: string;
  createdByService: boolean;
  url?: string;
  ref?: string;
}

export interface RevisionContent {
  pages: StoredPage[];
  files: StoredFile[];
  reusableContents: StoredReusableContent[];
  variables: Record<string, string>;
  git?: RevisionGit;
}

export interface RevisionRecord {
  id: string;
  spaceId: string;
  changeRequestId?: string;
  parents: string[];
  type: RevisionType;
  createdAt: string;
  content: RevisionContent;
}

export const emptyContent = (): RevisionContent => ({ pages: [], files: [], reusableContents: [], variables: {} });

/** Every page of a tree, depth first, with its path (slugs of its ancestors and itself joined by `/`). */
export function* walkPages(
  pages: StoredPage[],
  parentPath = '',
): Generator<{ page: StoredPage; path: string; parentPath: string }> {
  for (const page of pages) {
    const path = parentPath ? `${parentPath}/${page.slug}` : page.slug;
    yield { page, path, parentPath };
    yield* walkPages(page.pages, path);
  }
}

/**
 * Most pages (at every level) and files of a revision. A revision is read whole (`GET …/content`, `…/content/pages`),
 * and imports and templates add to it, so each is bounded; Git imports read at most 5000 files anyway.
 */
export const REVISION_LIMITS = { pages: 5000, files: 5000 } as const;

/** Throws a 400 naming `field` when `content` (new content about to be stored) passes REVISION_LIMITS. */
export function requireContentRoom(content: RevisionContent, field: string): void {
  let pages = 0;
  for (const _ of walkPages(content.pages)) pages++;
  if (pages > REVISION_LIMITS.pages) {
    throw badRequest(`${field}: the content would hold ${pages} pages; a space holds at most ${REVISION_LIMITS.pages}`);
  }
  if (content.files.length > REVISION_LIMITS.files) {
    throw badRequest(`${field}: the content would hold ${content.files.length} files; a space holds at most ${REVISION_LIMITS.files}`);
  }
}

/** A page of a tree, where `walkPages` finds it. */
export type PageEntry = Readonly<{ page: StoredPage; path: string; parentPath: string }>;

/**
 * The pages and files of frozen contents (revisions', which never change once written: see `frozen`) by id, made on
 * the first lookup into a content and kept as long as that content is. A list of 50 comments looks up 50 pages, each
 * of which was a walk through the whole tree, so a page of comments cost more the larger the space.
 */
const pagesById = new WeakMap<object, ReadonlyMap<string, PageEntry>>();
const filesById = new WeakMap<object, ReadonlyMap<string, StoredFile>>();

/**
 * The first of `items` whose id is `id`: from the index of `indexes` made the first time (kept as long as the frozen
 * `key` is), or by going through `items` when `key` is not frozen (a content being edited).
 */
function firstById<T>(
  indexes: WeakMap<object, ReadonlyMap<string, T>>,
  key: object,
  items: () => Iterable<T>,
  idOf: (item: T) => string,
  id: string,
): T | undefined {
  if (!Object.isFrozen(key)) {
    for (const item of items()) if (idOf(item) === id) return item;
    return undefined;
  }
  let byId = indexes.get(key);
  if (!byId) {
    const entries = new Map<string, T>();
    for (const item of items()) {
      const itemId = idOf(item);
      // Shared by every later lookup, so frozen (the content's own objects already are).
      if (!entries.has(itemId)) entries.set(itemId, Object.freeze(item));
    }
    indexes.set(key, (byId = entries));
  }
  return byId.get(id);
}

/** The first page with this id, at any level, with its path. */
export function findPage(content: RevisionContent, pageId: string): PageEntry | undefined {
  return firstById(pagesById, content.pages, () => walkPages(content.pages), (entry) => entry.page.id, pageId);
}

/** Every page of a content by id, with its path; undefined when an id repeats (what is said of one page is ambiguous). */
export function uniquePages(content: RevisionContent): Map<string, PageEntry> | undefined {
  const pages = new Map<string, PageEntry>();
  for (const entry of walkPages(content.pages)) {
    if (pages.has(entry.page.id)) return undefined;
    pages.set(entry.page.id, entry);
  }
  return pages;
}

/** The first file with this id. */
export function findFile(content: RevisionContent, fileId: string): StoredFile | undefined {
  return firstById(filesById, content.files, () => content.files, (file) => file.id, fileId);
}

// The link index: every link and image of every page of a revision, resolved against that revision and classified (a
// page, a file, external, in-app or broken), indexed once per revision into `content_links`, from which space links,
// page links and backlinks are read (server/docs/behaviour-content-change-requests-comments.md, "How markdown refers to
// content" and "Links").
import { inWrite, type Scope } from '../context/context.ts';
import type { Model } from '../common/contract.ts';
import * as links from '../store/links.ts';
import { type LinkRelation, markdownLinks } from './markdown.ts';
import { frozen } from '../common/deep-freeze.ts';
import { pageBody, type RevisionContent, type RevisionRecord, type StoredPage, uniquePages, walkPages } from './model.ts';
import { getRevision, writeRevisionRow } from './revisions.ts';

export type LinkStatus = Model<'LinkStatus'>;

/** Per `LinkStatus`: whether the link is counted as broken. */
export const LINK_STATES = {
  ok: { broken: false },
  broken: { broken: true },
  'in-app': { broken: false },
} satisfies Record<LinkStatus, { broken: boolean }>;
export type LinkTargetKind = 'page' | 'file' | 'url';

export interface LinkTarget {
  kind: LinkTargetKind;
  /** Id of the page or file, when it exists in the revision. */
  id?: string;
  /** The absolute address of an external or in-app link; the address as written for a broken one. */
  url?: string;
}

export interface IndexedLink {
  pageId: string;
  position: number;
  href: string;
  relation: LinkRelation;
  status: LinkStatus;
  target: LinkTarget;
}

/** One distinct link of some content: a target, how it is used, and the pages it appears in (in order). */
export interface LinkGroup {
  key: string;
  status: LinkStatus;
  relation: LinkRelation;
  target: LinkTarget;
  pageIds: string[];
}

/** Paths and names to resolve links against. */
interface Resolver {
  pages: Map<string, string>;
  files: Map<string, string>;
  appUrl: URL;
}

function resolverOf(content: RevisionContent, appUrl: string): Resolver {
  const pages = new Map<string, string>();
  for (const { page, path } of walkPages(content.pages)) if (!pages.has(path)) pages.set(path, page.id);
  const files = new Map<string, string>();
  for (const file of content.files) if (!files.has(file.name)) files.set(file.name, file.id);
  return { pages, files, appUrl: new URL(appUrl) };
}

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

function isInApp(url: URL, app: URL): boolean {
  const base = app.pathname.replace(/\/+$/, '');
  return url.origin === app.origin && (url.pathname === base || url.pathname.startsWith(`${base}/`));
}

/** The path a relative address names, from the page at `pagePath`; undefined for a bare anchor. */
export function resolvePath(href: string, pagePath: string): string | undefined {
  const path = href.replace(/[?#].*$/s, '');
  if (path === '') return undefined;
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // a malformed escape is taken literally
  }
  const segments = decoded.startsWith('/') ? [] : pagePath.split('/').slice(0, -1);
  for (const segment of decoded.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  return segments.join('/');
}

function classify(
  href: string,
  relation: LinkRelation,
  pagePath: string,
  resolver: Resolver,
): { status: LinkStatus; target: LinkTarget } | undefined {
  const address = href.trim();
  if (SCHEME.test(address) || address.startsWith('//')) {
    let url: URL;
    try {
      url = new URL(address, resolver.appUrl);
    } catch {
      return { status: 'ok', target: { kind: 'url', url: address } };
    }
    return { status: isInApp(url, resolver.appUrl) ? 'in-app' : 'ok', target: { kind: 'url', url: address } };
  }
  const path = resolvePath(address, pagePath);
  if (path === undefined) return undefined;
  const pageId = resolver.pages.get(path.replace(/\.md$/i, ''));
  if (pageId !== undefined && relation === 'reference') return { status: 'ok', target: { kind: 'page', id: pageId } };
  const name = path.split('/').at(-1) ?? '';
  const fileId = resolver.files.get(name);
  if (fileId !== undefined) return { status: 'ok', target: { kind: 'file', id: fileId } };
  if (pageId !== undefined) return { status: 'ok', target: { kind: 'page', id: pageId } };
  const looksLikeFile = relation === 'embed' || /\.(?!md$)[a-z0-9]+$/i.test(name);
  return { status: 'broken', target: { kind: looksLikeFile ? 'file' : 'page', url: address } };
}

/** The links a page's markdown holds, as `markdownLinks` gives them, when already known (undefined: parse it). */
export type KnownLinks = (page: StoredPage) => readonly { href: string; relation: LinkRelation }[] | undefined;

const counts = { parsed: 0 };
/** Pages whose markdown extractLinks has parsed so far in this process (for tests: see `linksOfIndexed`). */
export const pagesParsedForLinks = () => counts.parsed;

/** The links of a revision's pages, resolved and classified (not stored); `known` saves parsing a page's markdown. */
export function extractLinks(content: RevisionContent, appUrl: string, known: KnownLinks = () => undefined): IndexedLink[] {
  const resolver = resolverOf(content, appUrl);
  const links: IndexedLink[] = [];
  for (const { page, path } of walkPages(content.pages)) {
    const found =
      pageBody(page) === 'href' && page.href
        ? [{ href: page.href, relation: 'reference' as const }]
        : (known(page) ?? (counts.parsed++, markdownLinks(page.markdown ?? '')));
    let position = 0;
    for (const { href, relation } of found) {
      const classified = classify(href, relation, path, resolver);
      if (classified) links.push({ pageId: page.id, position: position++, href, relation, ...classified });
    }
  }
  return links;
}

/** How far back through a revision's parents the link index looks for an indexed ancestor to take links from. */
export const LINK_ANCESTRY_DEPTH = 256;

/**
 * The links of the pages a revision being indexed shares with the first of `sources` whose links are indexed (the
 * revision itself when it is indexed again for another app address), or else with its nearest indexed ancestor
 * (within LINK_ANCESTRY_DEPTH generations: links are indexed when first asked for, so a space written several times
 * between two reads has ancestors never indexed): a page of the same id and the same markdown holds the same links
 * in the same order (the index keeps every link markdownLinks finds but bare anchors, whatever the revision), so
 * they are read from that revision's rows rather than parsed again; where they point is resolved against the
 * revision indexed. Parsing is what indexing costs: the first read of the links after any write of a large space
 * parsed every page again, blocking the server meanwhile (docs/performance.md, "Work kept by triggers and written
 * once").
 */
async function linksOfIndexed(ctx: Scope, revision: RevisionRecord, indexed: boolean): Promise<KnownLinks> {
  const { db } = ctx;
  const sources = indexed ? [revision.id] : await links.indexedAncestors(db, revision.parents, LINK_ANCESTRY_DEPTH);
  for (const source of sources) {
    const sourceContent = (await getRevision(db, source, revision.spaceId))?.content;
    const sourcePages = sourceContent && uniquePages(sourceContent);
    if (!sourcePages) continue;
    const byPage = new Map<string, { href: string; relation: LinkRelation }[]>();
    for (const row of await links.written(db, source)) {
      let found = byPage.get(row.pageId);
      if (!found) byPage.set(row.pageId, (found = []));
      found.push({ href: row.href, relation: row.relation as LinkRelation });
    }
    return (page) => {
      const before = sourcePages.get(page.id)?.page;
      const same = before && !(pageBody(before) === 'href' && before.href) && (before.markdown ?? '') === (page.markdown ?? '');
      return same ? (byPage.get(page.id) ?? []) : undefined;
    };
  }
  return () => undefined;
}

/**
 * Indexes the links of a revision unless they are already indexed (for the current app address). Inside a write,
 * in it; on a read (a GET, the first to ask for the links), in a write of its own, which checks again whether another
 * request or instance indexed them meanwhile.
 */
export async function ensureLinkIndex(ctx: Scope, revision: RevisionRecord): Promise<void> {
  const appUrl = ctx.config.appUrl;
  if ((await links.indexedFor(ctx.db, revision.id)) === appUrl) return;
  if (ctx.db.writing) return indexLinks(ctx, revision);
  await inWrite(ctx, async (scope) => {
    if ((await links.indexedFor(scope.db, revision.id)) !== appUrl) await indexLinks(scope, revision);
  });
}

async function indexLinks(ctx: Scope, revision: RevisionRecord): Promise<void> {
  const { db } = ctx;
  const appUrl = ctx.config.appUrl;
  const indexed = (await links.indexedFor(db, revision.id)) !== undefined;
  // Read before the revision's rows are replaced: one indexed again for another app address reads its own.
  const known = await linksOfIndexed(ctx, revision, indexed);
  // The index refers to the revision's row: an unwritten first revision gets one now.
  await writeRevisionRow(db, revision);
  const found = extractLinks(revision.content, appUrl, known);
  await links.replace(
    db,
    { revisionId: revision.id, appUrl, indexedAt: ctx.now(), broken: brokenGroupCount(groupLinks(found)) },
    found.map((link) => ({
      revisionId: revision.id,
      pageId: link.pageId,
      position: link.position,
      href: link.href,
      relation: link.relation,
      status: link.status,
      targetKind: link.target.kind,
      targetId: link.target.id ?? null,
      targetUrl: link.target.url ?? null,
    })),
  );
}

/** The indexed links of a revision (of one page, when given), in page order. */
export async function revisionLinks(ctx: Scope, revision: RevisionRecord, pageId?: string): Promise<IndexedLink[]> {
  await ensureLinkIndex(ctx, revision);
  const rows = await links.ofRevision(ctx.db, revision.id, pageId);
  return rows.map((row) => ({
    pageId: row.pageId,
    position: row.position,
    href: row.href,
    relation: row.relation as LinkRelation,
    status: row.status as LinkStatus,
    target: {
      kind: row.targetKind as LinkTargetKind,
      ...(row.targetId !== null ? { id: row.targetId } : {}),
      ...(row.targetUrl !== null ? { url: row.targetUrl } : {}),
    },
  }));
}

/** Distinct links: one per target, relation and status, with the pages they appear in. */
export function groupLinks(found: IndexedLink[]): LinkGroup[] {
  const groups = new Map<string, LinkGroup>();
  for (const link of found) {
    const key = [link.status, link.relation, link.target.kind, link.target.id ?? link.target.url].join('\u0000');
    const group = groups.get(key);
    if (!group) groups.set(key, { key, status: link.status, relation: link.relation, target: link.target, pageIds: [link.pageId] });
    else if (!group.pageIds.includes(link.pageId)) group.pageIds.push(link.pageId);
  }
  return [...groups.values()];
}

/**
 * Whole revisions' distinct links, per app address: the links of a revision never change (nor its content, which
 * keys them), so they are grouped once, the first time they are asked for, and kept as long as the content is
 * (revisions.ts keeps the most recently read). A page of a space's links showed 50 groups but read and grouped all the
 * revision's links on each request, a cost that grew with the space rather than with the page. One page's links are read
 * from the index as they are asked for.
 */
const revisionGroups = new WeakMap<RevisionContent, { appUrl: string; groups: readonly LinkGroup[] }>();

/** The distinct links of a revision (of one page of it, when given), in the order `groupLinks` gives. */
export async function linkGroups(ctx: Scope, revision: RevisionRecord, pageId?: string): Promise<readonly LinkGroup[]> {
  if (pageId !== undefined || !Object.isFrozen(revision.content)) return groupLinks(await revisionLinks(ctx, revision, pageId));
  const kept = revisionGroups.get(revision.content);
  if (kept?.appUrl === ctx.config.appUrl) return kept.groups;
  const groups = frozen(groupLinks(await revisionLinks(ctx, revision)));
  revisionGroups.set(revision.content, { appUrl: ctx.config.appUrl, groups });
  return groups;
}

/** Ids of the pages with a working link to a page or file of the revision, in page order. */
export async function backlinkPageIds(ctx: Scope, revision: RevisionRecord, kind: 'page' | 'file', id: string): Promise<string[]> {
  await ensureLinkIndex(ctx, revision);
  return links.backlinks(ctx.db, revision.id, kind, id);
}

/** The statuses counted as broken. */
const BROKEN_STATUSES = (Object.keys(LINK_STATES) as LinkStatus[]).filter((status) => LINK_STATES[status].broken);

/**
 * The distinct broken links (in one page, when given) of the revisions of a space's open and draft change requests,
 * summed over the change requests: what brokenLinkCount gives for each, counted in SQL from the link index (the
 * revisions not indexed yet are indexed first). A whole revision's count is kept with its index
 * (`content_link_index.broken`, migration 200), so a space's links read one row a change request, whatever the size
 * of their revisions; one page's are counted from that page's links.
 */
export async function brokenLinksInChangeRequests(ctx: Scope, spaceId: string, pageId?: string): Promise<number> {
  for (const id of await links.unindexedChangeRequestRevisions(ctx.db, spaceId, ctx.config.appUrl)) {
    const revision = await getRevision(ctx.db, id, spaceId);
    if (!revision) throw new Error(`revision ${id} does not exist`);
    await ensureLinkIndex(ctx, revision);
  }
  if (pageId === undefined) return links.brokenInChangeRequests(ctx.db, spaceId);
  return links.brokenInChangeRequestPage(ctx.db, spaceId, pageId, BROKEN_STATUSES);
}

/** Number of distinct broken links among link groups (what the index keeps per revision, and link lists show). */
export function brokenGroupCount(groups: readonly LinkGroup[]): number {
  return groups.filter((group) => LINK_STATES[group.status].broken).length;
}

/** Number of distinct broken links in a revision (in one page of it, when given). */
export async function brokenLinkCount(ctx: Scope, revision: RevisionRecord, pageId?: string): Promise<number> {
  return brokenGroupCount(await linkGroups(ctx, revision, pageId));
}

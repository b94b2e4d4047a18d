// How the API shows content: revisions, pages, files, references and links, for the space's main content or a
// change request's.
import type { AppContext } from '../context/context.ts';
import { RecentlyUsed } from '../common/recently-used.ts';
import { SPACE_VISIBILITIES, type SpaceRow } from './spaces.ts';
import { immutableBody, immutableBodySize } from '../common/response-bodies.ts';
import type { Model } from '../common/contract.ts';
import { readsBeyondRevision } from '../content/computed.ts';
import { fileDownloadUrl } from '../content/files.ts';
import type { LinkGroup, LinkTarget } from '../content/links.ts';
import { type RevisionRecord, type StoredFile, type StoredPage } from '../content/model.ts';

/** The content being read: a revision of a space, as its main content or as a change request's. */
export interface ContentScope {
  space: SpaceRow;
  revision: RevisionRecord;
  /** App address of the content: `/s/{spaceId}`, or `/s/{spaceId}/~/changes/{number}` for a change request. */
  appPath: string;
  /** Whether the revision is the space's main content (not a change request's). */
  main: boolean;
}

export interface ReadOptions {
  /** Include mutable Git metadata (`git`). */
  metadata: boolean;
}

type Page = Model<'Page'>;

/** A page as lists show it: its fields and children, without its content. */
export function presentPage(
  ctx: AppContext,
  scope: ContentScope,
  page: StoredPage,
  path: string,
  options: ReadOptions,
): Page {
  return {
    id: page.id,
    title: page.title,
    slug: page.slug,
    path,
    ...(page.description !== undefined ? { description: page.description } : {}),
    ...(page.emoji !== undefined ? { emoji: page.emoji } : {}),
    ...(page.icon !== undefined ? { icon: page.icon } : {}),
    createdAt: page.createdAt,
    updatedAt: page.updatedAt,
    type: page.type,
    urls: { app: ctx.urls.app(`${scope.appPath}/${path}`) },
    pages: presentPages(ctx, scope, page.pages, path, options),
    ...(options.metadata && page.git ? { git: page.git } : {}),
    ...(page.layout ? { layout: page.layout as Page['layout'] } : {}),
    ...(page.cover ? { cover: page.cover as Page['cover'] } : {}),
    ...(page.variables ? { variables: page.variables } : {}),
    ...(page.hidden !== undefined ? { hidden: page.hidden } : {}),
    ...(page.noIndex !== undefined ? { noIndex: page.noIndex } : {}),
    ...(page.noRobotsIndex !== undefined ? { noRobotsIndex: page.noRobotsIndex } : {}),
    ...(page.computed ? { computed: page.computed as Page['computed'] } : {}),
    ...(page.computedSeed !== undefined ? { computedSeed: page.computedSeed } : {}),
  };
}

export function presentPages(
  ctx: AppContext,
  scope: ContentScope,
  pages: StoredPage[],
  parentPath: string,
  options: ReadOptions,
): Page[] {
  return pages.map((page) => presentPage(ctx, scope, page, parentPath ? `${parentPath}/${page.slug}` : page.slug, options));
}

export function presentFile(ctx: AppContext, scope: ContentScope, file: StoredFile, options: ReadOptions): Model<'File'> {
  return {
    id: file.id,
    name: file.name,
    contentType: file.contentType,
    downloadURL: fileDownloadUrl(ctx, scope.space.id, file.id),
    size: file.size,
    ...(file.dimensions ? { dimensions: file.dimensions } : {}),
    ...(options.metadata && file.git ? { git: file.git } : {}),
  };
}

/**
 * What a whole revision reads as (its content, its page tree) depends on the revision, which never changes once
 * written, and on a few facts of the reading (the key below); so it is made once, frozen, its JSON with it, and the
 * response check accepts it again without checking it again (see http/immutable-bodies.ts). The most recently read
 * are kept, per app (its addresses and file secret), up to `presentedCacheBytes` of JSON in all, a quarter of
 * CONTENT_CACHE_MB (the objects take more heap again: server/docs/running-and-configuration.md); an answer above half
 * of it is made for its request alone, so the bound must leave room for the content of the largest space a revision
 * holds. Serialising and checking the same answer again was a large share of what reading a space's content cost;
 * kept, it costs about what reading a space does (docs/performance.md, "Immutable answers").
 */
export const presentedCacheBytes = (ctx: AppContext) => (ctx.config.contentCacheMb * 1024 * 1024) / 4;
/** Per app, by its addresses (`ctx.urls`, shared by every scope of the app). */
const presented = new WeakMap<object, RecentlyUsed<string, object>>();

async function presentedOnce<T extends object>(
  ctx: AppContext,
  scope: ContentScope,
  what: string,
  options: ReadOptions,
  make: () => T | Promise<T>,
): Promise<T> {
  let kept = presented.get(ctx.urls);
  if (!kept) presented.set(ctx.urls, (kept = new RecentlyUsed(presentedCacheBytes(ctx), presentedCacheBytes(ctx) / 2)));
  // Every fact of the scope the answers below read: the revision (its id, parents, type and date come with its
  // row), the space, where its content is shown in the app, whether it is public there, and the options.
  const key = [what, scope.revision.id, scope.space.id, scope.appPath, isPublicContent(scope), options.metadata].join(' ');
  let body = kept.get(key) as T | undefined;
  if (body === undefined) {
    body = immutableBody(await make());
    kept.set(key, body, immutableBodySize(body));
  }
  return body;
}

/**
 * A read of one page of a revision (`make` gives its answer), made once per reading like the content above: the
 * page, its body in a format, its computed content, its variables evaluated all come from the revision, so the same
 * request gives the same answer until the space has a new revision. A computed page that shows more than its
 * revision (`readsBeyondRevision`) is made on every read.
 */
export function presentPageRead<T extends object>(
  ctx: AppContext,
  scope: ContentScope,
  page: StoredPage,
  read: { format: string; computes: boolean; evaluates: boolean },
  options: ReadOptions,
  make: () => Promise<T>,
): Promise<T> {
  if (read.computes && readsBeyondRevision(page)) return make();
  return presentedOnce(ctx, scope, `page ${read.format} ${read.computes} ${read.evaluates} ${JSON.stringify(page.id)}`, options, make);
}

/** Whether the content read is the space's public content (its address is shown). */
const isPublicContent = (scope: ContentScope) => scope.main && SPACE_VISIBILITIES[scope.space.visibility].open;

/** The pages of a revision, as its page list shows them (made once per reading, see `presentedOnce`). */
export const presentPageList = (ctx: AppContext, scope: ContentScope, options: ReadOptions): Promise<{ pages: Page[] }> =>
  presentedOnce(ctx, scope, 'pages', options, () => ({
    pages: presentPages(ctx, scope, scope.revision.content.pages, '', options),
  }));

/** A revision with its page tree, files and reusable contents (made once per reading, see `presentedOnce`). */
export const presentRevision = (ctx: AppContext, scope: ContentScope, options: ReadOptions): Promise<Model<'Revision'>> =>
  presentedOnce(ctx, scope, 'revision', options, () => presentRevisionNow(ctx, scope, options));

function presentRevisionNow(ctx: AppContext, scope: ContentScope, options: ReadOptions): Model<'Revision'> {
  const { revision, space } = scope;
  const { content } = revision;
  const isPublic = isPublicContent(scope);
  return {
    object: 'revision',
    id: revision.id,
    parents: revision.parents,
    pages: presentPages(ctx, scope, content.pages, '', options),
    files: content.files.map((file) => presentFile(ctx, scope, file, options)),
    reusableContents: content.reusableContents.map((reusable) => ({
      id: reusable.id,
      title: reusable.title,
      ...(options.metadata && reusable.git ? { git: reusable.git } : {}),
    })),
    variables: content.variables,
    createdAt: revision.createdAt,
    ...(options.metadata && content.git ? { git: content.git } : {}),
    urls: {
      app: ctx.urls.app(`/s/${space.id}/~/revisions/${revision.id}`),
      ...(isPublic ? { public: ctx.urls.app(`/public/s/${space.id}`) } : {}),
    },
    type: revision.type,
  };
}

/** A reference to a page or file of the content, read in its revision. */
export function contentReference(
  scope: ContentScope,
  target: { kind: 'page' | 'file'; id?: string; url?: string },
): Model<'ContentReference'> {
  return {
    kind: target.kind,
    organization: scope.space.organizationId,
    space: scope.space.id,
    versionContext: { type: 'revision', revision: scope.revision.id },
    ...(target.id !== undefined ? { [target.kind]: target.id } : {}),
    // A broken reference names no page or file: it carries the address as written.
    ...(target.id === undefined && target.url !== undefined ? { url: target.url } : {}),
  };
}

function targetReference(scope: ContentScope, target: LinkTarget): Model<'ContentReference'> {
  if (target.kind === 'url') return { kind: 'url', url: target.url! };
  return contentReference(scope, { ...target, kind: target.kind });
}

export function presentLink(scope: ContentScope, group: LinkGroup): Model<'ContentLink'> {
  return {
    status: group.status,
    relation: group.relation,
    targetReference: targetReference(scope, group.target),
    locationReferences: group.pageIds.map((id) => contentReference(scope, { kind: 'page', id })),
  };
}

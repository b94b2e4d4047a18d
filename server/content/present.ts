// How the API shows content: revisions, pages, files, references and links, for the space's main content or a
// change request's.
import type { AppContext } from '../context.ts';
import { SPACE_VISIBILITIES, type SpaceRow } from '../domain/spaces.ts';
import type { Model } from '../http/types.ts';
import { fileDownloadUrl } from './files.ts';
import type { LinkGroup, LinkTarget } from './links.ts';
import { type RevisionRecord, type StoredFile, type StoredPage } from './model.ts';

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

export function presentRevision(ctx: AppContext, scope: ContentScope, options: ReadOptions): Model<'Revision'> {
  const { revision, space } = scope;
  const { content } = revision;
  const isPublic = scope.main && SPACE_VISIBILITIES[space.visibility].open;
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
    organization: scope.space.organization_id,
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

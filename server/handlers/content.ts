// Content of a space (its current revision) and of a change request (the change request's revision): pages,
// files, links, search, website import and templates. Every write makes a new revision.
import type { Express, Request, Response } from 'express';
import type { Caller } from '../auth/caller.ts';
import { type AppContext, inRead, inWrite, type Scope } from '../context/context.ts';
import { computePageMarkdown } from '../content/computed.ts';
import { BODY_FORMATS } from '../content/document.ts';
import { readFileContent, verifyFileSignature } from '../content/files.ts';
import { fetchWebsite, importFetchedWebsite, type ImportResult } from '../content/import.ts';
import { backlinkPageIds, brokenGroupCount, brokenLinkCount, brokenLinksInChangeRequests, linkGroups } from '../content/links.ts';
import { evaluateVariables } from '../content/markdown.ts';
import { findFile, findPage, pageBody, requireContentRoom, type RevisionContent } from '../content/model.ts';
import {
  type ContentScope,
  contentReference,
  presentFile,
  presentLink,
  presentPage,
  presentPageList,
  presentPageRead,
  presentRevision,
} from '../domain/content-presenters.ts';
import { commitSpaceContent, currentRevision } from '../content/revisions.ts';
import { searchSections } from '../content/search.ts';
import { groupByPage, presentPages } from '../content/search-results.ts';
import { applyTemplate } from '../content/templates.ts';
import {
  type ChangeRequestRow,
  changeRequestAccess,
  changeRequestRevision,
  commitChangeRequestContent,
  isClosed,
} from '../domain/change-requests.ts';
import type { Input, Model } from '../common/contract.ts';
import { unreachable } from '../common/errors.ts';
import { listId } from '../common/paging.ts';
import { getSpaceRow, requireSpace, type SpaceAccess, spaceAccess } from '../domain/spaces.ts';
import { conflict, notFound } from '../common/errors.ts';
import { ownTransaction } from '../http/route-rules.ts';
import type { HandlerGroup } from './types.ts';

type Operations =
  | 'searchSpaceContent'
  | 'getSpaceContent'
  | 'importSpaceContent'
  | 'applySpaceTemplate'
  | 'listSpacePages'
  | 'listSpaceFiles'
  | 'getSpaceFile'
  | 'listSpaceFileBacklinks'
  | 'getSpacePage'
  | 'listSpacePageLinks'
  | 'listSpacePageBacklinks'
  | 'listSpaceLinks'
  | 'getChangeRequestContent'
  | 'importChangeRequestContent'
  | 'listChangeRequestPages'
  | 'listChangeRequestFiles'
  | 'getChangeRequestFile'
  | 'listChangeRequestFileBacklinks'
  | 'getChangeRequestPage'
  | 'listChangeRequestPageLinks';

interface Target {
  access: SpaceAccess;
  scope: ContentScope;
  changeRequest?: ChangeRequestRow;
}

type ReadQuery = { metadata?: boolean; computed?: boolean };
type Paging = { page?: string; limit?: number };

/** The space's main content, when the caller may view the space. */
async function spaceTarget(ctx: Scope, caller: Caller, spaceId: string): Promise<Target> {
  const access = await spaceAccess(ctx, caller, spaceId);
  const revision = await currentRevision(ctx.db, access.space);
  return { access, scope: { space: access.space, revision, appPath: `/s/${spaceId}`, main: true } };
}

/** A change request's content (`changeRequestId` is its id or number), when the caller may view the space. */
async function changeRequestTarget(ctx: Scope, caller: Caller, spaceId: string, changeRequestId: string): Promise<Target> {
  const { changeRequest, ...access } = await changeRequestAccess(ctx, caller, spaceId, changeRequestId);
  const scope = {
    space: access.space,
    revision: await changeRequestRevision(ctx.db, changeRequest),
    appPath: `/s/${spaceId}/~/changes/${changeRequest.number}`,
    main: false,
  };
  return { access, scope, changeRequest };
}

/** The target, when the caller may edit its content (403 otherwise). */
function editable(target: Target): Target {
  requireSpace(target.access, 'edit');
  return target;
}

/** The kind of an import's first reads (ReadOptions.kind). */
const IMPORT_READS = {};

/**
 * An import, which waits on the network (http/route-rules.ts). `importable` checks the caller and the target and
 * gives the target: before the fetch, so that a refused request fetches nothing, and again inside the write
 * transaction, where what was fetched goes into the target's content as it is at that moment and `commit` stores
 * the result as a revision. Nothing is fetched inside the transaction.
 */
async function importInto(
  ctx: Scope,
  body: Input<'ImportContentRequest'>,
  importable: (scope: Scope) => Promise<Target>,
  commit: (scope: Scope, target: Target, content: RevisionContent) => Promise<{ id: string }>,
) {
  // Checked first in a read of its own (the request waits on the network next), and again in the write.
  await inRead(ctx, importable, { kind: IMPORT_READS });
  const apply = await fetchImport(ctx, body);
  return inWrite(ctx, async (scope) => {
    const target = await importable(scope);
    const result = await apply(scope, target.scope.revision.content);
    requireContentRoom(result.content, 'url');
    const revision = await commit(scope, target, result.content);
    return {
      status: 201 as const,
      body: { revision: revision.id, importedResources: result.importedResources, totalResources: result.totalResources },
    };
  });
}

const readOptions = (query: ReadQuery) => ({ metadata: query.metadata !== false });

function pageOf(target: Target, pageId: string) {
  const entry = findPage(target.scope.revision.content, pageId);
  if (!entry) throw notFound(`page ${pageId}`);
  return entry;
}

function fileOf(target: Target, fileId: string) {
  const file = findFile(target.scope.revision.content, fileId);
  if (!file) throw notFound(`file ${fileId}`);
  return file;
}

const getContent = async (ctx: Scope, target: Target, query: ReadQuery) => ({
  status: 200 as const,
  body: await presentRevision(ctx, target.scope, readOptions(query)),
});

const listPages = async (ctx: Scope, target: Target, query: ReadQuery) => ({
  status: 200 as const,
  body: await presentPageList(ctx, target.scope, readOptions(query)),
});

const listFiles = (ctx: Scope, operation: string, target: Target, query: ReadQuery & Paging) => ({
  status: 200 as const,
  body: ctx.cursors.pageOf({
    list: listId(operation, target.scope.revision.id),
    page: query.page,
    limit: query.limit,
    all: target.scope.revision.content.files,
    key: (file) => [file.id],
    present: (file) => presentFile(ctx, target.scope, file, readOptions(query)),
  }),
});

const getFile = (ctx: Scope, target: Target, fileId: string, query: ReadQuery) => ({
  status: 200 as const,
  body: presentFile(ctx, target.scope, fileOf(target, fileId), readOptions(query)),
});

/** Pages of the revision linking to one of its pages or files. */
async function backlinks(ctx: Scope, operation: string, target: Target, kind: 'page' | 'file', id: string, query: Paging) {
  if (kind === 'page') pageOf(target, id);
  else fileOf(target, id);
  const pageIds = await backlinkPageIds(ctx, target.scope.revision, kind, id);
  return {
    status: 200 as const,
    body: ctx.cursors.pageOf({
      list: listId(operation, target.scope.revision.id, id),
      page: query.page,
      limit: query.limit,
      all: pageIds,
      key: (pageId) => [pageId],
      present: (pageId) => contentReference(target.scope, { kind: 'page', id: pageId }),
    }),
  };
}

async function getPage(
  ctx: Scope,
  target: Target,
  pageId: string,
  query: ReadQuery & { format?: Model<'OutputFormat'>; evaluated?: boolean },
) {
  const { scope } = target;
  const entry = pageOf(target, pageId);
  const { page } = entry;
  const computes = query.computed !== false;
  const evaluates = query.evaluated === true;
  const format = query.format ?? 'markdown';
  const options = readOptions(query);
  const make = async () => {
    const stored = pageBody(page) === 'href' && page.href ? `[${page.title}](${page.href})` : (page.markdown ?? '');
    const computed = computes ? await computePageMarkdown(ctx, scope, entry) : undefined;
    let markdown = computed ?? stored;
    if (evaluates) markdown = evaluateVariables(markdown, { page: page.variables ?? {}, space: scope.revision.content.variables });
    return { ...presentPage(ctx, scope, page, entry.path, options), ...BODY_FORMATS[format](markdown) };
  };
  return { status: 200 as const, body: await presentPageRead(ctx, scope, page, { format, computes, evaluates }, options, make) };
}

/** The links of some content (all pages, or one page), with their counts; `changeRequestBroken` is given. */
async function linkList(
  ctx: Scope,
  operation: string,
  target: Target,
  query: Paging,
  options: { pageId?: string; changeRequestBroken: number },
): Promise<{ status: 200; body: Model<'LinkList'> }> {
  const groups = await linkGroups(ctx, target.scope.revision, options.pageId);
  const page = ctx.cursors.pageOf({
    list: listId(operation, target.scope.revision.id, options.pageId),
    page: query.page,
    limit: query.limit,
    all: groups,
    key: (group) => [group.key],
  });
  return {
    status: 200,
    body: {
      ...page,
      items: page.items.map((group) => presentLink(target.scope, group)),
      stats: {
        total: groups.length,
        broken: {
          total: brokenGroupCount(groups),
          changeRequest: options.changeRequestBroken,
        },
      },
    },
  };
}

/** A change request's content, when the caller may edit it and it is not closed (409). */
async function importableChangeRequest(ctx: Scope, caller: Caller, spaceId: string, changeRequestId: string): Promise<Target> {
  const target = editable(await changeRequestTarget(ctx, caller, spaceId, changeRequestId));
  const changeRequest = target.changeRequest!;
  if (isClosed(changeRequest)) {
    throw conflict(`change request #${changeRequest.number} is ${changeRequest.status}: its content cannot change`);
  }
  return target;
}

export const contentHandlers: HandlerGroup<Operations> = {
  async searchSpaceContent({ params, query, caller }, ctx) {
    await spaceTarget(ctx, caller, params.spaceId);
    const page = ctx.cursors.pageOf({
      list: listId('searchSpaceContent', params.spaceId, query.query),
      page: query.page,
      limit: query.limit,
      all: groupByPage(await searchSections(ctx.db, { spaceId: params.spaceId }, query.query)),
      key: (pageHits) => [pageHits.pageId],
    });
    return { status: 200, body: { ...page, items: await presentPages(ctx, query.query, page.items) } };
  },

  getSpaceContent: async ({ params, query, caller }, ctx) => getContent(ctx, await spaceTarget(ctx, caller, params.spaceId), query),

  importSpaceContent: ownTransaction(async ({ params, body, caller }, ctx) =>
    importInto(
      ctx,
      body,
      async (scope) => editable(await spaceTarget(scope, caller, params.spaceId)),
      (scope, target, content) => commitSpaceContent(scope.db, params.spaceId, [target.scope.revision.id], content, scope.now()),
    ),
  ),

  async applySpaceTemplate({ params, body, caller }, ctx) {
    const target = editable(await spaceTarget(ctx, caller, params.spaceId));
    const now = ctx.now();
    const content = applyTemplate(target.scope.revision.content, body, { spaceTitle: target.access.space.title, now });
    requireContentRoom(content, 'id');
    await commitSpaceContent(ctx.db, params.spaceId, [target.scope.revision.id], content, now);
    return { status: 204 };
  },

  listSpacePages: async ({ params, query, caller }, ctx) => listPages(ctx, await spaceTarget(ctx, caller, params.spaceId), query),

  listSpaceFiles: async ({ params, query, caller }, ctx) => listFiles(ctx, 'listSpaceFiles', await spaceTarget(ctx, caller, params.spaceId), query),

  getSpaceFile: async ({ params, query, caller }, ctx) => getFile(ctx, await spaceTarget(ctx, caller, params.spaceId), params.fileId, query),

  listSpaceFileBacklinks: async ({ params, query, caller }, ctx) =>
    backlinks(ctx, 'listSpaceFileBacklinks', await spaceTarget(ctx, caller, params.spaceId), 'file', params.fileId, query),

  getSpacePage: async ({ params, query, caller }, ctx) => getPage(ctx, await spaceTarget(ctx, caller, params.spaceId), params.pageId, query),

  async listSpacePageLinks({ params, query, caller }, ctx) {
    const target = await spaceTarget(ctx, caller, params.spaceId);
    pageOf(target, params.pageId);
    return linkList(ctx, 'listSpacePageLinks', target, query, {
      pageId: params.pageId,
      changeRequestBroken: await brokenLinksInChangeRequests(ctx, params.spaceId, params.pageId),
    });
  },

  listSpacePageBacklinks: async ({ params, query, caller }, ctx) =>
    backlinks(ctx, 'listSpacePageBacklinks', await spaceTarget(ctx, caller, params.spaceId), 'page', params.pageId, query),

  async listSpaceLinks({ params, query, caller }, ctx) {
    const target = await spaceTarget(ctx, caller, params.spaceId);
    return linkList(ctx, 'listSpaceLinks', target, query, { changeRequestBroken: await brokenLinksInChangeRequests(ctx, params.spaceId) });
  },

  getChangeRequestContent: async ({ params, query, caller }, ctx) =>
    getContent(ctx, await changeRequestTarget(ctx, caller, params.spaceId, params.changeRequestId), query),

  importChangeRequestContent: ownTransaction(async ({ params, body, caller }, ctx) =>
    importInto(
      ctx,
      body,
      (scope) => importableChangeRequest(scope, caller, params.spaceId, params.changeRequestId),
      (scope, target, content) =>
        commitChangeRequestContent(scope, target.changeRequest!, { type: 'edits', content, contributor: caller.user.id }),
    ),
  ),

  listChangeRequestPages: async ({ params, query, caller }, ctx) =>
    listPages(ctx, await changeRequestTarget(ctx, caller, params.spaceId, params.changeRequestId), query),

  listChangeRequestFiles: async ({ params, query, caller }, ctx) =>
    listFiles(ctx, 'listChangeRequestFiles', await changeRequestTarget(ctx, caller, params.spaceId, params.changeRequestId), query),

  getChangeRequestFile: async ({ params, query, caller }, ctx) =>
    getFile(ctx, await changeRequestTarget(ctx, caller, params.spaceId, params.changeRequestId), params.fileId, query),

  listChangeRequestFileBacklinks: async ({ params, query, caller }, ctx) =>
    backlinks(
      ctx,
      'listChangeRequestFileBacklinks',
      await changeRequestTarget(ctx, caller, params.spaceId, params.changeRequestId),
      'file',
      params.fileId,
      query,
    ),

  getChangeRequestPage: async ({ params, query, caller }, ctx) =>
    getPage(ctx, await changeRequestTarget(ctx, caller, params.spaceId, params.changeRequestId), params.pageId, query),

  async listChangeRequestPageLinks({ params, query, caller }, ctx) {
    const target = await changeRequestTarget(ctx, caller, params.spaceId, params.changeRequestId);
    pageOf(target, params.pageId);
    // The content is the change request's own: its broken links are all change-request ones.
    const broken = await brokenLinkCount(ctx, target.scope.revision, params.pageId);
    return linkList(ctx, 'listChangeRequestPageLinks', target, query, { pageId: params.pageId, changeRequestBroken: broken });
  },
};

/**
 * Routes of this group outside `/v1`: `GET /files/{spaceId}/{fileId}?sig=…` serves a file's bytes (the
 * `downloadURL` of files). A wrong signature, a purged space or a file without stored content is a 404.
 */
export function contentRoutes(ctx: AppContext, app: Express): void {
  // The kind of these requests' reads (ReadOptions.kind).
  const FILE_READS = {};
  app.get('/files/:spaceId/:fileId', async (req: Request, res: Response) => {
    const { spaceId, fileId } = req.params as { spaceId: string; fileId: string };
    const content = verifyFileSignature(ctx, spaceId, fileId, req.query.sig)
      ? await inRead(ctx, async ({ db }) => ((await getSpaceRow(db, spaceId)) ? await readFileContent(db, fileId) : undefined), { kind: FILE_READS })
      : undefined;
    if (!content) throw notFound(`file ${fileId}`);
    res
      .set({
        'content-type': content.contentType,
        'content-length': String(content.bytes.length),
        'cache-control': 'private, max-age=3600',
        'x-content-type-options': 'nosniff',
        // Served from the API's origin: an SVG opened directly must not run scripts there.
        'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
      })
      .status(200)
      .end(content.bytes);
  });
}

/**
 * Fetches what the request imports, touching no state (a source that cannot be imported is a 400 naming the field),
 * and gives back how to import it into content, inside the write transaction: one case per `ImportSource` of the
 * contract.
 */
async function fetchImport(
  ctx: AppContext,
  request: Input<'ImportContentRequest'>,
): Promise<(scope: Scope, content: RevisionContent) => Promise<ImportResult>> {
  switch (request.source) {
    case 'website': {
      const site = await fetchWebsite(ctx, request.url);
      return (scope, content) => importFetchedWebsite(scope, content, site);
    }
    default:
      return unreachable(request.source, 'import source');
  }
}

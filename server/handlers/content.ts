// Content of a space (its current revision) and of a change request (the change request's revision): pages,
// files, links, search, website import and templates. Every write makes a new revision.
import type { Express, Request, Response } from 'express';
import type { Caller } from '../auth/caller.ts';
import type { AppContext } from '../context.ts';
import { computePageMarkdown } from '../content/computed.ts';
import { BODY_FORMATS } from '../content/document.ts';
import { fileUrlSecret, readFileContent, verifyFileSignature } from '../content/files.ts';
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
} from '../content/present.ts';
import { commitSpaceContent, getRevision } from '../content/revisions.ts';
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
import { unreachable } from '../domain/enums.ts';
import { getSpaceRow, requireSpace, type SpaceAccess, spaceAccess } from '../domain/spaces.ts';
import { conflict, notFound } from '../http/errors.ts';
import { listId } from '../http/pagination.ts';
import { ownTransaction } from '../http/transactions.ts';
import type { HandlerGroup, Input, Model } from '../http/types.ts';

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

export function contentHandlers(ctx: AppContext): HandlerGroup<Operations> {
  const { db } = ctx;

  const revisionOf = (id: string, spaceId: string) => {
    const revision = getRevision(db, id, spaceId);
    if (!revision) throw new Error(`revision ${id} does not exist`);
    return revision;
  };

  /** The space's main content, when the caller may view the space. */
  const spaceTarget = (caller: Caller, spaceId: string): Target => {
    const access = spaceAccess(ctx, caller, spaceId);
    const scope = { space: access.space, revision: revisionOf(access.space.revision_id, access.space.id), appPath: `/s/${spaceId}`, main: true };
    return { access, scope };
  };

  /** A change request's content (`changeRequestId` is its id or number), when the caller may view the space. */
  const changeRequestTarget = (caller: Caller, spaceId: string, changeRequestId: string): Target => {
    const { changeRequest, ...access } = changeRequestAccess(ctx, caller, spaceId, changeRequestId);
    const scope = {
      space: access.space,
      revision: changeRequestRevision(db, changeRequest),
      appPath: `/s/${spaceId}/~/changes/${changeRequest.number}`,
      main: false,
    };
    return { access, scope, changeRequest };
  };

  /** The target, when the caller may edit its content (403 otherwise). */
  const editable = (target: Target): Target => {
    requireSpace(target.access, 'edit');
    return target;
  };

  /**
   * An import, which waits on the network (http/transactions.ts). `importable` checks the caller and the target and
   * gives the target: before the fetch, so that a refused request fetches nothing, and again inside the write
   * transaction, where what was fetched goes into the target's content as it is at that moment and `commit` stores
   * the result as a revision.
   */
  const importInto = async (
    body: Input<'ImportContentRequest'>,
    importable: () => Target,
    commit: (target: Target, content: RevisionContent) => { id: string },
  ) => {
    importable();
    const apply = await fetchImport(ctx, body);
    return ctx.store.write(() => {
      const target = importable();
      const result = apply(target.scope.revision.content);
      requireContentRoom(result.content, 'url');
      const revision = commit(target, result.content);
      return {
        status: 201 as const,
        body: { revision: revision.id, importedResources: result.importedResources, totalResources: result.totalResources },
      };
    });
  };

  const readOptions = (query: ReadQuery) => ({ metadata: query.metadata !== false });

  const pageOf = (target: Target, pageId: string) => {
    const entry = findPage(target.scope.revision.content, pageId);
    if (!entry) throw notFound(`page ${pageId}`);
    return entry;
  };

  const fileOf = (target: Target, fileId: string) => {
    const file = findFile(target.scope.revision.content, fileId);
    if (!file) throw notFound(`file ${fileId}`);
    return file;
  };

  const getContent = (target: Target, query: ReadQuery) => ({
    status: 200 as const,
    body: presentRevision(ctx, target.scope, readOptions(query)),
  });

  const listPages = (target: Target, query: ReadQuery) => ({
    status: 200 as const,
    body: presentPageList(ctx, target.scope, readOptions(query)),
  });

  const listFiles = (operation: string, target: Target, query: ReadQuery & Paging) => ({
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

  const getFile = (target: Target, fileId: string, query: ReadQuery) => ({
    status: 200 as const,
    body: presentFile(ctx, target.scope, fileOf(target, fileId), readOptions(query)),
  });

  /** Pages of the revision linking to one of its pages or files. */
  const backlinks = (operation: string, target: Target, kind: 'page' | 'file', id: string, query: Paging) => {
    if (kind === 'page') pageOf(target, id);
    else fileOf(target, id);
    const pageIds = backlinkPageIds(ctx, target.scope.revision, kind, id);
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
  };

  const getPage = (
    target: Target,
    pageId: string,
    query: ReadQuery & { format?: Model<'OutputFormat'>; evaluated?: boolean },
  ) => {
    const { scope } = target;
    const entry = pageOf(target, pageId);
    const { page } = entry;
    const computes = query.computed !== false;
    const evaluates = query.evaluated === true;
    const format = query.format ?? 'markdown';
    const options = readOptions(query);
    const make = () => {
      const stored = pageBody(page) === 'href' && page.href ? `[${page.title}](${page.href})` : (page.markdown ?? '');
      const computed = computes ? computePageMarkdown(ctx, scope.space.organization_id, scope.revision.content, entry) : undefined;
      let markdown = computed ?? stored;
      if (evaluates) markdown = evaluateVariables(markdown, { page: page.variables ?? {}, space: scope.revision.content.variables });
      return { ...presentPage(ctx, scope, page, entry.path, options), ...BODY_FORMATS[format](markdown) };
    };
    return { status: 200 as const, body: presentPageRead(ctx, scope, page, { format, computes, evaluates }, options, make) };
  };

  /** The links of some content (all pages, or one page), with their counts; `changeRequestBroken` is given. */
  const linkList = (
    operation: string,
    target: Target,
    query: Paging,
    options: { pageId?: string; changeRequestBroken: number },
  ): { status: 200; body: Model<'LinkList'> } => {
    const groups = linkGroups(ctx, target.scope.revision, options.pageId);
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
  };

  return {
    searchSpaceContent({ params, query, caller }) {
      spaceTarget(caller, params.spaceId);
      const page = ctx.cursors.pageOf({
        list: listId('searchSpaceContent', params.spaceId, query.query),
        page: query.page,
        limit: query.limit,
        all: groupByPage(searchSections(db, { spaceId: params.spaceId }, query.query)),
        key: (pageHits) => [pageHits.pageId],
      });
      return { status: 200, body: { ...page, items: presentPages(ctx, query.query, page.items) } };
    },

    getSpaceContent: ({ params, query, caller }) => getContent(spaceTarget(caller, params.spaceId), query),

    importSpaceContent: ownTransaction(({ params, body, caller }) =>
      importInto(body, () => editable(spaceTarget(caller, params.spaceId)), (target, content) =>
        commitSpaceContent(db, params.spaceId, [target.scope.revision.id], content, ctx.now()),
      ),
    ),

    applySpaceTemplate({ params, body, caller }) {
      const target = editable(spaceTarget(caller, params.spaceId));
      const now = ctx.now();
      const content = applyTemplate(target.scope.revision.content, body, { spaceTitle: target.access.space.title, now });
      requireContentRoom(content, 'id');
      commitSpaceContent(db, params.spaceId, [target.scope.revision.id], content, now);
      return { status: 204 };
    },

    listSpacePages: ({ params, query, caller }) => listPages(spaceTarget(caller, params.spaceId), query),

    listSpaceFiles: ({ params, query, caller }) => listFiles('listSpaceFiles', spaceTarget(caller, params.spaceId), query),

    getSpaceFile: ({ params, query, caller }) => getFile(spaceTarget(caller, params.spaceId), params.fileId, query),

    listSpaceFileBacklinks: ({ params, query, caller }) =>
      backlinks('listSpaceFileBacklinks', spaceTarget(caller, params.spaceId), 'file', params.fileId, query),

    getSpacePage: ({ params, query, caller }) => getPage(spaceTarget(caller, params.spaceId), params.pageId, query),

    listSpacePageLinks({ params, query, caller }) {
      const target = spaceTarget(caller, params.spaceId);
      pageOf(target, params.pageId);
      return linkList('listSpacePageLinks', target, query, {
        pageId: params.pageId,
        changeRequestBroken: brokenLinksInChangeRequests(ctx, params.spaceId, params.pageId),
      });
    },

    listSpacePageBacklinks: ({ params, query, caller }) =>
      backlinks('listSpacePageBacklinks', spaceTarget(caller, params.spaceId), 'page', params.pageId, query),

    listSpaceLinks({ params, query, caller }) {
      const target = spaceTarget(caller, params.spaceId);
      return linkList('listSpaceLinks', target, query, { changeRequestBroken: brokenLinksInChangeRequests(ctx, params.spaceId) });
    },

    getChangeRequestContent: ({ params, query, caller }) =>
      getContent(changeRequestTarget(caller, params.spaceId, params.changeRequestId), query),

    importChangeRequestContent: ownTransaction(({ params, body, caller }) =>
      importInto(
        body,
        () => {
          const target = editable(changeRequestTarget(caller, params.spaceId, params.changeRequestId));
          const changeRequest = target.changeRequest!;
          if (isClosed(changeRequest)) {
            throw conflict(`change request #${changeRequest.number} is ${changeRequest.status}: its content cannot change`);
          }
          return target;
        },
        (target, content) =>
          commitChangeRequestContent(ctx, target.changeRequest!, { type: 'edits', content, contributor: caller.user.id }),
      ),
    ),

    listChangeRequestPages: ({ params, query, caller }) =>
      listPages(changeRequestTarget(caller, params.spaceId, params.changeRequestId), query),

    listChangeRequestFiles: ({ params, query, caller }) =>
      listFiles('listChangeRequestFiles', changeRequestTarget(caller, params.spaceId, params.changeRequestId), query),

    getChangeRequestFile: ({ params, query, caller }) =>
      getFile(changeRequestTarget(caller, params.spaceId, params.changeRequestId), params.fileId, query),

    listChangeRequestFileBacklinks: ({ params, query, caller }) =>
      backlinks(
        'listChangeRequestFileBacklinks',
        changeRequestTarget(caller, params.spaceId, params.changeRequestId),
        'file',
        params.fileId,
        query,
      ),

    getChangeRequestPage: ({ params, query, caller }) =>
      getPage(changeRequestTarget(caller, params.spaceId, params.changeRequestId), params.pageId, query),

    listChangeRequestPageLinks({ params, query, caller }) {
      const target = changeRequestTarget(caller, params.spaceId, params.changeRequestId);
      pageOf(target, params.pageId);
      // The content is the change request's own: its broken links are all change-request ones.
      const broken = brokenLinkCount(ctx, target.scope.revision, params.pageId);
      return linkList('listChangeRequestPageLinks', target, query, { pageId: params.pageId, changeRequestBroken: broken });
    },
  };
}

/**
 * Routes of this group outside `/v1`: `GET /files/{spaceId}/{fileId}?sig=…` serves a file's bytes (the
 * `downloadURL` of files). A wrong signature, a purged space or a file without stored content is a 404.
 */
export function contentRoutes(ctx: AppContext, app: Express): void {
  fileUrlSecret(ctx); // created now, outside any request's transaction
  app.get('/files/:spaceId/:fileId', (req: Request, res: Response) => {
    const { spaceId, fileId } = req.params as { spaceId: string; fileId: string };
    const content =
      verifyFileSignature(ctx, spaceId, fileId, req.query.sig) && getSpaceRow(ctx.db, spaceId)
        ? readFileContent(ctx.db, fileId)
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
): Promise<(content: RevisionContent) => ImportResult> {
  switch (request.source) {
    case 'website': {
      const site = await fetchWebsite(ctx, request.url);
      return (content) => importFetchedWebsite(ctx, content, site);
    }
    default:
      return unreachable(request.source, 'import source');
  }
}

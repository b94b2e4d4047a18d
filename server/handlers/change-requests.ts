// Change requests: creation (numbered per space), review states, merge into the main content and update from it
// (three-way, page by page), and PDF export of their content.
import type { Express, Request, Response } from 'express';
import { type AppContext, inWrite, reading, type Scope } from '../context.ts';
import { describeConflicts, mergeContent } from '../content/merge.ts';
import type { RevisionContent } from '../content/model.ts';
import { pagesForPdf, renderPdf } from '../content/pdf.ts';
import { createRevision, getRevision, setCurrentRevision } from '../content/revisions.ts';
import { findPdf, pdfPath, storePdf } from '../domain/change-request-pdfs.ts';
import {
  addContributor,
  CHANGE_REQUEST_STATES,
  type ChangeRequestAccess,
  changeRequestAccess,
  changeRequestBase,
  type ChangeRequestRow,
  type ChangeRequestStatus,
  commitChangeRequestContent,
  getChangeRequestById,
  isClosed,
  isOutdatedNow,
  parseChangeRequestRow,
  presentChangeRequest,
  presentChangeRequests,
} from '../domain/change-requests.ts';
import type { Model } from '../domain/contract.ts';
import { newId } from '../domain/ids.ts';
import { listId } from '../domain/paging.ts';
import { requireSpace, spaceAccess } from '../domain/spaces.ts';
import { badRequest, conflict, notFound } from '../errors.ts';
import type { HandlerGroup } from './types.ts';
import * as changeRequests from '../store/change-requests.ts';

type Operations =
  | 'listChangeRequests'
  | 'createChangeRequest'
  | 'getChangeRequest'
  | 'updateChangeRequest'
  | 'mergeChangeRequest'
  | 'updateChangeRequestFromMain'
  | 'getChangeRequestPdf';

const ORDER_COLUMNS: Record<Model<'ChangeRequestOrderBy'>, 'updated_at' | 'created_at'> = {
  updatedAt: 'updated_at',
  createdAt: 'created_at',
};

/** The change request as it is now. */
async function present(ctx: Scope, id: string) {
  return presentChangeRequest(ctx, (await getChangeRequestById(ctx.db, id))!);
}

/** Merged and archived change requests take no more changes: 409. */
function requireOpenForChanges(changeRequest: ChangeRequestRow, action: string): void {
  if (isClosed(changeRequest)) {
    throw conflict(`change request #${changeRequest.number} is ${changeRequest.status}: it cannot be ${action}`);
  }
}

/** The content of a revision of the change request's space. */
async function content(ctx: Scope, revisionId: string, spaceId: string): Promise<RevisionContent> {
  return (await getRevision(ctx.db, revisionId, spaceId))!.content;
}

/** The three-way merge of `ours` and `theirs` against the change request's base, or 409 naming the conflicts. */
async function mergeOrConflict(ctx: Scope, access: ChangeRequestAccess, ours: RevisionContent, theirs: RevisionContent): Promise<RevisionContent> {
  const result = mergeContent(await content(ctx, changeRequestBase(access.changeRequest), access.space.id), ours, theirs);
  if (result.conflicts) {
    throw conflict(
      `change request #${access.changeRequest.number} and the main content changed the same things: ${describeConflicts(result.conflicts)}`,
    );
  }
  return result.content;
}

export const changeRequestHandlers: HandlerGroup<Operations> = {
  async listChangeRequests({ params, query, caller }, ctx) {
    await spaceAccess(ctx, caller, params.spaceId);
    const status = query.status ?? 'open';
    const orderBy = query.orderBy ?? 'updatedAt';
    const column = ORDER_COLUMNS[orderBy];
    const filters: changeRequests.ChangeRequestFilters = {
      spaceId: params.spaceId,
      status,
      ...(query.creator !== undefined ? { creator: query.creator } : {}),
      ...(query.contributor !== undefined ? { contributor: query.contributor } : {}),
    };
    const page = await ctx.cursors.page({
      list: listId('listChangeRequests', params.spaceId, status, query.creator, query.contributor, orderBy),
      page: query.page,
      limit: query.limit,
      key: (item: ChangeRequestRow) => [item[column], item.number],
      count: () => changeRequests.count(ctx.db, filters),
      fetch: async (key, limit) => (await changeRequests.page(ctx.db, filters, column, key, limit)).map(parseChangeRequestRow),
    });
    return { status: 200, body: { ...page, items: await presentChangeRequests(ctx, page.items) } };
  },

  async createChangeRequest({ params, body, caller }, ctx) {
    const access = await spaceAccess(ctx, caller, params.spaceId);
    requireSpace(access, 'edit');
    const now = ctx.now();
    const id = newId();
    await changeRequests.insert(ctx.db, {
      id,
      space_id: params.spaceId,
      number: await changeRequests.nextNumber(ctx.db, params.spaceId),
      status: 'open',
      subject: body.subject ?? null,
      agent_task_id: body.agentTaskId ?? null,
      created_by: caller.user.id,
      created_at: now,
      updated_at: now,
      revision_id: access.space.revision_id,
      revision_initial: access.space.revision_id,
    });
    await addContributor(ctx.db, id, caller.user.id);
    const changeRequest = await present(ctx, id);
    return { status: 201, body: changeRequest, headers: { location: changeRequest.urls.location } };
  },

  async getChangeRequest({ params, caller }, ctx) {
    const access = await changeRequestAccess(ctx, caller, params.spaceId, params.changeRequestId);
    return { status: 200, body: await presentChangeRequest(ctx, access.changeRequest) };
  },

  async updateChangeRequest({ params, body, caller }, ctx) {
    const access = await changeRequestAccess(ctx, caller, params.spaceId, params.changeRequestId);
    requireSpace(access, 'edit');
    const { changeRequest } = access;
    if (CHANGE_REQUEST_STATES[changeRequest.status].final) {
      throw conflict(`change request #${changeRequest.number} is ${changeRequest.status}: it cannot be changed`);
    }
    const changes: Parameters<typeof changeRequests.update>[2] = {};
    if (body.subject !== undefined) changes.subject = body.subject;
    // A status a client may set is one of the change request's statuses (CHANGE_REQUEST_STATES knows it).
    if (body.status !== undefined) changes.status = body.status satisfies ChangeRequestStatus;
    if (Object.keys(changes).length > 0) await changeRequests.update(ctx.db, changeRequest.id, { ...changes, updated_at: ctx.now() });
    return { status: 200, body: await present(ctx, changeRequest.id) };
  },

  async mergeChangeRequest({ params, caller }, ctx) {
    const access = await changeRequestAccess(ctx, caller, params.spaceId, params.changeRequestId);
    requireSpace(access, 'merge');
    const { changeRequest, space } = access;
    requireOpenForChanges(changeRequest, 'merged');
    const result = await mergeOrConflict(
      ctx,
      access,
      await content(ctx, space.revision_id, space.id),
      await content(ctx, changeRequest.revision_id, space.id),
    );
    const now = ctx.now();
    const revision = await createRevision(ctx.db, {
      spaceId: space.id,
      parents: [space.revision_id, changeRequest.revision_id],
      type: 'merge',
      content: result,
      createdAt: now,
    });
    await setCurrentRevision(ctx.db, revision, now);
    await changeRequests.update(ctx.db, changeRequest.id, { status: 'merged', revision_merged: revision.id, updated_at: now });
    return { status: 200, body: { revision: revision.id, result: 'merge' } };
  },

  async updateChangeRequestFromMain({ params, caller }, ctx) {
    const access = await changeRequestAccess(ctx, caller, params.spaceId, params.changeRequestId);
    requireSpace(access, 'edit');
    const { changeRequest, space } = access;
    requireOpenForChanges(changeRequest, 'updated');
    // Already up to date: nothing to bring in, no new revision.
    if (!(await isOutdatedNow(ctx.db, changeRequest))) {
      return { status: 200, body: { revision: changeRequest.revision_id, result: 'update' } };
    }
    const result = await mergeOrConflict(
      ctx,
      access,
      await content(ctx, changeRequest.revision_id, space.id),
      await content(ctx, space.revision_id, space.id),
    );
    const revision = await commitChangeRequestContent(ctx, changeRequest, {
      type: 'update',
      content: result,
      contributor: caller.user.id,
      parents: [space.revision_id],
    });
    await changeRequests.update(ctx.db, changeRequest.id, { revision_merged_ancestor: space.revision_id });
    return { status: 200, body: { revision: revision.id, result: 'update' } };
  },

  async getChangeRequestPdf({ params, query, caller }, ctx) {
    const { changeRequest } = await changeRequestAccess(ctx, caller, params.spaceId, params.changeRequestId);
    if (query.only && query.page === undefined) throw badRequest('only: needs `page`, the page to print alone');
    const pages = pagesForPdf(await content(ctx, changeRequest.revision_id, changeRequest.space_id), query.page, query.only ?? false);
    if (!pages) throw badRequest(`page: no page ${query.page} in change request #${changeRequest.number}`);
    const now = ctx.clock.now();
    const pdf = await renderPdf({
      title: `#${changeRequest.number} ${changeRequest.subject || 'Change request'}`,
      pages,
      createdAt: now,
    });
    // Reads run outside a transaction; storing the PDF, once it is made, is this read's one write.
    const id = await inWrite(ctx, (scope) =>
      storePdf(scope.db, {
        changeRequestId: changeRequest.id,
        fileName: `change-request-${changeRequest.number}.pdf`,
        content: pdf,
        now,
      }),
    );
    return { status: 200, body: { url: ctx.urls.api(pdfPath(id)) } };
  },
};

/** Routes of this group outside `/v1`: generated PDFs, at the address getChangeRequestPdf answers. */
export function changeRequestRoutes(ctx: AppContext, app: Express): void {
  const reader = reading(ctx);
  app.get(pdfPath(':id'), async (req: Request, res: Response) => {
    const pdf = await findPdf(reader.db, String(req.params.id), ctx.clock.now());
    if (!pdf) throw notFound('PDF (generated PDFs are kept for one hour)');
    res
      .status(200)
      .set({
        'content-type': 'application/pdf',
        'content-disposition': `inline; filename="${pdf.fileName}"`,
        'cache-control': 'private, max-age=3600',
      })
      .end(pdf.content);
  });
}

// Change requests: creation (numbered per space), review states, merge into the main content and update from it
// (three-way, page by page), and PDF export of their content.
import type { Express, Request, Response } from 'express';
import { type AppContext, reading } from '../context/context.ts';
import { findPdf, pdfPath } from '../domain/change-request-pdfs.ts';
import {
  changeRequestAccess,
  changeRequestsPage,
  createChangeRequest,
  makeChangeRequestPdf,
  mergeChangeRequest,
  presentChangeRequest,
  presentChangeRequests,
  updateChangeRequest,
  updateChangeRequestFromMain,
} from '../domain/change-requests.ts';
import { listId } from '../common/paging.ts';
import { spaceAccess } from '../domain/spaces.ts';
import { notFound } from '../common/errors.ts';
import type { HandlerGroup } from './types.ts';

type Operations =
  | 'listChangeRequests'
  | 'createChangeRequest'
  | 'getChangeRequest'
  | 'updateChangeRequest'
  | 'mergeChangeRequest'
  | 'updateChangeRequestFromMain'
  | 'getChangeRequestPdf';

export const changeRequestHandlers: HandlerGroup<Operations> = {
  async listChangeRequests({ params, query, caller }, ctx) {
    await spaceAccess(ctx, caller, params.spaceId);
    const status = query.status ?? 'open';
    const orderBy = query.orderBy ?? 'updatedAt';
    const page = await changeRequestsPage(ctx, {
      list: listId('listChangeRequests', params.spaceId, status, query.creator, query.contributor, orderBy),
      filters: {
        spaceId: params.spaceId,
        status,
        ...(query.creator !== undefined ? { creator: query.creator } : {}),
        ...(query.contributor !== undefined ? { contributor: query.contributor } : {}),
      },
      orderBy,
      page: query.page,
      limit: query.limit,
    });
    return { status: 200, body: { ...page, items: await presentChangeRequests(ctx, page.items) } };
  },

  async createChangeRequest({ params, body, caller }, ctx) {
    const changeRequest = await createChangeRequest(ctx, caller, params.spaceId, body);
    return { status: 201, body: changeRequest, headers: { location: changeRequest.urls.location } };
  },

  async getChangeRequest({ params, caller }, ctx) {
    const access = await changeRequestAccess(ctx, caller, params.spaceId, params.changeRequestId);
    return { status: 200, body: await presentChangeRequest(ctx, access.changeRequest) };
  },

  async updateChangeRequest({ params, body, caller }, ctx) {
    return { status: 200, body: await updateChangeRequest(ctx, caller, params.spaceId, params.changeRequestId, body) };
  },

  async mergeChangeRequest({ params, caller }, ctx) {
    return { status: 200, body: await mergeChangeRequest(ctx, caller, params.spaceId, params.changeRequestId) };
  },

  async updateChangeRequestFromMain({ params, caller }, ctx) {
    return { status: 200, body: await updateChangeRequestFromMain(ctx, caller, params.spaceId, params.changeRequestId) };
  },

  async getChangeRequestPdf({ params, query, caller }, ctx) {
    const id = await makeChangeRequestPdf(ctx, caller, params.spaceId, params.changeRequestId, { page: query.page, only: query.only });
    return { status: 200, body: { url: ctx.urls.api(pdfPath(id)) } };
  },
};

/** Routes of this group outside `/v1`: generated PDFs, at the address getChangeRequestPdf answers. */
export function changeRequestRoutes(ctx: AppContext, app: Express): void {
  // One statement: one moment of the database, without a read of its own.
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

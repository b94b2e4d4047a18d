// Change requests: creation (numbered per space), review states, merge into the main content and update from it
// (three-way, page by page), and PDF export of their content.
import type { Express, Request, Response } from 'express';
import type { AppContext } from '../context.ts';
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
  isClosed,
  isOutdated,
  parseChangeRequestRow,
  presentChangeRequest,
  presentChangeRequests,
} from '../domain/change-requests.ts';
import { newId } from '../domain/ids.ts';
import { requireSpace, spaceAccess } from '../domain/spaces.ts';
import { badRequest, conflict, notFound } from '../http/errors.ts';
import { after, listId } from '../http/pagination.ts';
import type { HandlerGroup, Model } from '../http/types.ts';

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

export function changeRequestHandlers(ctx: AppContext): HandlerGroup<Operations> {
  const { db } = ctx;

  const row = (id: string) => parseChangeRequestRow(db.prepare('SELECT * FROM change_requests WHERE id = ?').get(id));
  const present = (id: string) => presentChangeRequest(ctx, row(id));

  /** Merged and archived change requests take no more changes: 409. */
  const requireOpenForChanges = (changeRequest: ChangeRequestRow, action: string) => {
    if (isClosed(changeRequest)) {
      throw conflict(`change request #${changeRequest.number} is ${changeRequest.status}: it cannot be ${action}`);
    }
  };

  /** The content of a revision of the change request's space. */
  const content = (revisionId: string, spaceId: string): RevisionContent => getRevision(db, revisionId, spaceId)!.content;

  /** The three-way merge of `ours` and `theirs` against the change request's base, or 409 naming the conflicts. */
  const mergeOrConflict = (
    access: ChangeRequestAccess,
    ours: RevisionContent,
    theirs: RevisionContent,
  ): RevisionContent => {
    const result = mergeContent(content(changeRequestBase(access.changeRequest), access.space.id), ours, theirs);
    if (result.conflicts) {
      throw conflict(
        `change request #${access.changeRequest.number} and the main content changed the same things: ${describeConflicts(result.conflicts)}`,
      );
    }
    return result.content;
  };

  return {
    listChangeRequests({ params, query, caller }) {
      spaceAccess(ctx, caller, params.spaceId);
      const status = query.status ?? 'open';
      const orderBy = query.orderBy ?? 'updatedAt';
      const column = ORDER_COLUMNS[orderBy];
      const filters = ['space_id = ?', 'status = ?'];
      const values: string[] = [params.spaceId, status];
      if (query.creator !== undefined) {
        filters.push('created_by = ?');
        values.push(query.creator);
      }
      if (query.contributor !== undefined) {
        filters.push('id IN (SELECT change_request_id FROM change_request_contributors WHERE user_id = ?)');
        values.push(query.contributor);
      }
      const where = filters.join(' AND ');
      const page = ctx.cursors.page({
        list: listId('listChangeRequests', params.spaceId, status, query.creator, query.contributor, orderBy),
        page: query.page,
        limit: query.limit,
        key: (item: ChangeRequestRow) => [item[column], item.number],
        count: () =>
          (db.prepare(`SELECT COUNT(*) AS n FROM change_requests WHERE ${where}`).get(...values) as { n: number }).n,
        fetch: (key, limit) =>
          db
            .prepare(
              `SELECT * FROM change_requests WHERE ${where} ${key ? `AND ${after([column, 'number'], 'desc')}` : ''}
               ORDER BY ${column} DESC, number DESC LIMIT ?`,
            )
            .all(...values, ...(key ?? []), limit)
            .map(parseChangeRequestRow),
      });
      return { status: 200, body: { ...page, items: presentChangeRequests(ctx, page.items) } };
    },

    createChangeRequest({ params, body, caller }) {
      const access = spaceAccess(ctx, caller, params.spaceId);
      requireSpace(access, 'edit');
      const now = ctx.now();
      const id = newId();
      // Writes are serialised, one transaction each: the next number cannot be taken by a concurrent create.
      const { number } = db
        .prepare('SELECT COALESCE(MAX(number), 0) + 1 AS number FROM change_requests WHERE space_id = ?')
        .get(params.spaceId) as { number: number };
      db.prepare(
        `INSERT INTO change_requests (id, space_id, number, status, subject, agent_task_id, created_by, created_at,
                                      updated_at, revision_id, revision_initial)
         VALUES (?, ?, ?, 'open', ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        id,
        params.spaceId,
        number,
        body.subject ?? null,
        body.agentTaskId ?? null,
        caller.user.id,
        now,
        now,
        access.space.revision_id,
        access.space.revision_id,
      );
      addContributor(db, id, caller.user.id);
      const changeRequest = present(id);
      return { status: 201, body: changeRequest, headers: { location: changeRequest.urls.location } };
    },

    getChangeRequest({ params, caller }) {
      const access = changeRequestAccess(ctx, caller, params.spaceId, params.changeRequestId);
      return { status: 200, body: presentChangeRequest(ctx, access.changeRequest) };
    },

    updateChangeRequest({ params, body, caller }) {
      const access = changeRequestAccess(ctx, caller, params.spaceId, params.changeRequestId);
      requireSpace(access, 'edit');
      const { changeRequest } = access;
      if (CHANGE_REQUEST_STATES[changeRequest.status].final) {
        throw conflict(`change request #${changeRequest.number} is ${changeRequest.status}: it cannot be changed`);
      }
      const changes: Record<string, unknown> = {};
      if (body.subject !== undefined) changes.subject = body.subject;
      // A status a client may set is one of the change request's statuses (CHANGE_REQUEST_STATES knows it).
      if (body.status !== undefined) changes.status = body.status satisfies ChangeRequestStatus;
      if (Object.keys(changes).length > 0) {
        changes.updated_at = ctx.now();
        db.prepare(
          `UPDATE change_requests SET ${Object.keys(changes)
            .map((column) => `${column} = ?`)
            .join(', ')} WHERE id = ?`,
        ).run(...Object.values(changes), changeRequest.id);
      }
      return { status: 200, body: present(changeRequest.id) };
    },

    mergeChangeRequest({ params, caller }) {
      const access = changeRequestAccess(ctx, caller, params.spaceId, params.changeRequestId);
      requireSpace(access, 'merge');
      const { changeRequest, space } = access;
      requireOpenForChanges(changeRequest, 'merged');
      const result = mergeOrConflict(access, content(space.revision_id, space.id), content(changeRequest.revision_id, space.id));
      const now = ctx.now();
      const revision = createRevision(db, {
        spaceId: space.id,
        parents: [space.revision_id, changeRequest.revision_id],
        type: 'merge',
        content: result,
        createdAt: now,
      });
      setCurrentRevision(db, revision, now);
      db.prepare(`UPDATE change_requests SET status = 'merged', revision_merged = ?, updated_at = ? WHERE id = ?`).run(
        revision.id,
        now,
        changeRequest.id,
      );
      return { status: 200, body: { revision: revision.id, result: 'merge' } };
    },

    updateChangeRequestFromMain({ params, caller }) {
      const access = changeRequestAccess(ctx, caller, params.spaceId, params.changeRequestId);
      requireSpace(access, 'edit');
      const { changeRequest, space } = access;
      requireOpenForChanges(changeRequest, 'updated');
      // Already up to date: nothing to bring in, no new revision.
      if (!isOutdated(db, changeRequest)) {
        return { status: 200, body: { revision: changeRequest.revision_id, result: 'update' } };
      }
      const result = mergeOrConflict(access, content(changeRequest.revision_id, space.id), content(space.revision_id, space.id));
      const revision = commitChangeRequestContent(ctx, changeRequest, {
        type: 'update',
        content: result,
        contributor: caller.user.id,
        parents: [space.revision_id],
      });
      db.prepare('UPDATE change_requests SET revision_merged_ancestor = ? WHERE id = ?').run(
        space.revision_id,
        changeRequest.id,
      );
      return { status: 200, body: { revision: revision.id, result: 'update' } };
    },

    async getChangeRequestPdf({ params, query, caller }) {
      const { changeRequest } = changeRequestAccess(ctx, caller, params.spaceId, params.changeRequestId);
      if (query.only && query.page === undefined) throw badRequest('only: needs `page`, the page to print alone');
      const pages = pagesForPdf(content(changeRequest.revision_id, changeRequest.space_id), query.page, query.only ?? false);
      if (!pages) throw badRequest(`page: no page ${query.page} in change request #${changeRequest.number}`);
      const now = ctx.clock.now();
      const pdf = await renderPdf({
        title: `#${changeRequest.number} ${changeRequest.subject || 'Change request'}`,
        pages,
        createdAt: now,
      });
      // Reads run outside a transaction; storing the PDF is this read's one write.
      const id = await ctx.store.write(() =>
        storePdf(db, {
          changeRequestId: changeRequest.id,
          fileName: `change-request-${changeRequest.number}.pdf`,
          content: pdf,
          now,
        }),
      );
      return { status: 200, body: { url: ctx.urls.api(pdfPath(id)) } };
    },
  };
}

/** Routes of this group outside `/v1`: generated PDFs, at the address getChangeRequestPdf answers. */
export function changeRequestRoutes(ctx: AppContext, app: Express): void {
  app.get(pdfPath(':id'), (req: Request, res: Response) => {
    const pdf = findPdf(ctx.db, String(req.params.id), ctx.clock.now());
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

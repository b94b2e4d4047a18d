// Comments on the content of a space or of a change request: posting on it as a whole or on a page (and a block
// of it), listing, editing, resolving, reactions, replies, and the members who commented. The operations are the
// same under both bases; only the scope differs (see domain/comments.ts).
import type { Caller } from '../auth/caller.ts';
import type { AppContext } from '../context.ts';
import { markdownProblem } from '../content/document.ts';
import { findPage, type RevisionContent } from '../content/model.ts';
import { getRevision } from '../content/revisions.ts';
import {
  changeRequestCommentScope,
  COMMENT_STATES,
  CommentPresenter,
  type CommentRow,
  commentPermissions,
  type CommentScope,
  getCommentRow,
  getReplyRow,
  insertComment,
  MAX_REACTIONS,
  type NewComment,
  nodePreview,
  type OutputFormat,
  pageDigest,
  parseCommentRow,
  reactionEmojiCount,
  requireComment,
  requireCommentRow,
  scopeCondition,
  spaceCommentScope,
} from '../domain/comments.ts';
import { type MemberRow, presentMembers } from '../domain/members.ts';
import { requireSpace } from '../domain/spaces.ts';
import { badRequest, notFound } from '../http/errors.ts';
import { after, listId, SORT_ORDERS } from '../http/pagination.ts';
import type { HandlerGroup, Input, Model, QueryParams } from '../http/types.ts';

/** Per `CommentStatusFilter`: the status listed, or every status. */
const STATUS_FILTERS = {
  all: undefined,
  open: 'open',
  resolved: 'resolved',
} satisfies Record<Model<'CommentStatusFilter'>, Model<'CommentStatus'> | undefined>;

type SpaceOperations =
  | 'listSpaceComments'
  | 'createSpaceComment'
  | 'getSpaceComment'
  | 'updateSpaceComment'
  | 'deleteSpaceComment'
  | 'listSpaceCommentReplies'
  | 'createSpaceCommentReply'
  | 'getSpaceCommentReply'
  | 'updateSpaceCommentReply'
  | 'deleteSpaceCommentReply'
  | 'listSpaceCommenters';

type ChangeRequestOperations =
  | 'listChangeRequestComments'
  | 'createChangeRequestComment'
  | 'getChangeRequestComment'
  | 'updateChangeRequestComment'
  | 'deleteChangeRequestComment'
  | 'listChangeRequestCommentReplies'
  | 'createChangeRequestCommentReply'
  | 'getChangeRequestCommentReply'
  | 'updateChangeRequestCommentReply'
  | 'deleteChangeRequestCommentReply'
  | 'listChangeRequestCommenters';

type ListQuery = QueryParams<'listSpaceComments'>;
type Paging = { page?: string; limit?: number };
type ReactionChanges = { addedReactions?: string[]; removedReactions?: string[] };
type ReplyChanges = Input<'UpdateChangeRequestCommentReplyRequest'>;

/** A reaction: an emoji such as 👍 or a short code such as `:+1:`. */
const REACTION = /^\S{1,64}$/u;

export function commentHandlers(ctx: AppContext): HandlerGroup<SpaceOperations | ChangeRequestOperations> {
  const { db } = ctx;

  const presenter = (scope: CommentScope, caller: Caller, format?: OutputFormat) =>
    new CommentPresenter(ctx, scope, caller, format);

  /** Comment markdown is read as a Document: refuse what is too complex to parse (a 400 naming the field). */
  const checkMarkdown = (markdown: string) => {
    const problem = markdownProblem(markdown);
    if (problem !== undefined) throw badRequest(`body.body.markdown: ${problem}`);
  };

  const insertRow = (comment: NewComment) => {
    checkMarkdown(comment.body);
    return insertComment(ctx, comment);
  };

  const reread = (row: CommentRow) => parseCommentRow(db.prepare('SELECT * FROM comments WHERE id = ?').get(row.id));

  const editBody = (row: CommentRow, markdown: string) => {
    checkMarkdown(markdown);
    db.prepare('UPDATE comments SET body = ?, edited_at = ? WHERE id = ?').run(markdown, ctx.now(), row.id);
  };

  /** Resolving keeps the first resolution; reopening clears it. */
  const setResolved = (row: CommentRow, resolved: boolean, caller: Caller) => {
    if (resolved && COMMENT_STATES[row.status].resolved) return;
    db.prepare('UPDATE comments SET status = ?, resolved_at = ?, resolved_by = ? WHERE id = ?').run(
      resolved ? 'resolved' : 'open',
      resolved ? ctx.now() : null,
      resolved ? caller.user.id : null,
      row.id,
    );
  };

  const checkReactions = ({ addedReactions = [], removedReactions = [] }: ReactionChanges) => {
    for (const [field, list] of [['addedReactions', addedReactions], ['removedReactions', removedReactions]] as const) {
      const bad = list.find((emoji) => !REACTION.test(emoji));
      if (bad !== undefined) {
        throw badRequest(`body.${field}: ${JSON.stringify(bad)} is not a reaction (1 to 64 characters, no spaces)`);
      }
    }
    const both = addedReactions.find((emoji) => removedReactions.includes(emoji));
    if (both !== undefined) throw badRequest(`body.removedReactions: ${both} is also in body.addedReactions`);
  };

  const applyReactions = (row: CommentRow, caller: Caller, { addedReactions = [], removedReactions = [] }: ReactionChanges) => {
    const add = db.prepare(
      'INSERT OR IGNORE INTO comment_reactions (comment_id, user_id, emoji, reacted_at) VALUES (?, ?, ?, ?)',
    );
    const remove = db.prepare('DELETE FROM comment_reactions WHERE comment_id = ? AND user_id = ? AND emoji = ?');
    for (const emoji of removedReactions) remove.run(row.id, caller.user.id, emoji);
    for (const emoji of addedReactions) add.run(row.id, caller.user.id, emoji, ctx.now());
    // Checked after the change, inside the request's transaction: a refusal rolls everything back.
    const emojis = addedReactions.length > 0 ? reactionEmojiCount(ctx, row.id) : 0;
    if (emojis > MAX_REACTIONS) {
      throw badRequest(
        `body.addedReactions: a ${row.parent_id ? 'reply' : 'comment'} holds at most ${MAX_REACTIONS} different reactions (this would make ${emojis})`,
      );
    }
  };

  const reacts = (body: ReactionChanges) => Boolean(body.addedReactions?.length || body.removedReactions?.length);

  const requireReply = (parent: CommentRow, replyId: string) => {
    const reply = getReplyRow(ctx, parent, replyId);
    if (!reply) throw notFound(`reply ${replyId} to comment ${parent.id}`);
    return reply;
  };

  const scopeKey = (scope: CommentScope) => [scope.access.space.id, scope.changeRequest?.id ?? null];

  const operations = {
    list(scope: CommentScope, query: ListQuery, caller: Caller) {
      const order = query.order ?? 'desc';
      const status = query.status ?? 'all';
      const { where, values } = scopeCondition(scope);
      const filters = [where, 'comments.parent_id IS NULL'];
      const only = STATUS_FILTERS[status];
      if (only !== undefined) {
        filters.push('comments.status = ?');
        values.push(only);
      }
      if (query.targetPage !== undefined) {
        filters.push('comments.page_id = ?');
        values.push(query.targetPage);
      }
      if (query.authors?.length) {
        filters.push(`comments.posted_by IN (${query.authors.map(() => '?').join(', ')})`);
        values.push(...query.authors);
      }
      const condition = filters.join(' AND ');
      const page = ctx.cursors.page({
        list: listId('listComments', ...scopeKey(scope), order, status, query.targetPage, query.authors),
        page: query.page,
        limit: query.limit,
        key: (row: CommentRow) => [row.posted_at, row.id],
        count: () => (db.prepare(`SELECT COUNT(*) AS n FROM comments WHERE ${condition}`).get(...values) as { n: number }).n,
        fetch: (key, limit) =>
          db
            .prepare(
              `SELECT * FROM comments WHERE ${condition}
               ${key ? `AND ${after(['comments.posted_at', 'comments.id'], order)}` : ''}
               ORDER BY comments.posted_at ${SORT_ORDERS[order].sql}, comments.id ${SORT_ORDERS[order].sql} LIMIT ?`,
            )
            .all(...values, ...(key ?? []), limit)
            .map(parseCommentRow),
      });
      const present = presenter(scope, caller, query.format);
      return { status: 200 as const, body: { ...page, items: present.comments(page.items) } };
    },

    create(scope: CommentScope, body: Input<'CreateCommentRequest'>, caller: Caller) {
      requireSpace(scope.access, 'comment');
      // Without a page, the comment is on the space (or the change request) as a whole.
      let found: ReturnType<typeof findPage>;
      let content: RevisionContent | undefined;
      if (body.page !== undefined) {
        content = getRevision(db, scope.revisionId, scope.access.space.id)?.content;
        found = content && findPage(content, body.page);
        if (!found) throw badRequest(`body.page: no page ${body.page} in revision ${scope.revisionId}`);
      }
      let preview: string | undefined;
      if (body.node !== undefined) {
        if (!found) throw badRequest('body.node: a node is a block of a page; give the page too (body.page)');
        preview = nodePreview(found.page, body.node);
        if (preview === undefined) throw badRequest(`body.node: no block ${body.node} in page ${body.page}`);
      }
      const row = insertRow({
        space_id: scope.access.space.id,
        change_request_id: scope.changeRequest?.id ?? null,
        revision_id: scope.revisionId,
        page_id: found?.page.id ?? null,
        node_id: body.node ?? null,
        table_cell: body.tableCell ? JSON.stringify(body.tableCell) : null,
        posted_by: caller.user.id,
        body: body.body.markdown,
        page_digest: found ? pageDigest(found.page) : null,
        node_preview: preview ?? null,
      });
      const present = presenter(scope, caller);
      if (content) present.knowContent(scope.revisionId, content);
      const comment = present.comment(row, true);
      return { status: 201 as const, body: comment, headers: { location: comment.urls.location } };
    },

    get(scope: CommentScope, commentId: string, format: OutputFormat | undefined, caller: Caller) {
      return { status: 200 as const, body: presenter(scope, caller, format).comment(requireCommentRow(ctx, scope, commentId)) };
    },

    update(scope: CommentScope, commentId: string, body: Input<'UpdateCommentRequest'>, caller: Caller) {
      const row = requireCommentRow(ctx, scope, commentId);
      const permissions = commentPermissions(scope, row, caller);
      if (body.body) requireComment(permissions, 'edit');
      if (body.resolved !== undefined || reacts(body)) requireComment(permissions, 'reply');
      checkReactions(body);
      if (body.body) editBody(row, body.body.markdown);
      if (body.resolved !== undefined) setResolved(row, body.resolved, caller);
      applyReactions(row, caller, body);
      return { status: 200 as const, body: presenter(scope, caller).comment(reread(row)) };
    },

    delete(scope: CommentScope, commentId: string, caller: Caller) {
      const row = getCommentRow(ctx, scope, commentId);
      if (row) {
        requireComment(commentPermissions(scope, row, caller), 'delete');
        // Replies and reactions go with it (foreign keys cascade).
        db.prepare('DELETE FROM comments WHERE id = ?').run(row.id);
      }
      return { status: 204 as const };
    },

    listReplies(scope: CommentScope, commentId: string, query: Paging & { format?: OutputFormat }, caller: Caller) {
      const parent = requireCommentRow(ctx, scope, commentId);
      const page = ctx.cursors.page({
        list: listId('listCommentReplies', ...scopeKey(scope), parent.id),
        page: query.page,
        limit: query.limit,
        key: (row: CommentRow) => [row.posted_at, row.id],
        count: () => (db.prepare('SELECT COUNT(*) AS n FROM comments WHERE parent_id = ?').get(parent.id) as { n: number }).n,
        fetch: (key, limit) =>
          db
            .prepare(
              `SELECT * FROM comments WHERE parent_id = ? ${key ? `AND ${after(['posted_at', 'id'])}` : ''}
               ORDER BY posted_at, id LIMIT ?`,
            )
            .all(parent.id, ...(key ?? []), limit)
            .map(parseCommentRow),
      });
      const present = presenter(scope, caller, query.format);
      return { status: 200 as const, body: { ...page, items: present.replies(page.items) } };
    },

    createReply(scope: CommentScope, commentId: string, body: Input<'CreateCommentReplyRequest'>, caller: Caller) {
      const parent = requireCommentRow(ctx, scope, commentId);
      requireComment(commentPermissions(scope, parent, caller), 'reply');
      const row = insertRow({
        space_id: parent.space_id,
        change_request_id: parent.change_request_id,
        parent_id: parent.id,
        posted_by: caller.user.id,
        body: body.body.markdown,
      });
      const reply = presenter(scope, caller).reply(row, true);
      return { status: 201 as const, body: reply, headers: { location: reply.urls.location } };
    },

    getReply(scope: CommentScope, commentId: string, replyId: string, format: OutputFormat | undefined, caller: Caller) {
      const reply = requireReply(requireCommentRow(ctx, scope, commentId), replyId);
      return { status: 200 as const, body: presenter(scope, caller, format).reply(reply) };
    },

    updateReply(scope: CommentScope, commentId: string, replyId: string, body: ReplyChanges, caller: Caller) {
      const parent = requireCommentRow(ctx, scope, commentId);
      const reply = requireReply(parent, replyId);
      const permissions = commentPermissions(scope, reply, caller);
      if (body.body) requireComment(permissions, 'edit');
      if (reacts(body)) requireComment(permissions, 'reply');
      if (body.resolved !== undefined) requireComment(commentPermissions(scope, parent, caller), 'reply');
      checkReactions(body);
      if (body.body) editBody(reply, body.body.markdown);
      if (body.resolved !== undefined) setResolved(parent, body.resolved, caller);
      applyReactions(reply, caller, body);
      return { status: 200 as const, body: presenter(scope, caller).reply(reread(reply)) };
    },

    deleteReply(scope: CommentScope, commentId: string, replyId: string, caller: Caller) {
      const reply = getReplyRow(ctx, requireCommentRow(ctx, scope, commentId), replyId);
      if (reply) {
        requireComment(commentPermissions(scope, reply, caller), 'delete');
        db.prepare('DELETE FROM comments WHERE id = ?').run(reply.id);
      }
      return { status: 204 as const };
    },

    /** Members who posted comments or replies in the scope, in order of their first one. */
    listCommenters(scope: CommentScope, query: Paging) {
      const { where, values } = scopeCondition(scope);
      const from = `FROM (SELECT posted_by, MIN(posted_at) AS first_posted_at FROM comments WHERE ${where} GROUP BY posted_by)
                      AS commenters
                    JOIN members ON members.user_id = commenters.posted_by AND members.organization_id = ?`;
      const organizationId = scope.access.space.organization_id;
      type CommenterRow = MemberRow & { first_posted_at: string };
      const page = ctx.cursors.page({
        list: listId('listCommenters', ...scopeKey(scope)),
        page: query.page,
        limit: query.limit,
        key: (row: CommenterRow) => [row.first_posted_at, row.user_id],
        count: () => (db.prepare(`SELECT COUNT(*) AS n ${from}`).get(...values, organizationId) as { n: number }).n,
        fetch: (key, limit) =>
          db
            .prepare(
              `SELECT members.*, commenters.first_posted_at
               ${from}
               ${key ? `WHERE ${after(['commenters.first_posted_at', 'members.user_id'])}` : ''}
               ORDER BY commenters.first_posted_at, members.user_id LIMIT ?`,
            )
            .all(...values, organizationId, ...(key ?? []), limit) as CommenterRow[],
      });
      return { status: 200 as const, body: { ...page, items: presentMembers(ctx, page.items) } };
    },
  };

  const space = (caller: Caller, params: { spaceId: string }) => spaceCommentScope(ctx, caller, params.spaceId);
  const changeRequest = (caller: Caller, params: { spaceId: string; changeRequestId: string }) =>
    changeRequestCommentScope(ctx, caller, params.spaceId, params.changeRequestId);

  return {
    listSpaceComments: ({ params, query, caller }) => operations.list(space(caller, params), query, caller),
    createSpaceComment: ({ params, body, caller }) => operations.create(space(caller, params), body, caller),
    getSpaceComment: ({ params, query, caller }) =>
      operations.get(space(caller, params), params.commentId, query.format, caller),
    updateSpaceComment: ({ params, body, caller }) =>
      operations.update(space(caller, params), params.commentId, body, caller),
    deleteSpaceComment: ({ params, caller }) => operations.delete(space(caller, params), params.commentId, caller),
    listSpaceCommentReplies: ({ params, query, caller }) =>
      operations.listReplies(space(caller, params), params.commentId, query, caller),
    createSpaceCommentReply: ({ params, body, caller }) =>
      operations.createReply(space(caller, params), params.commentId, body, caller),
    getSpaceCommentReply: ({ params, query, caller }) =>
      operations.getReply(space(caller, params), params.commentId, params.commentReplyId, query.format, caller),
    updateSpaceCommentReply: ({ params, body, caller }) =>
      operations.updateReply(space(caller, params), params.commentId, params.commentReplyId, body, caller),
    deleteSpaceCommentReply: ({ params, caller }) =>
      operations.deleteReply(space(caller, params), params.commentId, params.commentReplyId, caller),
    listSpaceCommenters: ({ params, query, caller }) => operations.listCommenters(space(caller, params), query),

    listChangeRequestComments: ({ params, query, caller }) =>
      operations.list(changeRequest(caller, params), query, caller),
    createChangeRequestComment: ({ params, body, caller }) =>
      operations.create(changeRequest(caller, params), body, caller),
    getChangeRequestComment: ({ params, query, caller }) =>
      operations.get(changeRequest(caller, params), params.commentId, query.format, caller),
    updateChangeRequestComment: ({ params, body, caller }) =>
      operations.update(changeRequest(caller, params), params.commentId, body, caller),
    deleteChangeRequestComment: ({ params, caller }) =>
      operations.delete(changeRequest(caller, params), params.commentId, caller),
    listChangeRequestCommentReplies: ({ params, query, caller }) =>
      operations.listReplies(changeRequest(caller, params), params.commentId, query, caller),
    createChangeRequestCommentReply: ({ params, body, caller }) =>
      operations.createReply(changeRequest(caller, params), params.commentId, body, caller),
    getChangeRequestCommentReply: ({ params, query, caller }) =>
      operations.getReply(changeRequest(caller, params), params.commentId, params.commentReplyId, query.format, caller),
    updateChangeRequestCommentReply: ({ params, body, caller }) =>
      operations.updateReply(changeRequest(caller, params), params.commentId, params.commentReplyId, body, caller),
    deleteChangeRequestCommentReply: ({ params, caller }) =>
      operations.deleteReply(changeRequest(caller, params), params.commentId, params.commentReplyId, caller),
    listChangeRequestCommenters: ({ params, query, caller }) =>
      operations.listCommenters(changeRequest(caller, params), query),
  };
}

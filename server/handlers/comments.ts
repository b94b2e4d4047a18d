// Comments on the content of a space or of a change request: posting on it as a whole or on a page (and a block
// of it), listing, editing, resolving, reactions, replies, and the members who commented. The operations are the
// same under both bases; only the scope differs (see domain/comments.ts).
import type { Caller } from '../auth/caller.ts';
import type { Scope } from '../context/context.ts';
import {
  changeRequestCommentScope,
  type CommentChanges,
  type CommentListFilters,
  commentListing,
  CommentPresenter,
  type CommentScope,
  commenterListing,
  deleteComment,
  deleteReply,
  type Named,
  type OutputFormat,
  postComment,
  postReply,
  type ReplyChanges,
  replyListing,
  requireCommentRow,
  requireReplyRow,
  spaceCommentScope,
  updateComment,
  updateReply,
} from '../domain/comments.ts';
import type { Input, Model } from '../common/contract.ts';
import { presentMembers } from '../domain/members.ts';
import { listId } from '../common/paging.ts';
import type { HandlerGroup, QueryParams } from './types.ts';

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

const presenter = (ctx: Scope, scope: CommentScope, caller: Caller, format?: OutputFormat) => new CommentPresenter(ctx, scope, caller, format);

const scopeKey = (scope: CommentScope) => [scope.access.space.id, scope.changeRequest?.id ?? null];

const operations = {
  async list(ctx: Scope, scope: CommentScope, query: ListQuery, caller: Caller) {
    const order = query.order ?? 'desc';
    const status = query.status ?? 'all';
    const only = STATUS_FILTERS[status];
    const filters: CommentListFilters = {
      ...(only !== undefined ? { status: only } : {}),
      ...(query.targetPage !== undefined ? { pageId: query.targetPage } : {}),
      ...(query.authors?.length ? { authors: query.authors } : {}),
    };
    const page = await ctx.cursors.page({
      list: listId('listComments', ...scopeKey(scope), order, status, query.targetPage, query.authors),
      page: query.page,
      limit: query.limit,
      ...commentListing(ctx, scope, filters, order),
    });
    const present = presenter(ctx, scope, caller, query.format);
    return { status: 200 as const, body: { ...page, items: await present.comments(page.items) } };
  },

  async create(ctx: Scope, scope: CommentScope, body: Input<'CreateCommentRequest'>, caller: Caller) {
    const comment = await postComment(ctx, scope, caller, body);
    return { status: 201 as const, body: comment, headers: { location: comment.urls.location } };
  },

  async get(ctx: Scope, scope: CommentScope, commentId: string, format: OutputFormat | undefined, caller: Caller) {
    return { status: 200 as const, body: await presenter(ctx, scope, caller, format).comment(await requireCommentRow(ctx, scope, commentId)) };
  },

  async update(ctx: Scope, scope: CommentScope, commentId: string, body: CommentChanges, caller: Caller) {
    return { status: 200 as const, body: await updateComment(ctx, scope, caller, commentId, body) };
  },

  async delete(ctx: Scope, scope: CommentScope, commentId: string, caller: Caller) {
    await deleteComment(ctx, scope, caller, commentId);
    return { status: 204 as const };
  },

  async listReplies(ctx: Scope, scope: CommentScope, commentId: string, query: Paging & { format?: OutputFormat }, caller: Caller) {
    const parent = await requireCommentRow(ctx, scope, commentId);
    const page = await ctx.cursors.page({
      list: listId('listCommentReplies', ...scopeKey(scope), parent.id),
      page: query.page,
      limit: query.limit,
      ...replyListing(ctx, parent),
    });
    const present = presenter(ctx, scope, caller, query.format);
    return { status: 200 as const, body: { ...page, items: await present.replies(page.items) } };
  },

  async createReply(ctx: Scope, scope: CommentScope, commentId: string, body: Input<'CreateCommentReplyRequest'>, caller: Caller) {
    const reply = await postReply(ctx, scope, caller, commentId, body);
    return { status: 201 as const, body: reply, headers: { location: reply.urls.location } };
  },

  async getReply(ctx: Scope, scope: CommentScope, commentId: string, replyId: string, format: OutputFormat | undefined, caller: Caller) {
    const reply = await requireReplyRow(ctx, await requireCommentRow(ctx, scope, commentId), replyId, scope);
    return { status: 200 as const, body: await presenter(ctx, scope, caller, format).reply(reply) };
  },

  async updateReply(ctx: Scope, scope: CommentScope, commentId: string, replyId: string, body: ReplyChanges, caller: Caller) {
    return { status: 200 as const, body: await updateReply(ctx, scope, caller, commentId, replyId, body) };
  },

  async deleteReply(ctx: Scope, scope: CommentScope, commentId: string, replyId: string, caller: Caller) {
    await deleteReply(ctx, scope, caller, commentId, replyId);
    return { status: 204 as const };
  },

  /** Members who posted comments or replies in the scope, in order of their first one. */
  async listCommenters(ctx: Scope, scope: CommentScope, query: Paging) {
    const page = await ctx.cursors.page({
      list: listId('listCommenters', ...scopeKey(scope)),
      page: query.page,
      limit: query.limit,
      ...commenterListing(ctx, scope),
    });
    return { status: 200 as const, body: { ...page, items: await presentMembers(ctx, page.items) } };
  },
};

// The comment and reply the path names are read with the scope (see `Named`).
const space = (ctx: Scope, caller: Caller, params: { spaceId: string } & Named) => spaceCommentScope(ctx, caller, params.spaceId, params);
const changeRequest = (ctx: Scope, caller: Caller, params: { spaceId: string; changeRequestId: string } & Named) =>
  changeRequestCommentScope(ctx, caller, params.spaceId, params.changeRequestId, params);

export const commentHandlers: HandlerGroup<SpaceOperations | ChangeRequestOperations> = {
  listSpaceComments: async ({ params, query, caller }, ctx) => operations.list(ctx, await space(ctx, caller, params), query, caller),
  createSpaceComment: async ({ params, body, caller }, ctx) => operations.create(ctx, await space(ctx, caller, params), body, caller),
  getSpaceComment: async ({ params, query, caller }, ctx) =>
    operations.get(ctx, await space(ctx, caller, params), params.commentId, query.format, caller),
  updateSpaceComment: async ({ params, body, caller }, ctx) =>
    operations.update(ctx, await space(ctx, caller, params), params.commentId, body, caller),
  deleteSpaceComment: async ({ params, caller }, ctx) => operations.delete(ctx, await space(ctx, caller, params), params.commentId, caller),
  listSpaceCommentReplies: async ({ params, query, caller }, ctx) =>
    operations.listReplies(ctx, await space(ctx, caller, params), params.commentId, query, caller),
  createSpaceCommentReply: async ({ params, body, caller }, ctx) =>
    operations.createReply(ctx, await space(ctx, caller, params), params.commentId, body, caller),
  getSpaceCommentReply: async ({ params, query, caller }, ctx) =>
    operations.getReply(ctx, await space(ctx, caller, params), params.commentId, params.commentReplyId, query.format, caller),
  updateSpaceCommentReply: async ({ params, body, caller }, ctx) =>
    operations.updateReply(ctx, await space(ctx, caller, params), params.commentId, params.commentReplyId, body, caller),
  deleteSpaceCommentReply: async ({ params, caller }, ctx) =>
    operations.deleteReply(ctx, await space(ctx, caller, params), params.commentId, params.commentReplyId, caller),
  listSpaceCommenters: async ({ params, query, caller }, ctx) => operations.listCommenters(ctx, await space(ctx, caller, params), query),

  listChangeRequestComments: async ({ params, query, caller }, ctx) =>
    operations.list(ctx, await changeRequest(ctx, caller, params), query, caller),
  createChangeRequestComment: async ({ params, body, caller }, ctx) =>
    operations.create(ctx, await changeRequest(ctx, caller, params), body, caller),
  getChangeRequestComment: async ({ params, query, caller }, ctx) =>
    operations.get(ctx, await changeRequest(ctx, caller, params), params.commentId, query.format, caller),
  updateChangeRequestComment: async ({ params, body, caller }, ctx) =>
    operations.update(ctx, await changeRequest(ctx, caller, params), params.commentId, body, caller),
  deleteChangeRequestComment: async ({ params, caller }, ctx) =>
    operations.delete(ctx, await changeRequest(ctx, caller, params), params.commentId, caller),
  listChangeRequestCommentReplies: async ({ params, query, caller }, ctx) =>
    operations.listReplies(ctx, await changeRequest(ctx, caller, params), params.commentId, query, caller),
  createChangeRequestCommentReply: async ({ params, body, caller }, ctx) =>
    operations.createReply(ctx, await changeRequest(ctx, caller, params), params.commentId, body, caller),
  getChangeRequestCommentReply: async ({ params, query, caller }, ctx) =>
    operations.getReply(ctx, await changeRequest(ctx, caller, params), params.commentId, params.commentReplyId, query.format, caller),
  updateChangeRequestCommentReply: async ({ params, body, caller }, ctx) =>
    operations.updateReply(ctx, await changeRequest(ctx, caller, params), params.commentId, params.commentReplyId, body, caller),
  deleteChangeRequestCommentReply: async ({ params, caller }, ctx) =>
    operations.deleteReply(ctx, await changeRequest(ctx, caller, params), params.commentId, params.commentReplyId, caller),
  listChangeRequestCommenters: async ({ params, query, caller }, ctx) =>
    operations.listCommenters(ctx, await changeRequest(ctx, caller, params), query),
};

// Comments on the content of a space or of a change request: posting on it as a whole or on a page (and a block
// of it), listing, editing, resolving, reactions, replies, and the members who commented. The operations are the
// same under both bases; only the scope differs (see domain/comments.ts).
import type { Caller } from '../auth/caller.ts';
import type { Scope } from '../context.ts';
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
  placeOf,
  reactionEmojiCount,
  requireComment,
  requireCommentRow,
  spaceCommentScope,
} from '../domain/comments.ts';
import type { Input, Model } from '../domain/contract.ts';
import { type MemberRow, presentMembers } from '../domain/members.ts';
import { listId } from '../domain/paging.ts';
import { requireSpace } from '../domain/spaces.ts';
import { badRequest, notFound } from '../errors.ts';
import type { HandlerGroup, QueryParams } from './types.ts';
import * as comments from '../store/comments.ts';

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

const presenter = (ctx: Scope, scope: CommentScope, caller: Caller, format?: OutputFormat) => new CommentPresenter(ctx, scope, caller, format);

/** Comment markdown is read as a Document: refuse what is too complex to parse (a 400 naming the field). */
function checkMarkdown(markdown: string): void {
  const problem = markdownProblem(markdown);
  if (problem !== undefined) throw badRequest(`body.body.markdown: ${problem}`);
}

function insertRow(ctx: Scope, comment: NewComment): Promise<CommentRow> {
  checkMarkdown(comment.body);
  return insertComment(ctx, comment);
}

async function reread(ctx: Scope, row: CommentRow): Promise<CommentRow> {
  const place = { spaceId: row.space_id, changeRequestId: row.change_request_id };
  const stored = row.parent_id === null ? await comments.getComment(ctx.db, place, row.id) : await comments.getReply(ctx.db, row.parent_id, row.id);
  return parseCommentRow(stored);
}

async function editBody(ctx: Scope, row: CommentRow, markdown: string): Promise<void> {
  checkMarkdown(markdown);
  await comments.update(ctx.db, row.id, { body: markdown, edited_at: ctx.now() });
}

/** Resolving keeps the first resolution; reopening clears it. */
async function setResolved(ctx: Scope, row: CommentRow, resolved: boolean, caller: Caller): Promise<void> {
  if (resolved && COMMENT_STATES[row.status].resolved) return;
  await comments.update(ctx.db, row.id, {
    status: resolved ? 'resolved' : 'open',
    resolved_at: resolved ? ctx.now() : null,
    resolved_by: resolved ? caller.user.id : null,
  });
}

function checkReactions({ addedReactions = [], removedReactions = [] }: ReactionChanges): void {
  for (const [field, list] of [['addedReactions', addedReactions], ['removedReactions', removedReactions]] as const) {
    const bad = list.find((emoji) => !REACTION.test(emoji));
    if (bad !== undefined) {
      throw badRequest(`body.${field}: ${JSON.stringify(bad)} is not a reaction (1 to 64 characters, no spaces)`);
    }
  }
  const both = addedReactions.find((emoji) => removedReactions.includes(emoji));
  if (both !== undefined) throw badRequest(`body.removedReactions: ${both} is also in body.addedReactions`);
}

async function applyReactions(ctx: Scope, row: CommentRow, caller: Caller, { addedReactions = [], removedReactions = [] }: ReactionChanges): Promise<void> {
  for (const emoji of removedReactions) await comments.removeReaction(ctx.db, row.id, caller.user.id, emoji);
  for (const emoji of addedReactions) {
    await comments.addReaction(ctx.db, { comment_id: row.id, user_id: caller.user.id, emoji, reacted_at: ctx.now() });
  }
  // Checked after the change, inside the request's transaction: a refusal rolls everything back.
  const emojis = addedReactions.length > 0 ? await reactionEmojiCount(ctx, row.id) : 0;
  if (emojis > MAX_REACTIONS) {
    throw badRequest(
      `body.addedReactions: a ${row.parent_id ? 'reply' : 'comment'} holds at most ${MAX_REACTIONS} different reactions (this would make ${emojis})`,
    );
  }
}

const reacts = (body: ReactionChanges) => Boolean(body.addedReactions?.length || body.removedReactions?.length);

async function requireReply(ctx: Scope, parent: CommentRow, replyId: string): Promise<CommentRow> {
  const reply = await getReplyRow(ctx, parent, replyId);
  if (!reply) throw notFound(`reply ${replyId} to comment ${parent.id}`);
  return reply;
}

const scopeKey = (scope: CommentScope) => [scope.access.space.id, scope.changeRequest?.id ?? null];

const operations = {
  async list(ctx: Scope, scope: CommentScope, query: ListQuery, caller: Caller) {
    const order = query.order ?? 'desc';
    const status = query.status ?? 'all';
    const only = STATUS_FILTERS[status];
    const filters: comments.CommentFilters = {
      place: placeOf(scope),
      ...(only !== undefined ? { status: only } : {}),
      ...(query.targetPage !== undefined ? { pageId: query.targetPage } : {}),
      ...(query.authors?.length ? { authors: query.authors } : {}),
    };
    const page = await ctx.cursors.page({
      list: listId('listComments', ...scopeKey(scope), order, status, query.targetPage, query.authors),
      page: query.page,
      limit: query.limit,
      key: (row: CommentRow) => [row.posted_at, row.id],
      count: () => comments.count(ctx.db, filters),
      fetch: async (key, limit) => (await comments.page(ctx.db, filters, order, key, limit)).map(parseCommentRow),
    });
    const present = presenter(ctx, scope, caller, query.format);
    return { status: 200 as const, body: { ...page, items: await present.comments(page.items) } };
  },

  async create(ctx: Scope, scope: CommentScope, body: Input<'CreateCommentRequest'>, caller: Caller) {
    requireSpace(scope.access, 'comment');
    // Without a page, the comment is on the space (or the change request) as a whole.
    let found: ReturnType<typeof findPage>;
    let content: RevisionContent | undefined;
    if (body.page !== undefined) {
      content = (await getRevision(ctx.db, scope.revisionId, scope.access.space.id))?.content;
      found = content && findPage(content, body.page);
      if (!found) throw badRequest(`body.page: no page ${body.page} in revision ${scope.revisionId}`);
    }
    let preview: string | undefined;
    if (body.node !== undefined) {
      if (!found) throw badRequest('body.node: a node is a block of a page; give the page too (body.page)');
      preview = nodePreview(found.page, body.node);
      if (preview === undefined) throw badRequest(`body.node: no block ${body.node} in page ${body.page}`);
    }
    const row = await insertRow(ctx, {
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
    const present = presenter(ctx, scope, caller);
    if (content) present.knowContent(scope.revisionId, content);
    const comment = await present.comment(row, true);
    return { status: 201 as const, body: comment, headers: { location: comment.urls.location } };
  },

  async get(ctx: Scope, scope: CommentScope, commentId: string, format: OutputFormat | undefined, caller: Caller) {
    return { status: 200 as const, body: await presenter(ctx, scope, caller, format).comment(await requireCommentRow(ctx, scope, commentId)) };
  },

  async update(ctx: Scope, scope: CommentScope, commentId: string, body: Input<'UpdateCommentRequest'>, caller: Caller) {
    const row = await requireCommentRow(ctx, scope, commentId);
    const permissions = commentPermissions(scope, row, caller);
    if (body.body) requireComment(permissions, 'edit');
    if (body.resolved !== undefined || reacts(body)) requireComment(permissions, 'reply');
    checkReactions(body);
    if (body.body) await editBody(ctx, row, body.body.markdown);
    if (body.resolved !== undefined) await setResolved(ctx, row, body.resolved, caller);
    await applyReactions(ctx, row, caller, body);
    return { status: 200 as const, body: await presenter(ctx, scope, caller).comment(await reread(ctx, row)) };
  },

  async delete(ctx: Scope, scope: CommentScope, commentId: string, caller: Caller) {
    const row = await getCommentRow(ctx, scope, commentId);
    if (row) {
      requireComment(commentPermissions(scope, row, caller), 'delete');
      // Replies and reactions go with it (foreign keys cascade).
      await comments.remove(ctx.db, row.id);
    }
    return { status: 204 as const };
  },

  async listReplies(ctx: Scope, scope: CommentScope, commentId: string, query: Paging & { format?: OutputFormat }, caller: Caller) {
    const parent = await requireCommentRow(ctx, scope, commentId);
    const page = await ctx.cursors.page({
      list: listId('listCommentReplies', ...scopeKey(scope), parent.id),
      page: query.page,
      limit: query.limit,
      key: (row: CommentRow) => [row.posted_at, row.id],
      count: () => comments.countReplies(ctx.db, parent.id),
      fetch: async (key, limit) => (await comments.pageOfReplies(ctx.db, parent.id, key, limit)).map(parseCommentRow),
    });
    const present = presenter(ctx, scope, caller, query.format);
    return { status: 200 as const, body: { ...page, items: await present.replies(page.items) } };
  },

  async createReply(ctx: Scope, scope: CommentScope, commentId: string, body: Input<'CreateCommentReplyRequest'>, caller: Caller) {
    const parent = await requireCommentRow(ctx, scope, commentId);
    requireComment(commentPermissions(scope, parent, caller), 'reply');
    const row = await insertRow(ctx, {
      space_id: parent.space_id,
      change_request_id: parent.change_request_id,
      parent_id: parent.id,
      posted_by: caller.user.id,
      body: body.body.markdown,
    });
    const reply = await presenter(ctx, scope, caller).reply(row, true);
    return { status: 201 as const, body: reply, headers: { location: reply.urls.location } };
  },

  async getReply(ctx: Scope, scope: CommentScope, commentId: string, replyId: string, format: OutputFormat | undefined, caller: Caller) {
    const reply = await requireReply(ctx, await requireCommentRow(ctx, scope, commentId), replyId);
    return { status: 200 as const, body: await presenter(ctx, scope, caller, format).reply(reply) };
  },

  async updateReply(ctx: Scope, scope: CommentScope, commentId: string, replyId: string, body: ReplyChanges, caller: Caller) {
    const parent = await requireCommentRow(ctx, scope, commentId);
    const reply = await requireReply(ctx, parent, replyId);
    const permissions = commentPermissions(scope, reply, caller);
    if (body.body) requireComment(permissions, 'edit');
    if (reacts(body)) requireComment(permissions, 'reply');
    if (body.resolved !== undefined) requireComment(commentPermissions(scope, parent, caller), 'reply');
    checkReactions(body);
    if (body.body) await editBody(ctx, reply, body.body.markdown);
    if (body.resolved !== undefined) await setResolved(ctx, parent, body.resolved, caller);
    await applyReactions(ctx, reply, caller, body);
    return { status: 200 as const, body: await presenter(ctx, scope, caller).reply(await reread(ctx, reply)) };
  },

  async deleteReply(ctx: Scope, scope: CommentScope, commentId: string, replyId: string, caller: Caller) {
    const reply = await getReplyRow(ctx, await requireCommentRow(ctx, scope, commentId), replyId);
    if (reply) {
      requireComment(commentPermissions(scope, reply, caller), 'delete');
      await comments.remove(ctx.db, reply.id);
    }
    return { status: 204 as const };
  },

  /** Members who posted comments or replies in the scope, in order of their first one. */
  async listCommenters(ctx: Scope, scope: CommentScope, query: Paging) {
    const place = placeOf(scope);
    const organizationId = scope.access.space.organization_id;
    type CommenterRow = MemberRow & { first_posted_at: string };
    const page = await ctx.cursors.page({
      list: listId('listCommenters', ...scopeKey(scope)),
      page: query.page,
      limit: query.limit,
      key: (row: CommenterRow) => [row.first_posted_at, row.user_id],
      count: () => comments.countCommenters(ctx.db, place, organizationId),
      fetch: async (key, limit) => (await comments.pageOfCommenters(ctx.db, place, organizationId, key, limit)) as CommenterRow[],
    });
    return { status: 200 as const, body: { ...page, items: await presentMembers(ctx, page.items) } };
  },
};

const space = (ctx: Scope, caller: Caller, params: { spaceId: string }) => spaceCommentScope(ctx, caller, params.spaceId);
const changeRequest = (ctx: Scope, caller: Caller, params: { spaceId: string; changeRequestId: string }) =>
  changeRequestCommentScope(ctx, caller, params.spaceId, params.changeRequestId);

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

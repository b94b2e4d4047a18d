// Comments and replies: where they live (a space, or a change request of it), the caller's permissions on them,
// their reactions, how the API shows them, and the operations on them (posting, editing, resolving, reacting,
// deleting, listing). A comment is a row with `parentId` null, a reply one with `parentId` set; space-level rows
// have `changeRequestId` null.
import { type Caller, findUsers } from '../auth/caller.ts';
import { ROLE_RANKS } from '../auth/roles.ts';
import { type AppContext, type Scope } from '../context/context.ts';
import { BODY_FORMATS, documentBlocks, markdownProblem } from '../content/document.ts';
import { findPage, type RevisionContent, type StoredPage } from '../content/model.ts';
import { currentRevision, getRevision } from '../content/revisions.ts';
import { badRequest, forbidden, notFound } from '../common/errors.ts';
import type { Input, Model } from '../common/contract.ts';
import { fromJson } from '../store/db.ts';
import * as comments from '../store/comments.ts';
import { type ChangeRequestRow, changeRequestAccess } from './change-requests.ts';
import { rowParser } from '../store/enums.ts';
import { newId, sha256 } from '../common/ids.ts';
import type { MemberRow } from './members.ts';
import type { Key } from '../common/paging.ts';
import { requireSpace, type SpaceAccess, spaceAccess } from './spaces.ts';
import { presentUser, presentUserById } from './users.ts';
import type { Row } from '../store/schema.ts';

/** Per `CommentStatus`: whether the comment is resolved (resolving it again keeps the first resolution). */
export const COMMENT_STATES = {
  open: { resolved: false },
  resolved: { resolved: true },
} satisfies Record<Model<'CommentStatus'>, { resolved: boolean }>;

export type CommentRow = Row<'comments', { status: Model<'CommentStatus'> }>;

/** A `comments` row checked: its status is one of the contract's. */
export const parseCommentRow = rowParser<CommentRow>('comments', { status: COMMENT_STATES });

export type CommentPermissions = Model<'CommentPermissions'>;
export type OutputFormat = Model<'OutputFormat'>;

/** Where comments live: a space, or a change request of it, as the caller may see it. */
export interface CommentScope {
  access: SpaceAccess;
  changeRequest?: ChangeRequestRow;
  /** The revision comments are posted on and compared with: the space's current one, or the change request's. */
  revisionId: string;
  /** API address of the comments of the scope. */
  location: string;
  /** The comment and reply the request names, read with the scope (`Named`), each taken by its first read. */
  ahead?: Ahead;
}

/** The comment and the reply a request's path names (`commentId`, `commentReplyId`). */
export interface Named {
  commentId?: string;
  commentReplyId?: string;
}

/** The rows of what the request names, read before the scope's access is known (see `readAhead`). */
interface Ahead {
  place: comments.CommentPlace;
  commentId?: string;
  comment?: Promise<comments.CommentRecord | undefined>;
  replyId?: string;
  reply?: Promise<comments.CommentRecord | undefined>;
}

/**
 * Sends the reads of the comment and reply `named` in `place` with the scope's own, in one round trip on PostgreSQL
 * (nothing is shown before the scope's access is checked: `getCommentRow` and `getReplyRow` take them).
 */
function readAhead(ctx: Scope, place: comments.CommentPlace, named: Named | undefined): Ahead | undefined {
  if (named?.commentId === undefined) return undefined;
  const ahead: Ahead = { place, commentId: named.commentId, comment: comments.getComment(ctx.db, place, named.commentId) };
  if (named.commentReplyId !== undefined) {
    ahead.replyId = named.commentReplyId;
    ahead.reply = comments.getReply(ctx.db, named.commentId, named.commentReplyId);
  }
  // A scope refused leaves them unread; their failure is met by whoever takes them.
  for (const read of [ahead.comment, ahead.reply]) void read?.catch(() => undefined);
  return ahead;
}

export async function spaceCommentScope(ctx: Scope, caller: Caller, spaceId: string, named?: Named): Promise<CommentScope> {
  const ahead = readAhead(ctx, { spaceId, changeRequestId: null }, named);
  const access = await spaceAccess(ctx, caller, spaceId);
  return {
    access,
    revisionId: access.space.revisionId,
    location: ctx.urls.api(`/v1/spaces/${access.space.id}/comments`),
    ...(ahead === undefined ? {} : { ahead }),
  };
}

export async function changeRequestCommentScope(
  ctx: Scope,
  caller: Caller,
  spaceId: string,
  changeRequestId: string,
  named?: Named,
): Promise<CommentScope> {
  // Named by its id (not its number), the change request is the place the comments are read in.
  const ahead = readAhead(ctx, { spaceId, changeRequestId }, named);
  const { changeRequest, ...access } = await changeRequestAccess(ctx, caller, spaceId, changeRequestId);
  return {
    access,
    changeRequest,
    revisionId: changeRequest.revisionId,
    location: ctx.urls.api(`/v1/spaces/${access.space.id}/change-requests/${changeRequest.id}/comments`),
    ...(ahead === undefined ? {} : { ahead }),
  };
}

/** Where the comments of a scope are stored. */
export const placeOf = (scope: CommentScope): comments.CommentPlace => ({
  spaceId: scope.access.space.id,
  changeRequestId: scope.changeRequest?.id ?? null,
});

/** The comment `id` of the scope (not a reply), or undefined. */
export async function getCommentRow(ctx: Scope, scope: CommentScope, id: string): Promise<CommentRow | undefined> {
  const place = placeOf(scope);
  const { ahead } = scope;
  let read: Promise<comments.CommentRecord | undefined> | undefined;
  if (ahead?.comment !== undefined && ahead.commentId === id && ahead.place.spaceId === place.spaceId && ahead.place.changeRequestId === place.changeRequestId) {
    read = ahead.comment;
    ahead.comment = undefined;
  }
  const row = await (read ?? comments.getComment(ctx.db, place, id));
  return row === undefined ? undefined : parseCommentRow(row);
}

export async function requireCommentRow(ctx: Scope, scope: CommentScope, id: string): Promise<CommentRow> {
  const row = await getCommentRow(ctx, scope, id);
  if (!row) throw notFound(`comment ${id}`);
  return row;
}

/** The reply `id` to the comment `parent`, or undefined. */
export async function getReplyRow(ctx: Scope, parent: CommentRow, id: string, scope?: CommentScope): Promise<CommentRow | undefined> {
  const ahead = scope?.ahead;
  let read: Promise<comments.CommentRecord | undefined> | undefined;
  if (ahead?.reply !== undefined && ahead.commentId === parent.id && ahead.replyId === id) {
    read = ahead.reply;
    ahead.reply = undefined;
  }
  const row = await (read ?? comments.getReply(ctx.db, parent.id, id));
  return row === undefined ? undefined : parseCommentRow(row);
}

/** What a new comment or reply is given; the other columns start empty (not edited, open, not resolved). */
export type NewComment = Pick<CommentRow, 'spaceId' | 'changeRequestId' | 'postedBy' | 'body'> &
  Partial<Pick<CommentRow, 'parentId' | 'revisionId' | 'pageId' | 'nodeId' | 'tableCell' | 'pageDigest' | 'nodePreview'>>;

/**
 * Inserts a comment or reply posted now, and returns its row as stored. The row is made here and every column of it
 * written, rather than read back with `RETURNING *`, which makes SQLite gather the statement's output in a table of
 * its own and read it again, for columns this function already knows. test/api/comments.test.ts compares
 * this row with the stored one, column by column (a column added to the table and not here shows there).
 */
export async function insertComment(ctx: Scope, comment: NewComment): Promise<CommentRow> {
  const row = newCommentRow(ctx, comment);
  await comments.insert(ctx.db, row);
  return row;
}

/** The row of a comment or reply posted now: a new id, the time, its state (open, not edited). */
function newCommentRow(ctx: AppContext, comment: NewComment): CommentRow {
  return {
    id: newId(),
    spaceId: comment.spaceId,
    changeRequestId: comment.changeRequestId,
    parentId: comment.parentId ?? null,
    revisionId: comment.revisionId ?? null,
    pageId: comment.pageId ?? null,
    nodeId: comment.nodeId ?? null,
    tableCell: comment.tableCell ?? null,
    postedBy: comment.postedBy,
    postedAt: ctx.now(),
    editedAt: null,
    body: comment.body,
    status: 'open',
    resolvedAt: null,
    resolvedBy: null,
    pageDigest: comment.pageDigest ?? null,
    nodePreview: comment.nodePreview ?? null,
  };
}

/**
 * What the caller may do with a comment or reply; handlers enforce exactly these. Replying, reacting and resolving
 * need the space's `comment` permission (`reply`); editing and deleting also need to be the author or to have the
 * space's `admin` permission.
 */
export function commentPermissions(scope: CommentScope, row: CommentRow, caller: Caller): CommentPermissions {
  const { view, comment, admin } = scope.access.permissions;
  const authorOrAdmin = comment && (row.postedBy === caller.user.id || admin);
  return { view, edit: authorOrAdmin, reply: comment, delete: authorOrAdmin };
}

const NEEDS: Record<keyof CommentPermissions, string> = {
  view: 'this operation needs the view permission on the space',
  edit: "editing needs the comment permission on the space, and editing someone else's comment needs the admin permission",
  reply: 'this operation needs the comment permission on the space',
  delete: "deleting needs the comment permission on the space, and deleting someone else's comment needs the admin permission",
};

export function requireComment(permissions: CommentPermissions, permission: keyof CommentPermissions): void {
  if (!permissions[permission]) throw forbidden(NEEDS[permission]);
}

/** Digests of the pages of revisions (frozen, never changed: content/revisions.ts), made once per page. */
const pageDigests = new WeakMap<StoredPage, string>();

/**
 * Digest of what makes a page outdated for its comments: its title and content. Posting a comment on a page and
 * showing each comment of a list (whether it is outdated) hash the page's markdown; a page read from a revision is
 * frozen, so its digest is kept with it (a page built in place, not frozen, is hashed each time).
 */
export function pageDigest(page: StoredPage): string {
  let digest = pageDigests.get(page);
  if (digest === undefined) {
    digest = sha256(JSON.stringify([page.title, page.markdown ?? '']));
    if (Object.isFrozen(page)) pageDigests.set(page, digest);
  }
  return digest;
}

/** Text of the block `node` of a page, or undefined when the page has no such block. */
export const nodePreview = (page: StoredPage, node: string): string | undefined =>
  documentBlocks(page.markdown ?? '').get(node)?.text;

/** Most different emojis a comment or reply holds (the contract's `maxItems` of `reactions`). */
export const MAX_REACTIONS = 20;
/** Most users shown in one reaction (the contract's `maxItems` of `users`); `count` counts them all. */
export const MAX_REACTION_USERS = 20;

/** A reaction as read: its users by id (the presenter shows them). */
type ReactionRead = { emoji: string; count: number; users: { userId: string; reactedAt: string }[] };

/**
 * The reactions to each of some comments or replies (one query for a page of them): one item per emoji, in order of
 * each emoji's first reaction, with its count and its first MAX_REACTION_USERS users in order. However many users
 * reacted, the answer stays small. A comment without reactions has no entry.
 */
async function reactionsOf(ctx: Scope, commentIds: readonly string[]): Promise<Map<string, ReactionRead[]>> {
  if (commentIds.length === 0) return new Map();
  const rows = await comments.reactions(ctx.db, commentIds, MAX_REACTION_USERS);
  const byComment = new Map<string, Map<string, ReactionRead>>();
  for (const row of rows) {
    let byEmoji = byComment.get(row.commentId);
    if (!byEmoji) byComment.set(row.commentId, (byEmoji = new Map()));
    const reaction = byEmoji.get(row.emoji) ?? { emoji: row.emoji, count: row.total, users: [] };
    reaction.users.push({ userId: row.userId, reactedAt: row.reactedAt });
    byEmoji.set(row.emoji, reaction);
  }
  return new Map([...byComment].map(([id, byEmoji]) => [id, [...byEmoji.values()]]));
}

/** Number of replies of each of some comments (one query for a page of them); none: no entry. */
async function replyCountsOf(ctx: Scope, commentIds: readonly string[]): Promise<Map<string, number>> {
  if (commentIds.length === 0) return new Map();
  const rows = await comments.replyCounts(ctx.db, commentIds);
  return new Map(rows.map((row) => [row.parentId, row.n]));
}

/** Number of different emojis of a comment or reply. */
export const reactionEmojiCount = (ctx: Scope, commentId: string): Promise<number> => comments.emojiCount(ctx.db, commentId);

/**
 * Presents the comments and replies of one scope for one caller. Revisions are read once per presenter: the current
 * one to tell whether a page is outdated, older ones only for pages that are gone.
 */
export class CommentPresenter {
  private readonly revisions = new Map<string, RevisionContent | undefined>();
  /** Posters as the API shows them, read once per presenter; the caller, as authentication read them. */
  private readonly users = new Map<string, Model<'User'>>();

  constructor(
    private readonly ctx: Scope,
    private readonly scope: CommentScope,
    private readonly caller: Caller,
    private readonly format: OutputFormat = 'markdown',
  ) {}

  /**
   * What was read for the rows of a page at once (`comments`, `replies`): their reply counts and reactions. A row
   * not among them has its own read.
   */
  private read: { ids: Set<string>; replies: Map<string, number>; reactions: Map<string, ReactionRead[]> } | undefined;

  private async readFor(rows: readonly CommentRow[], replies: boolean): Promise<void> {
    const ids = rows.map((row) => row.id);
    // Read together, one round trip on PostgreSQL: with the current revision when a comment is on a page (`page`).
    const [reactions, replyCounts] = await Promise.all([
      reactionsOf(this.ctx, ids),
      replies ? replyCountsOf(this.ctx, ids) : new Map<string, number>(),
      rows.some((row) => row.pageId) ? this.revision(this.scope.revisionId) : undefined,
    ]);
    this.read = { ids: new Set(ids), replies: replyCounts, reactions };
    // Everyone the page shows: posters, resolvers, and those who reacted, read at once.
    await this.knowUsers([
      ...rows.flatMap((row) => (row.resolvedBy ? [row.postedBy, row.resolvedBy] : [row.postedBy])),
      ...[...reactions.values()].flat().flatMap((reaction) => reaction.users.map((user) => user.userId)),
    ]);
  }

  /** Reads the users of these ids not read yet (one query), for `user`. */
  private async knowUsers(ids: readonly string[]): Promise<void> {
    const missing = [...new Set(ids)].filter((id) => !this.users.has(id) && id !== this.caller.user.id);
    if (missing.length === 0) return;
    for (const [id, user] of await findUsers(this.ctx.db, missing)) this.users.set(id, presentUser(this.ctx, user));
  }

  /** The comments of a page of a list: their replies and reactions read for all of them at once (two queries). */
  async comments(rows: readonly CommentRow[]): Promise<Model<'Comment'>[]> {
    await this.readFor(rows, true);
    const presented: Model<'Comment'>[] = [];
    for (const row of rows) presented.push(await this.comment(row));
    return presented;
  }

  /** The replies of a page of a list: their reactions read for all of them at once. */
  async replies(rows: readonly CommentRow[]): Promise<Model<'CommentReply'>[]> {
    await this.readFor(rows, false);
    const presented: Model<'CommentReply'>[] = [];
    for (const row of rows) presented.push(await this.reply(row));
    return presented;
  }

  /** The content of revision `id`, as the caller has just read it: the presenter reads it no more. */
  knowContent(id: string, content: RevisionContent): void {
    this.revisions.set(id, content);
  }

  /** `posted`: the row was inserted by this request, so it has no replies and no reactions yet (nothing to count). */
  async comment(row: CommentRow, posted = false): Promise<Model<'Comment'>> {
    // What it shows is read together: one round trip on PostgreSQL.
    const [common, replies, target, resolvedBy] = await Promise.all([
      this.common(row, `${this.scope.location}/${row.id}`, posted),
      posted ? 0 : this.replyCount(row.id),
      this.target(row),
      row.resolvedBy ? this.user(row.resolvedBy) : undefined,
    ]);
    return {
      object: 'comment',
      ...common,
      replies,
      target,
      status: row.status,
      ...(row.resolvedAt ? { resolvedAt: row.resolvedAt } : {}),
      ...(resolvedBy ? { resolvedBy } : {}),
    };
  }

  /** `posted`: as for `comment`. */
  async reply(row: CommentRow, posted = false): Promise<Model<'CommentReply'>> {
    return {
      object: 'comment-reply',
      ...(await this.common(row, `${this.scope.location}/${row.parentId}/replies/${row.id}`, posted)),
    };
  }

  private async replyCount(id: string): Promise<number> {
    if (this.read?.ids.has(id)) return this.read.replies.get(id) ?? 0;
    return (await replyCountsOf(this.ctx, [id])).get(id) ?? 0;
  }

  private async reactions(id: string): Promise<Model<'CommentReaction'>[]> {
    let read: ReactionRead[] | undefined;
    if (this.read?.ids.has(id)) read = this.read.reactions.get(id);
    else {
      read = (await reactionsOf(this.ctx, [id])).get(id);
      await this.knowUsers(read?.flatMap((reaction) => reaction.users.map((user) => user.userId)) ?? []);
    }
    const shown: Model<'CommentReaction'>[] = [];
    for (const reaction of read ?? []) {
      const users: Model<'CommentReaction'>['users'] = [];
      for (const user of reaction.users) users.push({ user: await this.user(user.userId), reactedAt: user.reactedAt });
      shown.push({ emoji: reaction.emoji, count: reaction.count, users });
    }
    return shown;
  }

  private async common(row: CommentRow, location: string, posted: boolean) {
    const [postedBy, reactions] = await Promise.all([this.user(row.postedBy), posted ? [] : this.reactions(row.id)]);
    return {
      id: row.id,
      postedBy,
      postedAt: row.postedAt,
      ...(row.editedAt ? { editedAt: row.editedAt } : {}),
      reactions,
      body: BODY_FORMATS[this.format](row.body),
      urls: { location },
      permissions: commentPermissions(this.scope, row, this.caller),
    };
  }

  private async user(id: string): Promise<Model<'User'>> {
    const known = this.users.get(id);
    if (known) return known;
    const user = id === this.caller.user.id ? presentUser(this.ctx, this.caller.user) : await presentUserById(this.ctx, id);
    this.users.set(id, user);
    return user;
  }

  private async target(row: CommentRow): Promise<Model<'CommentTarget'>> {
    const page = row.pageId ? await this.page(row, row.pageId) : undefined;
    return {
      space: row.spaceId,
      ...(page ? { page } : {}),
      ...(row.nodeId ? { node: { id: row.nodeId, ...(row.nodePreview ? { preview: row.nodePreview } : {}) } } : {}),
      ...(row.tableCell ? { tableCell: fromJson<Model<'CommentTableCell'>>(row.tableCell, { record: '', definition: '' }) } : {}),
      ...(row.changeRequestId ? { changeRequest: row.changeRequestId } : {}),
      ...(row.revisionId ? { revision: row.revisionId } : {}),
    };
  }

  /** The page as it is now; as it was when the comment was posted when it is gone (then outdated). */
  private async page(row: CommentRow, pageId: string): Promise<Model<'CommentTargetPage'> | undefined> {
    const current = await this.pageIn(this.scope.revisionId, pageId);
    const found = current ?? (row.revisionId ? await this.pageIn(row.revisionId, pageId) : undefined);
    if (!found) return undefined;
    const { page, path } = found;
    return {
      id: page.id,
      title: page.title,
      ...(page.emoji ? { emoji: page.emoji } : {}),
      ...(page.icon ? { icon: page.icon } : {}),
      createdAt: page.createdAt,
      updatedAt: page.updatedAt,
      path,
      outdated: !current || pageDigest(current.page) !== row.pageDigest,
    };
  }

  private async pageIn(revisionId: string, pageId: string) {
    const content = await this.revision(revisionId);
    return content && findPage(content, pageId);
  }

  /** The content of revision `revisionId`, read once per presenter. */
  private async revision(revisionId: string): Promise<RevisionContent | undefined> {
    if (!this.revisions.has(revisionId)) {
      this.revisions.set(revisionId, (await getRevision(this.ctx.db, revisionId, this.scope.access.space.id))?.content);
    }
    return this.revisions.get(revisionId);
  }
}

/** Comments and replies by posting time, then id: the sort key of their lists. */
const byPosting = (row: CommentRow): Key => [row.postedAt, row.id];

/** Filters of a list of the comments of a scope (replies are never listed with them). */
export interface CommentListFilters {
  status?: Model<'CommentStatus'>;
  /** Comments on this page only. */
  pageId?: string;
  /** Comments posted by these users only. */
  authors?: readonly string[];
}

/** The comments of a scope matching `filters`, in `order` of posting, for `ctx.cursors.page`. */
export function commentListing(ctx: Scope, scope: CommentScope, filters: CommentListFilters, order: Model<'SortOrder'>) {
  const stored: comments.CommentFilters = { place: placeOf(scope), ...filters };
  return {
    key: byPosting,
    count: () => comments.count(ctx.db, stored),
    fetch: async (key: Key | undefined, limit: number) => (await comments.page(ctx.db, stored, order, key, limit)).map(parseCommentRow),
  };
}

/** The replies to the comment `parent`, in order of posting, for `ctx.cursors.page`. */
export function replyListing(ctx: Scope, parent: CommentRow) {
  return {
    key: byPosting,
    count: () => comments.countReplies(ctx.db, parent.id),
    fetch: async (key: Key | undefined, limit: number) => (await comments.pageOfReplies(ctx.db, parent.id, key, limit)).map(parseCommentRow),
  };
}

/** A member who posted in a scope, with the time of their first comment or reply there. */
export type CommenterRow = MemberRow & { firstPostedAt: string };

/** A `members` row read with the time of the member's first comment: its role checked as `parseMemberRow` does. */
export const parseCommenterRow = rowParser<CommenterRow>('members', { role: ROLE_RANKS });

/** Members who posted comments or replies in the scope, in order of their first one, for `ctx.cursors.page`. */
export function commenterListing(ctx: Scope, scope: CommentScope) {
  const place = placeOf(scope);
  const organizationId = scope.access.space.organizationId;
  return {
    key: (row: CommenterRow): Key => [row.firstPostedAt, row.userId],
    count: () => comments.countCommenters(ctx.db, place, organizationId),
    fetch: async (key: Key | undefined, limit: number) =>
      (await comments.pageOfCommenters(ctx.db, place, organizationId, key, limit)).map(parseCommenterRow),
  };
}

/** The reply `id` to the comment `parent`: 404 when there is none. */
export async function requireReplyRow(ctx: Scope, parent: CommentRow, id: string, scope?: CommentScope): Promise<CommentRow> {
  const reply = await getReplyRow(ctx, parent, id, scope);
  if (!reply) throw notFound(`reply ${id} to comment ${parent.id}`);
  return reply;
}

/** Reactions added and removed by a change of a comment or reply. */
type ReactionChanges = { addedReactions?: string[]; removedReactions?: string[] };
/** A change of a comment: its body, whether it is resolved, the caller's reactions. */
export type CommentChanges = Input<'UpdateCommentRequest'>;
/** A change of a reply: its body, the caller's reactions, and whether its comment is resolved. */
export type ReplyChanges = Input<'UpdateChangeRequestCommentReplyRequest'>;

/** A reaction: an emoji such as 👍 or a short code such as `:+1:`. */
const REACTION = /^\S{1,64}$/u;

/** Comment markdown is read as a Document: refuse what is too complex to parse (a 400 naming the field). */
function checkMarkdown(markdown: string): void {
  const problem = markdownProblem(markdown);
  if (problem !== undefined) throw badRequest(`body.body.markdown: ${problem}`);
}

function insertRow(ctx: Scope, comment: NewComment): Promise<CommentRow> {
  checkMarkdown(comment.body);
  return insertComment(ctx, comment);
}

/** Changes a comment's or reply's body; the columns changed, to answer from without reading the row again. */
async function editBody(ctx: Scope, row: CommentRow, markdown: string): Promise<Pick<CommentRow, 'body' | 'editedAt'>> {
  checkMarkdown(markdown);
  const changed = { body: markdown, editedAt: ctx.now() };
  await comments.update(ctx.db, row.id, changed);
  return changed;
}

/** Resolving keeps the first resolution; reopening clears it. The columns changed (none when already resolved). */
async function setResolved(ctx: Scope, row: CommentRow, resolved: boolean, caller: Caller): Promise<Partial<CommentRow>> {
  if (resolved && COMMENT_STATES[row.status].resolved) return {};
  const changed = {
    status: resolved ? ('resolved' as const) : ('open' as const),
    resolvedAt: resolved ? ctx.now() : null,
    resolvedBy: resolved ? caller.user.id : null,
  };
  await comments.update(ctx.db, row.id, changed);
  return changed;
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
    await comments.addReaction(ctx.db, { commentId: row.id, userId: caller.user.id, emoji, reactedAt: ctx.now() });
  }
  // Checked after the change, inside the request's transaction: a refusal rolls everything back.
  const emojis = addedReactions.length > 0 ? await reactionEmojiCount(ctx, row.id) : 0;
  if (emojis > MAX_REACTIONS) {
    throw badRequest(
      `body.addedReactions: a ${row.parentId ? 'reply' : 'comment'} holds at most ${MAX_REACTIONS} different reactions (this would make ${emojis})`,
    );
  }
}

const reacts = (changes: ReactionChanges) => Boolean(changes.addedReactions?.length || changes.removedReactions?.length);

/**
 * Posts a comment in the scope, as the caller: on the scope as a whole, or on a page of its revision (and a block of
 * that page). Returns the comment as the API shows it.
 */
export async function postComment(ctx: Scope, scope: CommentScope, caller: Caller, body: Input<'CreateCommentRequest'>): Promise<Model<'Comment'>> {
  requireSpace(scope.access, 'comment');
  // Without a page, the comment is on the space (or the change request) as a whole.
  let content: RevisionContent | undefined;
  if (body.page !== undefined) {
    // A space's own comments are on its current revision, kept parsed once read (no statement for it then).
    const revision = scope.changeRequest === undefined ? await currentRevision(ctx.db, scope.access.space) : await getRevision(ctx.db, scope.revisionId, scope.access.space.id);
    content = revision?.content;
  }
  const comment = newComment(
    { spaceId: scope.access.space.id, changeRequestId: scope.changeRequest?.id ?? null, revisionId: scope.revisionId },
    content,
    caller,
    body,
  );
  const row = await insertRow(ctx, comment);
  const present = new CommentPresenter(ctx, scope, caller);
  if (content) present.knowContent(scope.revisionId, content);
  return present.comment(row, true);
}

/**
 * The comment `body` posts on `place`'s revision, whose content is `content` (read when the comment names a page):
 * its page and block checked there, 400 naming the field otherwise.
 */
function newComment(
  place: { spaceId: string; changeRequestId: string | null; revisionId: string },
  content: RevisionContent | undefined,
  caller: Caller,
  body: Input<'CreateCommentRequest'>,
): NewComment {
  let found: ReturnType<typeof findPage>;
  if (body.page !== undefined) {
    found = content && findPage(content, body.page);
    if (!found) throw badRequest(`body.page: no page ${body.page} in revision ${place.revisionId}`);
  }
  let preview: string | undefined;
  if (body.node !== undefined) {
    if (!found) throw badRequest('body.node: a node is a block of a page; give the page too (body.page)');
    preview = nodePreview(found.page, body.node);
    if (preview === undefined) throw badRequest(`body.node: no block ${body.node} in page ${body.page}`);
  }
  return {
    ...place,
    pageId: found?.page.id ?? null,
    nodeId: body.node ?? null,
    tableCell: body.tableCell ? JSON.stringify(body.tableCell) : null,
    postedBy: caller.user.id,
    body: body.body.markdown,
    pageDigest: found ? pageDigest(found.page) : null,
    nodePreview: preview ?? null,
  };
}

/** Changes the comment `commentId` of the scope as the caller may: its body, whether it is resolved, their reactions. */
export async function updateComment(ctx: Scope, scope: CommentScope, caller: Caller, commentId: string, changes: CommentChanges): Promise<Model<'Comment'>> {
  const row = await requireCommentRow(ctx, scope, commentId);
  const permissions = commentPermissions(scope, row, caller);
  if (changes.body) requireComment(permissions, 'edit');
  if (changes.resolved !== undefined || reacts(changes)) requireComment(permissions, 'reply');
  checkReactions(changes);
  let now = row;
  if (changes.body) now = { ...now, ...(await editBody(ctx, row, changes.body.markdown)) };
  if (changes.resolved !== undefined) now = { ...now, ...(await setResolved(ctx, row, changes.resolved, caller)) };
  await applyReactions(ctx, row, caller, changes);
  // Answered from the row read and the columns changed (no trigger changes the row), not read again.
  return new CommentPresenter(ctx, scope, caller).comment(now);
}

/** Deletes the comment `commentId` of the scope, when there is one. */
export async function deleteComment(ctx: Scope, scope: CommentScope, caller: Caller, commentId: string): Promise<void> {
  const row = await getCommentRow(ctx, scope, commentId);
  if (!row) return;
  requireComment(commentPermissions(scope, row, caller), 'delete');
  // Replies and reactions go with it (foreign keys cascade).
  await comments.remove(ctx.db, row.id);
}

/** Posts a reply to the comment `commentId` of the scope, as the caller. Returns it as the API shows it. */
export async function postReply(
  ctx: Scope,
  scope: CommentScope,
  caller: Caller,
  commentId: string,
  body: Input<'CreateCommentReplyRequest'>,
): Promise<Model<'CommentReply'>> {
  const parent = await requireCommentRow(ctx, scope, commentId);
  requireComment(commentPermissions(scope, parent, caller), 'reply');
  const row = await insertRow(ctx, {
    spaceId: parent.spaceId,
    changeRequestId: parent.changeRequestId,
    parentId: parent.id,
    postedBy: caller.user.id,
    body: body.body.markdown,
  });
  return new CommentPresenter(ctx, scope, caller).reply(row, true);
}

/**
 * Changes the reply `replyId` to the comment `commentId` as the caller may: its body, their reactions, and whether
 * its comment is resolved (which needs the permission to reply to the comment).
 */
export async function updateReply(
  ctx: Scope,
  scope: CommentScope,
  caller: Caller,
  commentId: string,
  replyId: string,
  changes: ReplyChanges,
): Promise<Model<'CommentReply'>> {
  const parent = await requireCommentRow(ctx, scope, commentId);
  const reply = await requireReplyRow(ctx, parent, replyId, scope);
  const permissions = commentPermissions(scope, reply, caller);
  if (changes.body) requireComment(permissions, 'edit');
  if (reacts(changes)) requireComment(permissions, 'reply');
  if (changes.resolved !== undefined) requireComment(commentPermissions(scope, parent, caller), 'reply');
  checkReactions(changes);
  const now = changes.body ? { ...reply, ...(await editBody(ctx, reply, changes.body.markdown)) } : reply;
  if (changes.resolved !== undefined) await setResolved(ctx, parent, changes.resolved, caller);
  await applyReactions(ctx, reply, caller, changes);
  // Answered from the row read and the columns changed (no trigger changes the row), not read again.
  return new CommentPresenter(ctx, scope, caller).reply(now);
}

/** Deletes the reply `replyId` to the comment `commentId` of the scope, when there is one (404 without the comment). */
export async function deleteReply(ctx: Scope, scope: CommentScope, caller: Caller, commentId: string, replyId: string): Promise<void> {
  const reply = await getReplyRow(ctx, await requireCommentRow(ctx, scope, commentId), replyId, scope);
  if (!reply) return;
  requireComment(commentPermissions(scope, reply, caller), 'delete');
  await comments.remove(ctx.db, reply.id);
}

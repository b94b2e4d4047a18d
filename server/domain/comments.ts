// Comments and replies: where they live (a space, or a change request of it), the caller's permissions on them,
// their reactions, and how the API shows them. A comment is a row with `parent_id` NULL, a reply one with
// `parent_id` set; space-level rows have `change_request_id` NULL.
import { type Caller, findUsers } from '../auth/caller.ts';
import type { Scope } from '../context.ts';
import { BODY_FORMATS, documentBlocks } from '../content/document.ts';
import { findPage, type RevisionContent, type StoredPage } from '../content/model.ts';
import { getRevision } from '../content/revisions.ts';
import { forbidden, notFound } from '../errors.ts';
import type { Model } from './contract.ts';
import { fromJson } from '../store/db.ts';
import * as comments from '../store/comments.ts';
import { type ChangeRequestRow, changeRequestAccess } from './change-requests.ts';
import { rowParser } from './enums.ts';
import { newId, sha256 } from './ids.ts';
import { type SpaceAccess, spaceAccess } from './spaces.ts';
import { presentUser, presentUserById } from './users.ts';

/** Per `CommentStatus`: whether the comment is resolved (resolving it again keeps the first resolution). */
export const COMMENT_STATES = {
  open: { resolved: false },
  resolved: { resolved: true },
} satisfies Record<Model<'CommentStatus'>, { resolved: boolean }>;

export type CommentRow = {
  id: string;
  space_id: string;
  change_request_id: string | null;
  parent_id: string | null;
  revision_id: string | null;
  page_id: string | null;
  node_id: string | null;
  table_cell: string | null;
  posted_by: string;
  posted_at: string;
  edited_at: string | null;
  body: string;
  status: Model<'CommentStatus'>;
  resolved_at: string | null;
  resolved_by: string | null;
  page_digest: string | null;
  node_preview: string | null;
};

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
}

export async function spaceCommentScope(ctx: Scope, caller: Caller, spaceId: string): Promise<CommentScope> {
  const access = await spaceAccess(ctx, caller, spaceId);
  return {
    access,
    revisionId: access.space.revision_id,
    location: ctx.urls.api(`/v1/spaces/${access.space.id}/comments`),
  };
}

export async function changeRequestCommentScope(
  ctx: Scope,
  caller: Caller,
  spaceId: string,
  changeRequestId: string,
): Promise<CommentScope> {
  const { changeRequest, ...access } = await changeRequestAccess(ctx, caller, spaceId, changeRequestId);
  return {
    access,
    changeRequest,
    revisionId: changeRequest.revision_id,
    location: ctx.urls.api(`/v1/spaces/${access.space.id}/change-requests/${changeRequest.id}/comments`),
  };
}

/** Where the comments of a scope are stored. */
export const placeOf = (scope: CommentScope): comments.CommentPlace => ({
  spaceId: scope.access.space.id,
  changeRequestId: scope.changeRequest?.id ?? null,
});

/** The comment `id` of the scope (not a reply), or undefined. */
export async function getCommentRow(ctx: Scope, scope: CommentScope, id: string): Promise<CommentRow | undefined> {
  const row = await comments.getComment(ctx.db, placeOf(scope), id);
  return row === undefined ? undefined : parseCommentRow(row);
}

export async function requireCommentRow(ctx: Scope, scope: CommentScope, id: string): Promise<CommentRow> {
  const row = await getCommentRow(ctx, scope, id);
  if (!row) throw notFound(`comment ${id}`);
  return row;
}

/** The reply `id` to the comment `parent`, or undefined. */
export async function getReplyRow(ctx: Scope, parent: CommentRow, id: string): Promise<CommentRow | undefined> {
  const row = await comments.getReply(ctx.db, parent.id, id);
  return row === undefined ? undefined : parseCommentRow(row);
}

/** What a new comment or reply is given; the other columns start empty (not edited, open, not resolved). */
export type NewComment = Pick<CommentRow, 'space_id' | 'change_request_id' | 'posted_by' | 'body'> &
  Partial<Pick<CommentRow, 'parent_id' | 'revision_id' | 'page_id' | 'node_id' | 'table_cell' | 'page_digest' | 'node_preview'>>;

/**
 * Inserts a comment or reply posted now, and returns its row as stored. The row is made here and every column of it
 * written, rather than read back with `RETURNING *`, which makes SQLite gather the statement's output in a table of
 * its own and read it again: 3 of the 26 µs of CPU a posted comment spends in SQLite. test/api/comments.test.ts compares
 * this row with the stored one, column by column (a column added to the table and not here shows there).
 */
export async function insertComment(ctx: Scope, comment: NewComment): Promise<CommentRow> {
  const row: CommentRow = {
    id: newId(),
    space_id: comment.space_id,
    change_request_id: comment.change_request_id,
    parent_id: comment.parent_id ?? null,
    revision_id: comment.revision_id ?? null,
    page_id: comment.page_id ?? null,
    node_id: comment.node_id ?? null,
    table_cell: comment.table_cell ?? null,
    posted_by: comment.posted_by,
    posted_at: ctx.now(),
    edited_at: null,
    body: comment.body,
    status: 'open',
    resolved_at: null,
    resolved_by: null,
    page_digest: comment.page_digest ?? null,
    node_preview: comment.node_preview ?? null,
  };
  await comments.insert(ctx.db, row);
  return row;
}

/**
 * What the caller may do with a comment or reply; handlers enforce exactly these. Replying, reacting and resolving
 * need the space's `comment` permission (`reply`); editing and deleting also need to be the author or to have the
 * space's `admin` permission.
 */
export function commentPermissions(scope: CommentScope, row: CommentRow, caller: Caller): CommentPermissions {
  const { view, comment, admin } = scope.access.permissions;
  const authorOrAdmin = comment && (row.posted_by === caller.user.id || admin);
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
    let byEmoji = byComment.get(row.comment_id);
    if (!byEmoji) byComment.set(row.comment_id, (byEmoji = new Map()));
    const reaction = byEmoji.get(row.emoji) ?? { emoji: row.emoji, count: row.total, users: [] };
    reaction.users.push({ userId: row.user_id, reactedAt: row.reacted_at });
    byEmoji.set(row.emoji, reaction);
  }
  return new Map([...byComment].map(([id, byEmoji]) => [id, [...byEmoji.values()]]));
}

/** Number of replies of each of some comments (one query for a page of them); none: no entry. */
async function replyCountsOf(ctx: Scope, commentIds: readonly string[]): Promise<Map<string, number>> {
  if (commentIds.length === 0) return new Map();
  const rows = await comments.replyCounts(ctx.db, commentIds);
  return new Map(rows.map((row) => [row.parent_id, row.n]));
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
    const reactions = await reactionsOf(this.ctx, ids);
    this.read = { ids: new Set(ids), replies: replies ? await replyCountsOf(this.ctx, ids) : new Map(), reactions };
    // Everyone the page shows: posters, resolvers, and those who reacted, read at once.
    await this.knowUsers([
      ...rows.flatMap((row) => (row.resolved_by ? [row.posted_by, row.resolved_by] : [row.posted_by])),
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
    return {
      object: 'comment',
      ...(await this.common(row, `${this.scope.location}/${row.id}`, posted)),
      replies: posted ? 0 : await this.replyCount(row.id),
      target: await this.target(row),
      status: row.status,
      ...(row.resolved_at ? { resolvedAt: row.resolved_at } : {}),
      ...(row.resolved_by ? { resolvedBy: await this.user(row.resolved_by) } : {}),
    };
  }

  /** `posted`: as for `comment`. */
  async reply(row: CommentRow, posted = false): Promise<Model<'CommentReply'>> {
    return {
      object: 'comment-reply',
      ...(await this.common(row, `${this.scope.location}/${row.parent_id}/replies/${row.id}`, posted)),
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
    return {
      id: row.id,
      postedBy: await this.user(row.posted_by),
      postedAt: row.posted_at,
      ...(row.edited_at ? { editedAt: row.edited_at } : {}),
      reactions: posted ? [] : await this.reactions(row.id),
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
    const page = row.page_id ? await this.page(row, row.page_id) : undefined;
    return {
      space: row.space_id,
      ...(page ? { page } : {}),
      ...(row.node_id ? { node: { id: row.node_id, ...(row.node_preview ? { preview: row.node_preview } : {}) } } : {}),
      ...(row.table_cell ? { tableCell: fromJson<Model<'CommentTableCell'>>(row.table_cell, { record: '', definition: '' }) } : {}),
      ...(row.change_request_id ? { changeRequest: row.change_request_id } : {}),
      ...(row.revision_id ? { revision: row.revision_id } : {}),
    };
  }

  /** The page as it is now; as it was when the comment was posted when it is gone (then outdated). */
  private async page(row: CommentRow, pageId: string): Promise<Model<'CommentTargetPage'> | undefined> {
    const current = await this.pageIn(this.scope.revisionId, pageId);
    const found = current ?? (row.revision_id ? await this.pageIn(row.revision_id, pageId) : undefined);
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
      outdated: !current || pageDigest(current.page) !== row.page_digest,
    };
  }

  private async pageIn(revisionId: string, pageId: string) {
    if (!this.revisions.has(revisionId)) {
      this.revisions.set(revisionId, (await getRevision(this.ctx.db, revisionId, this.scope.access.space.id))?.content);
    }
    const content = this.revisions.get(revisionId);
    return content && findPage(content, pageId);
  }
}

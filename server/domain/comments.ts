// Comments and replies: where they live (a space, or a change request of it), the caller's permissions on them,
// their reactions, and how the API shows them. A comment is a row with `parent_id` NULL, a reply one with
// `parent_id` set; space-level rows have `change_request_id` NULL.
import { type Caller, findUsers } from '../auth/caller.ts';
import type { AppContext } from '../context.ts';
import { BODY_FORMATS, documentBlocks } from '../content/document.ts';
import { findPage, type RevisionContent, type StoredPage } from '../content/model.ts';
import { getRevision } from '../content/revisions.ts';
import { forbidden, notFound } from '../http/errors.ts';
import type { Model } from '../http/types.ts';
import { amongIds, fromJson } from '../store/db.ts';
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

export function spaceCommentScope(ctx: AppContext, caller: Caller, spaceId: string): CommentScope {
  const access = spaceAccess(ctx, caller, spaceId);
  return {
    access,
    revisionId: access.space.revision_id,
    location: ctx.urls.api(`/v1/spaces/${access.space.id}/comments`),
  };
}

export function changeRequestCommentScope(
  ctx: AppContext,
  caller: Caller,
  spaceId: string,
  changeRequestId: string,
): CommentScope {
  const { changeRequest, ...access } = changeRequestAccess(ctx, caller, spaceId, changeRequestId);
  return {
    access,
    changeRequest,
    revisionId: changeRequest.revision_id,
    location: ctx.urls.api(`/v1/spaces/${access.space.id}/change-requests/${changeRequest.id}/comments`),
  };
}

/** SQL condition (and its values) selecting the rows of a scope. */
export function scopeCondition(scope: CommentScope): { where: string; values: unknown[] } {
  return {
    where: 'comments.space_id = ? AND comments.change_request_id IS ?',
    values: [scope.access.space.id, scope.changeRequest?.id ?? null],
  };
}

/** The comment `id` of the scope (not a reply), or undefined. */
export function getCommentRow(ctx: AppContext, scope: CommentScope, id: string): CommentRow | undefined {
  const { where, values } = scopeCondition(scope);
  const row = ctx.db.prepare(`SELECT * FROM comments WHERE ${where} AND parent_id IS NULL AND id = ?`).get(...values, id);
  return row === undefined ? undefined : parseCommentRow(row);
}

export function requireCommentRow(ctx: AppContext, scope: CommentScope, id: string): CommentRow {
  const row = getCommentRow(ctx, scope, id);
  if (!row) throw notFound(`comment ${id}`);
  return row;
}

/** The reply `id` to the comment `parent`, or undefined. */
export function getReplyRow(ctx: AppContext, parent: CommentRow, id: string): CommentRow | undefined {
  const row = ctx.db.prepare('SELECT * FROM comments WHERE parent_id = ? AND id = ?').get(parent.id, id);
  return row === undefined ? undefined : parseCommentRow(row);
}

/** What a new comment or reply is given; the other columns start empty (not edited, open, not resolved). */
export type NewComment = Pick<CommentRow, 'space_id' | 'change_request_id' | 'posted_by' | 'body'> &
  Partial<Pick<CommentRow, 'parent_id' | 'revision_id' | 'page_id' | 'node_id' | 'table_cell' | 'page_digest' | 'node_preview'>>;

/** The columns of `comments`, in the table's order: what `insertComment` writes. */
const COMMENT_COLUMNS = [
  'id',
  'space_id',
  'change_request_id',
  'parent_id',
  'revision_id',
  'page_id',
  'node_id',
  'table_cell',
  'posted_by',
  'posted_at',
  'edited_at',
  'body',
  'status',
  'resolved_at',
  'resolved_by',
  'page_digest',
  'node_preview',
] as const satisfies readonly (keyof CommentRow)[];
const INSERT_COMMENT = `INSERT INTO comments (${COMMENT_COLUMNS.join(', ')}) VALUES (${COMMENT_COLUMNS.map(() => '?').join(', ')})`;

/**
 * Inserts a comment or reply posted now, and returns its row as stored. The row is made here and every column of it
 * written, rather than read back with `RETURNING *`, which makes SQLite gather the statement's output in a table of
 * its own and read it again: 3 of the 26 µs of CPU a posted comment spends in SQLite. test/comments.test.ts compares
 * this row with the stored one, column by column (a column added to the table and not here shows there).
 */
export function insertComment(ctx: AppContext, comment: NewComment): CommentRow {
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
  ctx.db.prepare(INSERT_COMMENT).run(COMMENT_COLUMNS.map((column) => row[column]));
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

const REACTIONS_AMONG = amongIds(
  (among) => `SELECT comment_id, emoji, user_id, reacted_at, total FROM (
                SELECT comment_id, emoji, user_id, reacted_at,
                       ROW_NUMBER() OVER byEmoji AS position,
                       COUNT(*) OVER (PARTITION BY comment_id, emoji) AS total,
                       FIRST_VALUE(reacted_at) OVER byEmoji AS first_at,
                       FIRST_VALUE(rowid) OVER byEmoji AS first_row
                FROM comment_reactions WHERE comment_id ${among}
                WINDOW byEmoji AS (PARTITION BY comment_id, emoji ORDER BY reacted_at, rowid)
              ) WHERE position <= ? ORDER BY comment_id, first_at, first_row, position`,
);

/**
 * The reactions to each of some comments or replies (one query for a page of them): one item per emoji, in order of
 * each emoji's first reaction, with its count and its first MAX_REACTION_USERS users in order. However many users
 * reacted, the answer stays small. A comment without reactions has no entry.
 */
function reactionsOf(ctx: AppContext, commentIds: readonly string[]): Map<string, ReactionRead[]> {
  const { sql, ids } = REACTIONS_AMONG(commentIds);
  const rows = ctx.db.prepare(sql).all(ids, MAX_REACTION_USERS) as {
    comment_id: string;
    emoji: string;
    user_id: string;
    reacted_at: string;
    total: number;
  }[];
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

const REPLY_COUNTS_AMONG = amongIds((among) => `SELECT parent_id, COUNT(*) AS n FROM comments WHERE parent_id ${among} GROUP BY parent_id`);

/** Number of replies of each of some comments (one query for a page of them); none: no entry. */
function replyCountsOf(ctx: AppContext, commentIds: readonly string[]): Map<string, number> {
  const { sql, ids } = REPLY_COUNTS_AMONG(commentIds);
  const rows = ctx.db.prepare(sql).all(ids) as { parent_id: string; n: number }[];
  return new Map(rows.map((row) => [row.parent_id, row.n]));
}

/** Number of different emojis of a comment or reply. */
export const reactionEmojiCount = (ctx: AppContext, commentId: string): number =>
  (ctx.db.prepare('SELECT COUNT(DISTINCT emoji) AS n FROM comment_reactions WHERE comment_id = ?').get(commentId) as { n: number }).n;

/**
 * Presents the comments and replies of one scope for one caller. Revisions are read once per presenter: the current
 * one to tell whether a page is outdated, older ones only for pages that are gone.
 */
export class CommentPresenter {
  private readonly revisions = new Map<string, RevisionContent | undefined>();
  /** Posters as the API shows them, read once per presenter; the caller, as authentication read them. */
  private readonly users = new Map<string, Model<'User'>>();

  constructor(
    private readonly ctx: AppContext,
    private readonly scope: CommentScope,
    private readonly caller: Caller,
    private readonly format: OutputFormat = 'markdown',
  ) {}

  /**
   * What was read for the rows of a page at once (`comments`, `replies`): their reply counts and reactions. A row
   * not among them has its own read.
   */
  private read: { ids: Set<string>; replies: Map<string, number>; reactions: Map<string, ReactionRead[]> } | undefined;

  private readFor(rows: readonly CommentRow[], replies: boolean): void {
    const ids = rows.map((row) => row.id);
    const reactions = reactionsOf(this.ctx, ids);
    this.read = { ids: new Set(ids), replies: replies ? replyCountsOf(this.ctx, ids) : new Map(), reactions };
    // Everyone the page shows: posters, resolvers, and those who reacted, read at once.
    this.knowUsers([
      ...rows.flatMap((row) => (row.resolved_by ? [row.posted_by, row.resolved_by] : [row.posted_by])),
      ...[...reactions.values()].flat().flatMap((reaction) => reaction.users.map((user) => user.userId)),
    ]);
  }

  /** Reads the users of these ids not read yet (one query), for `user`. */
  private knowUsers(ids: readonly string[]): void {
    const missing = [...new Set(ids)].filter((id) => !this.users.has(id) && id !== this.caller.user.id);
    if (missing.length === 0) return;
    for (const [id, user] of findUsers(this.ctx.db, missing)) this.users.set(id, presentUser(this.ctx, user));
  }

  /** The comments of a page of a list: their replies and reactions read for all of them at once (two queries). */
  comments(rows: readonly CommentRow[]): Model<'Comment'>[] {
    this.readFor(rows, true);
    return rows.map((row) => this.comment(row));
  }

  /** The replies of a page of a list: their reactions read for all of them at once. */
  replies(rows: readonly CommentRow[]): Model<'CommentReply'>[] {
    this.readFor(rows, false);
    return rows.map((row) => this.reply(row));
  }

  /** The content of revision `id`, as the caller has just read it: the presenter reads it no more. */
  knowContent(id: string, content: RevisionContent): void {
    this.revisions.set(id, content);
  }

  /** `posted`: the row was inserted by this request, so it has no replies and no reactions yet (nothing to count). */
  comment(row: CommentRow, posted = false): Model<'Comment'> {
    return {
      object: 'comment',
      ...this.common(row, `${this.scope.location}/${row.id}`, posted),
      replies: posted ? 0 : this.replyCount(row.id),
      target: this.target(row),
      status: row.status,
      ...(row.resolved_at ? { resolvedAt: row.resolved_at } : {}),
      ...(row.resolved_by ? { resolvedBy: this.user(row.resolved_by) } : {}),
    };
  }

  /** `posted`: as for `comment`. */
  reply(row: CommentRow, posted = false): Model<'CommentReply'> {
    return {
      object: 'comment-reply',
      ...this.common(row, `${this.scope.location}/${row.parent_id}/replies/${row.id}`, posted),
    };
  }

  private replyCount(id: string): number {
    if (this.read?.ids.has(id)) return this.read.replies.get(id) ?? 0;
    return replyCountsOf(this.ctx, [id]).get(id) ?? 0;
  }

  private reactions(id: string): Model<'CommentReaction'>[] {
    let read: ReactionRead[] | undefined;
    if (this.read?.ids.has(id)) read = this.read.reactions.get(id);
    else {
      read = reactionsOf(this.ctx, [id]).get(id);
      this.knowUsers(read?.flatMap((reaction) => reaction.users.map((user) => user.userId)) ?? []);
    }
    return (read ?? []).map((reaction) => ({
      emoji: reaction.emoji,
      count: reaction.count,
      users: reaction.users.map((user) => ({ user: this.user(user.userId), reactedAt: user.reactedAt })),
    }));
  }

  private common(row: CommentRow, location: string, posted: boolean) {
    return {
      id: row.id,
      postedBy: this.user(row.posted_by),
      postedAt: row.posted_at,
      ...(row.edited_at ? { editedAt: row.edited_at } : {}),
      reactions: posted ? [] : this.reactions(row.id),
      body: BODY_FORMATS[this.format](row.body),
      urls: { location },
      permissions: commentPermissions(this.scope, row, this.caller),
    };
  }

  private user(id: string): Model<'User'> {
    const known = this.users.get(id);
    if (known) return known;
    const user = id === this.caller.user.id ? presentUser(this.ctx, this.caller.user) : presentUserById(this.ctx, id);
    this.users.set(id, user);
    return user;
  }

  private target(row: CommentRow): Model<'CommentTarget'> {
    const page = row.page_id ? this.page(row, row.page_id) : undefined;
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
  private page(row: CommentRow, pageId: string): Model<'CommentTargetPage'> | undefined {
    const current = this.pageIn(this.scope.revisionId, pageId);
    const found = current ?? (row.revision_id ? this.pageIn(row.revision_id, pageId) : undefined);
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

  private pageIn(revisionId: string, pageId: string) {
    if (!this.revisions.has(revisionId)) this.revisions.set(revisionId, getRevision(this.ctx.db, revisionId, this.scope.access.space.id)?.content);
    const content = this.revisions.get(revisionId);
    return content && findPage(content, pageId);
  }
}

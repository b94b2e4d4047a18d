// Comments and replies (a comment has `parent_id` NULL, a reply its comment's id; space-level rows have
// `change_request_id` NULL), and their reactions.
import { type Insertable, type Selectable, sql, type Updateable } from 'kysely';
import { columns, type Db, prepared } from './db.ts';
import { after, type Key, type SortOrder } from './keyset.ts';
import type { Camelized, CommentReactionsTable, CommentsTable } from './schema.ts';

export type CommentRecord = Camelized<Selectable<CommentsTable>>;

/** Where comments live: a space, and the change request of it they are on (null: the space's own). */
export interface CommentPlace {
  spaceId: string;
  changeRequestId: string | null;
}

function inPlace(db: Db, place: CommentPlace) {
  const query = db.q.selectFrom('comments').where('comments.space_id', '=', place.spaceId);
  return place.changeRequestId === null
    ? query.where('comments.change_request_id', 'is', null)
    : query.where('comments.change_request_id', '=', place.changeRequestId);
}

/** The comment `id` of the place (not a reply). */
export function getComment(db: Db, place: CommentPlace, id: string): Promise<CommentRecord | undefined> {
  return db.first(inPlace(db, place).selectAll().where('parent_id', 'is', null).where('id', '=', id));
}

/** The reply `id` to the comment `parentId`. */
export function getReply(db: Db, parentId: string, id: string): Promise<CommentRecord | undefined> {
  return db.first(db.q.selectFrom('comments').selectAll().where('parent_id', '=', parentId).where('id', '=', id));
}

const INSERT = prepared((q, p: Selectable<CommentsTable>) => q.insertInto('comments').values(p));

export async function insert(db: Db, row: CommentRecord): Promise<void> {
  await db.send(INSERT, columns<Selectable<CommentsTable>>(row));
}

export async function update(db: Db, id: string, changes: Camelized<Updateable<Omit<CommentsTable, 'id'>>>): Promise<void> {
  if (Object.keys(changes).length === 0) return;
  await db.send(db.q.updateTable('comments').set(columns<Updateable<Omit<CommentsTable, 'id'>>>(changes)).where('id', '=', id));
}

/** Removes a comment (with its replies and reactions: cascade) or a reply. */
export async function remove(db: Db, id: string): Promise<void> {
  await db.send(db.q.deleteFrom('comments').where('id', '=', id));
}

/** Filters of a list of the comments of a place. */
export interface CommentFilters {
  place: CommentPlace;
  status?: string;
  /** Comments on this page only. */
  pageId?: string;
  /** Comments posted by these users only. */
  authors?: readonly string[];
}

function filtered(db: Db, filters: CommentFilters) {
  let query = inPlace(db, filters.place).where('comments.parent_id', 'is', null);
  if (filters.status !== undefined) query = query.where('comments.status', '=', filters.status);
  if (filters.pageId !== undefined) query = query.where('comments.page_id', '=', filters.pageId);
  if (filters.authors !== undefined) query = query.where(db.specific.among('comments.posted_by', filters.authors));
  return query;
}

export async function count(db: Db, filters: CommentFilters): Promise<number> {
  return (await db.first(filtered(db, filters).select((eb) => eb.fn.countAll<number>().as('n'))))?.n ?? 0;
}

/** A page of the comments of a place by posting time (posted_at, id), after `key`. */
export function page(db: Db, filters: CommentFilters, order: SortOrder, key: Key | undefined, limit: number): Promise<CommentRecord[]> {
  let query = filtered(db, filters).selectAll();
  if (key) query = query.where(after(['comments.posted_at', 'comments.id'], key, order));
  return db.all(query.orderBy('comments.posted_at', order).orderBy('comments.id', order).limit(limit));
}

export async function countReplies(db: Db, parentId: string): Promise<number> {
  return (await db.first(db.q.selectFrom('comments').select((eb) => eb.fn.countAll<number>().as('n')).where('parent_id', '=', parentId)))?.n ?? 0;
}

/** A page of the replies to a comment, oldest first (posted_at, id), after `key`. */
export function pageOfReplies(db: Db, parentId: string, key: Key | undefined, limit: number): Promise<CommentRecord[]> {
  let query = db.q.selectFrom('comments').selectAll().where('parent_id', '=', parentId);
  if (key) query = query.where(after(['posted_at', 'id'], key));
  return db.all(query.orderBy('posted_at').orderBy('id').limit(limit));
}

/** How many replies each of these comments has; a comment without any has no row. */
export function replyCounts(db: Db, commentIds: readonly string[]): Promise<{ parentId: string; n: number }[]> {
  return db.all(
    db.q.selectFrom('comments').select(['parent_id', (eb) => eb.fn.countAll<number>().as('n')])
      .where(db.specific.among('parent_id', commentIds)).groupBy('parent_id'),
  ) as Promise<{ parentId: string; n: number }[]>;
}

/** The members of an organization who posted in a place (comments and replies), with their first post's time. */
function commentersQuery(db: Db, place: CommentPlace, organizationId: string) {
  const posters = inPlace(db, place).select(['comments.posted_by', (eb) => eb.fn.min('comments.posted_at').as('first_posted_at')]).groupBy('comments.posted_by');
  return db.q
    .selectFrom(posters.as('commenters'))
    .innerJoin('members', (join) => join.onRef('members.user_id', '=', 'commenters.posted_by').on('members.organization_id', '=', organizationId));
}

export async function countCommenters(db: Db, place: CommentPlace, organizationId: string): Promise<number> {
  return (await db.first(commentersQuery(db, place, organizationId).select((eb) => eb.fn.countAll<number>().as('n'))))?.n ?? 0;
}

/** A page of the members who posted in a place, in order of their first post (then user id), after `key`. */
export function pageOfCommenters(db: Db, place: CommentPlace, organizationId: string, key: Key | undefined, limit: number) {
  let query = commentersQuery(db, place, organizationId).selectAll('members').select('commenters.first_posted_at');
  if (key) query = query.where(after(['commenters.first_posted_at', 'members.user_id'], key));
  return db.all(query.orderBy('commenters.first_posted_at').orderBy('members.user_id').limit(limit));
}

/**
 * The reactions to each of these comments or replies (one query for a page of them), each emoji's first `users`
 * users in order, with the emoji's count of users: rows in order of each emoji's first reaction, then of its users.
 */
export function reactions(
  db: Db,
  commentIds: readonly string[],
  users: number,
): Promise<{ commentId: string; emoji: string; userId: string; reactedAt: string; total: number }[]> {
  return db.all(
    sql<{ comment_id: string; emoji: string; user_id: string; reacted_at: string; total: number }>`SELECT comment_id, emoji, user_id, reacted_at, total FROM (
        SELECT comment_id, emoji, user_id, reacted_at,
               ROW_NUMBER() OVER (PARTITION BY comment_id, emoji ORDER BY reacted_at, rowid) AS position,
               COUNT(*) OVER (PARTITION BY comment_id, emoji) AS total,
               FIRST_VALUE(reacted_at) OVER (PARTITION BY comment_id, emoji ORDER BY reacted_at, rowid) AS first_at,
               FIRST_VALUE(rowid) OVER (PARTITION BY comment_id, emoji ORDER BY reacted_at, rowid) AS first_row
        FROM comment_reactions WHERE ${db.specific.among('comment_id', commentIds)}
      ) AS reactions
      WHERE position <= ${users} ORDER BY comment_id, first_at, first_row, position`,
  );
}

/** How many different emojis a comment or reply holds. */
export async function emojiCount(db: Db, commentId: string): Promise<number> {
  const row = await db.first(
    db.q.selectFrom('comment_reactions').select((eb) => eb.fn.count<number>('emoji').distinct().as('n')).where('comment_id', '=', commentId),
  );
  return row?.n ?? 0;
}

/** Whether the user has reacted with this emoji. */
export async function hasReaction(db: Db, commentId: string, userId: string, emoji: string): Promise<boolean> {
  return (
    (await db.first(
      db.q.selectFrom('comment_reactions').select('emoji').where('comment_id', '=', commentId).where('user_id', '=', userId).where('emoji', '=', emoji),
    )) !== undefined
  );
}

/** A user's reaction (nothing when already there). */
export async function addReaction(db: Db, reaction: Camelized<Insertable<CommentReactionsTable>>): Promise<void> {
  await db.send(db.q.insertInto('comment_reactions').values(columns<Insertable<CommentReactionsTable>>(reaction)).onConflict((oc) => oc.columns(['comment_id', 'user_id', 'emoji']).doNothing()));
}

export async function removeReaction(db: Db, commentId: string, userId: string, emoji: string): Promise<void> {
  await db.send(db.q.deleteFrom('comment_reactions').where('comment_id', '=', commentId).where('user_id', '=', userId).where('emoji', '=', emoji));
}

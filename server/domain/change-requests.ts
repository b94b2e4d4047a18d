// Change requests: their rows, how one is found (by id or by number within its space), the caller's access to it,
// how its content moves on, and how the API shows it. Other groups (change-request content, change-request
// comments) address change requests through `changeRequestAccess` and change their content through
// `commitChangeRequestContent`.
import { type Caller, findUsers } from '../auth/caller.ts';
import type { AppContext } from '../context.ts';
import type { RevisionContent, RevisionRecord, RevisionType } from '../content/model.ts';
import { createRevision, getRevision } from '../content/revisions.ts';
import { notFound } from '../http/errors.ts';
import type { Model } from '../http/types.ts';
import { amongIds, type Db } from '../store/db.ts';
import { rowParser } from './enums.ts';
import { getSpaceRow, spaceAccess, type SpaceAccess } from './spaces.ts';
import { presentUser } from './users.ts';

export type ChangeRequestStatus = Model<'ChangeRequestStatus'>;

/**
 * Per status: whether the change request is closed (its content cannot change) and whether it is final (nothing
 * of it can change, and it is never outdated).
 */
export const CHANGE_REQUEST_STATES = {
  draft: { closed: false, final: false },
  open: { closed: false, final: false },
  archived: { closed: true, final: false },
  merged: { closed: true, final: true },
} satisfies Record<ChangeRequestStatus, { closed: boolean; final: boolean }>;

/** A `change_requests` row checked: its status is one of the contract's. */
export const parseChangeRequestRow = rowParser<ChangeRequestRow>('change_requests', { status: CHANGE_REQUEST_STATES });

export type ChangeRequestRow = {
  id: string;
  space_id: string;
  number: number;
  status: ChangeRequestStatus;
  subject: string | null;
  agent_task_id: string | null;
  created_by: string;
  created_at: string;
  updated_at: string;
  /** The change request's current content. */
  revision_id: string;
  /** The space revision it was created from. */
  revision_initial: string;
  /** The space revision last brought in by an update from the main content. */
  revision_merged_ancestor: string | null;
  /** The space revision its merge produced. */
  revision_merged: string | null;
};

/**
 * The change request `idOrNumber` of a space: its id, or its number within the space (`3`). A change request of
 * another space is not found.
 */
export function getChangeRequestRow(db: Db, spaceId: string, idOrNumber: string): ChangeRequestRow | undefined {
  const byId = db.prepare('SELECT * FROM change_requests WHERE space_id = ? AND id = ?').get(spaceId, idOrNumber);
  if (byId !== undefined) return parseChangeRequestRow(byId);
  if (!/^[1-9]\d{0,9}$/.test(idOrNumber)) return undefined;
  const byNumber = db
    .prepare('SELECT * FROM change_requests WHERE space_id = ? AND number = ?')
    .get(spaceId, Number(idOrNumber));
  return byNumber === undefined ? undefined : parseChangeRequestRow(byNumber);
}

export interface ChangeRequestAccess extends SpaceAccess {
  changeRequest: ChangeRequestRow;
}

/**
 * The change request, when the caller may view its space (see spaceAccess), with the caller's role and
 * permissions on the space, which are those on its change requests. Otherwise, or when the space has no such
 * change request, 404. Enforce permissions with requireSpace(access, ...).
 */
export function changeRequestAccess(
  ctx: AppContext,
  caller: Caller,
  spaceId: string,
  changeRequestId: string,
): ChangeRequestAccess {
  const access = spaceAccess(ctx, caller, spaceId);
  const changeRequest = getChangeRequestRow(ctx.db, spaceId, changeRequestId);
  if (!changeRequest) throw notFound(`change request ${changeRequestId} in space ${spaceId}`);
  return { ...access, changeRequest };
}

/** Whether the change request is closed to changes: merged, or archived. */
export const isClosed = (row: ChangeRequestRow): boolean => CHANGE_REQUEST_STATES[row.status].closed;

/** The space revision the change request's changes are relative to: the last one brought in, else its initial one. */
export const changeRequestBase = (row: ChangeRequestRow): string =>
  row.revision_merged_ancestor ?? row.revision_initial;

/**
 * Whether the space has moved on since the change request's base. A merged change request is never outdated.
 * `spaceRevision`: the space's current revision (read from its row unless given).
 */
export function isOutdated(
  db: Db,
  row: ChangeRequestRow,
  spaceRevision = () => getSpaceRow(db, row.space_id)?.revision_id,
): boolean {
  if (CHANGE_REQUEST_STATES[row.status].final) return false;
  return spaceRevision() !== changeRequestBase(row);
}

/** The current content of the change request. */
export function changeRequestRevision(db: Db, row: ChangeRequestRow): RevisionRecord {
  const revision = getRevision(db, row.revision_id, row.space_id);
  if (!revision) throw new Error(`revision ${row.revision_id} of change request ${row.id} does not exist`);
  return revision;
}

/** Records that a user changed the content of a change request (idempotent). */
export function addContributor(db: Db, changeRequestId: string, userId: string): void {
  db.prepare('INSERT OR IGNORE INTO change_request_contributors (change_request_id, user_id) VALUES (?, ?)').run(
    changeRequestId,
    userId,
  );
}

/**
 * Gives the change request new content: stores a revision of it (parents: its current revision, plus `parents`),
 * makes it the change request's current revision, touches `updatedAt` and records `contributor`. Runs in the
 * caller's write transaction; returns the new revision.
 */
export function commitChangeRequestContent(
  ctx: AppContext,
  row: ChangeRequestRow,
  input: { type: RevisionType; content: RevisionContent; contributor: string; parents?: string[] },
): RevisionRecord {
  const now = ctx.now();
  const revision = createRevision(ctx.db, {
    spaceId: row.space_id,
    changeRequestId: row.id,
    parents: [row.revision_id, ...(input.parents ?? [])],
    type: input.type,
    content: input.content,
    createdAt: now,
  });
  ctx.db
    .prepare('UPDATE change_requests SET revision_id = ?, updated_at = ? WHERE id = ?')
    .run(revision.id, now, row.id);
  addContributor(ctx.db, row.id, input.contributor);
  return revision;
}

const OPEN_COMMENTS_AMONG = amongIds(
  (among) => `SELECT change_request_id, COUNT(*) AS n FROM comments
              WHERE change_request_id ${among} AND parent_id IS NULL AND status = 'open'
              GROUP BY change_request_id`,
);

/** Open comments of each of some change requests (replies are not counted); none: no entry. One query for a page. */
function openCommentsOf(db: Db, changeRequestIds: readonly string[]): Map<string, number> {
  const { sql, ids } = OPEN_COMMENTS_AMONG(changeRequestIds);
  const rows = db.prepare(sql).all(ids) as { change_request_id: string; n: number }[];
  return new Map(rows.map((row) => [row.change_request_id, row.n]));
}

/**
 * Change requests as the API shows them, a page of them with one query each for their authors and their open
 * comments' counts, and their spaces read once each (whether a change request is outdated), not three per item.
 */
export function presentChangeRequests(ctx: AppContext, rows: readonly ChangeRequestRow[]): Model<'ChangeRequest'>[] {
  const authors = findUsers(ctx.db, rows.map((row) => row.created_by));
  const comments = openCommentsOf(ctx.db, rows.map((row) => row.id));
  const currentRevisions = new Map<string, string | undefined>();
  const currentRevision = (spaceId: string) => {
    if (!currentRevisions.has(spaceId)) currentRevisions.set(spaceId, getSpaceRow(ctx.db, spaceId)?.revision_id);
    return currentRevisions.get(spaceId);
  };
  return rows.map((row) => {
    const author = authors.get(row.created_by);
    if (!author) throw new Error(`user ${row.created_by} is referenced but does not exist`);
    return {
      object: 'change-request',
      id: row.id,
      number: row.number,
      status: row.status,
      ...(row.subject !== null ? { subject: row.subject } : {}),
      createdBy: presentUser(ctx, author),
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      revision: row.revision_id,
      revisionInitial: row.revision_initial,
      ...(row.revision_merged_ancestor ? { revisionMergedAncestor: row.revision_merged_ancestor } : {}),
      ...(row.revision_merged ? { revisionMerged: row.revision_merged } : {}),
      comments: comments.get(row.id) ?? 0,
      outdated: isOutdated(ctx.db, row, () => currentRevision(row.space_id)),
      urls: {
        app: ctx.urls.app(`/s/${row.space_id}/~/changes/${row.number}`),
        location: ctx.urls.api(`/v1/spaces/${row.space_id}/change-requests/${row.id}`),
      },
    };
  });
}

/** A change request as the API shows it. */
export const presentChangeRequest = (ctx: AppContext, row: ChangeRequestRow): Model<'ChangeRequest'> =>
  presentChangeRequests(ctx, [row])[0]!;

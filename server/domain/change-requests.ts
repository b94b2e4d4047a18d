// Change requests: their rows, how one is found (by id or by number within its space), the caller's access to it,
// how its content moves on, and how the API shows it. Other groups (change-request content, change-request
// comments) address change requests through `changeRequestAccess` and change their content through
// `commitChangeRequestContent`.
import { type Caller, findUsers } from '../auth/caller.ts';
import type { Scope } from '../context.ts';
import type { RevisionContent, RevisionRecord, RevisionType } from '../content/model.ts';
import { createRevision, getRevision } from '../content/revisions.ts';
import { notFound } from '../errors.ts';
import type { Model } from './contract.ts';
import type { Db } from '../store/db.ts';
import * as changeRequests from '../store/change-requests.ts';
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
export async function getChangeRequestRow(db: Db, spaceId: string, idOrNumber: string): Promise<ChangeRequestRow | undefined> {
  const byId = await changeRequests.getInSpace(db, spaceId, idOrNumber);
  if (byId !== undefined) return parseChangeRequestRow(byId);
  if (!/^[1-9]\d{0,9}$/.test(idOrNumber)) return undefined;
  const byNumber = await changeRequests.byNumber(db, spaceId, Number(idOrNumber));
  return byNumber === undefined ? undefined : parseChangeRequestRow(byNumber);
}

/** The change request with this id (any space). */
export async function getChangeRequestById(db: Db, id: string): Promise<ChangeRequestRow | undefined> {
  const row = await changeRequests.get(db, id);
  return row === undefined ? undefined : parseChangeRequestRow(row);
}

export interface ChangeRequestAccess extends SpaceAccess {
  changeRequest: ChangeRequestRow;
}

/**
 * The change request, when the caller may view its space (see spaceAccess), with the caller's role and
 * permissions on the space, which are those on its change requests. Otherwise, or when the space has no such
 * change request, 404. Enforce permissions with requireSpace(access, ...).
 */
export async function changeRequestAccess(
  ctx: Scope,
  caller: Caller,
  spaceId: string,
  changeRequestId: string,
): Promise<ChangeRequestAccess> {
  const access = await spaceAccess(ctx, caller, spaceId);
  const changeRequest = await getChangeRequestRow(ctx.db, spaceId, changeRequestId);
  if (!changeRequest) throw notFound(`change request ${changeRequestId} in space ${spaceId}`);
  return { ...access, changeRequest };
}

/** Whether the change request is closed to changes: merged, or archived. */
export const isClosed = (row: ChangeRequestRow): boolean => CHANGE_REQUEST_STATES[row.status].closed;

/** The space revision the change request's changes are relative to: the last one brought in, else its initial one. */
export const changeRequestBase = (row: ChangeRequestRow): string =>
  row.revision_merged_ancestor ?? row.revision_initial;

/**
 * Whether the space has moved on since the change request's base, given the space's current revision. A merged
 * change request is never outdated.
 */
export function isOutdated(row: ChangeRequestRow, spaceRevision: string | undefined): boolean {
  if (CHANGE_REQUEST_STATES[row.status].final) return false;
  return spaceRevision !== changeRequestBase(row);
}

/** Whether the space has moved on since the change request's base (its current revision read from its row). */
export async function isOutdatedNow(db: Db, row: ChangeRequestRow): Promise<boolean> {
  return isOutdated(row, (await getSpaceRow(db, row.space_id))?.revision_id);
}

/** The current content of the change request. */
export async function changeRequestRevision(db: Db, row: ChangeRequestRow): Promise<RevisionRecord> {
  const revision = await getRevision(db, row.revision_id, row.space_id);
  if (!revision) throw new Error(`revision ${row.revision_id} of change request ${row.id} does not exist`);
  return revision;
}

/** Records that a user changed the content of a change request (idempotent). */
export const addContributor = (db: Db, changeRequestId: string, userId: string): Promise<void> =>
  changeRequests.addContributor(db, changeRequestId, userId);

/**
 * Gives the change request new content: stores a revision of it (parents: its current revision, plus `parents`),
 * makes it the change request's current revision, touches `updatedAt` and records `contributor`. Runs in the
 * caller's write transaction; returns the new revision.
 */
export async function commitChangeRequestContent(
  ctx: Scope,
  row: ChangeRequestRow,
  input: { type: RevisionType; content: RevisionContent; contributor: string; parents?: string[] },
): Promise<RevisionRecord> {
  const now = ctx.now();
  const revision = await createRevision(ctx.db, {
    spaceId: row.space_id,
    changeRequestId: row.id,
    parents: [row.revision_id, ...(input.parents ?? [])],
    type: input.type,
    content: input.content,
    createdAt: now,
  });
  await changeRequests.update(ctx.db, row.id, { revision_id: revision.id, updated_at: now });
  await addContributor(ctx.db, row.id, input.contributor);
  return revision;
}

/** Open comments of each of some change requests (replies are not counted); none: no entry. One query for a page. */
async function openCommentsOf(db: Db, changeRequestIds: readonly string[]): Promise<Map<string, number>> {
  const rows = await changeRequests.openCommentCounts(db, changeRequestIds);
  return new Map(rows.map((row) => [row.change_request_id, row.n]));
}

/**
 * Change requests as the API shows them, a page of them with one query each for their authors and their open
 * comments' counts, and their spaces read once each (whether a change request is outdated), not three per item.
 */
export async function presentChangeRequests(ctx: Scope, rows: readonly ChangeRequestRow[]): Promise<Model<'ChangeRequest'>[]> {
  if (rows.length === 0) return [];
  const authors = await findUsers(ctx.db, rows.map((row) => row.created_by));
  const comments = await openCommentsOf(ctx.db, rows.map((row) => row.id));
  const currentRevisions = new Map<string, string | undefined>();
  for (const spaceId of new Set(rows.map((row) => row.space_id))) {
    currentRevisions.set(spaceId, (await getSpaceRow(ctx.db, spaceId))?.revision_id);
  }
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
      outdated: isOutdated(row, currentRevisions.get(row.space_id)),
      urls: {
        app: ctx.urls.app(`/s/${row.space_id}/~/changes/${row.number}`),
        location: ctx.urls.api(`/v1/spaces/${row.space_id}/change-requests/${row.id}`),
      },
    };
  });
}

/** A change request as the API shows it. */
export const presentChangeRequest = async (ctx: Scope, row: ChangeRequestRow): Promise<Model<'ChangeRequest'>> =>
  (await presentChangeRequests(ctx, [row]))[0]!;

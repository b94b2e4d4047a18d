// Change requests: their rows, how one is found (by id or by number within its space), the caller's access to it,
// how its content moves on, and how the API shows it. Other groups (change-request content, change-request
// comments) address change requests through `changeRequestAccess` and change their content through
// `commitChangeRequestContent`.
import { type Caller, findUsers } from '../auth/caller.ts';
import { inWrite, type Scope } from '../context/context.ts';
import { describeConflicts, mergeContent } from '../content/merge.ts';
import type { RevisionContent, RevisionRecord, RevisionType } from '../content/model.ts';
import { pagesForPdf, renderPdf } from '../content/pdf.ts';
import { createRevision, getRevision, revisionNamed, setCurrentRevision } from '../content/revisions.ts';
import { badRequest, conflict, notFound } from '../common/errors.ts';
import { storePdf } from './change-request-pdfs.ts';
import type { Input, Model } from '../common/contract.ts';
import type { Page } from '../common/paging.ts';
import type { Db } from '../store/db.ts';
import * as changeRequests from '../store/change-requests.ts';
import { rowParser } from '../store/enums.ts';
import { newId } from '../common/ids.ts';
import { getSpaceRow, requireSpace, spaceAccess, type SpaceAccess } from './spaces.ts';
import { presentUser } from './users.ts';
import type { Row } from '../store/schema.ts';

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

export type ChangeRequestRow = Row<'change_requests', { status: ChangeRequestStatus }>;

/**
 * The change request `idOrNumber` of a space: its id, or its number within the space (`3`). A change request of
 * another space is not found.
 */
export async function getChangeRequestRow(db: Db, spaceId: string, idOrNumber: string): Promise<ChangeRequestRow | undefined> {
  const number = /^[1-9]\d{0,9}$/.test(idOrNumber) ? Number(idOrNumber) : undefined;
  // Where it could be either, read as both at once (one round trip on PostgreSQL); the id comes first.
  const [byId, byNumber] = await Promise.all([
    changeRequests.getInSpace(db, spaceId, idOrNumber),
    number === undefined ? undefined : changeRequests.byNumber(db, spaceId, number),
  ]);
  const row = byId ?? byNumber;
  return row === undefined ? undefined : parseChangeRequestRow(row);
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
  // Read together (one round trip on PostgreSQL): the change request is read within its space, whatever the access.
  const [access, changeRequest] = await Promise.all([spaceAccess(ctx, caller, spaceId), getChangeRequestRow(ctx.db, spaceId, changeRequestId)]);
  if (!changeRequest) throw notFound(`change request ${changeRequestId} in space ${spaceId}`);
  return { ...access, changeRequest };
}

/** Whether the change request is closed to changes: merged, or archived. */
export const isClosed = (row: ChangeRequestRow): boolean => CHANGE_REQUEST_STATES[row.status].closed;

/** The space revision the change request's changes are relative to: the last one brought in, else its initial one. */
export const changeRequestBase = (row: ChangeRequestRow): string =>
  row.revisionMergedAncestor ?? row.revisionInitial;

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
  return isOutdated(row, (await getSpaceRow(db, row.spaceId))?.revisionId);
}

/** The current content of the change request. */
export const changeRequestRevision = (db: Db, row: ChangeRequestRow): Promise<RevisionRecord> =>
  revisionNamed(db, row.revisionId, row.spaceId, `change request ${row.id}`);

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
    spaceId: row.spaceId,
    changeRequestId: row.id,
    parents: [row.revisionId, ...(input.parents ?? [])],
    type: input.type,
    content: input.content,
    createdAt: now,
  });
  await changeRequests.update(ctx.db, row.id, { revisionId: revision.id, updatedAt: now });
  await addContributor(ctx.db, row.id, input.contributor);
  return revision;
}

/** Open comments of each of some change requests (replies are not counted); none: no entry. One query for a page. */
async function openCommentsOf(db: Db, changeRequestIds: readonly string[]): Promise<Map<string, number>> {
  const rows = await changeRequests.openCommentCounts(db, changeRequestIds);
  return new Map(rows.map((row) => [row.changeRequestId, row.n]));
}

/**
 * Change requests as the API shows them, a page of them with one query each for their authors and their open
 * comments' counts, and their spaces read once each (whether a change request is outdated), not three per item.
 */
export async function presentChangeRequests(ctx: Scope, rows: readonly ChangeRequestRow[]): Promise<Model<'ChangeRequest'>[]> {
  if (rows.length === 0) return [];
  // Read together: one round trip on PostgreSQL.
  const spaceIds = [...new Set(rows.map((row) => row.spaceId))];
  const [authors, comments, spaces] = await Promise.all([
    findUsers(ctx.db, rows.map((row) => row.createdBy)),
    openCommentsOf(ctx.db, rows.map((row) => row.id)),
    Promise.all(spaceIds.map((spaceId) => getSpaceRow(ctx.db, spaceId))),
  ]);
  const currentRevisions = new Map(spaceIds.map((spaceId, i) => [spaceId, spaces[i]?.revisionId]));
  return rows.map((row) => {
    const author = authors.get(row.createdBy);
    if (!author) throw new Error(`user ${row.createdBy} is referenced but does not exist`);
    return {
      object: 'change-request',
      id: row.id,
      number: row.number,
      status: row.status,
      ...(row.subject !== null ? { subject: row.subject } : {}),
      createdBy: presentUser(ctx, author),
      createdAt: row.createdAt,
      updatedAt: row.updatedAt,
      revision: row.revisionId,
      revisionInitial: row.revisionInitial,
      ...(row.revisionMergedAncestor ? { revisionMergedAncestor: row.revisionMergedAncestor } : {}),
      ...(row.revisionMerged ? { revisionMerged: row.revisionMerged } : {}),
      comments: comments.get(row.id) ?? 0,
      outdated: isOutdated(row, currentRevisions.get(row.spaceId)),
      urls: {
        app: ctx.urls.app(`/s/${row.spaceId}/~/changes/${row.number}`),
        location: ctx.urls.api(`/v1/spaces/${row.spaceId}/change-requests/${row.id}`),
      },
    };
  });
}

/** A change request as the API shows it. */
export const presentChangeRequest = async (ctx: Scope, row: ChangeRequestRow): Promise<Model<'ChangeRequest'>> =>
  (await presentChangeRequests(ctx, [row]))[0]!;

/** Which of a space's change requests a list shows: those of one status, of a creator, of a contributor. */
export interface ChangeRequestFilters {
  spaceId: string;
  status: ChangeRequestStatus;
  creator?: string;
  contributor?: string;
}

/** One page of the change requests that match `filters`, latest first by `orderBy`, then by number: a keyset query. */
export function changeRequestsPage(
  ctx: Scope,
  options: { list: string; filters: ChangeRequestFilters; orderBy: Model<'ChangeRequestOrderBy'>; page?: string; limit?: number },
): Promise<Page<ChangeRequestRow>> {
  const { filters } = options;
  const { orderBy } = options;
  return ctx.cursors.page({
    list: options.list,
    page: options.page,
    limit: options.limit,
    key: (item: ChangeRequestRow) => [item[orderBy], item.number],
    count: () => changeRequests.count(ctx.db, filters),
    fetch: async (key, limit) => (await changeRequests.page(ctx.db, filters, orderBy, key, limit)).map(parseChangeRequestRow),
  });
}


/** Merged and archived change requests take no more changes: 409. */
function requireOpenForChanges(changeRequest: ChangeRequestRow, action: string): void {
  if (isClosed(changeRequest)) {
    throw conflict(`change request #${changeRequest.number} is ${changeRequest.status}: it cannot be ${action}`);
  }
}

/** The content of a revision of the change request's space. */
async function content(ctx: Scope, revisionId: string, spaceId: string): Promise<RevisionContent> {
  return (await getRevision(ctx.db, revisionId, spaceId))!.content;
}

/** The three-way merge of `ours` and `theirs` against the change request's base, or 409 naming the conflicts. */
async function mergeOrConflict(ctx: Scope, access: ChangeRequestAccess, ours: RevisionContent, theirs: RevisionContent): Promise<RevisionContent> {
  const result = mergeContent(await content(ctx, changeRequestBase(access.changeRequest), access.space.id), ours, theirs);
  if (result.conflicts) {
    throw conflict(
      `change request #${access.changeRequest.number} and the main content changed the same things: ${describeConflicts(result.conflicts)}`,
    );
  }
  return result.content;
}

/**
 * Opens a change request of a space, for those who may edit it: the next number of the space, the space's current
 * content, and the caller as its creator and first contributor. Returns it as the API shows it.
 */
export async function createChangeRequest(
  ctx: Scope,
  caller: Caller,
  spaceId: string,
  input: Input<'CreateChangeRequestRequest'>,
): Promise<Model<'ChangeRequest'>> {
  // The space's next number is read with the access (one round trip on PostgreSQL), and used only when it allows.
  const [access, number] = await Promise.all([spaceAccess(ctx, caller, spaceId), changeRequests.nextNumber(ctx.db, spaceId)]);
  requireSpace(access, 'edit');
  const now = ctx.now();
  const id = newId();
  const row = {
    id,
    spaceId: spaceId,
    number,
    status: 'open',
    subject: input.subject ?? null,
    agentTaskId: input.agentTaskId ?? null,
    createdBy: caller.user.id,
    createdAt: now,
    updatedAt: now,
    revisionId: access.space.revisionId,
    revisionInitial: access.space.revisionId,
  } as const;
  await changeRequests.insert(ctx.db, row);
  await addContributor(ctx.db, id, caller.user.id);
  // Answered from the row as inserted, not read again: its presentation's reads leave with the inserts.
  return presentChangeRequest(ctx, parseChangeRequestRow({ ...row, revisionMergedAncestor: null, revisionMerged: null }));
}

/** Changes the subject or the status of a change request, for those who may edit its space (409 once it is merged). */
export async function updateChangeRequest(
  ctx: Scope,
  caller: Caller,
  spaceId: string,
  changeRequestId: string,
  input: Input<'UpdateChangeRequestRequest'>,
): Promise<Model<'ChangeRequest'>> {
  const access = await changeRequestAccess(ctx, caller, spaceId, changeRequestId);
  requireSpace(access, 'edit');
  const { changeRequest } = access;
  if (CHANGE_REQUEST_STATES[changeRequest.status].final) {
    throw conflict(`change request #${changeRequest.number} is ${changeRequest.status}: it cannot be changed`);
  }
  const changes: Parameters<typeof changeRequests.update>[2] = {};
  if (input.subject !== undefined) changes.subject = input.subject;
  // A status a client may set is one of the change request's statuses (CHANGE_REQUEST_STATES knows it).
  if (input.status !== undefined) changes.status = input.status satisfies ChangeRequestStatus;
  if (Object.keys(changes).length === 0) return presentChangeRequest(ctx, changeRequest);
  const updatedAt = ctx.now();
  await changeRequests.update(ctx.db, changeRequest.id, { ...changes, updatedAt });
  // Answered from the row read and the changes made (no trigger changes the row), not read again.
  return presentChangeRequest(ctx, parseChangeRequestRow({ ...changeRequest, ...changes, updatedAt }));
}

/**
 * Merges a change request into the space's main content (a three-way merge against its base; 409 naming the
 * conflicts), for those who may merge: a merge revision becomes the space's current one, and the change request is
 * merged.
 */
export async function mergeChangeRequest(
  ctx: Scope,
  caller: Caller,
  spaceId: string,
  changeRequestId: string,
): Promise<Model<'MergeChangeRequestResult'>> {
  const access = await changeRequestAccess(ctx, caller, spaceId, changeRequestId);
  requireSpace(access, 'merge');
  const { changeRequest, space } = access;
  requireOpenForChanges(changeRequest, 'merged');
  const result = await mergeOrConflict(
    ctx,
    access,
    await content(ctx, space.revisionId, space.id),
    await content(ctx, changeRequest.revisionId, space.id),
  );
  const now = ctx.now();
  const revision = await createRevision(ctx.db, {
    spaceId: space.id,
    parents: [space.revisionId, changeRequest.revisionId],
    type: 'merge',
    content: result,
    createdAt: now,
  });
  await setCurrentRevision(ctx.db, revision, now);
  await changeRequests.update(ctx.db, changeRequest.id, { status: 'merged', revisionMerged: revision.id, updatedAt: now });
  return { revision: revision.id, result: 'merge' };
}

/**
 * Brings the space's main content into a change request (a three-way merge against its base; 409 naming the
 * conflicts), for those who may edit: a new revision of the change request, whose base the space's current revision
 * becomes.
 */
export async function updateChangeRequestFromMain(
  ctx: Scope,
  caller: Caller,
  spaceId: string,
  changeRequestId: string,
): Promise<Model<'UpdateChangeRequestFromMainResult'>> {
  const access = await changeRequestAccess(ctx, caller, spaceId, changeRequestId);
  requireSpace(access, 'edit');
  const { changeRequest, space } = access;
  requireOpenForChanges(changeRequest, 'updated');
  // Already up to date: nothing to bring in, no new revision.
  if (!(await isOutdatedNow(ctx.db, changeRequest))) {
    return { revision: changeRequest.revisionId, result: 'update' };
  }
  const result = await mergeOrConflict(
    ctx,
    access,
    await content(ctx, changeRequest.revisionId, space.id),
    await content(ctx, space.revisionId, space.id),
  );
  const revision = await commitChangeRequestContent(ctx, changeRequest, {
    type: 'update',
    content: result,
    contributor: caller.user.id,
    parents: [space.revisionId],
  });
  await changeRequests.update(ctx.db, changeRequest.id, { revisionMergedAncestor: space.revisionId });
  return { revision: revision.id, result: 'update' };
}

/**
 * Makes a PDF of a change request's content (all its pages, or `page` and the pages nested in it, or `page` alone
 * with `only`) and stores it; returns the stored PDF's id (served at its pdfPath for an hour).
 */
export async function makeChangeRequestPdf(
  ctx: Scope,
  caller: Caller,
  spaceId: string,
  changeRequestId: string,
  options: { page?: string; only?: boolean },
): Promise<string> {
  const { changeRequest } = await changeRequestAccess(ctx, caller, spaceId, changeRequestId);
  if (options.only && options.page === undefined) throw badRequest('only: needs `page`, the page to print alone');
  const pages = pagesForPdf(await content(ctx, changeRequest.revisionId, changeRequest.spaceId), options.page, options.only ?? false);
  if (!pages) throw badRequest(`page: no page ${options.page} in change request #${changeRequest.number}`);
  const now = ctx.clock.now();
  const pdf = await renderPdf({
    title: `#${changeRequest.number} ${changeRequest.subject || 'Change request'}`,
    pages,
    createdAt: now,
  });
  // Reads run outside a transaction; storing the PDF, once it is made, is this read's one write.
  return inWrite(ctx, (scope) =>
    storePdf(scope.db, {
      changeRequestId: changeRequest.id,
      fileName: `change-request-${changeRequest.number}.pdf`,
      content: pdf,
      now,
    }),
  );
}

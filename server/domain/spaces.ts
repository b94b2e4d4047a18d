// Spaces: rows, the caller's role and permissions on them, their lifecycle (a deleted space is kept 7 days, then
// purged), and how the API shows them.
import type { Caller } from '../auth/caller.ts';
import { atLeast, type Membership, membershipFrom, membershipOf, type Role, ROLE_RANKS } from '../auth/roles.ts';
import type { AppContext, Scope } from '../context/context.ts';
import { emptyContent, type RevisionContent } from '../content/model.ts';
import { createRevision, currentRevision, setCurrentRevision } from '../content/revisions.ts';
import { indexNewSpace, indexSpaceContent, removeSpaceFromIndex } from '../content/search.ts';
import { DAY } from '../common/clock.ts';
import { badRequest, conflict, forbidden, notFound } from '../common/errors.ts';
import type { Input, Model } from '../common/contract.ts';
import type { Page } from '../common/paging.ts';
import { type Db, fromJson } from '../store/db.ts';
import * as spaces from '../store/spaces.ts';
import { contentRoles, getCollectionRow, requireCreateIn, viewsAllContent } from './collections.ts';
import { rowParser } from '../store/enums.ts';
import { newId, newSecret } from '../common/ids.ts';
import { lastPosition, positionAmong } from './ordering.ts';
import { organizationAccess, requireOrganization } from './organizations.ts';
import type { Row } from '../store/schema.ts';

/** A space's row without the store's bookkeeping of its revisions (what search indexed, a first revision not yet written). */
export type SpaceRow = Omit<
  Row<'spaces', {
    visibility: Model<'Space'>['visibility'];
    editMode: Model<'EditMode'>;
    language: NonNullable<Model<'Space'>['language']> | null;
    defaultLevel: Role | null;
  }>,
  'searchRevisionId' | 'unwrittenRevisionId'
>;

export type SpacePermissions = Model<'SpacePermissions'>;

/**
 * Per `SpaceVisibility`: whether anyone may read the space at its public address (`open`), and whether its share
 * link (with the space's `shareKey`) lets anyone read it (`shareLink`).
 */
export const SPACE_VISIBILITIES = {
  public: { open: true, shareLink: false },
  unlisted: { open: true, shareLink: false },
  'share-link': { open: false, shareLink: true },
  'visitor-auth': { open: false, shareLink: false },
  'in-collection': { open: false, shareLink: false },
  private: { open: false, shareLink: false },
} satisfies Record<Model<'SpaceVisibility'>, { open: boolean; shareLink: boolean }>;

/** Per `EditMode`: whether the space's content is locked against every write. */
export const EDIT_MODES = {
  live: { locked: false },
  locked: { locked: true },
} satisfies Record<Model<'EditMode'>, { locked: boolean }>;

/** A `spaces` row checked: its visibility, edit mode and default level are members of their enumerations. */
export const parseSpaceRow = rowParser<SpaceRow>('spaces', {
  visibility: SPACE_VISIBILITIES,
  editMode: EDIT_MODES,
  defaultLevel: ROLE_RANKS,
});

/** How long a deleted space stays restorable before it is permanently removed. */
export const DELETED_SPACE_RETENTION_MS = 7 * DAY;

export async function getSpaceRow(db: Db, id: string): Promise<SpaceRow | undefined> {
  const row = await spaces.get(db, id);
  return row === undefined ? undefined : parseSpaceRow(row);
}

/**
 * Creates a space at the end of its parent, with a first revision of `content`, or an empty one: without `content`, a
 * space of a new id has an unwritten first revision (content/revisions.ts), which reads as empty and has no row.
 */
export async function insertSpace(
  ctx: Scope,
  input: Input<'CreateSpaceRequest'> & { id?: string; organizationId: string; visibility?: SpaceRow['visibility'] },
  content?: RevisionContent,
  /** Its position at the end of its parent, when read already (`lastPosition`); read here otherwise. */
  position?: number,
): Promise<SpaceRow> {
  // An id just made is nobody's yet: the search index holds no rows of it (a given id, a seed's, may be one whose
  // rows an earlier space left there, which indexSpaceContent replaces).
  const fresh = input.id === undefined;
  const unwritten = fresh && content === undefined;
  const parent = input.parent || null; // "" is the top level, as checkParent reads it
  // The row as stored, made here rather than read back (a SELECT and its parse for what this function already knows);
  // test/api/spaces.test.ts compares it with the stored row, column by column.
  const row: SpaceRow = { ...newSpaceRow(ctx, input), parentId: parent, position: position ?? (await lastPosition(ctx.db, input.organizationId, parent)) };
  const { id, revisionId } = row;
  await spaces.insert(ctx.db, row, { searchRevisionId: fresh ? revisionId : null, unwrittenRevisionId: unwritten ? revisionId : null });
  // An empty revision has no pages to index.
  if (!unwritten) {
    const first = content ?? emptyContent();
    await createRevision(ctx.db, { id: revisionId, spaceId: id, parents: [], type: 'edits', content: first, createdAt: row.createdAt });
    // A fresh space's pages are added to an index that holds nothing of it.
    if (fresh) await indexNewSpace(ctx.db, id, first);
    else await indexSpaceContent(ctx.db, id, revisionId, first);
  }
  return row;
}

/**
 * A new space's row but for its place (parent and position): its id (given, or new), its first revision's id (whose
 * row, when it has one, follows the space's, as it refers to it), its settings or their defaults, a new share key.
 */
function newSpaceRow(
  ctx: Scope,
  input: Input<'CreateSpaceRequest'> & { id?: string; organizationId: string; visibility?: SpaceRow['visibility'] },
): Omit<SpaceRow, 'parentId' | 'position'> {
  const now = ctx.now();
  return {
    id: input.id ?? newId(),
    organizationId: input.organizationId,
    title: input.title ?? 'Untitled',
    emoji: input.emoji ?? null,
    visibility: input.visibility ?? 'private',
    editMode: input.editMode ?? 'live',
    language: input.language ?? null,
    defaultLevel: null,
    revisionId: newId(),
    shareKey: newSecret(16),
    gitSync: null,
    visitorAuth: null,
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  };
}

/** The role of a member on a space; see contentRoles. */
export async function spaceRole(db: Db, membership: Membership | undefined, space: SpaceRow): Promise<Role | null> {
  return (await contentRoles(db, membership, [space]))(space);
}

/** What a caller with `role` may do with the space; handlers enforce exactly these. */
export function spacePermissions(role: Role | null, space: SpaceRow): SpacePermissions {
  const live = !EDIT_MODES[space.editMode].locked && space.deletedAt === null;
  return {
    view: atLeast(role, 'read'),
    access: atLeast(role, 'read'),
    admin: atLeast(role, 'admin'),
    viewInviteLinks: atLeast(role, 'admin'),
    edit: live && atLeast(role, 'edit'),
    triggerGitSync: live && atLeast(role, 'edit'),
    comment: space.deletedAt === null && atLeast(role, 'comment'),
    merge: live && atLeast(role, 'review'),
    review: atLeast(role, 'review'),
    installIntegration: atLeast(role, 'admin'),
  };
}

/** Permissions of a visitor who holds the secret share key of a share-link space: reading only. */
const SHARE_LINK_PERMISSIONS: SpacePermissions = {
  view: true,
  access: true,
  admin: false,
  viewInviteLinks: false,
  edit: false,
  triggerGitSync: false,
  comment: false,
  merge: false,
  review: false,
  installIntegration: false,
};

export const isExpired = (ctx: AppContext, space: SpaceRow): boolean =>
  space.deletedAt !== null &&
  ctx.clock.now().getTime() - new Date(space.deletedAt).getTime() > DELETED_SPACE_RETENTION_MS;

/** Permanently removes a space and everything in it. */
export async function purgeSpace(db: Db, spaceId: string): Promise<void> {
  await removeSpaceFromIndex(db, spaceId);
  await spaces.remove(db, spaceId);
}

/** Permanently removes every space deleted more than 7 days ago; returns how many. */
export async function purgeExpiredSpaces(ctx: Scope): Promise<number> {
  const cutoff = new Date(ctx.clock.now().getTime() - DELETED_SPACE_RETENTION_MS).toISOString();
  const expired = await spaces.deletedBefore(ctx.db, cutoff);
  for (const id of expired) await purgeSpace(ctx.db, id);
  return expired.length;
}

export interface SpaceAccess {
  space: SpaceRow;
  membership: Membership | undefined;
  role: Role | null;
  permissions: SpacePermissions;
  /** The space's counters, read with it. */
  counts: SpaceCounts;
}

/**
 * The space, when the caller may view it: a member whose role gives access, or anyone holding the share key of a
 * share-link space. Otherwise 404. A deleted space is found only with `includeDeleted`, only by the space's admins (it
 * is in the trash, which only those who can restore it see: everyone else, share-key holders included, gets the 404
 * of a space that is not there), and not at all once its 7 days are over (it is purged then, if the sweep has not
 * done it yet).
 */
export async function spaceAccess(
  ctx: Scope,
  caller: Caller,
  spaceId: string,
  options: { shareKey?: string; includeDeleted?: boolean } = {},
): Promise<SpaceAccess> {
  // The space, the caller's membership of its organization and its counters, in one query.
  return accessFrom(ctx, spaceId, await spaces.getForUser(ctx.db, spaceId, caller.user.id), options);
}

/** The caller's access to the space `spaceId` from its read (see spaceAccess). */
async function accessFrom(
  ctx: Scope,
  spaceId: string,
  found: spaces.SpaceForUser | undefined,
  options: { shareKey?: string; includeDeleted?: boolean },
): Promise<SpaceAccess> {
  // Built when thrown: an Error captures a stack trace, a cost every successful call would pay.
  const missing = () => notFound(`space ${spaceId}`);
  if (!found) throw missing();
  const space = parseSpaceRow(found.space);
  const counts = countsOf(found.counters);
  if (space.deletedAt !== null) {
    if (isExpired(ctx, space)) {
      // Purged by a write that finds it (a read leaves it to the hourly sweep).
      if (ctx.db.writing) await purgeSpace(ctx.db, space.id);
      throw missing();
    }
    if (!options.includeDeleted) throw missing();
  }
  const membership = membershipFrom(found.member, space.organizationId);
  const role = await spaceRole(ctx.db, membership, space);
  const permissions = spacePermissions(role, space);
  if (space.deletedAt !== null) {
    if (permissions.admin) return { space, membership, role, permissions, counts };
    throw missing();
  }
  if (permissions.view) return { space, membership, role, permissions, counts };
  if (options.shareKey !== undefined && SPACE_VISIBILITIES[space.visibility].shareLink && options.shareKey === space.shareKey) {
    return { space, membership, role: 'read', permissions: SHARE_LINK_PERMISSIONS, counts };
  }
  throw missing();
}

export function requireSpace(access: SpaceAccess, permission: keyof SpacePermissions): void {
  if (access.permissions[permission]) return;
  const locked = EDIT_MODES[access.space.editMode].locked && ['edit', 'merge', 'triggerGitSync'].includes(permission);
  throw forbidden(
    locked
      ? 'the space is locked (editMode: locked): its content cannot be changed'
      : `this operation needs the ${permission} permission on the space`,
  );
}

type SpaceCounts = Pick<Model<'Space'>, 'comments' | 'changeRequests' | 'changeRequestsOpen' | 'changeRequestsDraft'>;

/** A space's counters as the triggers of migration 100_space_counters keep them (no row: all 0). */
const NO_COUNTS: SpaceCounts = { comments: 0, changeRequests: 0, changeRequestsOpen: 0, changeRequestsDraft: 0 };
const countsOf = (row: spaces.SpaceCounters | undefined): SpaceCounts =>
  row
    ? {
        comments: row.comments,
        changeRequests: row.changeRequests,
        changeRequestsOpen: row.changeRequestsOpen,
        changeRequestsDraft: row.changeRequestsDraft,
      }
    : NO_COUNTS;

/** Open comments and change requests of a space, as its counters show them (one query). */
async function spaceCounts(db: Db, spaceId: string): Promise<SpaceCounts> {
  return countsOf(await spaces.countersOf(db, spaceId));
}

/** The counters of many spaces (a page of a list) in one query, rather than one per space. */
async function spaceCountsOf(db: Db, spaceIds: string[]): Promise<(spaceId: string) => SpaceCounts> {
  const rows = spaceIds.length === 0 ? [] : await spaces.counters(db, spaceIds);
  const counts = new Map(rows.map((row) => [row.spaceId, countsOf(row)]));
  return (spaceId) => counts.get(spaceId) ?? NO_COUNTS;
}

/**
 * The public address of a space: for public and unlisted spaces, for anyone who sees them; for a share-link space,
 * the share link itself (with its secret key), only for those who administer the space.
 */
function publicUrl(ctx: AppContext, row: SpaceRow, permissions: SpacePermissions): { public?: string } {
  const visibility = SPACE_VISIBILITIES[row.visibility];
  if (visibility.open) return { public: ctx.urls.app(`/public/s/${row.id}`) };
  if (visibility.shareLink && permissions.admin) {
    return { public: `${ctx.urls.app(`/public/s/${row.id}`)}?shareKey=${row.shareKey}` };
  }
  return {};
}

/** The space as the API shows it; its counters are read unless given (`counts`, read with the space). */
export async function presentSpace(ctx: Scope, row: SpaceRow, permissions: SpacePermissions, counts?: SpaceCounts): Promise<Model<'Space'>> {
  return presentSpaceWith(ctx, row, permissions, counts ?? (await spaceCounts(ctx.db, row.id)));
}

/** The space as the API shows it, with its counters read already. */
function presentSpaceWith(ctx: AppContext, row: SpaceRow, permissions: SpacePermissions, counts: SpaceCounts): Model<'Space'> {
  const gitSync = fromJson<Model<'GitInfo'> | null>(row.gitSync, null);
  const visitorAuth = fromJson<Model<'SpaceVisitorAuth'> | null>(row.visitorAuth, null);
  return {
    object: 'space',
    id: row.id,
    title: row.title,
    ...(row.emoji ? { emoji: row.emoji } : {}),
    visibility: row.visibility,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    ...(row.deletedAt ? { deletedAt: row.deletedAt } : {}),
    editMode: row.editMode,
    urls: {
      location: ctx.urls.api(`/v1/spaces/${row.id}`),
      app: ctx.urls.app(`/s/${row.id}`),
      ...publicUrl(ctx, row, permissions),
    },
    organization: row.organizationId,
    ...(row.parentId ? { parent: row.parentId } : {}),
    ...(row.language ? { language: row.language } : {}),
    ...(gitSync ? { gitSync } : {}),
    ...(visitorAuth ? { visitorAuth } : {}),
    revision: row.revisionId,
    ...(row.defaultLevel ? { defaultLevel: row.defaultLevel } : {}),
    ...counts,
    permissions,
  };
}

/** The space as the given member sees it (for lists of spaces computed for another user than the caller). */
export async function presentSpaceFor(ctx: Scope, row: SpaceRow, membership: Membership | undefined, counts?: SpaceCounts): Promise<Model<'Space'>> {
  // Its role and its counters read together: one round trip on PostgreSQL.
  const [role, read] = await Promise.all([spaceRole(ctx.db, membership, row), counts ?? spaceCounts(ctx.db, row.id)]);
  return presentSpaceWith(ctx, row, spacePermissions(role, row), read);
}

/** A space just created, as the given member sees it: it has no comments or change requests yet. */
export async function presentNewSpaceFor(ctx: Scope, row: SpaceRow, membership: Membership | undefined): Promise<Model<'Space'>> {
  return presentSpaceWith(ctx, row, spacePermissions(await spaceRole(ctx.db, membership, row), row), NO_COUNTS);
}

/** A page of spaces, each with the given permissions, their counters read for the whole page at once. */
export async function presentSpaces(
  ctx: Scope,
  rows: SpaceRow[],
  permissionsOf: (row: SpaceRow) => SpacePermissions,
): Promise<Model<'Space'>[]> {
  const counts = await spaceCountsOf(ctx.db, rows.map((row) => row.id));
  return rows.map((row) => presentSpaceWith(ctx, row, permissionsOf(row), counts(row.id)));
}

/** A page of spaces as the given member sees them (the collections' default levels read at once: `contentRoles`). */
export async function presentSpacesFor(ctx: Scope, rows: SpaceRow[], membership: Membership | undefined): Promise<Model<'Space'>[]> {
  // The levels and the counters read together: one round trip on PostgreSQL.
  const [roles, counts] = await Promise.all([contentRoles(ctx.db, membership, rows), spaceCountsOf(ctx.db, rows.map((row) => row.id))]);
  return rows.map((row) => presentSpaceWith(ctx, row, spacePermissions(roles(row), row), counts(row.id)));
}

/** Number of live spaces of an organization, as the triggers of migration 110_organization_space_counts keep it. */
export const liveSpaceCount = (db: Db, organizationId: string): Promise<number> => spaces.liveCount(db, organizationId);

/**
 * One page of the live spaces of an organization that a member can read, by creation date: a keyset query (see
 * viewsAllContent in collections.ts), empty for guests.
 */
export async function liveSpacesPage(
  ctx: Scope,
  options: { list: string; organizationId: string; membership: Membership | undefined; order: Model<'SortOrder'>; page?: string; limit?: number },
): Promise<Page<SpaceRow>> {
  if (!viewsAllContent(options.membership)) return ctx.cursors.pageOf({ ...options, all: [], key: () => [] });
  return ctx.cursors.page({
    list: options.list,
    page: options.page,
    limit: options.limit,
    key: (row: SpaceRow) => [row.createdAt, row.id],
    count: () => liveSpaceCount(ctx.db, options.organizationId),
    fetch: async (key, limit) => (await spaces.livePage(ctx.db, options.organizationId, options.order, key, limit)).map(parseSpaceRow),
  });
}

/** Touches `updatedAt` of a space. */
export async function touchSpace(ctx: Scope, spaceId: string): Promise<void> {
  await spaces.update(ctx.db, spaceId, { updatedAt: ctx.now() });
}

/** Convenience for handlers: the caller's membership of the organization owning a space. */
export const callerMembership = (ctx: Scope, caller: Caller, organizationId: string) => membershipOf(ctx.db, caller.user.id, organizationId);

/**
 * One page of the live spaces of a collection (not of the collections nested in it) that a member can read, in their
 * order among their siblings: a keyset query (see viewsAllContent in collections.ts), empty for guests.
 */
export async function collectionSpacesPage(
  ctx: Scope,
  options: { list: string; collectionId: string; membership: Membership | undefined; page?: string; limit?: number },
): Promise<Page<SpaceRow>> {
  const { list, page, limit } = options;
  if (!viewsAllContent(options.membership)) return ctx.cursors.pageOf<SpaceRow>({ list, page, limit, all: [], key: () => [] });
  return ctx.cursors.page({
    list,
    page,
    limit,
    key: (row: SpaceRow) => [row.position, row.id],
    count: () => spaces.liveCountInCollection(ctx.db, options.collectionId),
    fetch: async (key, limit) => (await spaces.livePageInCollection(ctx.db, options.collectionId, key, limit)).map(parseSpaceRow),
  });
}

/** The collection `parent` of the organization (null for the top level); 400 naming `field` otherwise. */
async function checkParent(ctx: Scope, organizationId: string, parent: string | null | undefined, field: string) {
  if (!parent) return null;
  const collection = await getCollectionRow(ctx.db, parent);
  if (!collection || collection.organizationId !== organizationId) {
    throw badRequest(`${field}: no collection ${parent} in this organization`);
  }
  return collection;
}

/** The space as it is now, with the caller's permissions (read after the change, possibly in a new organization). */
async function presentSpaceNow(ctx: Scope, spaceId: string, caller: Caller): Promise<Model<'Space'>> {
  const row = (await getSpaceRow(ctx.db, spaceId))!;
  return presentSpaceFor(ctx, row, await callerMembership(ctx, caller, row.organizationId));
}

/**
 * Creates a space in an organization, at the end of its parent (a collection of the organization, or the top level,
 * where the caller may create content), empty; returns it as the caller sees it.
 */
export async function createSpace(
  ctx: Scope,
  caller: Caller,
  organizationId: string,
  input: Input<'CreateSpaceRequest'> | undefined,
): Promise<Model<'Space'>> {
  // The end of the parent is read with the caller's access (one round trip on PostgreSQL), and used once it is checked.
  const [access, position] = await Promise.all([organizationAccess(ctx, caller, organizationId), lastPosition(ctx.db, organizationId, input?.parent || null)]);
  await requireCreateIn(ctx.db, access.membership, await checkParent(ctx, organizationId, input?.parent, 'parent'));
  const row = await insertSpace(ctx, { ...(input ?? {}), organizationId }, undefined, position);
  return presentNewSpaceFor(ctx, row, access.membership);
}

/**
 * Puts a space in the trash, where its admins can restore it for 7 days. A space the caller does not find has
 * nothing to delete, and one in the trash already stays as it is: both succeed.
 */
export async function deleteSpace(ctx: Scope, caller: Caller, spaceId: string): Promise<void> {
  let access;
  try {
    access = await spaceAccess(ctx, caller, spaceId, { includeDeleted: true });
  } catch {
    return; // unknown, gone or invisible: nothing to delete
  }
  requireSpace(access, 'admin');
  if (access.space.deletedAt === null) {
    await spaces.update(ctx.db, spaceId, { deletedAt: ctx.now() });
    await removeSpaceFromIndex(ctx.db, spaceId);
  }
}

/** What a change of a space's settings writes: the settings sent, and the time. */
function spaceChanges(ctx: Scope, input: Input<'UpdateSpaceRequest'>) {
  return {
    ...(input.title !== undefined ? { title: input.title } : {}),
    ...(input.emoji !== undefined ? { emoji: input.emoji } : {}),
    ...(input.editMode !== undefined ? { editMode: input.editMode } : {}),
    ...(input.defaultLevel !== undefined ? { defaultLevel: input.defaultLevel } : {}),
    ...(input.language !== undefined ? { language: input.language } : {}),
    updatedAt: ctx.now(),
  };
}

/** Changes the settings of a space, for its admins; returns it as the caller sees it. */
export async function updateSpace(ctx: Scope, caller: Caller, spaceId: string, input: Input<'UpdateSpaceRequest'>): Promise<Model<'Space'>> {
  const access = await spaceAccess(ctx, caller, spaceId);
  requireSpace(access, 'admin');
  const changes = spaceChanges(ctx, input);
  await spaces.update(ctx.db, spaceId, changes);
  // The row as it is now, made from the row read and the changes rather than read back (no trigger changes a
  // space's own row), as the caller sees it (their membership and the space's counters, which these changes leave
  // alone, were read with the space).
  return presentSpaceFor(ctx, { ...access.space, ...changes }, access.membership, access.counts);
}

/**
 * Copies a space, its current content and its settings, into a new space of the same organization, for a caller who
 * may create content there; returns the copy as the caller sees it.
 */
export async function duplicateSpace(ctx: Scope, caller: Caller, spaceId: string): Promise<Model<'Space'>> {
  const access = await spaceAccess(ctx, caller, spaceId);
  const organization = await organizationAccess(ctx, caller, access.space.organizationId);
  requireOrganization(organization, 'createContent');
  const source = access.space;
  const content = (await currentRevision(ctx.db, source)).content;
  const copy = await insertSpace(
    ctx,
    {
      organizationId: source.organizationId,
      title: `${source.title} (copy)`.slice(0, 255),
      ...(source.emoji ? { emoji: source.emoji } : {}),
      ...(source.parentId ? { parent: source.parentId } : {}),
      ...(source.language ? { language: source.language } : {}),
      editMode: source.editMode,
      visibility: source.visibility,
    },
    content,
  );
  if (source.defaultLevel) await spaces.update(ctx.db, copy.id, { defaultLevel: source.defaultLevel });
  return presentSpaceNow(ctx, copy.id, caller);
}

/** Takes a space out of the trash, for its admins (409 when it is not in the trash); returns it as the caller sees it. */
export async function restoreSpace(ctx: Scope, caller: Caller, spaceId: string): Promise<Model<'Space'>> {
  const access = await spaceAccess(ctx, caller, spaceId, { includeDeleted: true });
  requireSpace(access, 'admin');
  if (access.space.deletedAt === null) throw conflict(`space ${spaceId} is not deleted`);
  await spaces.update(ctx.db, spaceId, { deletedAt: null, updatedAt: ctx.now() });
  await setCurrentRevision(ctx.db, await currentRevision(ctx.db, access.space), ctx.now());
  return presentSpaceNow(ctx, access.space.id, caller);
}

/**
 * Moves a space to another parent (a collection of its organization, or the top level; "": the top level) or another
 * place among its siblings, for its admins (moving it elsewhere needs the permission to create content there); 409
 * when it is there already. Returns it as the caller sees it.
 */
export async function moveSpace(
  ctx: Scope,
  caller: Caller,
  spaceId: string,
  input: Input<'MoveSpaceRequest'>,
): Promise<Model<'Space'>> {
  const access = await spaceAccess(ctx, caller, spaceId);
  requireSpace(access, 'admin');
  const space = access.space;
  const parent = input.parent === undefined ? space.parentId : input.parent || null; // "" is the top level, as checkParent reads it
  const destination = await checkParent(ctx, space.organizationId, parent, 'parent');
  if (parent !== space.parentId) await requireCreateIn(ctx.db, access.membership, destination);
  const position = await positionAmong(ctx.db, space, parent, input.position);
  if (position === undefined) throw conflict('the move changes nothing: the space is already there');
  await spaces.update(ctx.db, space.id, { parentId: parent, position, updatedAt: ctx.now() });
  return presentSpaceNow(ctx, space.id, caller);
}

/**
 * Moves a space to the end of the top level of another organization of the caller's, for its admins who may create
 * content there; returns it as the caller sees it.
 */
export async function transferSpace(ctx: Scope, caller: Caller, spaceId: string, organizationId: string): Promise<Model<'Space'>> {
  const access = await spaceAccess(ctx, caller, spaceId);
  requireSpace(access, 'admin');
  if (organizationId === access.space.organizationId) {
    throw conflict(`organization: the space is already in organization ${organizationId}`);
  }
  let target;
  try {
    target = await organizationAccess(ctx, caller, organizationId);
  } catch {
    throw badRequest(`organization: no organization ${organizationId} among the caller's`);
  }
  requireOrganization(target, 'createContent');
  await spaces.update(ctx.db, spaceId, {
    organizationId: organizationId,
    parentId: null,
    position: await lastPosition(ctx.db, organizationId, null),
    updatedAt: ctx.now(),
  });
  // Teams are per organization: the old organization's teams no longer reach the space.
  await spaces.removeFromTeams(ctx.db, spaceId);
  return presentSpaceNow(ctx, access.space.id, caller);
}

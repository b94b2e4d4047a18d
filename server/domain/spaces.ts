// Spaces: rows, the caller's role and permissions on them, their lifecycle (a deleted space is kept 7 days, then
// purged), and how the API shows them.
import type { Caller } from '../auth/caller.ts';
import { atLeast, type Membership, membershipOf, type Role, ROLE_RANKS } from '../auth/roles.ts';
import type { AppContext } from '../context.ts';
import { removeSpaceFromIndex } from '../content/search.ts';
import { DAY } from './clock.ts';
import { forbidden, notFound } from '../http/errors.ts';
import type { Model } from '../http/types.ts';
import { after, type Page, SORT_ORDERS } from '../http/pagination.ts';
import { amongIds, type Db, fromJson } from '../store/db.ts';
import { contentRoles, viewsAllContent } from './collections.ts';
import { rowParser } from './enums.ts';

export type SpaceRow = {
  id: string;
  organization_id: string;
  parent_id: string | null;
  title: string;
  emoji: string | null;
  visibility: Model<'Space'>['visibility'];
  edit_mode: Model<'EditMode'>;
  language: Model<'Space'>['language'] | null;
  default_level: Role | null;
  revision_id: string;
  share_key: string;
  git_sync: string | null;
  visitor_auth: string | null;
  position: number;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
};

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
  edit_mode: EDIT_MODES,
  default_level: ROLE_RANKS,
});

/** How long a deleted space stays restorable before it is permanently removed. */
export const DELETED_SPACE_RETENTION_MS = 7 * DAY;

export function getSpaceRow(db: Db, id: string): SpaceRow | undefined {
  const row = db.prepare('SELECT * FROM spaces WHERE id = ?').get(id);
  return row === undefined ? undefined : parseSpaceRow(row);
}

/** The role of a member on a space; see contentRoles. */
export function spaceRole(db: Db, membership: Membership | undefined, space: SpaceRow): Role | null {
  return contentRoles(db, membership, [space])(space);
}

/** What a caller with `role` may do with the space; handlers enforce exactly these. */
export function spacePermissions(role: Role | null, space: SpaceRow): SpacePermissions {
  const live = !EDIT_MODES[space.edit_mode].locked && space.deleted_at === null;
  return {
    view: atLeast(role, 'read'),
    access: atLeast(role, 'read'),
    admin: atLeast(role, 'admin'),
    viewInviteLinks: atLeast(role, 'admin'),
    edit: live && atLeast(role, 'edit'),
    triggerGitSync: live && atLeast(role, 'edit'),
    comment: space.deleted_at === null && atLeast(role, 'comment'),
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
  space.deleted_at !== null &&
  ctx.clock.now().getTime() - new Date(space.deleted_at).getTime() > DELETED_SPACE_RETENTION_MS;

/** Permanently removes a space and everything in it. */
export function purgeSpace(db: Db, spaceId: string): void {
  removeSpaceFromIndex(db, spaceId);
  db.prepare('DELETE FROM spaces WHERE id = ?').run(spaceId);
}

/** Permanently removes every space deleted more than 7 days ago; returns how many. */
export function purgeExpiredSpaces(ctx: AppContext): number {
  const cutoff = new Date(ctx.clock.now().getTime() - DELETED_SPACE_RETENTION_MS).toISOString();
  const expired = ctx.db.prepare('SELECT id FROM spaces WHERE deleted_at IS NOT NULL AND deleted_at < ?').all(cutoff) as {
    id: string;
  }[];
  for (const { id } of expired) purgeSpace(ctx.db, id);
  return expired.length;
}

export interface SpaceAccess {
  space: SpaceRow;
  membership: Membership | undefined;
  role: Role | null;
  permissions: SpacePermissions;
}

/**
 * The space, when the caller may view it: a member whose role gives access, or anyone holding the share key of a
 * share-link space. Otherwise 404. A deleted space is found only with `includeDeleted`, and not at all once its 7
 * days are over (it is purged then, if the sweep has not done it yet).
 */
export function spaceAccess(
  ctx: AppContext,
  caller: Caller,
  spaceId: string,
  options: { shareKey?: string; includeDeleted?: boolean } = {},
): SpaceAccess {
  // Built when thrown: an Error captures a stack trace, a cost every successful call would pay.
  const missing = () => notFound(`space ${spaceId}`);
  const space = getSpaceRow(ctx.db, spaceId);
  if (!space) throw missing();
  if (space.deleted_at !== null) {
    if (isExpired(ctx, space)) {
      if (ctx.store.inWrite) purgeSpace(ctx.db, space.id);
      throw missing();
    }
    if (!options.includeDeleted) throw missing();
  }
  const membership = membershipOf(ctx.db, caller.user.id, space.organization_id);
  const role = spaceRole(ctx.db, membership, space);
  const permissions = spacePermissions(role, space);
  if (permissions.view) return { space, membership, role, permissions };
  if (options.shareKey !== undefined && SPACE_VISIBILITIES[space.visibility].shareLink && options.shareKey === space.share_key) {
    return { space, membership, role: 'read', permissions: SHARE_LINK_PERMISSIONS };
  }
  throw missing();
}

export function requireSpace(access: SpaceAccess, permission: keyof SpacePermissions): void {
  if (access.permissions[permission]) return;
  const locked = EDIT_MODES[access.space.edit_mode].locked && ['edit', 'merge', 'triggerGitSync'].includes(permission);
  throw forbidden(
    locked
      ? 'the space is locked (editMode: locked): its content cannot be changed'
      : `this operation needs the ${permission} permission on the space`,
  );
}

type SpaceCounts = Pick<Model<'Space'>, 'comments' | 'changeRequests' | 'changeRequestsOpen' | 'changeRequestsDraft'>;

/** A space's counters as the triggers of migration 100_space_counters keep them (no row: all 0). */
const COUNTERS_SQL = `SELECT space_id, comments, change_requests AS changeRequests,
  change_requests_open AS changeRequestsOpen, change_requests_draft AS changeRequestsDraft FROM space_counters`;
const COUNTERS_AMONG = amongIds((among) => `${COUNTERS_SQL} WHERE space_id ${among}`);
const NO_COUNTS: SpaceCounts = { comments: 0, changeRequests: 0, changeRequestsOpen: 0, changeRequestsDraft: 0 };
const countsOf = (row: (SpaceCounts & { space_id: string }) | undefined): SpaceCounts =>
  row
    ? { comments: row.comments, changeRequests: row.changeRequests, changeRequestsOpen: row.changeRequestsOpen, changeRequestsDraft: row.changeRequestsDraft }
    : NO_COUNTS;

/** Open comments and change requests of a space, as its counters show them (one query). */
function spaceCounts(db: Db, spaceId: string): SpaceCounts {
  return countsOf(db.prepare(COUNTERS_AMONG.one).get(spaceId) as (SpaceCounts & { space_id: string }) | undefined);
}

/** The counters of many spaces (a page of a list) in one query, rather than one per space. */
function spaceCountsOf(db: Db, spaceIds: string[]): (spaceId: string) => SpaceCounts {
  const { sql, ids } = COUNTERS_AMONG(spaceIds);
  const rows = db.prepare(sql).all(ids) as (SpaceCounts & { space_id: string })[];
  const counts = new Map(rows.map((row) => [row.space_id, countsOf(row)]));
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
    return { public: `${ctx.urls.app(`/public/s/${row.id}`)}?shareKey=${row.share_key}` };
  }
  return {};
}

export function presentSpace(
  ctx: AppContext,
  row: SpaceRow,
  permissions: SpacePermissions,
  counts: SpaceCounts = spaceCounts(ctx.db, row.id),
): Model<'Space'> {
  const gitSync = fromJson<Model<'GitInfo'> | null>(row.git_sync, null);
  const visitorAuth = fromJson<Model<'SpaceVisitorAuth'> | null>(row.visitor_auth, null);
  return {
    object: 'space',
    id: row.id,
    title: row.title,
    ...(row.emoji ? { emoji: row.emoji } : {}),
    visibility: row.visibility,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ...(row.deleted_at ? { deletedAt: row.deleted_at } : {}),
    editMode: row.edit_mode,
    urls: {
      location: ctx.urls.api(`/v1/spaces/${row.id}`),
      app: ctx.urls.app(`/s/${row.id}`),
      ...publicUrl(ctx, row, permissions),
    },
    organization: row.organization_id,
    ...(row.parent_id ? { parent: row.parent_id } : {}),
    ...(row.language ? { language: row.language } : {}),
    ...(gitSync ? { gitSync } : {}),
    ...(visitorAuth ? { visitorAuth } : {}),
    revision: row.revision_id,
    ...(row.default_level ? { defaultLevel: row.default_level } : {}),
    ...counts,
    permissions,
  };
}

/** The space as the given member sees it (for lists of spaces computed for another user than the caller). */
export function presentSpaceFor(ctx: AppContext, row: SpaceRow, membership: Membership | undefined): Model<'Space'> {
  return presentSpace(ctx, row, spacePermissions(spaceRole(ctx.db, membership, row), row));
}

/** A page of spaces, each with the given permissions, their counters read for the whole page at once. */
export function presentSpaces(
  ctx: AppContext,
  rows: SpaceRow[],
  permissionsOf: (row: SpaceRow) => SpacePermissions,
): Model<'Space'>[] {
  const counts = spaceCountsOf(ctx.db, rows.map((row) => row.id));
  return rows.map((row) => presentSpace(ctx, row, permissionsOf(row), counts(row.id)));
}

/** A page of spaces as the given member sees them (the collections' default levels read at once: `contentRoles`). */
export function presentSpacesFor(ctx: AppContext, rows: SpaceRow[], membership: Membership | undefined): Model<'Space'>[] {
  const roles = contentRoles(ctx.db, membership, rows);
  return presentSpaces(ctx, rows, (row) => spacePermissions(roles(row), row));
}

/** Number of live spaces of an organization, as the triggers of migration 110_organization_space_counts keep it. */
export function liveSpaceCount(db: Db, organizationId: string): number {
  const row = db.prepare('SELECT live_spaces AS n FROM organization_space_counts WHERE organization_id = ?').get(organizationId) as
    | { n: number }
    | undefined;
  return row?.n ?? 0;
}

/**
 * One page of the live spaces of an organization that a member can read, by creation date: a keyset query (see
 * viewsAllContent in collections.ts), empty for guests.
 */
export function liveSpacesPage(
  ctx: AppContext,
  options: { list: string; organizationId: string; membership: Membership | undefined; order: Model<'SortOrder'>; page?: string; limit?: number },
): Page<SpaceRow> {
  if (!viewsAllContent(options.membership)) return ctx.cursors.pageOf({ ...options, all: [], key: () => [] });
  return ctx.cursors.page({
    list: options.list,
    page: options.page,
    limit: options.limit,
    key: (row: SpaceRow) => [row.created_at, row.id],
    count: () => liveSpaceCount(ctx.db, options.organizationId),
    fetch: (key, limit) =>
      ctx.db
        .prepare(
          `SELECT * FROM spaces WHERE organization_id = ? AND deleted_at IS NULL
           ${key ? `AND ${after(['created_at', 'id'], options.order)}` : ''}
           ORDER BY created_at ${SORT_ORDERS[options.order].sql}, id ${SORT_ORDERS[options.order].sql} LIMIT ?`,
        )
        .all(options.organizationId, ...(key ?? []), limit).map(parseSpaceRow),
  });
}

/** Touches `updatedAt` of a space. */
export function touchSpace(ctx: AppContext, spaceId: string): void {
  ctx.db.prepare('UPDATE spaces SET updated_at = ? WHERE id = ?').run(ctx.now(), spaceId);
}

/** Convenience for handlers: the caller's membership of the organization owning a space. */
export const callerMembership = (ctx: AppContext, caller: Caller, organizationId: string) =>
  membershipOf(ctx.db, caller.user.id, organizationId);

// Collections: rows, inherited default levels, the caller's permissions, and how the API shows them.
import type { Caller } from '../auth/caller.ts';
import { atLeast, higher, type Membership, membershipOf, type Role, ROLE_RANKS } from '../auth/roles.ts';
import type { AppContext, Scope } from '../context/context.ts';
import { removeSpacesFromIndex } from '../content/search.ts';
import { badRequest, conflict, forbidden, isFailure, notFound } from '../common/errors.ts';
import type { Input, Model } from '../common/contract.ts';
import { parseEnum, rowParser } from '../store/enums.ts';
import { newId } from '../common/ids.ts';
import { lastPosition, positionAmong } from './ordering.ts';
import { getOrganizationRow, organizationAccess, organizationPermissions } from './organizations.ts';
import type { Page } from '../common/paging.ts';
import type { Db } from '../store/db.ts';
import * as collections from '../store/collections.ts';
import type { Row } from '../store/schema.ts';

export type CollectionRow = Row<'collections', { defaultLevel: Role | null }>;

/** A `collections` row checked: its default level, when it has one, is a role. */
export const parseCollectionRow = rowParser<CollectionRow>('collections', { defaultLevel: ROLE_RANKS });

export type CollectionPermissions = Model<'CollectionPermissions'>;

export async function getCollectionRow(db: Db, id: string): Promise<CollectionRow | undefined> {
  const row = await collections.get(db, id);
  return row === undefined ? undefined : parseCollectionRow(row);
}

/**
 * The default level each collection gives what it contains: its own, else its nearest ancestor's (null: none, or no
 * such collection). One query for many collections (a page of spaces or collections in several collections), up to
 * 1 000 ancestors each.
 */
export async function inheritedDefaultLevels(db: Db, collectionIds: readonly string[]): Promise<Map<string, Role | null>> {
  const rows = await collections.inheritedDefaultLevels(db, collectionIds);
  const levels = new Map<string, Role | null>(collectionIds.map((id) => [id, null]));
  for (const row of rows) levels.set(row.start, parseEnum(ROLE_RANKS, { table: 'collections', column: 'default_level' }, row.level));
  return levels;
}

/**
 * The role of a member on each of some spaces or collections: `contentRole` with their own default level, else
 * their collection's, the collections' levels read for all of them at once (one query), and only for members whose
 * role a level can change. The role on one space or collection is this for a page of one.
 */
export async function contentRoles<Row extends { defaultLevel: Role | null; parentId: string | null }>(
  db: Db,
  membership: Membership | undefined,
  rows: readonly Row[],
): Promise<(row: Row) => Role | null> {
  // Admins administer everything, guests and non-members get nothing, whatever the levels.
  if (!membership || membership.role === null || membership.role === 'admin') return () => contentRole(membership, null);
  const parents = [...new Set(rows.flatMap((row) => (row.defaultLevel === null && row.parentId !== null ? [row.parentId] : [])))];
  const levels = parents.length > 0 ? await inheritedDefaultLevels(db, parents) : new Map<string, Role | null>();
  return (row) => contentRole(membership, row.defaultLevel ?? (row.parentId === null ? null : (levels.get(row.parentId) ?? null)));
}

/**
 * The caller's role on content with the given default level: admins of the organization administer everything;
 * other members get the higher of their role and the default level; guests and non-members get nothing.
 */
export function contentRole(membership: Membership | undefined, defaultLevel: Role | null): Role | null {
  if (!membership || membership.role === null) return null;
  if (membership.role === 'admin') return 'admin';
  return higher(membership.role, defaultLevel);
}

/**
 * Whether a member views all of the organization's content, every collection and every live space: true for every
 * member with a role, false for guests, who view none. contentRole gives a member the higher of their role and the
 * content's default level, so a default level only ever raises a role, and every role can read. Lists of collections
 * and spaces rely on it to stay keyset queries whose cost does not grow with the organization: no row needs a check
 * of its own (test/server/list-costs.test.ts checks this against contentRole for every role and default level).
 */
export const viewsAllContent = (membership: Membership | undefined): boolean =>
  membership !== undefined && membership.role !== null;

/**
 * Creating content in `parent` (a collection; the organization's top level when null), or moving content there,
 * needs the collection's `create` permission, or the organization's `createContent` at the top level: 403 otherwise.
 */
export async function requireCreateIn(db: Db, membership: Membership | undefined, parent: CollectionRow | null): Promise<void> {
  const allowed = parent
    ? collectionPermissions(await collectionRole(db, membership, parent)).create
    : organizationPermissions(membership).createContent;
  if (!allowed) {
    throw forbidden(
      parent
        ? `parent: creating or moving content into collection ${parent.id} needs its create permission`
        : 'parent: creating or moving content at the top level needs the createContent permission on the organization',
    );
  }
}

export function collectionPermissions(role: Role | null): CollectionPermissions {
  return {
    view: atLeast(role, 'read'),
    admin: atLeast(role, 'admin'),
    viewInviteLinks: atLeast(role, 'admin'),
    create: atLeast(role, 'create'),
  };
}

export interface CollectionAccess {
  collection: CollectionRow;
  membership: Membership;
  role: Role | null;
  permissions: CollectionPermissions;
}

/** The role of a member on a collection; see contentRole. */
export async function collectionRole(db: Db, membership: Membership | undefined, collection: CollectionRow): Promise<Role | null> {
  return (await contentRoles(db, membership, [collection]))(collection);
}

/** The collection, when the caller may view it; otherwise 404. */
export async function collectionAccess(ctx: Scope, caller: Caller, collectionId: string): Promise<CollectionAccess> {
  const collection = await getCollectionRow(ctx.db, collectionId);
  const membership = collection && (await membershipOf(ctx.db, caller.user.id, collection.organizationId));
  const role = collection ? await collectionRole(ctx.db, membership, collection) : null;
  const permissions = collectionPermissions(role);
  if (!collection || !membership || !permissions.view) throw notFound(`collection ${collectionId}`);
  return { collection, membership, role, permissions };
}

export function requireCollection(access: CollectionAccess, permission: keyof CollectionPermissions): void {
  if (!access.permissions[permission]) {
    throw forbidden(`this operation needs the ${permission} permission on the collection`);
  }
}

export function presentCollection(
  ctx: AppContext,
  row: CollectionRow,
  permissions: CollectionPermissions,
): Model<'Collection'> {
  return {
    object: 'collection',
    id: row.id,
    title: row.title,
    ...(row.description !== null ? { description: row.description } : {}),
    organization: row.organizationId,
    ...(row.parentId ? { parent: row.parentId } : {}),
    ...(row.defaultLevel ? { defaultLevel: row.defaultLevel } : {}),
    urls: { location: ctx.urls.api(`/v1/collections/${row.id}`), app: ctx.urls.app(`/c/${row.id}`) },
    permissions,
  };
}

/** A page of collections as the given member sees them (their default levels read at once: `contentRoles`). */
export async function presentCollectionsFor(
  ctx: Scope,
  rows: readonly CollectionRow[],
  membership: Membership | undefined,
): Promise<Model<'Collection'>[]> {
  const roles = await contentRoles(ctx.db, membership, rows);
  return rows.map((row) => presentCollection(ctx, row, collectionPermissions(roles(row))));
}

/** The collection as the given member sees it. */
export async function presentCollectionFor(
  ctx: Scope,
  row: CollectionRow,
  membership: Membership | undefined,
): Promise<Model<'Collection'>> {
  return presentCollection(ctx, row, collectionPermissions(await collectionRole(ctx.db, membership, row)));
}

/** Ids of a collection and of every collection nested in it, at any depth. */
export const subtreeIds = (db: Db, collectionId: string): Promise<string[]> => collections.subtreeIds(db, collectionId);

/**
 * One page of the collections of an organization (only those at its top level with `topLevelOnly`) that a member can
 * read, by creation date: a keyset query for a member who views every collection (viewsAllContent), empty for guests.
 */
export async function collectionsPage(
  ctx: Scope,
  options: { list: string; organizationId: string; topLevelOnly: boolean; membership: Membership | undefined; page?: string; limit?: number },
): Promise<Page<CollectionRow>> {
  const { list, page, limit, organizationId, topLevelOnly } = options;
  if (!viewsAllContent(options.membership)) return ctx.cursors.pageOf<CollectionRow>({ list, page, limit, all: [], key: () => [] });
  return ctx.cursors.page({
    list,
    page,
    limit,
    key: (row: CollectionRow) => [row.createdAt, row.id],
    count: () => collections.count(ctx.db, organizationId, topLevelOnly),
    fetch: async (key, limit) => (await collections.page(ctx.db, organizationId, topLevelOnly, key, limit)).map(parseCollectionRow),
  });
}

/** A referenced parent must be a collection of the organization. */
async function parentIn(ctx: Scope, organizationId: string, parentId: string): Promise<CollectionRow> {
  const parent = await getCollectionRow(ctx.db, parentId);
  if (!parent || parent.organizationId !== organizationId) {
    throw badRequest(`parent: no collection ${parentId} in this organization`);
  }
  return parent;
}

/**
 * The values of `reads`, sent together; when some fail, the first of them in this order fails the whole (as when they
 * were read one after the other), whichever failed first in time.
 */
async function inOrder<T extends readonly unknown[]>(reads: T): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const settled = await Promise.allSettled(reads);
  for (const outcome of settled) if (outcome.status === 'rejected') throw outcome.reason;
  return settled.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value) as { -readonly [K in keyof T]: Awaited<T[K]> };
}

/** The collection as it is now, with the caller's permissions (read after a change, possibly in a new organization). */
async function presentCollectionNow(ctx: Scope, collectionId: string, caller: Caller): Promise<Model<'Collection'>> {
  const row = (await getCollectionRow(ctx.db, collectionId))!;
  return presentCollectionFor(ctx, row, await membershipOf(ctx.db, caller.user.id, row.organizationId));
}

/**
 * Creates a collection in an organization, at the end of its parent (a collection of the organization, or the top
 * level, where the caller may create content); returns it as the caller sees it.
 */
export async function createCollection(
  ctx: Scope,
  caller: Caller,
  organizationId: string,
  input: Input<'CreateCollectionRequest'>,
): Promise<Model<'Collection'>> {
  // Read together (one round trip on PostgreSQL), their refusals in this order: the organization's, the parent's.
  const parentId = input.parent ?? null;
  const [access, parent, position] = await inOrder([
    organizationAccess(ctx, caller, organizationId),
    parentId === null ? null : parentIn(ctx, organizationId, parentId),
    lastPosition(ctx.db, organizationId, parentId),
  ] as const);
  await requireCreateIn(ctx.db, access.membership, parent);
  const row: CollectionRow = {
    id: newId(),
    organizationId: organizationId,
    parentId: parentId,
    title: input.title ?? 'Untitled',
    description: null,
    defaultLevel: null,
    position,
    createdAt: ctx.now(),
  };
  await collections.insert(ctx.db, row);
  // Answered from the row as inserted, not read again: its presentation's reads leave with the insert.
  return presentCollectionFor(ctx, row, access.membership);
}

/**
 * Deletes a collection and the collections nested in it, for its admins; a collection the caller does not find has
 * nothing to delete.
 */
export async function deleteCollection(ctx: Scope, caller: Caller, collectionId: string): Promise<void> {
  let access;
  try {
    access = await collectionAccess(ctx, caller, collectionId);
  } catch (error) {
    if (isFailure(error, 'not-found')) return; // unknown or invisible
    throw error;
  }
  requireCollection(access, 'admin');
  // The spaces of the collection and of its nested collections go to the trash, as DELETE space does
  // (restorable for 7 days, at the top level); the nested collections are deleted with it.
  await removeSpacesFromIndex(ctx.db, await collections.trashSpacesOfTree(ctx.db, access.collection.id, ctx.now()));
  await collections.remove(ctx.db, access.collection.id);
}

/** Changes the title, description ("": none) or default level of a collection, for its admins; returns it as the caller sees it. */
export async function updateCollection(
  ctx: Scope,
  caller: Caller,
  collectionId: string,
  input: Input<'UpdateCollectionRequest'>,
): Promise<Model<'Collection'>> {
  const access = await collectionAccess(ctx, caller, collectionId);
  requireCollection(access, 'admin');
  const changes = {
    ...(input.title !== undefined ? { title: input.title } : {}),
    ...(input.description !== undefined ? { description: input.description === '' ? null : input.description } : {}),
    ...(input.defaultLevel !== undefined ? { defaultLevel: input.defaultLevel } : {}),
  };
  await collections.update(ctx.db, access.collection.id, changes);
  // Answered from the row read and the changes made (no trigger changes the row), not read again.
  return presentCollectionFor(ctx, { ...access.collection, ...changes }, access.membership);
}

/**
 * Moves a collection to another parent (a collection of its organization outside its own tree, or the top level:
 * null) or another place among its siblings, for its admins (moving it elsewhere needs the permission to create
 * content there); 409 when it is there already. Returns it as the caller sees it.
 */
export async function moveCollection(
  ctx: Scope,
  caller: Caller,
  collectionId: string,
  input: Input<'MoveCollectionRequest'>,
): Promise<Model<'Collection'>> {
  const access = await collectionAccess(ctx, caller, collectionId);
  requireCollection(access, 'admin');
  const { collection } = access;
  const parentId = input.parent === undefined ? collection.parentId : input.parent;
  if (parentId !== collection.parentId) {
    const parent = parentId === null ? null : await parentIn(ctx, collection.organizationId, parentId);
    if (parent && (await subtreeIds(ctx.db, collection.id)).includes(parent.id)) {
      throw badRequest(`parent: a collection cannot move into itself or into a collection nested in it`);
    }
    await requireCreateIn(ctx.db, access.membership, parent);
  }
  const position = await positionAmong(ctx.db, collection, parentId, input.position);
  if (position === undefined) throw conflict('the move changes nothing: the collection is already there');
  await collections.update(ctx.db, collection.id, { parentId: parentId, position });
  return presentCollectionNow(ctx, collection.id, caller);
}

/**
 * Moves a collection, its nested collections and all their spaces to the end of the top level of another
 * organization of the caller's, for its admins who may create content there; returns it as the caller sees it.
 */
export async function transferCollection(ctx: Scope, caller: Caller, collectionId: string, target: string): Promise<Model<'Collection'>> {
  const access = await collectionAccess(ctx, caller, collectionId);
  requireCollection(access, 'admin');
  const membership = (await getOrganizationRow(ctx, target)) && (await membershipOf(ctx.db, caller.user.id, target));
  if (!membership) throw badRequest(`organization: no organization ${target} that you are a member of`);
  if (target === access.collection.organizationId) {
    throw conflict(`organization: the collection is already in organization ${target}`);
  }
  if (!organizationPermissions(membership).createContent) {
    throw forbidden(`organization: transferring into organization ${target} needs its createContent permission`);
  }
  // The collection lands at the end of the target's top level, with its nested collections and all their spaces.
  await collections.transferTree(ctx.db, access.collection.id, target, await lastPosition(ctx.db, target, null), ctx.now());
  return presentCollectionNow(ctx, access.collection.id, caller);
}

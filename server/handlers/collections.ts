// Collections of spaces: nested collections, their default levels, placement among siblings, and transfer of a
// whole collection tree to another organization.
import type { Caller } from '../auth/caller.ts';
import { membershipOf } from '../auth/roles.ts';
import type { Scope } from '../context.ts';
import { removeSpacesFromIndex } from '../content/search.ts';
import {
  collectionAccess,
  type CollectionRow,
  getCollectionRow,
  presentCollection,
  presentCollectionFor,
  presentCollectionsFor,
  requireCollection,
  requireCreateIn,
  subtreeIds,
  viewsAllContent,
} from '../domain/collections.ts';
import { newId } from '../domain/ids.ts';
import { lastPosition, positionAmong } from '../domain/ordering.ts';
import { getOrganizationRow, organizationPermissions } from '../domain/organizations.ts';
import { organizationAccess } from '../domain/organizations.ts';
import { listId } from '../domain/paging.ts';
import { parseSpaceRow, presentSpacesFor, type SpaceRow } from '../domain/spaces.ts';
import { badRequest, conflict, forbidden, isFailure } from '../errors.ts';
import type { HandlerGroup } from './types.ts';
import * as collections from '../store/collections.ts';
import * as spaces from '../store/spaces.ts';

type Operations =
  | 'listCollections'
  | 'createCollection'
  | 'getCollection'
  | 'deleteCollection'
  | 'updateCollection'
  | 'listCollectionSpaces'
  | 'moveCollection'
  | 'transferCollection';

/** A referenced parent must be a collection of the organization. */
async function parentIn(ctx: Scope, organizationId: string, parentId: string): Promise<CollectionRow> {
  const parent = await getCollectionRow(ctx.db, parentId);
  if (!parent || parent.organization_id !== organizationId) {
    throw badRequest(`parent: no collection ${parentId} in this organization`);
  }
  return parent;
}

/** The collection as it is now, with the caller's permissions (read after a change, possibly in a new organization). */
async function present(ctx: Scope, collectionId: string, caller: Caller) {
  const row = (await getCollectionRow(ctx.db, collectionId))!;
  return presentCollectionFor(ctx, row, await membershipOf(ctx.db, caller.user.id, row.organization_id));
}

export const collectionHandlers: HandlerGroup<Operations> = {
  async listCollections({ params, query, caller }, ctx) {
    const access = await organizationAccess(ctx, caller, params.organizationId);
    const topLevelOnly = query.nested === false;
    const list = listId('listCollections', params.organizationId, caller.user.id, topLevelOnly);
    // A member who views every collection (viewsAllContent) gets a keyset page; guests get an empty list.
    const page = !viewsAllContent(access.membership)
      ? ctx.cursors.pageOf({ list, page: query.page, limit: query.limit, all: [] as CollectionRow[], key: () => [] })
      : await ctx.cursors.page({
          list,
          page: query.page,
          limit: query.limit,
          key: (row: CollectionRow) => [row.created_at, row.id],
          count: () => collections.count(ctx.db, params.organizationId, topLevelOnly),
          fetch: async (key, limit) => (await collections.page(ctx.db, params.organizationId, topLevelOnly, key, limit)) as CollectionRow[],
        });
    return { status: 200, body: { ...page, items: await presentCollectionsFor(ctx, page.items, access.membership) } };
  },

  async createCollection({ params, body, caller }, ctx) {
    const access = await organizationAccess(ctx, caller, params.organizationId);
    const parent = body.parent === undefined ? null : await parentIn(ctx, params.organizationId, body.parent);
    await requireCreateIn(ctx.db, access.membership, parent);
    const parentId = parent?.id ?? null;
    const id = newId();
    await collections.insert(ctx.db, {
      id,
      organization_id: params.organizationId,
      parent_id: parentId,
      title: body.title ?? 'Untitled',
      description: null,
      default_level: null,
      position: await lastPosition(ctx.db, params.organizationId, parentId),
      created_at: ctx.now(),
    });
    const collection = await present(ctx, id, caller);
    return { status: 201, body: collection, headers: { location: collection.urls.location } };
  },

  async getCollection({ params, caller }, ctx) {
    const access = await collectionAccess(ctx, caller, params.collectionId);
    return { status: 200, body: presentCollection(ctx, access.collection, access.permissions) };
  },

  async deleteCollection({ params, caller }, ctx) {
    let access;
    try {
      access = await collectionAccess(ctx, caller, params.collectionId);
    } catch (error) {
      if (isFailure(error, 'not-found')) return { status: 204 }; // unknown or invisible
      throw error;
    }
    requireCollection(access, 'admin');
    // The spaces of the collection and of its nested collections go to the trash, as DELETE space does
    // (restorable for 7 days, at the top level); the nested collections are deleted with it.
    await removeSpacesFromIndex(ctx.db, await collections.trashSpacesOfTree(ctx.db, access.collection.id, ctx.now()));
    await collections.remove(ctx.db, access.collection.id);
    return { status: 204 };
  },

  async updateCollection({ params, body, caller }, ctx) {
    const access = await collectionAccess(ctx, caller, params.collectionId);
    requireCollection(access, 'admin');
    await collections.update(ctx.db, access.collection.id, {
      ...(body.title !== undefined ? { title: body.title } : {}),
      ...(body.description !== undefined ? { description: body.description === '' ? null : body.description } : {}),
      ...(body.defaultLevel !== undefined ? { default_level: body.defaultLevel } : {}),
    });
    return { status: 200, body: await present(ctx, access.collection.id, caller) };
  },

  async listCollectionSpaces({ params, query, caller }, ctx) {
    const access = await collectionAccess(ctx, caller, params.collectionId);
    const list = listId('listCollectionSpaces', params.collectionId, caller.user.id);
    const page = !viewsAllContent(access.membership)
      ? ctx.cursors.pageOf({ list, page: query.page, limit: query.limit, all: [] as SpaceRow[], key: () => [] })
      : await ctx.cursors.page({
          list,
          page: query.page,
          limit: query.limit,
          key: (row: SpaceRow) => [row.position, row.id],
          count: () => spaces.liveCountInCollection(ctx.db, access.collection.id),
          fetch: async (key, limit) => (await spaces.livePageInCollection(ctx.db, access.collection.id, key, limit)).map(parseSpaceRow),
        });
    return { status: 200, body: { ...page, items: await presentSpacesFor(ctx, page.items, access.membership) } };
  },

  async moveCollection({ params, body, caller }, ctx) {
    const access = await collectionAccess(ctx, caller, params.collectionId);
    requireCollection(access, 'admin');
    const { collection } = access;
    const parentId = body.parent === undefined ? collection.parent_id : body.parent;
    if (parentId !== collection.parent_id) {
      const parent = parentId === null ? null : await parentIn(ctx, collection.organization_id, parentId);
      if (parent && (await subtreeIds(ctx.db, collection.id)).includes(parent.id)) {
        throw badRequest(`parent: a collection cannot move into itself or into a collection nested in it`);
      }
      await requireCreateIn(ctx.db, access.membership, parent);
    }
    const position = await positionAmong(ctx.db, collection, parentId, body.position);
    if (position === undefined) throw conflict('the move changes nothing: the collection is already there');
    await collections.update(ctx.db, collection.id, { parent_id: parentId, position });
    return { status: 200, body: await present(ctx, collection.id, caller) };
  },

  async transferCollection({ params, body, caller }, ctx) {
    const access = await collectionAccess(ctx, caller, params.collectionId);
    requireCollection(access, 'admin');
    const target = body.organization;
    const membership = (await getOrganizationRow(ctx, target)) && (await membershipOf(ctx.db, caller.user.id, target));
    if (!membership) throw badRequest(`organization: no organization ${target} that you are a member of`);
    if (target === access.collection.organization_id) {
      throw conflict(`organization: the collection is already in organization ${target}`);
    }
    if (!organizationPermissions(membership).createContent) {
      throw forbidden(`organization: transferring into organization ${target} needs its createContent permission`);
    }
    // The collection lands at the end of the target's top level, with its nested collections and all their spaces.
    await collections.transferTree(ctx.db, access.collection.id, target, await lastPosition(ctx.db, target, null), ctx.now());
    return { status: 200, body: await present(ctx, access.collection.id, caller) };
  },
};

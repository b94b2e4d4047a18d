// Collections of spaces: nested collections, their default levels, placement among siblings, and transfer of a
// whole collection tree to another organization.
import {
  collectionAccess,
  collectionsPage,
  createCollection,
  deleteCollection,
  moveCollection,
  presentCollection,
  presentCollectionsFor,
  transferCollection,
  updateCollection,
} from '../domain/collections.ts';
import { organizationAccess } from '../domain/organizations.ts';
import { listId } from '../common/paging.ts';
import { collectionSpacesPage, presentSpacesFor } from '../domain/spaces.ts';
import type { HandlerGroup } from './types.ts';

type Operations =
  | 'listCollections'
  | 'createCollection'
  | 'getCollection'
  | 'deleteCollection'
  | 'updateCollection'
  | 'listCollectionSpaces'
  | 'moveCollection'
  | 'transferCollection';

export const collectionHandlers: HandlerGroup<Operations> = {
  async listCollections({ params, query, caller }, ctx) {
    const access = await organizationAccess(ctx, caller, params.organizationId);
    const topLevelOnly = query.nested === false;
    const page = await collectionsPage(ctx, {
      list: listId('listCollections', params.organizationId, caller.user.id, topLevelOnly),
      organizationId: params.organizationId,
      topLevelOnly,
      membership: access.membership,
      page: query.page,
      limit: query.limit,
    });
    return { status: 200, body: { ...page, items: await presentCollectionsFor(ctx, page.items, access.membership) } };
  },

  async createCollection({ params, body, caller }, ctx) {
    const collection = await createCollection(ctx, caller, params.organizationId, body);
    return { status: 201, body: collection, headers: { location: collection.urls.location } };
  },

  async getCollection({ params, caller }, ctx) {
    const access = await collectionAccess(ctx, caller, params.collectionId);
    return { status: 200, body: presentCollection(ctx, access.collection, access.permissions) };
  },

  async deleteCollection({ params, caller }, ctx) {
    await deleteCollection(ctx, caller, params.collectionId);
    return { status: 204 };
  },

  async updateCollection({ params, body, caller }, ctx) {
    return { status: 200, body: await updateCollection(ctx, caller, params.collectionId, body) };
  },

  async listCollectionSpaces({ params, query, caller }, ctx) {
    const access = await collectionAccess(ctx, caller, params.collectionId);
    const page = await collectionSpacesPage(ctx, {
      list: listId('listCollectionSpaces', params.collectionId, caller.user.id),
      collectionId: access.collection.id,
      membership: access.membership,
      page: query.page,
      limit: query.limit,
    });
    return { status: 200, body: { ...page, items: await presentSpacesFor(ctx, page.items, access.membership) } };
  },

  async moveCollection({ params, body, caller }, ctx) {
    return { status: 200, body: await moveCollection(ctx, caller, params.collectionId, body) };
  },

  async transferCollection({ params, body, caller }, ctx) {
    return { status: 200, body: await transferCollection(ctx, caller, params.collectionId, body.organization) };
  },
};

// Spaces: creation, settings, lifecycle (delete keeps a space restorable for 7 days), duplication and placement.
import { organizationAccess } from '../domain/organizations.ts';
import { listId } from '../common/paging.ts';
import {
  createSpace,
  deleteSpace,
  duplicateSpace,
  liveSpacesPage,
  moveSpace,
  presentSpace,
  presentSpacesFor,
  restoreSpace,
  spaceAccess,
  transferSpace,
  updateSpace,
} from '../domain/spaces.ts';
import type { Model } from '../common/contract.ts';
import type { HandlerGroup } from './types.ts';

type Operations =
  | 'listSpaces'
  | 'createSpace'
  | 'getSpace'
  | 'deleteSpace'
  | 'updateSpace'
  | 'duplicateSpace'
  | 'restoreSpace'
  | 'moveSpace'
  | 'transferSpace';

const created = (space: Model<'Space'>) => ({ status: 201 as const, body: space, headers: { location: space.urls.location } });

export const spaceHandlers: HandlerGroup<Operations> = {
  async listSpaces({ params, query, caller }, ctx) {
    const access = await organizationAccess(ctx, caller, params.organizationId);
    const page = await liveSpacesPage(ctx, {
      list: listId('listSpaces', params.organizationId),
      organizationId: params.organizationId,
      membership: access.membership,
      order: 'asc',
      page: query.page,
      limit: query.limit,
    });
    return { status: 200, body: { ...page, items: await presentSpacesFor(ctx, page.items, access.membership) } };
  },

  async createSpace({ params, body, caller }, ctx) {
    return created(await createSpace(ctx, caller, params.organizationId, body));
  },

  async getSpace({ params, query, caller }, ctx) {
    const access = await spaceAccess(ctx, caller, params.spaceId, { shareKey: query.shareKey, includeDeleted: true });
    return { status: 200, body: await presentSpace(ctx, access.space, access.permissions, access.counts) };
  },

  async deleteSpace({ params, caller }, ctx) {
    await deleteSpace(ctx, caller, params.spaceId);
    return { status: 204 };
  },

  async updateSpace({ params, body, caller }, ctx) {
    return { status: 200, body: await updateSpace(ctx, caller, params.spaceId, body) };
  },

  async duplicateSpace({ params, caller }, ctx) {
    return { status: 201, body: await duplicateSpace(ctx, caller, params.spaceId) };
  },

  async restoreSpace({ params, caller }, ctx) {
    return { status: 200, body: await restoreSpace(ctx, caller, params.spaceId) };
  },

  async moveSpace({ params, body, caller }, ctx) {
    return { status: 200, body: await moveSpace(ctx, caller, params.spaceId, body) };
  },

  async transferSpace({ params, body, caller }, ctx) {
    return { status: 200, body: await transferSpace(ctx, caller, params.spaceId, body.organization) };
  },
};

// Spaces: creation, settings, lifecycle (delete keeps a space restorable for 7 days), duplication and placement.
import { organizationAccess } from '../domain/organizations.ts';
import { listId } from '../common/paging.ts';
import {
  createSpace,
  createSpaceAtTop,
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
  updateSpaceAsAdmin,
} from '../domain/spaces.ts';
import { withFirstTry } from '../http/route-rules.ts';
import type { Model } from '../common/contract.ts';
import type { Handler, HandlerGroup } from './types.ts';

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

  // Its first try: a space at the top level, by a member who may create content there, without waiting for the
  // database (http/route-rules.ts).
  createSpace: withFirstTry<'createSpace', Handler<'createSpace'>>(
    async ({ params, body, caller }, ctx) => created(await createSpace(ctx, caller, params.organizationId, body)),
    ({ params, body, caller }) =>
      body?.parent
        ? undefined
        : (scope) => {
            const inserted = createSpaceAtTop(scope, caller, params.organizationId, body);
            return async () => {
              const space = await inserted();
              return space === undefined ? undefined : created(space);
            };
          },
  ),

  async getSpace({ params, query, caller }, ctx) {
    const access = await spaceAccess(ctx, caller, params.spaceId, { shareKey: query.shareKey, includeDeleted: true });
    return { status: 200, body: await presentSpace(ctx, access.space, access.permissions, access.counts) };
  },

  async deleteSpace({ params, caller }, ctx) {
    await deleteSpace(ctx, caller, params.spaceId);
    return { status: 204 };
  },

  // Its first try: an admin of the organization's change, without waiting for the database (http/route-rules.ts).
  updateSpace: withFirstTry<'updateSpace', Handler<'updateSpace'>>(
    async ({ params, body, caller }, ctx) => ({ status: 200, body: await updateSpace(ctx, caller, params.spaceId, body) }),
    ({ params, body, caller }) =>
      (scope) => {
        const updated = updateSpaceAsAdmin(scope, caller, params.spaceId, body);
        return async () => {
          const space = await updated();
          return space === undefined ? undefined : { status: 200, body: space };
        };
      },
  ),

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

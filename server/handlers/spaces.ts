// Spaces: creation, settings, lifecycle (delete keeps a space restorable for 7 days), duplication and placement.
import type { Caller } from '../auth/caller.ts';
import type { Scope } from '../context.ts';
import { getRevision, setCurrentRevision } from '../content/revisions.ts';
import { removeSpaceFromIndex } from '../content/search.ts';
import { getCollectionRow, requireCreateIn } from '../domain/collections.ts';
import { organizationAccess, requireOrganization } from '../domain/organizations.ts';
import { lastPosition, positionAmong } from '../domain/ordering.ts';
import { listId } from '../domain/paging.ts';
import {
  callerMembership,
  getSpaceRow,
  insertSpace,
  liveSpacesPage,
  presentNewSpaceFor,
  presentSpace,
  presentSpaceFor,
  presentSpacesFor,
  requireSpace,
  spaceAccess,
} from '../domain/spaces.ts';
import { badRequest, conflict } from '../errors.ts';
import type { HandlerGroup } from './types.ts';
import * as spaces from '../store/spaces.ts';

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

/** The collection `parent` of the organization (null for the top level); 400 naming `field` otherwise. */
async function checkParent(ctx: Scope, organizationId: string, parent: string | null | undefined, field: string) {
  if (!parent) return null;
  const collection = await getCollectionRow(ctx.db, parent);
  if (!collection || collection.organization_id !== organizationId) {
    throw badRequest(`${field}: no collection ${parent} in this organization`);
  }
  return collection;
}

/** The space as it is now, with the caller's permissions (read after the change, possibly in a new organization). */
async function present(ctx: Scope, spaceId: string, caller: Caller) {
  const row = (await getSpaceRow(ctx.db, spaceId))!;
  return presentSpaceFor(ctx, row, await callerMembership(ctx, caller, row.organization_id));
}

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
    const access = await organizationAccess(ctx, caller, params.organizationId);
    await requireCreateIn(ctx.db, access.membership, await checkParent(ctx, params.organizationId, body?.parent, 'parent'));
    const row = await insertSpace(ctx, { ...(body ?? {}), organizationId: params.organizationId });
    const space = await presentNewSpaceFor(ctx, row, access.membership);
    return { status: 201, body: space, headers: { location: space.urls.location } };
  },

  async getSpace({ params, query, caller }, ctx) {
    const access = await spaceAccess(ctx, caller, params.spaceId, { shareKey: query.shareKey, includeDeleted: true });
    return { status: 200, body: await presentSpace(ctx, access.space, access.permissions, access.counts) };
  },

  async deleteSpace({ params, caller }, ctx) {
    let access;
    try {
      access = await spaceAccess(ctx, caller, params.spaceId, { includeDeleted: true });
    } catch {
      return { status: 204 }; // unknown, gone or invisible: nothing to delete
    }
    requireSpace(access, 'admin');
    if (access.space.deleted_at === null) {
      await spaces.update(ctx.db, params.spaceId, { deleted_at: ctx.now() });
      await removeSpaceFromIndex(ctx.db, params.spaceId);
    }
    return { status: 204 };
  },

  async updateSpace({ params, body, caller }, ctx) {
    const access = await spaceAccess(ctx, caller, params.spaceId);
    requireSpace(access, 'admin');
    const changes = {
      ...(body.title !== undefined ? { title: body.title } : {}),
      ...(body.emoji !== undefined ? { emoji: body.emoji } : {}),
      ...(body.editMode !== undefined ? { edit_mode: body.editMode } : {}),
      ...(body.defaultLevel !== undefined ? { default_level: body.defaultLevel } : {}),
      ...(body.language !== undefined ? { language: body.language } : {}),
      updated_at: ctx.now(),
    };
    await spaces.update(ctx.db, params.spaceId, changes);
    // The row as it is now, made from the row read and the changes rather than read back (no trigger changes a
    // space's own row), as the caller sees it (their membership and the space's counters, which these changes leave
    // alone, were read with the space).
    return { status: 200, body: await presentSpaceFor(ctx, { ...access.space, ...changes }, access.membership, access.counts) };
  },

  async duplicateSpace({ params, caller }, ctx) {
    const access = await spaceAccess(ctx, caller, params.spaceId);
    const organization = await organizationAccess(ctx, caller, access.space.organization_id);
    requireOrganization(organization, 'createContent');
    const source = access.space;
    const content = (await getRevision(ctx.db, source.revision_id, source.id))!.content;
    const copy = await insertSpace(
      ctx,
      {
        organizationId: source.organization_id,
        title: `${source.title} (copy)`.slice(0, 255),
        ...(source.emoji ? { emoji: source.emoji } : {}),
        ...(source.parent_id ? { parent: source.parent_id } : {}),
        ...(source.language ? { language: source.language } : {}),
        editMode: source.edit_mode,
        visibility: source.visibility,
      },
      content,
    );
    if (source.default_level) await spaces.update(ctx.db, copy.id, { default_level: source.default_level });
    return { status: 201, body: await present(ctx, copy.id, caller) };
  },

  async restoreSpace({ params, caller }, ctx) {
    const access = await spaceAccess(ctx, caller, params.spaceId, { includeDeleted: true });
    requireSpace(access, 'admin');
    if (access.space.deleted_at === null) throw conflict(`space ${params.spaceId} is not deleted`);
    await spaces.update(ctx.db, params.spaceId, { deleted_at: null, updated_at: ctx.now() });
    await setCurrentRevision(ctx.db, (await getRevision(ctx.db, access.space.revision_id, access.space.id))!, ctx.now());
    return { status: 200, body: await present(ctx, access.space.id, caller) };
  },

  async moveSpace({ params, body, caller }, ctx) {
    const access = await spaceAccess(ctx, caller, params.spaceId);
    requireSpace(access, 'admin');
    const space = access.space;
    const parent = body.parent === undefined ? space.parent_id : body.parent || null; // "" is the top level, as checkParent reads it
    const destination = await checkParent(ctx, space.organization_id, parent, 'parent');
    if (parent !== space.parent_id) await requireCreateIn(ctx.db, access.membership, destination);
    const position = await positionAmong(ctx.db, space, parent, body.position);
    if (position === undefined) throw conflict('the move changes nothing: the space is already there');
    await spaces.update(ctx.db, space.id, { parent_id: parent, position, updated_at: ctx.now() });
    return { status: 200, body: await present(ctx, space.id, caller) };
  },

  async transferSpace({ params, body, caller }, ctx) {
    const access = await spaceAccess(ctx, caller, params.spaceId);
    requireSpace(access, 'admin');
    if (body.organization === access.space.organization_id) {
      throw conflict(`organization: the space is already in organization ${body.organization}`);
    }
    let target;
    try {
      target = await organizationAccess(ctx, caller, body.organization);
    } catch {
      throw badRequest(`organization: no organization ${body.organization} among the caller's`);
    }
    requireOrganization(target, 'createContent');
    await spaces.update(ctx.db, params.spaceId, {
      organization_id: body.organization,
      parent_id: null,
      position: await lastPosition(ctx.db, body.organization, null),
      updated_at: ctx.now(),
    });
    // Teams are per organization: the old organization's teams no longer reach the space.
    await spaces.removeFromTeams(ctx.db, params.spaceId);
    return { status: 200, body: await present(ctx, access.space.id, caller) };
  },
};

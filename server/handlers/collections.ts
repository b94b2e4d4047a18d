// Collections of spaces: nested collections, their default levels, placement among siblings, and transfer of a
// whole collection tree to another organization.
import type { Caller } from '../auth/caller.ts';
import { type Membership, membershipOf } from '../auth/roles.ts';
import type { AppContext } from '../context.ts';
import { removeSpaceFromIndex } from '../content/search.ts';
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
  WITH_SUBTREE,
  viewsAllContent,
} from '../domain/collections.ts';
import { newId } from '../domain/ids.ts';
import { lastPosition, positionAmong, staysInPlace } from '../domain/ordering.ts';
import { getOrganizationRow, organizationAccess, organizationPermissions } from '../domain/organizations.ts';
import { presentSpacesFor, type SpaceRow } from '../domain/spaces.ts';
import { ApiError, badRequest, conflict, forbidden } from '../http/errors.ts';
import { after, type Key, listId } from '../http/pagination.ts';
import type { HandlerGroup } from '../http/types.ts';

type Operations =
  | 'listCollections'
  | 'createCollection'
  | 'getCollection'
  | 'deleteCollection'
  | 'updateCollection'
  | 'listCollectionSpaces'
  | 'moveCollection'
  | 'transferCollection';

export function collectionHandlers(ctx: AppContext): HandlerGroup<Operations> {
  const { db } = ctx;

  /** A referenced parent must be a collection of the organization. */
  const parentIn = (organizationId: string, parentId: string): CollectionRow => {
    const parent = getCollectionRow(db, parentId);
    if (!parent || parent.organization_id !== organizationId) {
      throw badRequest(`parent: no collection ${parentId} in this organization`);
    }
    return parent;
  };

  /** The collection as it is now, with the caller's permissions (read after a change, possibly in a new organization). */
  const present = (collectionId: string, caller: Caller) => {
    const row = getCollectionRow(db, collectionId)!;
    return presentCollectionFor(ctx, row, membershipOf(db, caller.user.id, row.organization_id));
  };

  /**
   * One keyset page of `SELECT * FROM <from>` sorted by `order` (ascending), for a member who views every row of it
   * (see viewsAllContent): guests get an empty list. One indexed query for the page, and a count on the first page.
   */
  const keysetPage = <Row extends { id: string }>(options: {
    list: string;
    page?: string;
    limit?: number;
    from: string;
    values: unknown[];
    order: string[];
    key: (row: Row) => Key;
    membership: Membership | undefined;
  }) => {
    if (!viewsAllContent(options.membership)) return ctx.cursors.pageOf({ ...options, all: [] as Row[], key: () => [] });
    return ctx.cursors.page({
      list: options.list,
      page: options.page,
      limit: options.limit,
      key: options.key,
      count: () => (db.prepare(`SELECT COUNT(*) AS n FROM ${options.from}`).get(...options.values) as { n: number }).n,
      fetch: (key, limit) =>
        db
          .prepare(`SELECT * FROM ${options.from} ${key ? `AND ${after(options.order)}` : ''} ORDER BY ${options.order.join(', ')} LIMIT ?`)
          .all(...options.values, ...(key ?? []), limit) as Row[],
    });
  };

  return {
    listCollections({ params, query, caller }) {
      const access = organizationAccess(ctx, caller, params.organizationId);
      const topLevelOnly = query.nested === false;
      const page = keysetPage({
        list: listId('listCollections', params.organizationId, caller.user.id, topLevelOnly),
        page: query.page,
        limit: query.limit,
        from: `collections WHERE organization_id = ? ${topLevelOnly ? 'AND parent_id IS NULL' : ''}`,
        values: [params.organizationId],
        order: ['created_at', 'id'],
        key: (row: CollectionRow) => [row.created_at, row.id],
        membership: access.membership,
      });
      return {
        status: 200,
        body: { ...page, items: presentCollectionsFor(ctx, page.items, access.membership) },
      };
    },

    createCollection({ params, body, caller }) {
      const access = organizationAccess(ctx, caller, params.organizationId);
      const parent = body.parent === undefined ? null : parentIn(params.organizationId, body.parent);
      requireCreateIn(db, access.membership, parent);
      const parentId = parent?.id ?? null;
      const id = newId();
      db.prepare(
        `INSERT INTO collections (id, organization_id, parent_id, title, position, created_at)
         VALUES (?, ?, ?, ?, ?, ?)`,
      ).run(
        id,
        params.organizationId,
        parentId,
        body.title ?? 'Untitled',
        lastPosition(db, params.organizationId, parentId),
        ctx.now(),
      );
      const collection = present(id, caller);
      return { status: 201, body: collection, headers: { location: collection.urls.location } };
    },

    getCollection({ params, caller }) {
      const access = collectionAccess(ctx, caller, params.collectionId);
      return { status: 200, body: presentCollection(ctx, access.collection, access.permissions) };
    },

    deleteCollection({ params, caller }) {
      let access;
      try {
        access = collectionAccess(ctx, caller, params.collectionId);
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) return { status: 204 }; // unknown or invisible
        throw error;
      }
      requireCollection(access, 'admin');
      // The spaces of the collection and of its nested collections go to the trash, as DELETE space does
      // (restorable for 7 days, at the top level); the nested collections are deleted with it.
      const spaces = db
        .prepare(`${WITH_SUBTREE} SELECT id FROM spaces WHERE parent_id IN subtree AND deleted_at IS NULL`)
        .all(access.collection.id) as { id: string }[];
      const trash = db.prepare('UPDATE spaces SET deleted_at = ? WHERE id = ?');
      for (const space of spaces) {
        trash.run(ctx.now(), space.id);
        removeSpaceFromIndex(db, space.id);
      }
      db.prepare('DELETE FROM collections WHERE id = ?').run(access.collection.id);
      return { status: 204 };
    },

    updateCollection({ params, body, caller }) {
      const access = collectionAccess(ctx, caller, params.collectionId);
      requireCollection(access, 'admin');
      const changes: Record<string, unknown> = {};
      if (body.title !== undefined) changes.title = body.title;
      if (body.description !== undefined) changes.description = body.description === '' ? null : body.description;
      if (body.defaultLevel !== undefined) changes.default_level = body.defaultLevel;
      const columns = Object.keys(changes);
      if (columns.length > 0) {
        db.prepare(`UPDATE collections SET ${columns.map((column) => `${column} = ?`).join(', ')} WHERE id = ?`).run(
          ...Object.values(changes),
          access.collection.id,
        );
      }
      return { status: 200, body: present(access.collection.id, caller) };
    },

    listCollectionSpaces({ params, query, caller }) {
      const access = collectionAccess(ctx, caller, params.collectionId);
      const page = keysetPage({
        list: listId('listCollectionSpaces', params.collectionId, caller.user.id),
        page: query.page,
        limit: query.limit,
        from: 'spaces WHERE parent_id = ? AND deleted_at IS NULL',
        values: [access.collection.id],
        order: ['position', 'id'],
        key: (row: SpaceRow) => [row.position, row.id],
        membership: access.membership,
      });
      return {
        status: 200,
        body: { ...page, items: presentSpacesFor(ctx, page.items, access.membership) },
      };
    },

    moveCollection({ params, body, caller }) {
      const access = collectionAccess(ctx, caller, params.collectionId);
      requireCollection(access, 'admin');
      const { collection } = access;
      const parentId = body.parent === undefined ? collection.parent_id : body.parent;
      if (parentId !== collection.parent_id) {
        const parent = parentId === null ? null : parentIn(collection.organization_id, parentId);
        if (parent && subtreeIds(db, collection.id).includes(parent.id)) {
          throw badRequest(`parent: a collection cannot move into itself or into a collection nested in it`);
        }
        requireCreateIn(db, access.membership, parent);
      }
      const position = positionAmong(db, collection.organization_id, parentId, collection.id, body.position);
      if (parentId === collection.parent_id && staysInPlace(db, collection, position)) {
        throw conflict('the move changes nothing: the collection is already there');
      }
      db.prepare('UPDATE collections SET parent_id = ?, position = ? WHERE id = ?').run(parentId, position, collection.id);
      return { status: 200, body: present(collection.id, caller) };
    },

    transferCollection({ params, body, caller }) {
      const access = collectionAccess(ctx, caller, params.collectionId);
      requireCollection(access, 'admin');
      const target = body.organization;
      const membership = getOrganizationRow(ctx, target) && membershipOf(db, caller.user.id, target);
      if (!membership) throw badRequest(`organization: no organization ${target} that you are a member of`);
      if (target === access.collection.organization_id) {
        throw conflict(`organization: the collection is already in organization ${target}`);
      }
      if (!organizationPermissions(membership).createContent) {
        throw forbidden(`organization: transferring into organization ${target} needs its createContent permission`);
      }
      // The collection lands at the end of the target's top level, with its nested collections and all their
      // spaces (deleted ones too); teams of the old organization no longer grant access to those spaces.
      const root = access.collection.id;
      db.prepare('UPDATE collections SET parent_id = NULL, position = ? WHERE id = ?').run(lastPosition(db, target, null), root);
      db.prepare(`${WITH_SUBTREE} DELETE FROM team_spaces WHERE space_id IN (SELECT id FROM spaces WHERE parent_id IN subtree)`).run(root);
      db.prepare(`${WITH_SUBTREE} UPDATE spaces SET organization_id = ?, updated_at = ? WHERE parent_id IN subtree`).run(root, target, ctx.now());
      db.prepare(`${WITH_SUBTREE} UPDATE collections SET organization_id = ? WHERE id IN subtree`).run(root, target);
      return { status: 200, body: present(access.collection.id, caller) };
    },
  };
}

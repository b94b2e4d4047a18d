// Spaces: creation, settings, lifecycle (delete keeps a space restorable for 7 days), duplication and placement.
import { newId, newSecret } from '../domain/ids.ts';
import { type AppContext } from '../context.ts';
import { emptyContent, type RevisionContent } from '../content/model.ts';
import { createRevision, getRevision, setCurrentRevision } from '../content/revisions.ts';
import { getCollectionRow, requireCreateIn } from '../domain/collections.ts';
import { organizationAccess, requireOrganization } from '../domain/organizations.ts';
import { lastPosition, positionAmong, staysInPlace } from '../domain/ordering.ts';
import type { Caller } from '../auth/caller.ts';
import {
  callerMembership,
  getSpaceRow,
  liveSpacesPage,
  presentSpace,
  presentSpaceFor,
  presentSpacesFor,
  requireSpace,
  spaceAccess,
  type SpaceRow,
} from '../domain/spaces.ts';
import { indexNewSpace, indexSpaceContent, removeSpaceFromIndex } from '../content/search.ts';
import { badRequest, conflict } from '../http/errors.ts';
import { listId } from '../http/pagination.ts';
import type { HandlerGroup, Input } from '../http/types.ts';

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

/**
 * Creates a space at the end of its parent, with a first revision of `content`, or an empty one: without `content`, a
 * space of a new id has an unwritten first revision (content/revisions.ts), which reads as empty and has no row.
 */
export function insertSpace(
  ctx: AppContext,
  input: Input<'CreateSpaceRequest'> & { id?: string; organizationId: string; visibility?: SpaceRow['visibility'] },
  content?: RevisionContent,
): SpaceRow {
  const now = ctx.now();
  // An id just made is nobody's yet: the search index holds no rows of it (a given id, a seed's, may be one whose
  // rows an earlier space left there, which indexSpaceContent replaces).
  const fresh = input.id === undefined;
  const id = input.id ?? newId();
  // The first revision's id goes into the space's row at once; its row, when it has one, follows (it refers to the
  // space).
  const revisionId = newId();
  const unwritten = fresh && content === undefined;
  const parent = input.parent || null; // "" is the top level, as checkParent reads it
  // The row as stored, made here rather than read back (a SELECT and its parse were 2.5 of the 72 µs of CPU of a POST
  // of a space); test/spaces.test.ts compares it with the stored row, column by column.
  const row: SpaceRow = {
    id,
    organization_id: input.organizationId,
    parent_id: parent,
    title: input.title ?? 'Untitled',
    emoji: input.emoji ?? null,
    visibility: input.visibility ?? 'private',
    edit_mode: input.editMode ?? 'live',
    language: input.language ?? null,
    default_level: null,
    revision_id: revisionId,
    share_key: newSecret(16),
    git_sync: null,
    visitor_auth: null,
    position: lastPosition(ctx.db, input.organizationId, parent),
    created_at: now,
    updated_at: now,
    deleted_at: null,
  };
  ctx.db
    .prepare(
      `INSERT INTO spaces (id, organization_id, parent_id, title, emoji, visibility, edit_mode, language, revision_id,
                           share_key, position, created_at, updated_at, search_revision_id, unwritten_revision_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      row.id,
      row.organization_id,
      row.parent_id,
      row.title,
      row.emoji,
      row.visibility,
      row.edit_mode,
      row.language,
      row.revision_id,
      row.share_key,
      row.position,
      row.created_at,
      row.updated_at,
      fresh ? revisionId : null,
      unwritten ? revisionId : null,
    );
  // An empty revision has no pages to index.
  if (!unwritten) {
    const first = content ?? emptyContent();
    createRevision(ctx.db, { id: revisionId, spaceId: id, parents: [], type: 'edits', content: first, createdAt: now });
    // A fresh space's pages are added to an index that holds nothing of it (5 statements fewer per create).
    if (fresh) indexNewSpace(ctx.db, id, first);
    else indexSpaceContent(ctx.db, id, revisionId, first);
  }
  return row;
}

export function spaceHandlers(ctx: AppContext): HandlerGroup<Operations> {
  const { db } = ctx;

  /** The collection `parent` of the organization (null for the top level); 400 naming `field` otherwise. */
  const checkParent = (organizationId: string, parent: string | null | undefined, field: string) => {
    if (!parent) return null;
    const collection = getCollectionRow(db, parent);
    if (!collection || collection.organization_id !== organizationId) {
      throw badRequest(`${field}: no collection ${parent} in this organization`);
    }
    return collection;
  };

  /** The space as it is now, with the caller's permissions (read after the change, possibly in a new organization). */
  const present = (spaceId: string, caller: Caller) => {
    const row = getSpaceRow(db, spaceId)!;
    return presentSpaceFor(ctx, row, callerMembership(ctx, caller, row.organization_id));
  };

  return {
    listSpaces({ params, query, caller }) {
      const access = organizationAccess(ctx, caller, params.organizationId);
      const page = liveSpacesPage(ctx, {
        list: listId('listSpaces', params.organizationId),
        organizationId: params.organizationId,
        membership: access.membership,
        order: 'asc',
        page: query.page,
        limit: query.limit,
      });
      return { status: 200, body: { ...page, items: presentSpacesFor(ctx, page.items, access.membership) } };
    },

    createSpace({ params, body, caller }) {
      const access = organizationAccess(ctx, caller, params.organizationId);
      requireCreateIn(db, access.membership, checkParent(params.organizationId, body?.parent, 'parent'));
      const row = insertSpace(ctx, { ...(body ?? {}), organizationId: params.organizationId });
      const space = presentSpaceFor(ctx, row, access.membership);
      return { status: 201, body: space, headers: { location: space.urls.location } };
    },

    getSpace({ params, query, caller }) {
      const access = spaceAccess(ctx, caller, params.spaceId, { shareKey: query.shareKey, includeDeleted: true });
      return { status: 200, body: presentSpace(ctx, access.space, access.permissions) };
    },

    deleteSpace({ params, caller }) {
      let access;
      try {
        access = spaceAccess(ctx, caller, params.spaceId, { includeDeleted: true });
      } catch {
        return { status: 204 }; // unknown, gone or invisible: nothing to delete
      }
      requireSpace(access, 'admin');
      if (access.space.deleted_at === null) {
        db.prepare('UPDATE spaces SET deleted_at = ? WHERE id = ?').run(ctx.now(), params.spaceId);
        removeSpaceFromIndex(db, params.spaceId);
      }
      return { status: 204 };
    },

    updateSpace({ params, body, caller }) {
      const access = spaceAccess(ctx, caller, params.spaceId);
      requireSpace(access, 'admin');
      const changes: Record<string, unknown> = {};
      if (body.title !== undefined) changes.title = body.title;
      if (body.emoji !== undefined) changes.emoji = body.emoji;
      if (body.editMode !== undefined) changes.edit_mode = body.editMode;
      if (body.defaultLevel !== undefined) changes.default_level = body.defaultLevel;
      if (body.language !== undefined) changes.language = body.language;
      changes.updated_at = ctx.now();
      const columns = Object.keys(changes);
      db.prepare(`UPDATE spaces SET ${columns.map((column) => `${column} = ?`).join(', ')} WHERE id = ?`).run(
        ...Object.values(changes),
        params.spaceId,
      );
      return { status: 200, body: present(access.space.id, caller) };
    },

    duplicateSpace({ params, caller }) {
      const access = spaceAccess(ctx, caller, params.spaceId);
      const organization = organizationAccess(ctx, caller, access.space.organization_id);
      requireOrganization(organization, 'createContent');
      const source = access.space;
      const content = getRevision(db, source.revision_id, source.id)!.content;
      const copy = insertSpace(
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
      if (source.default_level) {
        db.prepare('UPDATE spaces SET default_level = ? WHERE id = ?').run(source.default_level, copy.id);
      }
      return { status: 201, body: present(copy.id, caller) };
    },

    restoreSpace({ params, caller }) {
      const access = spaceAccess(ctx, caller, params.spaceId, { includeDeleted: true });
      requireSpace(access, 'admin');
      if (access.space.deleted_at === null) throw conflict(`space ${params.spaceId} is not deleted`);
      db.prepare('UPDATE spaces SET deleted_at = NULL, updated_at = ? WHERE id = ?').run(ctx.now(), params.spaceId);
      setCurrentRevision(db, getRevision(db, access.space.revision_id, access.space.id)!, ctx.now());
      return { status: 200, body: present(access.space.id, caller) };
    },

    moveSpace({ params, body, caller }) {
      const access = spaceAccess(ctx, caller, params.spaceId);
      requireSpace(access, 'admin');
      const space = access.space;
      const parent = body.parent === undefined ? space.parent_id : body.parent || null; // "" is the top level, as checkParent reads it
      const destination = checkParent(space.organization_id, parent, 'parent');
      if (parent !== space.parent_id) requireCreateIn(db, access.membership, destination);
      const position = positionAmong(db, space.organization_id, parent, space.id, body.position);
      if (parent === space.parent_id && staysInPlace(db, space, position)) {
        throw conflict('the move changes nothing: the space is already there');
      }
      db.prepare('UPDATE spaces SET parent_id = ?, position = ?, updated_at = ? WHERE id = ?').run(
        parent,
        position,
        ctx.now(),
        space.id,
      );
      return { status: 200, body: present(space.id, caller) };
    },

    transferSpace({ params, body, caller }) {
      const access = spaceAccess(ctx, caller, params.spaceId);
      requireSpace(access, 'admin');
      if (body.organization === access.space.organization_id) {
        throw conflict(`organization: the space is already in organization ${body.organization}`);
      }
      let target;
      try {
        target = organizationAccess(ctx, caller, body.organization);
      } catch {
        throw badRequest(`organization: no organization ${body.organization} among the caller's`);
      }
      requireOrganization(target, 'createContent');
      db.prepare(
        'UPDATE spaces SET organization_id = ?, parent_id = NULL, position = ?, updated_at = ? WHERE id = ?',
      ).run(body.organization, lastPosition(db, body.organization, null), ctx.now(), params.spaceId);
      // Teams are per organization: the old organization's teams no longer reach the space.
      db.prepare('DELETE FROM team_spaces WHERE space_id = ?').run(params.spaceId);
      return { status: 200, body: present(access.space.id, caller) };
    },
  };
}


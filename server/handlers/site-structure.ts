// The structure of a site: sections, section groups and site spaces (spaces attached to the site), and their order.
// Order and defaults live in domain/site-structure.ts; every change reloads the structure, which stores its defaults.
import type { Caller } from '../auth/caller.ts';
import type { AppContext } from '../context.ts';
import { unreachable } from '../domain/enums.ts';
import { newId } from '../domain/ids.ts';
import {
  attachableSpace,
  checkPath,
  defaultContainer,
  hasItem,
  insertSiteSpace,
  type ItemRef,
  loadStructure,
  moveItem,
  nextPosition,
  presentGroup,
  presentSection,
  presentSections,
  presentSiteSpace,
  presentSiteSpaces,
  requireStructureRoom,
  sectionPathTaken,
  shownSiteSpaces,
  siteSpacePathTaken,
  slugOf,
  spaceAttached,
  type Structure,
  structureView,
  uniquePath,
  writeOrder,
} from '../domain/site-structure.ts';
import { manageableSite, type SiteAccess, siteAccess, updateColumns } from '../domain/sites.ts';
import { badRequest, conflict, notFound } from '../http/errors.ts';
import { listId } from '../http/pagination.ts';
import type { HandlerGroup, Model } from '../http/types.ts';

type Operations =
  | 'listSiteSections'
  | 'createSiteSection'
  | 'deleteSiteSection'
  | 'updateSiteSection'
  | 'moveSiteSection'
  | 'sortSiteStructure'
  | 'listSiteSectionGroups'
  | 'createSiteSectionGroup'
  | 'deleteSiteSectionGroup'
  | 'updateSiteSectionGroup'
  | 'addSiteSectionToGroup'
  | 'removeSiteSectionFromGroup'
  | 'moveSiteSectionGroup'
  | 'listSiteSpaces'
  | 'createSiteSpace'
  | 'deleteSiteSpace'
  | 'updateSiteSpace'
  | 'moveSiteSpace';

type SitePathParams = { organizationId: string; siteId: string };

const POSITION_FIELDS = (reference: string) => ({
  before: `position.before.${reference}`,
  after: `position.after.${reference}`,
});

/** `{type, siteSection}` and `{type, siteSpace}` references of the older moves, as items. */
const sectionRef = (reference?: { siteSection: string }): ItemRef | undefined =>
  reference && { type: 'site-section', id: reference.siteSection };
const siteSpaceRef = (reference?: { siteSpace: string }): ItemRef | undefined =>
  reference && { type: 'site-space', id: reference.siteSpace };

export function siteStructureHandlers(ctx: AppContext): HandlerGroup<Operations> {
  const { db } = ctx;

  /** The site, for a caller who may change it, and its structure. */
  const manage = (params: SitePathParams, caller: Caller) => {
    const access = manageableSite(ctx, caller, params.organizationId, params.siteId);
    return { access, structure: loadStructure(ctx, access.site) };
  };

  /** The structure as it is now (after a change), seen by the caller. */
  const viewNow = (access: SiteAccess) => structureView(ctx, loadStructure(ctx, access.site), access);

  const requireSection = (structure: Structure, id: string) => {
    const row = structure.section(id);
    if (!row) throw notFound(`site section ${id}`);
    return row;
  };
  const requireGroup = (structure: Structure, id: string) => {
    const row = structure.group(id);
    if (!row) throw notFound(`site section group ${id}`);
    return row;
  };
  const requireSiteSpace = (structure: Structure, id: string) => {
    const row = structure.siteSpace(id);
    if (!row) throw notFound(`site space ${id}`);
    return row;
  };

  const presentItem = (
    access: SiteAccess,
    item: ItemRef,
  ): Model<'SiteSpace'> | Model<'SiteSection'> | Model<'SiteSectionGroup'> => {
    const view = viewNow(access);
    switch (item.type) {
      case 'site-space':
        return presentSiteSpace(view, view.structure.siteSpace(item.id)!);
      case 'site-section':
        return presentSection(view, view.structure.section(item.id)!);
      case 'site-section-group':
        return presentGroup(view, view.structure.group(item.id)!);
      default:
        return unreachable(item.type, 'site structure item type');
    }
  };

  const where = (sectionId: string | null) => (sectionId ? `section ${sectionId}` : 'the root level of the site');

  return {
    // ---- Sections ----

    listSiteSections({ params, query, caller }) {
      const access = siteAccess(ctx, caller, params.organizationId, params.siteId, { shareKey: query.shareKey });
      const view = viewNow(access);
      const page = ctx.cursors.pageOf({
        list: listId('listSiteSections', params.siteId),
        page: query.page,
        limit: query.limit,
        all: view.structure.sections,
        key: (row) => [row.id],
      });
      return { status: 200, body: { ...page, items: presentSections(view, page.items) } };
    },

    createSiteSection({ params, body, caller }) {
      const { access, structure } = manage(params, caller);
      const { site } = access;
      const space = attachableSpace(ctx, access.membership, site.organization_id, body.spaceId, 'spaceId');
      requireStructureRoom(ctx, site.id, 'sections', 'spaceId');
      const title = body.title ?? space.title.slice(0, 128).trim();
      if (title.length < 2) {
        throw badRequest(
          `title: the title of space ${space.id} is too short for a section (2 characters or more); give a title`,
        );
      }
      const id = newId();
      db.prepare(
        `INSERT INTO site_sections (id, site_id, title, path, icon, position, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        id,
        site.id,
        title,
        uniquePath(slugOf(title, 'section'), (path) => sectionPathTaken(structure, path)),
        body.icon ?? null,
        structure.nextTopPosition,
        ctx.now(),
      );

      let first: string;
      if (structure.sections.length === 0) {
        // The first section takes in the site spaces of the root level, after its own space (which, when it was
        // already at the root level, is that site space moved to the front).
        const root = structure.siteSpaces(null);
        const existing = root.find((row) => row.space_id === space.id);
        db.prepare('UPDATE site_spaces SET section_id = ? WHERE site_id = ? AND section_id IS NULL').run(id, site.id);
        first = existing?.id ?? insertSiteSpace(ctx, site.id, id, space);
        const order = [first, ...root.filter((row) => row.id !== first).map((row) => row.id)];
        writeOrder(
          db,
          order.map((siteSpace) => ({ type: 'site-space', id: siteSpace })),
        );
      } else {
        first = insertSiteSpace(ctx, site.id, id, space);
      }
      db.prepare('UPDATE site_sections SET default_site_space_id = ? WHERE id = ?').run(first, id);
      const view = viewNow(access);
      return { status: 201, body: presentSection(view, view.structure.section(id)!) };
    },

    deleteSiteSection({ params, caller }) {
      const { access } = manage(params, caller);
      db.prepare('DELETE FROM site_sections WHERE id = ? AND site_id = ?').run(params.siteSectionId, params.siteId);
      loadStructure(ctx, access.site); // a new default section when the default one went
      return { status: 204 };
    },

    updateSiteSection({ params, body, caller }) {
      const { access, structure } = manage(params, caller);
      const section = requireSection(structure, params.siteSectionId);
      const changes: Record<string, unknown> = {};
      if (body.title !== undefined) changes.title = body.title;
      if (body.path !== undefined) {
        checkPath(body.path, 'path');
        if (sectionPathTaken(structure, body.path, section.id)) {
          throw conflict(`path: another section of this site has the path "${body.path}"`);
        }
        changes.path = body.path;
      }
      if (body.defaultSiteSpace !== undefined) {
        if (structure.siteSpace(body.defaultSiteSpace)?.section_id !== section.id) {
          throw badRequest(`defaultSiteSpace: no site space ${body.defaultSiteSpace} in this section`);
        }
        changes.default_site_space_id = body.defaultSiteSpace;
      }
      if (body.condition !== undefined) changes.condition = body.condition;
      if (body.icon !== undefined) changes.icon = body.icon;
      if (body.description !== undefined) changes.description = body.description;
      updateColumns(db, 'site_sections', section.id, changes);
      const view = viewNow(access);
      return { status: 200, body: presentSection(view, view.structure.section(section.id)!) };
    },

    moveSiteSection({ params, body, caller }) {
      const { access, structure } = manage(params, caller);
      const item: ItemRef = { type: 'site-section', id: requireSection(structure, params.siteSectionId).id };
      const position = { before: sectionRef(body.position.before), after: sectionRef(body.position.after) };
      moveItem(ctx, structure, item, position, POSITION_FIELDS('siteSection'));
      const view = viewNow(access);
      return { status: 200, body: presentSection(view, view.structure.section(item.id)!) };
    },

    sortSiteStructure({ params, body, caller }) {
      const { access, structure } = manage(params, caller);
      const { item } = body;
      if (!hasItem(structure, item)) throw badRequest(`item.id: no ${item.type} ${item.id} in this site`);
      moveItem(ctx, structure, item, body.position, POSITION_FIELDS('id'));
      return { status: 200, body: presentItem(access, item) };
    },

    // ---- Section groups ----

    listSiteSectionGroups({ params, query, caller }) {
      const access = siteAccess(ctx, caller, params.organizationId, params.siteId);
      const view = viewNow(access);
      const page = ctx.cursors.pageOf({
        list: listId('listSiteSectionGroups', params.siteId),
        page: query.page,
        limit: query.limit,
        all: view.structure.groups,
        key: (row) => [row.id],
      });
      return { status: 200, body: { ...page, items: page.items.map((row) => presentGroup(view, row)) } };
    },

    createSiteSectionGroup({ params, body, caller }) {
      const { access, structure } = manage(params, caller);
      requireStructureRoom(ctx, access.site.id, 'sectionGroups', 'title');
      const sectionIds = body.sections ?? [];
      sectionIds.forEach((sectionId, index) => {
        const section = structure.section(sectionId);
        if (!section) throw badRequest(`sections: no section ${sectionId} in this site`);
        if (sectionIds.indexOf(sectionId) !== index)
          throw badRequest(`sections: section ${sectionId} is listed more than once`);
        if (section.group_id) throw conflict(`sections: section ${sectionId} is already in group ${section.group_id}`);
      });
      const id = newId();
      db.prepare(
        'INSERT INTO site_section_groups (id, site_id, title, icon, position, created_at) VALUES (?, ?, ?, ?, ?, ?)',
      ).run(id, access.site.id, body.title, body.icon ?? null, structure.nextTopPosition, ctx.now());

      // The group takes the place of the first of its sections at the top level (or goes last).
      const group: ItemRef = { type: 'site-section-group', id };
      const listed = new Set(sectionIds);
      const top = structure.top.filter((entry) => !(entry.type === 'site-section' && listed.has(entry.id)));
      const firstIndex = structure.top.findIndex((entry) => entry.type === 'site-section' && listed.has(entry.id));
      top.splice(firstIndex < 0 ? top.length : firstIndex, 0, group);
      for (const sectionId of sectionIds) {
        db.prepare('UPDATE site_sections SET group_id = ? WHERE id = ?').run(id, sectionId);
      }
      writeOrder(db, top);
      writeOrder(
        db,
        sectionIds.map((sectionId) => ({ type: 'site-section', id: sectionId })),
      );
      const view = viewNow(access);
      return { status: 201, body: presentGroup(view, view.structure.group(id)!) };
    },

    deleteSiteSectionGroup({ params, caller }) {
      const { structure } = manage(params, caller);
      const group = structure.group(params.siteSectionGroupId);
      if (!group) return { status: 204 };
      // Its sections stay in the site, where the group was.
      const sections = structure.groupSections(group.id).map((row): ItemRef => ({ type: 'site-section', id: row.id }));
      const top = structure.top.flatMap((entry) =>
        entry.type === 'site-section-group' && entry.id === group.id ? sections : [entry],
      );
      db.prepare('UPDATE site_sections SET group_id = NULL WHERE group_id = ?').run(group.id);
      db.prepare('DELETE FROM site_section_groups WHERE id = ?').run(group.id);
      writeOrder(db, top);
      return { status: 204 };
    },

    updateSiteSectionGroup({ params, body, caller }) {
      const { access, structure } = manage(params, caller);
      const group = requireGroup(structure, params.siteSectionGroupId);
      const changes: Record<string, unknown> = {};
      if (body.title !== undefined) changes.title = body.title;
      if (body.icon !== undefined) changes.icon = body.icon;
      updateColumns(db, 'site_section_groups', group.id, changes);
      const view = viewNow(access);
      return { status: 200, body: presentGroup(view, view.structure.group(group.id)!) };
    },

    addSiteSectionToGroup({ params, body, caller }) {
      const { access, structure } = manage(params, caller);
      const group = requireGroup(structure, params.siteSectionGroupId);
      const section = structure.section(body.sectionId);
      if (!section) throw badRequest(`sectionId: no section ${body.sectionId} in this site`);
      if (section.group_id) throw conflict(`sectionId: section ${section.id} is already in group ${section.group_id}`);
      db.prepare('UPDATE site_sections SET group_id = ?, position = ? WHERE id = ?').run(
        group.id,
        nextPosition(structure.groupSections(group.id)),
        section.id,
      );
      const view = viewNow(access);
      return { status: 200, body: presentGroup(view, view.structure.group(group.id)!) };
    },

    removeSiteSectionFromGroup({ params, caller }) {
      const { structure } = manage(params, caller);
      const section = structure.section(params.siteSectionId);
      if (!section || section.group_id !== params.siteSectionGroupId) return { status: 204 };
      // The section stays in the site, just after the group.
      const top = structure.top.flatMap((entry): ItemRef[] =>
        entry.type === 'site-section-group' && entry.id === section.group_id
          ? [entry, { type: 'site-section', id: section.id }]
          : [entry],
      );
      db.prepare('UPDATE site_sections SET group_id = NULL WHERE id = ?').run(section.id);
      writeOrder(db, top);
      return { status: 204 };
    },

    moveSiteSectionGroup({ params, body, caller }) {
      const { access, structure } = manage(params, caller);
      const item: ItemRef = { type: 'site-section-group', id: requireGroup(structure, params.siteSectionGroupId).id };
      moveItem(ctx, structure, item, body.position, POSITION_FIELDS('id'));
      const view = viewNow(access);
      return { status: 200, body: presentGroup(view, view.structure.group(item.id)!) };
    },

    // ---- Site spaces ----

    listSiteSpaces({ params, query, caller }) {
      const access = siteAccess(ctx, caller, params.organizationId, params.siteId, { shareKey: query.shareKey });
      const view = viewNow(access);
      const { structure } = view;
      const isDefault = (row: { id: string; section_id: string | null }) =>
        structure.defaultSiteSpaceId(row.section_id) === row.id;
      const all = shownSiteSpaces(view).filter(
        (row) => query.default === undefined || isDefault(row) === query.default,
      );
      const page = ctx.cursors.pageOf({
        list: listId('listSiteSpaces', params.siteId, query.default),
        page: query.page,
        limit: query.limit,
        all,
        key: (row) => [row.id],
      });
      return { status: 200, body: { ...page, items: presentSiteSpaces(view, page.items) } };
    },

    createSiteSpace({ params, body, caller }) {
      const { access, structure } = manage(params, caller);
      let sectionId = defaultContainer(structure);
      if (body.sectionId !== undefined) {
        if (!structure.section(body.sectionId))
          throw badRequest(`sectionId: no section ${body.sectionId} in this site`);
        sectionId = body.sectionId;
      }
      const space = attachableSpace(ctx, access.membership, access.site.organization_id, body.spaceId, 'spaceId');
      if (spaceAttached(structure, sectionId, space.id)) {
        throw conflict(`spaceId: space ${space.id} is already attached to ${where(sectionId)}`);
      }
      const id = insertSiteSpace(ctx, access.site.id, sectionId, space);
      const view = viewNow(access);
      return { status: 201, body: presentSiteSpace(view, view.structure.siteSpace(id)!) };
    },

    deleteSiteSpace({ params, caller }) {
      const { access } = manage(params, caller);
      db.prepare('DELETE FROM site_spaces WHERE id = ? AND site_id = ?').run(params.siteSpaceId, params.siteId);
      loadStructure(ctx, access.site); // a new default site space when the default one went
      return { status: 204 };
    },

    updateSiteSpace({ params, body, caller }) {
      const { access, structure } = manage(params, caller);
      const siteSpace = requireSiteSpace(structure, params.siteSpaceId);
      const changes: Record<string, unknown> = {};
      if (body.path !== undefined) {
        checkPath(body.path, 'path');
        if (siteSpacePathTaken(structure, siteSpace.section_id, body.path, siteSpace.id)) {
          throw conflict(`path: another site space of ${where(siteSpace.section_id)} has the path "${body.path}"`);
        }
        changes.path = body.path;
      }
      if (body.condition !== undefined) changes.condition = body.condition;
      if (body.spaceId !== undefined) {
        const space = attachableSpace(ctx, access.membership, access.site.organization_id, body.spaceId, 'spaceId');
        if (spaceAttached(structure, siteSpace.section_id, space.id, siteSpace.id)) {
          throw conflict(`spaceId: space ${space.id} is already attached to ${where(siteSpace.section_id)}`);
        }
        changes.space_id = space.id;
      }
      updateColumns(db, 'site_spaces', siteSpace.id, changes);
      const view = viewNow(access);
      return { status: 200, body: presentSiteSpace(view, view.structure.siteSpace(siteSpace.id)!) };
    },

    moveSiteSpace({ params, body, caller }) {
      const { access, structure } = manage(params, caller);
      const item: ItemRef = { type: 'site-space', id: requireSiteSpace(structure, params.siteSpaceId).id };
      const position = { before: siteSpaceRef(body.position.before), after: siteSpaceRef(body.position.after) };
      moveItem(ctx, structure, item, position, POSITION_FIELDS('siteSpace'));
      const view = viewNow(access);
      return { status: 200, body: presentSiteSpace(view, view.structure.siteSpace(item.id)!) };
    },
  };
}

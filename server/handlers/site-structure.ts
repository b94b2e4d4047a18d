// The structure of a site: sections, section groups and site spaces (spaces attached to the site), and their order.
// Order and defaults live in domain/site-structure.ts; every change reloads the structure, which stores its defaults.
import type { Caller } from '../auth/caller.ts';
import type { Scope } from '../context.ts';
import type { Model } from '../domain/contract.ts';
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
  presentGroups,
  presentSectionNow,
  presentSections,
  presentSiteSpaceNow,
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
import { manageableSite, type SiteAccess, siteAccess } from '../domain/sites.ts';
import { listId } from '../domain/paging.ts';
import { badRequest, conflict, notFound } from '../errors.ts';
import type { HandlerGroup } from './types.ts';
import * as structures from '../store/site-structure.ts';

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

/** The site, for a caller who may change it, and its structure. */
async function manage(ctx: Scope, params: SitePathParams, caller: Caller) {
  const access = await manageableSite(ctx, caller, params.organizationId, params.siteId);
  return { access, structure: await loadStructure(ctx, access.site) };
}

/** The structure as it is now (after a change), seen by the caller. */
const viewNow = async (ctx: Scope, access: SiteAccess) => structureView(ctx, await loadStructure(ctx, access.site), access);

function requireSection(structure: Structure, id: string) {
  const row = structure.section(id);
  if (!row) throw notFound(`site section ${id}`);
  return row;
}
function requireGroup(structure: Structure, id: string) {
  const row = structure.group(id);
  if (!row) throw notFound(`site section group ${id}`);
  return row;
}
function requireSiteSpace(structure: Structure, id: string) {
  const row = structure.siteSpace(id);
  if (!row) throw notFound(`site space ${id}`);
  return row;
}

async function presentItem(
  ctx: Scope,
  access: SiteAccess,
  item: ItemRef,
): Promise<Model<'SiteSpace'> | Model<'SiteSection'> | Model<'SiteSectionGroup'>> {
  const view = await viewNow(ctx, access);
  switch (item.type) {
    case 'site-space':
      return presentSiteSpaceNow(view, view.structure.siteSpace(item.id)!);
    case 'site-section':
      return presentSectionNow(view, view.structure.section(item.id)!);
    case 'site-section-group':
      return presentGroup(view, view.structure.group(item.id)!);
    default:
      return unreachable(item.type, 'site structure item type');
  }
}

const where = (sectionId: string | null) => (sectionId ? `section ${sectionId}` : 'the root level of the site');

export const siteStructureHandlers: HandlerGroup<Operations> = {
  // ---- Sections ----

  async listSiteSections({ params, query, caller }, ctx) {
    const access = await siteAccess(ctx, caller, params.organizationId, params.siteId, { shareKey: query.shareKey });
    const view = await viewNow(ctx, access);
    const page = ctx.cursors.pageOf({
      list: listId('listSiteSections', params.siteId),
      page: query.page,
      limit: query.limit,
      all: view.structure.sections,
      key: (row) => [row.id],
    });
    return { status: 200, body: { ...page, items: await presentSections(view, page.items) } };
  },

  async createSiteSection({ params, body, caller }, ctx) {
    const { access, structure } = await manage(ctx, params, caller);
    const { site } = access;
    const space = await attachableSpace(ctx, access.membership, site.organization_id, body.spaceId, 'spaceId');
    await requireStructureRoom(ctx, site.id, 'sections', 'spaceId');
    const title = body.title ?? space.title.slice(0, 128).trim();
    if (title.length < 2) {
      throw badRequest(
        `title: the title of space ${space.id} is too short for a section (2 characters or more); give a title`,
      );
    }
    const id = newId();
    await structures.insertSection(ctx.db, {
      id,
      site_id: site.id,
      title,
      path: uniquePath(slugOf(title, 'section'), (path) => sectionPathTaken(structure, path)),
      icon: body.icon ?? null,
      position: structure.nextTopPosition,
      created_at: ctx.now(),
    });

    let first: string;
    if (structure.sections.length === 0) {
      // The first section takes in the site spaces of the root level, after its own space (which, when it was
      // already at the root level, is that site space moved to the front).
      const root = structure.siteSpaces(null);
      const existing = root.find((row) => row.space_id === space.id);
      await structures.moveRootSiteSpaces(ctx.db, site.id, id);
      first = existing?.id ?? (await insertSiteSpace(ctx, site.id, id, space));
      const order = [first, ...root.filter((row) => row.id !== first).map((row) => row.id)];
      await writeOrder(
        ctx.db,
        order.map((siteSpace) => ({ type: 'site-space', id: siteSpace })),
      );
    } else {
      first = await insertSiteSpace(ctx, site.id, id, space);
    }
    await structures.updateSection(ctx.db, id, { default_site_space_id: first });
    const view = await viewNow(ctx, access);
    return { status: 201, body: await presentSectionNow(view, view.structure.section(id)!) };
  },

  async deleteSiteSection({ params, caller }, ctx) {
    const { access } = await manage(ctx, params, caller);
    await structures.remove(ctx.db, 'section', params.siteId, params.siteSectionId);
    await loadStructure(ctx, access.site); // a new default section when the default one went
    return { status: 204 };
  },

  async updateSiteSection({ params, body, caller }, ctx) {
    const { access, structure } = await manage(ctx, params, caller);
    const section = requireSection(structure, params.siteSectionId);
    const changes: Parameters<typeof structures.updateSection>[2] = {};
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
    await structures.updateSection(ctx.db, section.id, changes);
    const view = await viewNow(ctx, access);
    return { status: 200, body: await presentSectionNow(view, view.structure.section(section.id)!) };
  },

  async moveSiteSection({ params, body, caller }, ctx) {
    const { access, structure } = await manage(ctx, params, caller);
    const item: ItemRef = { type: 'site-section', id: requireSection(structure, params.siteSectionId).id };
    const position = { before: sectionRef(body.position.before), after: sectionRef(body.position.after) };
    await moveItem(ctx, structure, item, position, POSITION_FIELDS('siteSection'));
    const view = await viewNow(ctx, access);
    return { status: 200, body: await presentSectionNow(view, view.structure.section(item.id)!) };
  },

  async sortSiteStructure({ params, body, caller }, ctx) {
    const { access, structure } = await manage(ctx, params, caller);
    const { item } = body;
    if (!hasItem(structure, item)) throw badRequest(`item.id: no ${item.type} ${item.id} in this site`);
    await moveItem(ctx, structure, item, body.position, POSITION_FIELDS('id'));
    return { status: 200, body: await presentItem(ctx, access, item) };
  },

  // ---- Section groups ----

  async listSiteSectionGroups({ params, query, caller }, ctx) {
    const access = await siteAccess(ctx, caller, params.organizationId, params.siteId);
    const view = await viewNow(ctx, access);
    const page = ctx.cursors.pageOf({
      list: listId('listSiteSectionGroups', params.siteId),
      page: query.page,
      limit: query.limit,
      all: view.structure.groups,
      key: (row) => [row.id],
    });
    return { status: 200, body: { ...page, items: await presentGroups(view, page.items) } };
  },

  async createSiteSectionGroup({ params, body, caller }, ctx) {
    const { access, structure } = await manage(ctx, params, caller);
    await requireStructureRoom(ctx, access.site.id, 'sectionGroups', 'title');
    const sectionIds = body.sections ?? [];
    sectionIds.forEach((sectionId, index) => {
      const section = structure.section(sectionId);
      if (!section) throw badRequest(`sections: no section ${sectionId} in this site`);
      if (sectionIds.indexOf(sectionId) !== index)
        throw badRequest(`sections: section ${sectionId} is listed more than once`);
      if (section.group_id) throw conflict(`sections: section ${sectionId} is already in group ${section.group_id}`);
    });
    const id = newId();
    await structures.insertGroup(ctx.db, {
      id,
      site_id: access.site.id,
      title: body.title,
      icon: body.icon ?? null,
      position: structure.nextTopPosition,
      created_at: ctx.now(),
    });

    // The group takes the place of the first of its sections at the top level (or goes last).
    const group: ItemRef = { type: 'site-section-group', id };
    const listed = new Set(sectionIds);
    const top = structure.top.filter((entry) => !(entry.type === 'site-section' && listed.has(entry.id)));
    const firstIndex = structure.top.findIndex((entry) => entry.type === 'site-section' && listed.has(entry.id));
    top.splice(firstIndex < 0 ? top.length : firstIndex, 0, group);
    for (const sectionId of sectionIds) await structures.updateSection(ctx.db, sectionId, { group_id: id });
    await writeOrder(ctx.db, top);
    await writeOrder(
      ctx.db,
      sectionIds.map((sectionId) => ({ type: 'site-section', id: sectionId })),
    );
    const view = await viewNow(ctx, access);
    return { status: 201, body: await presentGroup(view, view.structure.group(id)!) };
  },

  async deleteSiteSectionGroup({ params, caller }, ctx) {
    const { structure } = await manage(ctx, params, caller);
    const group = structure.group(params.siteSectionGroupId);
    if (!group) return { status: 204 };
    // Its sections stay in the site, where the group was.
    const sections = structure.groupSections(group.id).map((row): ItemRef => ({ type: 'site-section', id: row.id }));
    const top = structure.top.flatMap((entry) =>
      entry.type === 'site-section-group' && entry.id === group.id ? sections : [entry],
    );
    await structures.ungroup(ctx.db, group.id);
    await structures.remove(ctx.db, 'group', params.siteId, group.id);
    await writeOrder(ctx.db, top);
    return { status: 204 };
  },

  async updateSiteSectionGroup({ params, body, caller }, ctx) {
    const { access, structure } = await manage(ctx, params, caller);
    const group = requireGroup(structure, params.siteSectionGroupId);
    await structures.updateGroup(ctx.db, group.id, {
      ...(body.title !== undefined ? { title: body.title } : {}),
      ...(body.icon !== undefined ? { icon: body.icon } : {}),
    });
    const view = await viewNow(ctx, access);
    return { status: 200, body: await presentGroup(view, view.structure.group(group.id)!) };
  },

  async addSiteSectionToGroup({ params, body, caller }, ctx) {
    const { access, structure } = await manage(ctx, params, caller);
    const group = requireGroup(structure, params.siteSectionGroupId);
    const section = structure.section(body.sectionId);
    if (!section) throw badRequest(`sectionId: no section ${body.sectionId} in this site`);
    if (section.group_id) throw conflict(`sectionId: section ${section.id} is already in group ${section.group_id}`);
    await structures.updateSection(ctx.db, section.id, { group_id: group.id, position: nextPosition(structure.groupSections(group.id)) });
    const view = await viewNow(ctx, access);
    return { status: 200, body: await presentGroup(view, view.structure.group(group.id)!) };
  },

  async removeSiteSectionFromGroup({ params, caller }, ctx) {
    const { structure } = await manage(ctx, params, caller);
    const section = structure.section(params.siteSectionId);
    if (!section || section.group_id !== params.siteSectionGroupId) return { status: 204 };
    // The section stays in the site, just after the group.
    const top = structure.top.flatMap((entry): ItemRef[] =>
      entry.type === 'site-section-group' && entry.id === section.group_id
        ? [entry, { type: 'site-section', id: section.id }]
        : [entry],
    );
    await structures.updateSection(ctx.db, section.id, { group_id: null });
    await writeOrder(ctx.db, top);
    return { status: 204 };
  },

  async moveSiteSectionGroup({ params, body, caller }, ctx) {
    const { access, structure } = await manage(ctx, params, caller);
    const item: ItemRef = { type: 'site-section-group', id: requireGroup(structure, params.siteSectionGroupId).id };
    await moveItem(ctx, structure, item, body.position, POSITION_FIELDS('id'));
    const view = await viewNow(ctx, access);
    return { status: 200, body: await presentGroup(view, view.structure.group(item.id)!) };
  },

  // ---- Site spaces ----

  async listSiteSpaces({ params, query, caller }, ctx) {
    const access = await siteAccess(ctx, caller, params.organizationId, params.siteId, { shareKey: query.shareKey });
    const view = await viewNow(ctx, access);
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
    return { status: 200, body: { ...page, items: await presentSiteSpaces(view, page.items) } };
  },

  async createSiteSpace({ params, body, caller }, ctx) {
    const { access, structure } = await manage(ctx, params, caller);
    let sectionId = defaultContainer(structure);
    if (body.sectionId !== undefined) {
      if (!structure.section(body.sectionId))
        throw badRequest(`sectionId: no section ${body.sectionId} in this site`);
      sectionId = body.sectionId;
    }
    const space = await attachableSpace(ctx, access.membership, access.site.organization_id, body.spaceId, 'spaceId');
    if (spaceAttached(structure, sectionId, space.id)) {
      throw conflict(`spaceId: space ${space.id} is already attached to ${where(sectionId)}`);
    }
    const id = await insertSiteSpace(ctx, access.site.id, sectionId, space);
    const view = await viewNow(ctx, access);
    return { status: 201, body: await presentSiteSpaceNow(view, view.structure.siteSpace(id)!) };
  },

  async deleteSiteSpace({ params, caller }, ctx) {
    const { access } = await manage(ctx, params, caller);
    await structures.remove(ctx.db, 'siteSpace', params.siteId, params.siteSpaceId);
    await loadStructure(ctx, access.site); // a new default site space when the default one went
    return { status: 204 };
  },

  async updateSiteSpace({ params, body, caller }, ctx) {
    const { access, structure } = await manage(ctx, params, caller);
    const siteSpace = requireSiteSpace(structure, params.siteSpaceId);
    const changes: Parameters<typeof structures.updateSiteSpace>[2] = {};
    if (body.path !== undefined) {
      checkPath(body.path, 'path');
      if (siteSpacePathTaken(structure, siteSpace.section_id, body.path, siteSpace.id)) {
        throw conflict(`path: another site space of ${where(siteSpace.section_id)} has the path "${body.path}"`);
      }
      changes.path = body.path;
    }
    if (body.condition !== undefined) changes.condition = body.condition;
    if (body.spaceId !== undefined) {
      const space = await attachableSpace(ctx, access.membership, access.site.organization_id, body.spaceId, 'spaceId');
      if (spaceAttached(structure, siteSpace.section_id, space.id, siteSpace.id)) {
        throw conflict(`spaceId: space ${space.id} is already attached to ${where(siteSpace.section_id)}`);
      }
      changes.space_id = space.id;
    }
    await structures.updateSiteSpace(ctx.db, siteSpace.id, changes);
    const view = await viewNow(ctx, access);
    return { status: 200, body: await presentSiteSpaceNow(view, view.structure.siteSpace(siteSpace.id)!) };
  },

  async moveSiteSpace({ params, body, caller }, ctx) {
    const { access, structure } = await manage(ctx, params, caller);
    const item: ItemRef = { type: 'site-space', id: requireSiteSpace(structure, params.siteSpaceId).id };
    const position = { before: siteSpaceRef(body.position.before), after: siteSpaceRef(body.position.after) };
    await moveItem(ctx, structure, item, position, POSITION_FIELDS('siteSpace'));
    const view = await viewNow(ctx, access);
    return { status: 200, body: await presentSiteSpaceNow(view, view.structure.siteSpace(item.id)!) };
  },
};

// The structure of a site: sections, section groups and site spaces (spaces attached to the site), and their order.
// Order and defaults live in domain/site-structure.ts, the changes in domain/site-structure-changes.ts; every change
// reloads the structure, which stores its defaults.
import type { Caller } from '../auth/caller.ts';
import type { Scope } from '../context/context.ts';
import type { Model } from '../common/contract.ts';
import { unreachable } from '../common/errors.ts';
import {
  addSectionToGroup,
  createGroup,
  createSection,
  createSiteSpace,
  deleteGroup,
  deleteSection,
  deleteSiteSpace,
  removeSectionFromGroup,
  requireGroup,
  requireSection,
  requireSiteSpace,
  updateGroup,
  updateSection,
  updateSiteSpace,
} from '../domain/site-structure-changes.ts';
import {
  presentGroup,
  presentGroups,
  presentSectionNow,
  presentSections,
  presentSiteSpaceNow,
  presentSiteSpaces,
  shownSiteSpaces,
  structureView,
} from '../domain/site-structure-presenters.ts';
import { hasItem, isDefaultSiteSpace, type ItemRef, loadStructure, moveItem, readStructure } from '../domain/site-structure.ts';
import { manageableSite, type SiteAccess, siteAccess } from '../domain/sites.ts';
import { listId } from '../common/paging.ts';
import { badRequest } from '../common/errors.ts';
import type { HandlerGroup } from './types.ts';

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
  // The structure's rows leave with the access check's (one round trip on PostgreSQL); its defaults are stored once
  // the caller may manage the site.
  const rows = readStructure(ctx.db, params.siteId);
  rows.catch(() => undefined);
  const access = await manageableSite(ctx, caller, params.organizationId, params.siteId);
  return { access, structure: await loadStructure(ctx, access.site, rows) };
}

/** The structure as the caller may read it: its rows read with the access check (one round trip on PostgreSQL). */
async function read(ctx: Scope, params: SitePathParams, caller: Caller, shareKey?: string) {
  const rows = readStructure(ctx.db, params.siteId);
  rows.catch(() => undefined);
  const access = await siteAccess(ctx, caller, params.organizationId, params.siteId, shareKey === undefined ? {} : { shareKey });
  return structureView(ctx, loadStructure(ctx, access.site, rows), access);
}

/** The structure as it is now (after a change), seen by the caller. */
const viewNow = async (ctx: Scope, access: SiteAccess) => structureView(ctx, loadStructure(ctx, access.site), access);

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

export const siteStructureHandlers: HandlerGroup<Operations> = {
  // ---- Sections ----

  async listSiteSections({ params, query, caller }, ctx) {
    const view = await read(ctx, params, caller, query.shareKey);
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
    const id = await createSection(ctx, access, structure, body);
    const view = await viewNow(ctx, access);
    return { status: 201, body: await presentSectionNow(view, view.structure.section(id)!) };
  },

  async deleteSiteSection({ params, caller }, ctx) {
    const { structure } = await manage(ctx, params, caller);
    await deleteSection(ctx, structure, params.siteSectionId);
    return { status: 204 };
  },

  async updateSiteSection({ params, body, caller }, ctx) {
    const { access, structure } = await manage(ctx, params, caller);
    await updateSection(ctx, structure, params.siteSectionId, body);
    const view = await viewNow(ctx, access);
    return { status: 200, body: await presentSectionNow(view, view.structure.section(params.siteSectionId)!) };
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
    const view = await read(ctx, params, caller);
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
    const id = await createGroup(ctx, structure, body);
    const view = await viewNow(ctx, access);
    return { status: 201, body: await presentGroup(view, view.structure.group(id)!) };
  },

  async deleteSiteSectionGroup({ params, caller }, ctx) {
    const { structure } = await manage(ctx, params, caller);
    await deleteGroup(ctx, structure, params.siteSectionGroupId);
    return { status: 204 };
  },

  async updateSiteSectionGroup({ params, body, caller }, ctx) {
    const { access, structure } = await manage(ctx, params, caller);
    await updateGroup(ctx, structure, params.siteSectionGroupId, body);
    const view = await viewNow(ctx, access);
    return { status: 200, body: await presentGroup(view, view.structure.group(params.siteSectionGroupId)!) };
  },

  async addSiteSectionToGroup({ params, body, caller }, ctx) {
    const { access, structure } = await manage(ctx, params, caller);
    await addSectionToGroup(ctx, structure, params.siteSectionGroupId, body.sectionId);
    const view = await viewNow(ctx, access);
    return { status: 200, body: await presentGroup(view, view.structure.group(params.siteSectionGroupId)!) };
  },

  async removeSiteSectionFromGroup({ params, caller }, ctx) {
    const { structure } = await manage(ctx, params, caller);
    await removeSectionFromGroup(ctx, structure, params.siteSectionGroupId, params.siteSectionId);
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
    const view = await read(ctx, params, caller, query.shareKey);
    const all = shownSiteSpaces(view).filter(
      (row) => query.default === undefined || isDefaultSiteSpace(view.structure, row) === query.default,
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
    const id = await createSiteSpace(ctx, access, structure, body);
    const view = await viewNow(ctx, access);
    return { status: 201, body: await presentSiteSpaceNow(view, view.structure.siteSpace(id)!) };
  },

  async deleteSiteSpace({ params, caller }, ctx) {
    const { structure } = await manage(ctx, params, caller);
    await deleteSiteSpace(ctx, structure, params.siteSpaceId);
    return { status: 204 };
  },

  async updateSiteSpace({ params, body, caller }, ctx) {
    const { access, structure } = await manage(ctx, params, caller);
    await updateSiteSpace(ctx, access, structure, params.siteSpaceId, body);
    const view = await viewNow(ctx, access);
    return { status: 200, body: await presentSiteSpaceNow(view, view.structure.siteSpace(params.siteSpaceId)!) };
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

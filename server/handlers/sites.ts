// Sites: creation with attached spaces, settings, the adaptive schema of visitor claims, and the published view.
import { createSite, updateSite } from '../domain/site-settings.ts';
import { presentPublishedStructure, structureView } from '../domain/site-structure-presenters.ts';
import { loadStructure } from '../domain/site-structure.ts';
import {
  adaptiveConditionTemplates,
  deleteSite,
  organizationSites,
  presentAdaptiveSchema,
  presentSite,
  presentSites,
  publishedSiteAccess,
  siteAccess,
  siteFacts,
  sitesPage,
  updateAdaptiveSchema,
} from '../domain/sites.ts';
import { listId } from '../common/paging.ts';
import type { HandlerGroup } from './types.ts';

type Operations =
  | 'listSites'
  | 'createSite'
  | 'getSite'
  | 'deleteSite'
  | 'updateSite'
  | 'getSiteAdaptiveSchema'
  | 'updateSiteAdaptiveSchema'
  | 'listSiteAdaptiveConditionTemplates'
  | 'getPublishedSite';

export const siteHandlers: HandlerGroup<Operations> = {
  async listSites({ params, query, caller }, ctx) {
    const { permissions } = await organizationSites(ctx, caller, params.organizationId, 'view');
    const page = await sitesPage(ctx, {
      list: listId('listSites', params.organizationId, query.space, query.title, query.published),
      page: query.page,
      limit: query.limit,
      organizationId: params.organizationId,
      space: query.space,
      published: query.published,
      title: query.title,
    });
    return { status: 200, body: { ...page, items: await presentSites(ctx, page.items, permissions) } };
  },

  async createSite({ params, body, caller }, ctx) {
    const { site, permissions } = await createSite(ctx, caller, params.organizationId, body);
    const presented = await presentSite(ctx, site, permissions);
    return { status: 201, body: presented, headers: { location: presented.urls.location } };
  },

  async getSite({ params, caller }, ctx) {
    // Its facts read with the access (one round trip on PostgreSQL), shown only once the access allows.
    const [access, facts] = await Promise.all([siteAccess(ctx, caller, params.organizationId, params.siteId), siteFacts(ctx, [params.siteId])]);
    return { status: 200, body: await presentSite(ctx, access.site, access.permissions, facts) };
  },

  async deleteSite({ params, caller }, ctx) {
    await deleteSite(ctx, caller, params.organizationId, params.siteId);
    return { status: 204 };
  },

  async updateSite({ params, body, caller }, ctx) {
    const { site, permissions } = await updateSite(ctx, caller, params.organizationId, params.siteId, body);
    return { status: 200, body: await presentSite(ctx, site, permissions) };
  },

  async getSiteAdaptiveSchema({ params, caller }, ctx) {
    const { site } = await siteAccess(ctx, caller, params.organizationId, params.siteId);
    return { status: 200, body: presentAdaptiveSchema(site) };
  },

  async updateSiteAdaptiveSchema({ params, body, caller }, ctx) {
    const site = await updateAdaptiveSchema(ctx, caller, params.organizationId, params.siteId, body.jsonSchema);
    return { status: 200, body: presentAdaptiveSchema(site) };
  },

  async listSiteAdaptiveConditionTemplates({ params, caller }, ctx) {
    const { site } = await siteAccess(ctx, caller, params.organizationId, params.siteId);
    return { status: 200, body: { items: adaptiveConditionTemplates(site) } };
  },

  async getPublishedSite({ params, query, caller }, ctx) {
    const access = await publishedSiteAccess(ctx, caller, params.organizationId, params.siteId, query.shareKey);
    // The structure and the site's facts read together: one round trip on PostgreSQL.
    const [view, site] = await Promise.all([structureView(ctx, loadStructure(ctx, access.site), access, true), presentSite(ctx, access.site, access.permissions)]);
    return {
      status: 200,
      body: {
        object: 'published-content-site',
        site,
        structure: await presentPublishedStructure(view),
      },
    };
  },
};

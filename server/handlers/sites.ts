// Sites: creation with attached spaces, settings, the adaptive schema of visitor claims, and the published view.
import type { Scope } from '../context.ts';
import type { Model } from '../domain/contract.ts';
import { newId, newSecret } from '../domain/ids.ts';
import {
  attachableSpace,
  checkPath,
  insertSiteSpace,
  loadStructure,
  presentPublishedStructure,
  structureView,
} from '../domain/site-structure.ts';
import {
  EMPTY_ADAPTIVE_SCHEMA,
  getSiteRow,
  manageableSite,
  organizationSites,
  parseSiteRow,
  presentSite,
  presentSites,
  publishedSiteAccess,
  siteAccess,
  type SiteRow,
} from '../domain/sites.ts';
import { listId } from '../domain/paging.ts';
import { insertSpace, type SpaceRow } from '../domain/spaces.ts';
import { badRequest, conflict } from '../errors.ts';
import type { HandlerGroup } from './types.ts';
import { fromJson, toJson } from '../store/db.ts';
import * as sites from '../store/sites.ts';
import * as structures from '../store/site-structure.ts';

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

const DEFAULT_TITLE = 'Untitled site';

/** Claim names are used in condition expressions (`visitor.claims.<name>`), so they must be identifiers. */
const CLAIM_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const reload = async (ctx: Scope, site: SiteRow) => (await getSiteRow(ctx.db, site.id))!;

const presentSchema = (site: SiteRow): Model<'SiteAdaptiveSchema'> => ({
  object: 'site-adaptive-schema',
  jsonSchema: fromJson(site.adaptive_schema, EMPTY_ADAPTIVE_SCHEMA),
  ...(site.adaptive_schema_updated_at ? { updatedAt: site.adaptive_schema_updated_at } : {}),
});

/** How many sites a page of a title-filtered list reads at a time, to keep those whose title matches. */
const TITLE_BATCH = 200;

export const siteHandlers: HandlerGroup<Operations> = {
  async listSites({ params, query, caller }, ctx) {
    const { permissions } = await organizationSites(ctx, caller, params.organizationId, 'view');
    const filters: sites.SiteFilters = {
      organizationId: params.organizationId,
      ...(query.space !== undefined ? { space: query.space } : {}),
      ...(query.published !== undefined ? { published: query.published } : {}),
    };
    // Case-insensitive for every script, which the databases' lower() is not: the title filter runs here.
    const title = query.title?.toLocaleLowerCase();
    const matches = (row: { title: string }) => title === undefined || row.title.toLocaleLowerCase().includes(title);
    const page = await ctx.cursors.page({
      list: listId('listSites', params.organizationId, query.space, query.title, query.published),
      page: query.page,
      limit: query.limit,
      key: (row: SiteRow) => [row.created_at, row.id],
      // Counted in SQL, or by reading the titles alone when filtering on them: not by building every site.
      count: async () =>
        title === undefined ? sites.count(ctx.db, filters) : (await sites.titles(ctx.db, filters)).filter((row) => matches({ title: row })).length,
      fetch: async (key, limit) => {
        if (title === undefined) return (await sites.page(ctx.db, filters, key, limit)).map(parseSiteRow);
        // Read in batches, in order, keeping the sites whose title matches until the page is full.
        const rows: SiteRow[] = [];
        let after = key;
        for (;;) {
          const batch = await sites.page(ctx.db, filters, after, TITLE_BATCH);
          for (const row of batch) {
            if (matches(row)) rows.push(parseSiteRow(row));
            if (rows.length >= limit) return rows;
          }
          if (batch.length < TITLE_BATCH) return rows;
          const last = batch.at(-1)!;
          after = [last.created_at, last.id];
        }
      },
    });
    return { status: 200, body: { ...page, items: await presentSites(ctx, page.items, permissions) } };
  },

  async createSite({ params, body, caller }, ctx) {
    const organizationId = params.organizationId;
    const { membership, permissions } = await organizationSites(ctx, caller, organizationId, 'manage');
    const title = body.title ?? DEFAULT_TITLE;
    const spaces: SpaceRow[] = [];
    if (body.spaces === 'new') spaces.push(await insertSpace(ctx, { organizationId, title }));
    else for (const spaceId of body.spaces ?? []) spaces.push(await attachableSpace(ctx, membership, organizationId, spaceId, 'spaces'));
    const duplicate = spaces.find((space, index) => spaces.findIndex((other) => other.id === space.id) !== index);
    if (duplicate) throw badRequest(`spaces: space ${duplicate.id} is listed more than once`);

    const id = newId();
    await sites.insert(ctx.db, {
      id,
      organization_id: organizationId,
      type: body.type ?? 'basic',
      title,
      visibility: body.visibility ?? 'public',
      adaptive_schema: toJson(EMPTY_ADAPTIVE_SCHEMA),
      share_key: newSecret(16),
      created_at: ctx.now(),
    });
    for (const space of spaces) await insertSiteSpace(ctx, id, null, space, 'spaces');
    const site = (await getSiteRow(ctx.db, id))!;
    await loadStructure(ctx, site); // stores the first space as the default
    const presented = await presentSite(ctx, await reload(ctx, site), permissions);
    return { status: 201, body: presented, headers: { location: presented.urls.location } };
  },

  async getSite({ params, caller }, ctx) {
    const access = await siteAccess(ctx, caller, params.organizationId, params.siteId);
    return { status: 200, body: await presentSite(ctx, access.site, access.permissions) };
  },

  async deleteSite({ params, caller }, ctx) {
    await organizationSites(ctx, caller, params.organizationId, 'manage');
    await sites.remove(ctx.db, params.organizationId, params.siteId);
    return { status: 204 };
  },

  async updateSite({ params, body, caller }, ctx) {
    const access = await manageableSite(ctx, caller, params.organizationId, params.siteId);
    const { site } = access;
    const structure = await loadStructure(ctx, site);
    const changes: Parameters<typeof sites.update>[2] = {};
    if (body.title !== undefined) changes.title = body.title;
    if (body.visibility !== undefined) changes.visibility = body.visibility;
    if (body.agentsContext !== undefined) changes.agents_context = body.agentsContext;
    if (body.adaptiveContent !== undefined) changes.adaptive_content = body.adaptiveContent.enabled ? 1 : 0;
    if (body.basename !== undefined) {
      body.basename.split('/').forEach((segment) => checkPath(segment, 'basename'));
      changes.basename = body.basename;
    }
    if (body.proxy !== undefined) {
      if (body.proxy !== null && (await sites.proxyTaken(ctx.db, body.proxy, site.id))) throw conflict(`proxy: ${body.proxy} already serves another site`);
      changes.proxy = body.proxy;
    }
    let defaultSection = structure.defaultSectionId;
    if (body.defaultSiteSection !== undefined) {
      if (!structure.section(body.defaultSiteSection)) {
        throw badRequest(`defaultSiteSection: no section ${body.defaultSiteSection} in this site`);
      }
      defaultSection = changes.default_section_id = body.defaultSiteSection;
    }
    if (body.defaultSiteSpace !== undefined) {
      // The default site space of the site: at the root level, or in the (new) default section.
      const siteSpace = structure.siteSpace(body.defaultSiteSpace);
      if (!siteSpace || siteSpace.section_id !== (defaultSection ?? null)) {
        throw badRequest(
          `defaultSiteSpace: no site space ${body.defaultSiteSpace} ${defaultSection ? 'in the default section' : 'at the root level'} of this site`,
        );
      }
      if (defaultSection) {
        await structures.updateSection(ctx.db, defaultSection, { default_site_space_id: siteSpace.id });
      } else {
        changes.default_site_space_id = siteSpace.id;
      }
    }
    await sites.update(ctx.db, site.id, changes);
    return { status: 200, body: await presentSite(ctx, await reload(ctx, site), access.permissions) };
  },

  async getSiteAdaptiveSchema({ params, caller }, ctx) {
    const { site } = await siteAccess(ctx, caller, params.organizationId, params.siteId);
    return { status: 200, body: presentSchema(site) };
  },

  async updateSiteAdaptiveSchema({ params, body, caller }, ctx) {
    const { site } = await manageableSite(ctx, caller, params.organizationId, params.siteId);
    const { unsigned, ...claims } = body.jsonSchema.properties;
    const names = [
      ...Object.keys(claims).map((name) => ({ name, field: `jsonSchema.properties.${name}` })),
      ...Object.keys(unsigned?.properties ?? {}).map((name) => ({
        name,
        field: `jsonSchema.properties.unsigned.properties.${name}`,
      })),
    ];
    const invalid = names.find(({ name }) => !CLAIM_NAME.test(name));
    if (invalid) {
      throw badRequest(`${invalid.field}: a claim name is a letter or "_" followed by letters, digits or "_"`);
    }
    await sites.update(ctx.db, site.id, { adaptive_schema: toJson(body.jsonSchema), adaptive_schema_updated_at: ctx.now() });
    return { status: 200, body: presentSchema(await reload(ctx, site)) };
  },

  async listSiteAdaptiveConditionTemplates({ params, caller }, ctx) {
    const { site } = await siteAccess(ctx, caller, params.organizationId, params.siteId);
    const { unsigned, ...claims } = fromJson(site.adaptive_schema, EMPTY_ADAPTIVE_SCHEMA).properties;
    const template = (expression: string, name: string, claim: Model<'AdaptiveBooleanClaim'>) => ({
      description: claim.description || `The visitor's claim ${name} is true`,
      condition: `${expression} == true`,
    });
    const items = [
      ...Object.entries(claims).map(([name, claim]) => template(`visitor.claims.${name}`, name, claim)),
      ...Object.entries(unsigned?.properties ?? {}).map(([name, claim]) =>
        template(`visitor.claims.unsigned.${name}`, name, claim),
      ),
    ];
    return { status: 200, body: { items } };
  },

  async getPublishedSite({ params, query, caller }, ctx) {
    const access = await publishedSiteAccess(ctx, caller, params.organizationId, params.siteId, query.shareKey);
    const view = await structureView(ctx, await loadStructure(ctx, access.site), access, true);
    return {
      status: 200,
      body: {
        object: 'published-content-site',
        site: await presentSite(ctx, access.site, access.permissions),
        structure: await presentPublishedStructure(view),
      },
    };
  },
};

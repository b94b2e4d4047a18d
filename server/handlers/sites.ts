// Sites: creation with attached spaces, settings, the adaptive schema of visitor claims, and the published view.
import type { AppContext } from '../context.ts';
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
  PUBLISHED_SQL,
  publishedSiteAccess,
  siteAccess,
  type SiteRow,
  updateColumns,
} from '../domain/sites.ts';
import { badRequest, conflict } from '../http/errors.ts';
import { after, listId } from '../http/pagination.ts';
import type { HandlerGroup, Model } from '../http/types.ts';
import { fromJson, toJson } from '../store/db.ts';
import { insertSpace } from './spaces.ts';

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

export function siteHandlers(ctx: AppContext): HandlerGroup<Operations> {
  const { db } = ctx;

  const reload = (site: SiteRow) => getSiteRow(db, site.id)!;

  const presentSchema = (site: SiteRow): Model<'SiteAdaptiveSchema'> => ({
    object: 'site-adaptive-schema',
    jsonSchema: fromJson(site.adaptive_schema, EMPTY_ADAPTIVE_SCHEMA),
    ...(site.adaptive_schema_updated_at ? { updatedAt: site.adaptive_schema_updated_at } : {}),
  });

  return {
    listSites({ params, query, caller }) {
      const { permissions } = organizationSites(ctx, caller, params.organizationId, 'view');
      const conditions = ['organization_id = ?'];
      const values: unknown[] = [params.organizationId];
      if (query.space !== undefined) {
        conditions.push(
          'EXISTS (SELECT 1 FROM site_spaces WHERE site_spaces.site_id = sites.id AND site_spaces.space_id = ?)',
        );
        values.push(query.space);
      }
      if (query.published !== undefined) conditions.push(query.published ? PUBLISHED_SQL : `NOT ${PUBLISHED_SQL}`);
      // Case-insensitive for every script, which SQLite's lower() is not: the title filter runs here.
      const title = query.title?.toLocaleLowerCase();
      const matches = (row: SiteRow) => title === undefined || row.title.toLocaleLowerCase().includes(title);
      const where = conditions.join(' AND ');
      const select = (key: unknown[] | undefined) =>
        db.prepare(
          `SELECT * FROM sites WHERE ${where} ${key ? `AND ${after(['created_at', 'id'])}` : ''}
           ORDER BY created_at, id`,
        );
      const page = ctx.cursors.page({
        list: listId('listSites', params.organizationId, query.space, query.title, query.published),
        page: query.page,
        limit: query.limit,
        key: (row: SiteRow) => [row.created_at, row.id],
        // Counted in SQL, or by reading the titles alone when filtering on them: not by building every site.
        count: () => {
          if (title === undefined) return (db.prepare(`SELECT COUNT(*) AS n FROM sites WHERE ${where}`).get(...values) as { n: number }).n;
          const titles = db.prepare(`SELECT title FROM sites WHERE ${where}`).all(...values) as { title: string }[];
          return titles.filter((row) => row.title.toLocaleLowerCase().includes(title)).length;
        },
        fetch: (key, limit) => {
          const rows: SiteRow[] = [];
          for (const row of select(key).iterate(...values, ...(key ?? [])) as Iterable<SiteRow>) {
            if (matches(row)) rows.push(parseSiteRow(row));
            if (rows.length >= limit) break;
          }
          return rows;
        },
      });
      return { status: 200, body: { ...page, items: presentSites(ctx, page.items, permissions) } };
    },

    createSite({ params, body, caller }) {
      const organizationId = params.organizationId;
      const { membership, permissions } = organizationSites(ctx, caller, organizationId, 'manage');
      const title = body.title ?? DEFAULT_TITLE;
      const spaces =
        body.spaces === 'new'
          ? [insertSpace(ctx, { organizationId, title })]
          : (body.spaces ?? []).map((spaceId) => attachableSpace(ctx, membership, organizationId, spaceId, 'spaces'));
      const duplicate = spaces.find((space, index) => spaces.findIndex((other) => other.id === space.id) !== index);
      if (duplicate) throw badRequest(`spaces: space ${duplicate.id} is listed more than once`);

      const id = newId();
      db.prepare(
        `INSERT INTO sites (id, organization_id, type, title, visibility, adaptive_schema, share_key, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        id,
        organizationId,
        body.type ?? 'basic',
        title,
        body.visibility ?? 'public',
        toJson(EMPTY_ADAPTIVE_SCHEMA),
        newSecret(16),
        ctx.now(),
      );
      for (const space of spaces) insertSiteSpace(ctx, id, null, space, 'spaces');
      const site = getSiteRow(db, id)!;
      loadStructure(ctx, site); // stores the first space as the default
      const presented = presentSite(ctx, reload(site), permissions);
      return { status: 201, body: presented, headers: { location: presented.urls.location } };
    },

    getSite({ params, caller }) {
      const access = siteAccess(ctx, caller, params.organizationId, params.siteId);
      return { status: 200, body: presentSite(ctx, access.site, access.permissions) };
    },

    deleteSite({ params, caller }) {
      organizationSites(ctx, caller, params.organizationId, 'manage');
      const deleted = db
        .prepare('DELETE FROM sites WHERE id = ? AND organization_id = ?')
        .run(params.siteId, params.organizationId);
      if (deleted.changes > 0) {
        db.prepare(
          'UPDATE organizations SET default_content_site = NULL WHERE id = ? AND default_content_site = ?',
        ).run(params.organizationId, params.siteId);
      }
      return { status: 204 };
    },

    updateSite({ params, body, caller }) {
      const access = manageableSite(ctx, caller, params.organizationId, params.siteId);
      const { site } = access;
      const structure = loadStructure(ctx, site);
      const changes: Record<string, unknown> = {};
      if (body.title !== undefined) changes.title = body.title;
      if (body.visibility !== undefined) changes.visibility = body.visibility;
      if (body.agentsContext !== undefined) changes.agents_context = body.agentsContext;
      if (body.adaptiveContent !== undefined) changes.adaptive_content = body.adaptiveContent.enabled ? 1 : 0;
      if (body.basename !== undefined) {
        body.basename.split('/').forEach((segment) => checkPath(segment, 'basename'));
        changes.basename = body.basename;
      }
      if (body.proxy !== undefined) {
        const taken = db.prepare('SELECT 1 FROM sites WHERE proxy = ? AND id <> ?').get(body.proxy, site.id);
        if (taken) throw conflict(`proxy: ${body.proxy} already serves another site`);
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
          updateColumns(db, 'site_sections', defaultSection, { default_site_space_id: siteSpace.id });
        } else {
          changes.default_site_space_id = siteSpace.id;
        }
      }
      updateColumns(db, 'sites', site.id, changes);
      return { status: 200, body: presentSite(ctx, reload(site), access.permissions) };
    },

    getSiteAdaptiveSchema({ params, caller }) {
      const { site } = siteAccess(ctx, caller, params.organizationId, params.siteId);
      return { status: 200, body: presentSchema(site) };
    },

    updateSiteAdaptiveSchema({ params, body, caller }) {
      const { site } = manageableSite(ctx, caller, params.organizationId, params.siteId);
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
      db.prepare('UPDATE sites SET adaptive_schema = ?, adaptive_schema_updated_at = ? WHERE id = ?').run(
        toJson(body.jsonSchema),
        ctx.now(),
        site.id,
      );
      return { status: 200, body: presentSchema(reload(site)) };
    },

    listSiteAdaptiveConditionTemplates({ params, caller }) {
      const { site } = siteAccess(ctx, caller, params.organizationId, params.siteId);
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

    getPublishedSite({ params, query, caller }) {
      const access = publishedSiteAccess(ctx, caller, params.organizationId, params.siteId, query.shareKey);
      const view = structureView(ctx, loadStructure(ctx, access.site), access, true);
      return {
        status: 200,
        body: {
          object: 'published-content-site',
          site: presentSite(ctx, access.site, access.permissions),
          structure: presentPublishedStructure(view),
        },
      };
    },
  };
}

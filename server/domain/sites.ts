// Sites: their rows, who may read and manage them, who reaches their published view, and how the API shows them.
// A site has no `permissions` object: reading needs the organization role `read`, managing it and its structure
// needs the organization's `createContent` permission.
import type { Caller } from '../auth/caller.ts';
import { atLeast, type Membership, membershipOf } from '../auth/roles.ts';
import type { AppContext, Scope } from '../context/context.ts';
import { badRequest, forbidden, notFound } from '../common/errors.ts';
import type { Input, Model } from '../common/contract.ts';
import { bool, type Db, fromJson, toJson } from '../store/db.ts';
import * as sites from '../store/sites.ts';
import { rowParser } from '../store/enums.ts';
import { organizationAccess, organizationPermissions } from './organizations.ts';
import { type Key, keptInBatches, type Page } from '../common/paging.ts';
import type { Row } from '../store/schema.ts';

/**
 * Per `SiteVisibility`: whether anyone may visit the published site (`open`), and whether its share link (with the
 * site's `shareKey`) lets anyone visit it (`shareLink`). `visitor-auth` sites are for members only here.
 */
export const SITE_VISIBILITIES = {
  public: { open: true, shareLink: false },
  unlisted: { open: true, shareLink: false },
  'share-link': { open: false, shareLink: true },
  'visitor-auth': { open: false, shareLink: false },
} satisfies Record<Model<'SiteVisibility'>, { open: boolean; shareLink: boolean }>;

/** Per `SiteType`: whether its site spaces have the advanced customization feature. */
export const SITE_TYPES = {
  basic: { advancedCustomization: false },
  premium: { advancedCustomization: true },
  ultimate: { advancedCustomization: true },
} satisfies Record<Model<'SiteType'>, { advancedCustomization: boolean }>;

/** Per `AgentsContext`: one entry per value of the setting (stored and answered as it is). */
const AGENTS_CONTEXTS = { excluded: true, included: true } satisfies Record<Model<'AgentsContext'>, true>;

/** A `sites` row checked: its type, visibility and agents' context are members of their enumerations. */
export const parseSiteRow = rowParser<SiteRow>('sites', { type: SITE_TYPES, visibility: SITE_VISIBILITIES, agentsContext: AGENTS_CONTEXTS });

export type SiteRow = Row<'sites', { type: Model<'Site'>['type']; visibility: Model<'Site'>['visibility']; agentsContext: Model<'Site'>['agentsContext'] }>;

export interface SitePermissions {
  /** Read the site, its adaptive schema and its structure. */
  view: boolean;
  /** Change the site and its structure, delete it, and learn its share key. */
  manage: boolean;
}

export function sitePermissions(membership: Membership | undefined): SitePermissions {
  return {
    view: membership !== undefined && atLeast(membership.role, 'read'),
    manage: organizationPermissions(membership).createContent,
  };
}

/** Permissions of a visitor holding the share key of a published share-link site: reading its structure only. */
const VISITOR: SitePermissions = { view: true, manage: false };

/** The adaptive schema every site starts with: no claims. */
export const EMPTY_ADAPTIVE_SCHEMA: Model<'AdaptiveJsonSchema'> = {
  type: 'object',
  properties: {},
  additionalProperties: false,
};

export async function getSiteRow(db: Db, id: string): Promise<SiteRow | undefined> {
  const row = await sites.get(db, id);
  return row === undefined ? undefined : parseSiteRow(row);
}

/** Whether the site is published: at least one attached space that is not deleted. */
export const isPublished = (db: Db, siteId: string): Promise<boolean> => sites.isPublished(db, siteId);

export interface SiteAccess {
  site: SiteRow;
  membership: Membership | undefined;
  permissions: SitePermissions;
  /** Reached as a visitor (published view, share key), not as a member who may read the site. */
  visitor: boolean;
}

/**
 * The site, for a member of its organization with `read` (403 for members below it, 404 for anyone else and for
 * unknown sites), or for anyone holding the share key of a published share-link site when `shareKey` is given.
 */
export async function siteAccess(
  ctx: Scope,
  caller: Caller,
  organizationId: string,
  siteId: string,
  options: { shareKey?: string } = {},
): Promise<SiteAccess> {
  // Read together: one round trip on PostgreSQL.
  const [membership, row] = await Promise.all([membershipOf(ctx.db, caller.user.id, organizationId), getSiteRow(ctx.db, siteId)]);
  const permissions = sitePermissions(membership);
  const site = row?.organizationId === organizationId ? row : undefined;
  if (permissions.view) {
    if (!site) throw notFound(`site ${siteId}`);
    return { site, membership, permissions, visitor: false };
  }
  if (site && options.shareKey !== undefined && (await opensWithKey(ctx.db, site, options.shareKey))) {
    return { site, membership, permissions: VISITOR, visitor: true };
  }
  if (membership) requireSite(permissions, 'view');
  throw notFound(`site ${siteId}`);
}

/** The site, when the caller may read it (see siteAccess); 403 unless they may also manage it. */
export async function manageableSite(ctx: Scope, caller: Caller, organizationId: string, siteId: string): Promise<SiteAccess> {
  const access = await siteAccess(ctx, caller, organizationId, siteId);
  requireSite(access.permissions, 'manage');
  return access;
}

/** The caller's membership and permissions on the sites of an organization they belong to (404 otherwise), or 403. */
export async function organizationSites(
  ctx: Scope,
  caller: Caller,
  organizationId: string,
  permission: keyof SitePermissions,
): Promise<{ membership: Membership; permissions: SitePermissions }> {
  const { membership } = await organizationAccess(ctx, caller, organizationId);
  const permissions = sitePermissions(membership);
  requireSite(permissions, permission);
  return { membership, permissions };
}

export function requireSite(permissions: SitePermissions, permission: keyof SitePermissions): void {
  if (permissions[permission]) return;
  throw forbidden(
    permission === 'view'
      ? 'reading sites needs the read role in the organization'
      : 'this operation needs the createContent permission on the organization',
  );
}

/** Removes a site of an organization, for a caller who may manage its sites (nothing when there is no such site). */
export async function deleteSite(ctx: Scope, caller: Caller, organizationId: string, siteId: string): Promise<void> {
  await organizationSites(ctx, caller, organizationId, 'manage');
  await sites.remove(ctx.db, organizationId, siteId);
}

async function opensWithKey(db: Db, site: SiteRow, shareKey: string): Promise<boolean> {
  return SITE_VISIBILITIES[site.visibility].shareLink && shareKey === site.shareKey && (await isPublished(db, site.id));
}

/**
 * The site as its visitors reach it: published, and then for members with `read` whatever its visibility; for
 * anyone else when it is public or unlisted, or share-link with the right `shareKey`. Otherwise 404.
 */
export async function publishedSiteAccess(
  ctx: Scope,
  caller: Caller,
  organizationId: string,
  siteId: string,
  shareKey: string | undefined,
): Promise<SiteAccess> {
  // Built when thrown: an Error captures a stack trace, a cost every successful call would pay.
  const missing = () => notFound(`published site ${siteId}`);
  // Read together: one round trip on PostgreSQL.
  const [site, published, membership] = await Promise.all([
    getSiteRow(ctx.db, siteId),
    isPublished(ctx.db, siteId),
    membershipOf(ctx.db, caller.user.id, organizationId),
  ]);
  if (!site || site.organizationId !== organizationId || !published) throw missing();
  const permissions = sitePermissions(membership);
  if (permissions.view) return { site, membership, permissions, visitor: false };
  const open = SITE_VISIBILITIES[site.visibility].open;
  if (open || (shareKey !== undefined && (await opensWithKey(ctx.db, site, shareKey)))) {
    return { site, membership, permissions: VISITOR, visitor: true };
  }
  throw missing();
}

/** The address the site itself is served at (what a proxy forwards to). */
function ownAddress(ctx: AppContext, site: SiteRow): string {
  return ctx.urls.app(`/public/sites/${site.id}${site.basename ? `/${site.basename}` : ''}`);
}


/**
 * The published address of the site, or of a path under it (a section, a site space): the proxy's address when the
 * site is proxied, else its own. Share-link addresses carry `?shareKey=` for callers who may manage the site.
 */
export function publishedAddress(
  ctx: AppContext,
  site: SiteRow,
  permissions: SitePermissions,
  path: string[] = [],
): string {
  const base = site.proxy ? `https://${site.proxy}` : ownAddress(ctx, site);
  const address = [base, ...path.map(encodeURIComponent)].join('/');
  const key = permissions.manage && SITE_VISIBILITIES[site.visibility].shareLink ? `?shareKey=${site.shareKey}` : '';
  return `${address}${key}`;
}

/** Features a site uses: adaptive content when enabled, a proxy when set; each on the site's plan. */
function siteFeatures(site: SiteRow): Model<'SiteFeature'>[] {
  const feature = (id: string) => ({ id, plan: site.type, frozen: false, customizations: [] });
  return [
    ...(bool(site.adaptiveContent) ? [feature('sites-adaptive-content')] : []),
    ...(site.proxy ? [feature('sites-proxy')] : []),
  ];
}

/**
 * Sites as the API shows them with the given permissions, a page of them with one query for whether each is
 * published and how many site spaces it has (not two per site); `facts` when read already (`siteFacts`).
 */
export async function presentSites(ctx: Scope, rows: readonly SiteRow[], permissions: SitePermissions, facts?: SiteFacts): Promise<Model<'Site'>[]> {
  if (rows.length === 0) return [];
  const found = facts ?? (await siteFacts(ctx, rows.map((site) => site.id)));
  return rows.map((site) => {
    const published = bool(found.get(site.id)?.published ?? 0);
    return {
      object: 'site',
      id: site.id,
      type: site.type,
      title: site.title,
      ...(site.basename ? { basename: site.basename } : {}),
      ...(site.proxy ? { proxy: { origin: `https://${site.proxy}`, target: ownAddress(ctx, site) } } : {}),
      visibility: site.visibility,
      published,
      siteSpaces: found.get(site.id)?.siteSpaces ?? 0,
      createdAt: site.createdAt,
      adaptiveContent: { enabled: bool(site.adaptiveContent) },
      agentsContext: site.agentsContext,
      features: siteFeatures(site),
      urls: {
        location: ctx.urls.api(`/v1/orgs/${site.organizationId}/sites/${site.id}`),
        app: ctx.urls.app(`/o/${site.organizationId}/sites/${site.id}`),
        ...(published ? { published: publishedAddress(ctx, site, permissions) } : {}),
      },
    };
  });
}

/** A site as the API shows it with the given permissions. */
export const presentSite = async (ctx: Scope, site: SiteRow, permissions: SitePermissions, facts?: SiteFacts): Promise<Model<'Site'>> =>
  (await presentSites(ctx, [site], permissions, facts))[0]!;

/** Whether each of some sites is published and how many site spaces it has, by site (`presentSites`). */
export type SiteFacts = Map<string, { published: number; siteSpaces: number }>;

/** The facts of sites `ids` (one query), for `presentSites` when read beforehand. */
export const siteFacts = async (ctx: Scope, ids: readonly string[]): Promise<SiteFacts> =>
  new Map((await sites.facts(ctx.db, ids)).map((row) => [row.id, row]));

/** The site as the given member sees it (for lists computed for another caller, such as integration site items). */
export function presentSiteFor(ctx: Scope, site: SiteRow, membership: Membership | undefined): Promise<Model<'Site'>> {
  return presentSite(ctx, site, sitePermissions(membership));
}

// ---- Lists ----

/** Filters of a list of an organization's sites: those that hold a space, those published or not, by title. */
export interface SiteListFilters {
  organizationId: string;
  space?: string;
  published?: boolean;
  /** Keeps the sites whose title contains it, whatever the case. */
  title?: string;
}

/** How many sites a page of a title-filtered list reads at a time, to keep those whose title matches. */
const TITLE_BATCH = 200;

/** One page of the sites of an organization, by creation (created_at, id). */
export function sitesPage(
  ctx: Scope,
  options: SiteListFilters & { list: string; page?: string; limit?: number },
): Promise<Page<SiteRow>> {
  const filters: sites.SiteFilters = {
    organizationId: options.organizationId,
    ...(options.space !== undefined ? { space: options.space } : {}),
    ...(options.published !== undefined ? { published: options.published } : {}),
  };
  // Case-insensitive for every script, which the databases' lower() is not: the title filter runs here.
  const title = options.title?.toLocaleLowerCase();
  const matches = (row: { title: string }) => title === undefined || row.title.toLocaleLowerCase().includes(title);
  return ctx.cursors.page({
    list: options.list,
    page: options.page,
    limit: options.limit,
    key: (row: SiteRow) => [row.createdAt, row.id],
    // Counted in SQL, or by reading the titles alone when filtering on them: not by building every site.
    count: async () =>
      title === undefined ? sites.count(ctx.db, filters) : (await sites.titles(ctx.db, filters)).filter((row) => matches({ title: row })).length,
    fetch: async (key, limit) => {
      const read = (after: Key | undefined, batch: number) => sites.page(ctx.db, filters, after, batch);
      const rows =
        title === undefined
          ? await read(key, limit)
          : await keptInBatches({ after: key, limit, batch: TITLE_BATCH, read, key: (row) => [row.createdAt, row.id], keep: matches });
      return rows.map(parseSiteRow);
    },
  });
}

// ---- Adaptive schema ----

/** Claim names are used in condition expressions (`visitor.claims.<name>`), so they must be identifiers. */
const CLAIM_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The claims a site's visitors may hold, as the API shows them. */
export const presentAdaptiveSchema = (site: SiteRow): Model<'SiteAdaptiveSchema'> => ({
  object: 'site-adaptive-schema',
  jsonSchema: fromJson(site.adaptiveSchema, EMPTY_ADAPTIVE_SCHEMA),
  ...(site.adaptiveSchemaUpdatedAt ? { updatedAt: site.adaptiveSchemaUpdatedAt } : {}),
});

/**
 * Replaces the adaptive schema of a site the caller may manage; every claim name, signed or unsigned, must be an
 * identifier (a 400 naming it otherwise). The site as it is now.
 */
export async function updateAdaptiveSchema(
  ctx: Scope,
  caller: Caller,
  organizationId: string,
  siteId: string,
  jsonSchema: Input<'SiteAdaptiveSchema'>['jsonSchema'],
): Promise<SiteRow> {
  const { site } = await manageableSite(ctx, caller, organizationId, siteId);
  const { unsigned, ...claims } = jsonSchema.properties;
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
  await sites.update(ctx.db, site.id, { adaptiveSchema: toJson(jsonSchema), adaptiveSchemaUpdatedAt: ctx.now() });
  return (await getSiteRow(ctx.db, site.id))!;
}

/** A condition template for each claim of the site's adaptive schema (signed ones, then unsigned ones): the claim is true. */
export function adaptiveConditionTemplates(site: SiteRow): Model<'AdaptiveConditionTemplate'>[] {
  const { unsigned, ...claims } = fromJson(site.adaptiveSchema, EMPTY_ADAPTIVE_SCHEMA).properties;
  const template = (expression: string, name: string, claim: Model<'AdaptiveBooleanClaim'>) => ({
    description: claim.description || `The visitor's claim ${name} is true`,
    condition: `${expression} == true`,
  });
  return [
    ...Object.entries(claims).map(([name, claim]) => template(`visitor.claims.${name}`, name, claim)),
    ...Object.entries(unsigned?.properties ?? {}).map(([name, claim]) =>
      template(`visitor.claims.unsigned.${name}`, name, claim),
    ),
  ];
}

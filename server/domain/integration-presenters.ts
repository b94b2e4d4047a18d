// How the API shows integrations, their installations, the spaces and sites those cover, and their events.
import type { Caller } from '../auth/caller.ts';
import { membershipOf } from '../auth/roles.ts';
import type { Scope } from '../context/context.ts';
import type { Model } from '../common/contract.ts';
import { type Db, fromJson } from '../store/db.ts';
import * as integrations from '../store/integrations.ts';
import { type EventRow, type InstallationRow, integrationPermissions, type IntegrationRow } from './integrations.ts';
import type { InstallationItem } from './integration-lists.ts';
import { getOrganizationRow, type OrganizationRow, presentOrganization } from './organizations.ts';
import { presentSiteFor, type SiteRow } from './sites.ts';
import { liveSpaceCount, presentSpaceFor, type SpaceRow } from './spaces.ts';

const ICON_TYPES: [RegExp, string][] = [
  [/^iVBORw0KGgo/, 'image/png'],
  [/^\/9j\//, 'image/jpeg'],
  [/^R0lGOD/, 'image/gif'],
  [/^UklGR/, 'image/webp'],
  [/^AAABAA/, 'image/x-icon'],
  [/^(PHN2Zy|PD94bW)/, 'image/svg+xml'],
];

/** The icon as a `data:` address, its media type recognised from its first bytes. */
export function iconUrl(icon: string): string {
  const type = ICON_TYPES.find(([pattern]) => pattern.test(icon))?.[1] ?? 'application/octet-stream';
  return `data:${type};base64,${icon}`;
}

/** An integration as the caller sees it; `ownerRead`: its owner organization, when the request read it already. */
export async function presentIntegration(ctx: Scope, row: IntegrationRow, caller: Caller, ownerRead?: OrganizationRow): Promise<Model<'Integration'>> {
  const membership = await membershipOf(ctx.db, caller.user.id, row.organizationId);
  const owner = ownerRead?.id === row.organizationId ? ownerRead : (await getOrganizationRow(ctx, row.organizationId))!;
  return {
    object: 'integration',
    name: row.name,
    version: row.version,
    title: row.title,
    ...(row.description !== null ? { description: row.description } : {}),
    ...(row.summary !== null ? { summary: row.summary } : {}),
    previewImages: fromJson(row.previewImages, []),
    target: row.target,
    verified: row.verified === 1,
    visibility: row.visibility,
    scopes: fromJson(row.scopes, []),
    categories: fromJson(row.categories, []),
    blocks: fromJson(row.blocks, []),
    contentSources: fromJson(row.contentSources, []),
    configurations: fromJson(row.configurations, {}),
    externalLinks: fromJson(row.externalLinks, []),
    owner: presentOrganization(ctx, owner, membership),
    urls: {
      location: ctx.urls.api(`/v1/integrations/${row.name}`),
      ...(row.icon ? { icon: iconUrl(row.icon) } : {}),
      app: ctx.urls.app(`/integrations/${row.name}`),
      assets: ctx.urls.app(`/integrations/${row.name}/assets/${row.version}`),
      publicEndpoint: ctx.urls.app(`/integrations/${row.name}/endpoint`),
    },
    permissions: integrationPermissions(membership),
    ...(row.contentSecurityPolicy !== null ? { contentSecurityPolicy: row.contentSecurityPolicy } : {}),
  };
}

export const installationPath = (row: InstallationRow) => `/v1/integrations/${row.integrationName}/installations/${row.id}`;

export async function presentInstallation(ctx: Scope, row: InstallationRow): Promise<Model<'IntegrationInstallation'>> {
  return {
    id: row.id,
    status: row.status,
    space_selection: row.spaceSelection,
    site_selection: row.siteSelection,
    // An installation with space selection `all` covers every live space of its organization.
    spaces: await liveSpaceCount(ctx.db, row.organizationId),
    configuration: fromJson(row.configuration, {}),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    urls: {
      location: ctx.urls.api(installationPath(row)),
      app: ctx.urls.app(`/o/${row.organizationId}/integrations/${row.integrationName}`),
      publicEndpoint: ctx.urls.app(`/integrations/${row.integrationName}/installations/${row.id}/endpoint`),
    },
    externalIds: fromJson(row.externalIds, []),
    target: { organization: row.organizationId },
  };
}

/** What the integration item lists show of an installation's space or site `id`. */
const installationItem = (ctx: Scope, installation: InstallationRow, kind: 'spaces' | 'sites', id: string) => ({
  integration: installation.integrationName,
  installation: installation.id,
  status: installation.status,
  configuration: {},
  externalIds: fromJson<string[]>(installation.externalIds, []),
  urls: {
    location: ctx.urls.api(`${installationPath(installation)}/${kind}/${id}`),
    publicEndpoint: ctx.urls.app(`/integrations/${installation.integrationName}/installations/${installation.id}/${kind}/${id}/endpoint`),
  },
});

/** The items of a page of integrationSpacesPage: each space by its id, or in full when `extended`. */
export async function presentIntegrationSpaces(ctx: Scope, items: InstallationItem<SpaceRow>[], extended: boolean | undefined): Promise<Model<'IntegrationSpaceItem'>[]> {
  const presented: Model<'IntegrationSpaceItem'>[] = [];
  for (const { installation, membership, row: space } of items) {
    presented.push({ ...installationItem(ctx, installation, 'spaces', space.id), space: extended ? await presentSpaceFor(ctx, space, membership) : space.id });
  }
  return presented;
}

/** The items of a page of integrationSitesPage: each site by its id, or in full when `extended`. */
export async function presentIntegrationSites(ctx: Scope, items: InstallationItem<SiteRow>[], extended: boolean | undefined): Promise<Model<'IntegrationSiteItem'>[]> {
  const presented: Model<'IntegrationSiteItem'>[] = [];
  for (const { installation, membership, row: site } of items) {
    presented.push({ ...installationItem(ctx, installation, 'sites', site.id), site: extended ? await presentSiteFor(ctx, site, membership) : site.id });
  }
  return presented;
}

export function presentEvent(row: EventRow): Model<'IntegrationEvent'> {
  return {
    id: row.id,
    integrationId: row.integrationName,
    installationId: row.installationId,
    createdAt: row.createdAt,
    payload: fromJson(row.payload, { eventId: row.id, type: 'unknown', installationId: row.installationId }),
    // Pending events are never shown (lists and reads skip them); the contract has no state for them.
    status: row.status === 'pending' ? 'failed' : row.status,
  };
}

export async function eventTrace(db: Db, eventId: string): Promise<Model<'IntegrationEventTrace'>> {
  return { logs: (await integrations.logs(db, eventId)) as Model<'IntegrationEventLog'>[] };
}

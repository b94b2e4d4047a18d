// Integrations: global records owned by an organization. Their rows, who sees them and who administers them,
// publishing them, their installations and events, the lists of the spaces and sites they cover, how the API shows
// them, the delivery of events to a development tunnel, and the rendering of their blocks.
import { isIP } from 'node:net';
import LZString from 'lz-string';
import type { Caller } from '../auth/caller.ts';
import { type Membership, membershipOf, ROLE_RANKS } from '../auth/roles.ts';
import { inWrite, reading, type Scope } from '../context.ts';
import { badRequest, conflict, forbidden, notFound } from '../errors.ts';
import { jsonShapeProblem, MAX_JSON_DEPTH, MAX_JSON_KEY_LENGTH } from '../json-limits.ts';
import type { Input, Model } from './contract.ts';
import { enqueue, type JobKind, type JobRunner } from '../jobs/runner.ts';
import { type AddressRule, isRefusedAddress, outboundFor } from '../net/outbound.ts';
import { type Db, fromJson, toJson } from '../store/db.ts';
import * as integrations from '../store/integrations.ts';
import * as members from '../store/members.ts';
import * as organizations from '../store/organizations.ts';
import * as sites from '../store/sites.ts';
import * as spaces from '../store/spaces.ts';
import { viewsAllContent } from './collections.ts';
import { liveSpaceCount, parseSpaceRow, presentSpaceFor, type SpaceRow } from './spaces.ts';
import { newId } from './ids.ts';
import { parseEnum, rowParser } from './enums.ts';
import { getOrganizationRow, organizationPermissions, parseOrganizationRow, presentOrganization, requireOrganization } from './organizations.ts';
import type { Key, Page } from './paging.ts';
import { parseSiteRow, presentSiteFor, type SiteRow, sitePermissions } from './sites.ts';
import type { Row } from '../store/schema.ts';

/**
 * Per `IntegrationVisibility`: whether the integration belongs to its organization alone (seen by its members who
 * may list integrations, installed only there).
 */
export const INTEGRATION_VISIBILITIES = {
  public: { ownerOnly: false },
  unlisted: { ownerOnly: false },
  private: { ownerOnly: true },
} satisfies Record<Model<'IntegrationVisibility'>, { ownerOnly: boolean }>;

/** Per `IntegrationTarget`: whether an integration with it can be installed on every kind of target. */
export const INTEGRATION_TARGETS = {
  all: { everyTarget: true },
  site: { everyTarget: false },
  space: { everyTarget: false },
  organization: { everyTarget: false },
} satisfies Record<Model<'IntegrationTarget'>, { everyTarget: boolean }>;

export type IntegrationRow = Row<'integrations', { visibility: Model<'Integration'>['visibility']; target: Model<'Integration'>['target'] }>;

export type InstallationRow = Row<'integration_installations', { status: Model<'IntegrationInstallation'>['status'] }>;

/** `pending` while a delivery to the development tunnel is queued: such events are not shown yet. */
export type EventRow = Row<'integration_events', { status: Model<'IntegrationEvent'>['status'] | 'pending' }>;

export type IntegrationPermissions = Model<'IntegrationPermissions'>;
type LogLevel = Model<'IntegrationEventLog'>['level'];

/** An `integrations` row checked: its visibility and target are members of their enumerations. */
export const parseIntegrationRow = rowParser<IntegrationRow>('integrations', {
  visibility: INTEGRATION_VISIBILITIES,
  target: INTEGRATION_TARGETS,
});

export const getIntegrationRow = async (db: Db, name: string): Promise<IntegrationRow | undefined> => {
  const row = await integrations.get(db, name);
  return row === undefined ? undefined : parseIntegrationRow(row);
};

/** Per `InstallationStatus`: one entry per status an installation may have. */
const INSTALLATION_STATUSES = { active: true, pending: true, paused: true } satisfies Record<Model<'InstallationStatus'>, true>;

/** An `integration_installations` row checked: its status is one of the contract's. */
export const parseInstallationRow = rowParser<InstallationRow>('integration_installations', { status: INSTALLATION_STATUSES });

/** Per event status: the contract's `IntegrationEventStatus`, and `pending` while a delivery is queued. */
const EVENT_STATUSES = { success: true, failed: true, pending: true } satisfies Record<Model<'IntegrationEventStatus'> | 'pending', true>;

/** An `integration_events` row checked: its status is one of the contract's, or `pending`. */
export const parseEventRow = rowParser<EventRow>('integration_events', { status: EVENT_STATUSES });

export const getInstallationRow = async (db: Db, id: string): Promise<InstallationRow | undefined> => {
  const row = await integrations.getInstallation(db, id);
  return row === undefined ? undefined : parseInstallationRow(row);
};

/** Integration admins (publish, unpublish, development mode) are the members who create content in the owner. */
export function integrationPermissions(ownerMembership: Membership | undefined): IntegrationPermissions {
  return { admin: organizationPermissions(ownerMembership).createContent };
}

export interface IntegrationAccess {
  integration: IntegrationRow;
  /** The caller's membership of the owner organization. */
  membership: Membership | undefined;
  permissions: IntegrationPermissions;
}

/**
 * The integration, when the caller may see it: public and unlisted ones are seen by anyone, private ones by the
 * members of the owner who have its `listIntegrations` permission (not its guests); otherwise 404.
 */
export async function integrationAccess(ctx: Scope, caller: Caller, name: string): Promise<IntegrationAccess> {
  const integration = await getIntegrationRow(ctx.db, name);
  const membership = integration && (await membershipOf(ctx.db, caller.user.id, integration.organizationId));
  if (!integration || (INTEGRATION_VISIBILITIES[integration.visibility].ownerOnly && !organizationPermissions(membership).listIntegrations)) {
    throw notFound(`integration ${name}`);
  }
  return { integration, membership, permissions: integrationPermissions(membership) };
}

export function requireIntegration(access: IntegrationAccess, permission: keyof IntegrationPermissions): void {
  if (!access.permissions[permission]) {
    throw forbidden(
      `this operation needs the ${permission} permission on the integration (createContent in its owner organization)`,
    );
  }
}

/**
 * Whose installations (and their events, spaces and sites) the caller sees: all of them for the integration's
 * admins, otherwise those of the organizations where the caller has `listInstallations`. 403 when that is none.
 */
export async function installationScope(ctx: Scope, caller: Caller, access: IntegrationAccess): Promise<integrations.InstallationScope> {
  if (access.permissions.admin) return { all: true, organizations: [] };
  const listed = (await callerMemberships(ctx.db, caller))
    .filter((membership) => organizationPermissions(membership).listInstallations)
    .map((membership) => membership.organizationId);
  if (listed.length === 0) {
    throw forbidden(
      'this operation needs the admin permission on the integration, or the listInstallations permission in an organization',
    );
  }
  return { all: false, organizations: listed };
}

/** Every organization the caller is an active member of. */
export async function callerMemberships(db: Db, caller: Caller): Promise<Membership[]> {
  const rows = await members.ofUser(db, caller.user.id);
  return rows.map((row) => ({
    organizationId: row.organizationId,
    role: row.role === null ? null : parseEnum(ROLE_RANKS, { table: 'members', column: 'role' }, row.role),
    disabled: false,
  }));
}

/** An organization of the caller named by its id or its hostname (subdomain); 400 naming `field` otherwise. */
export async function callerOrganization(ctx: Scope, caller: Caller, reference: string, field: string) {
  const stored = await organizations.byIdOrHostname(ctx.db, reference);
  const row = stored === undefined ? undefined : parseOrganizationRow(stored);
  const membership = row && (await membershipOf(ctx.db, caller.user.id, row.id));
  if (!row || !membership) throw badRequest(`${field}: no organization "${reference}" among the caller's organizations`);
  return { organization: row, membership, permissions: organizationPermissions(membership) };
}

// Publishing, installing, development mode

type PublishBody = Input<'PublishIntegrationRequest'>;

/**
 * Publishes the integration `name`: a first publish creates it in the organization the body names (by default the
 * caller's publisher, see defaultPublisher), where the caller may create content; a later one, by an admin of its
 * owner, changes the fields present and bumps its version. Returns the integration as stored.
 */
export async function publishIntegration(ctx: Scope, caller: Caller, name: string, body: PublishBody): Promise<IntegrationRow> {
  checkPublishBody(body);
  const existing = await getIntegrationRow(ctx.db, name);
  const named = body.organization !== undefined ? await callerOrganization(ctx, caller, body.organization, 'organization') : undefined;
  const now = ctx.now();
  if (existing) {
    const membership = await membershipOf(ctx.db, caller.user.id, existing.organizationId);
    if (!membership || (named && named.organization.id !== existing.organizationId)) {
      throw conflict(`integrationName: "${name}" is already published by another organization`);
    }
    requireIntegration({ integration: existing, membership, permissions: integrationPermissions(membership) }, 'admin');
    if (body.visibility !== undefined && INTEGRATION_VISIBILITIES[body.visibility].ownerOnly) {
      await checkCanBePrivate(ctx, existing);
    }
    await integrations.update(ctx.db, name, { ...publishColumns(body), version: existing.version + 1, updatedAt: now });
  } else {
    const owner = named ?? (await defaultPublisher(ctx, caller));
    requireOrganization(owner, 'createContent');
    await integrations.insert(ctx.db, {
      title: name,
      ...publishColumns(body),
      name,
      organizationId: owner.organization.id,
      version: 1,
      createdAt: now,
      updatedAt: now,
    });
  }
  return (await getIntegrationRow(ctx.db, name))!;
}

/** Unpublishes the integration, with its installations and their events (its admins only); an unknown one is no error. */
export async function unpublishIntegration(ctx: Scope, caller: Caller, name: string): Promise<void> {
  if (!(await getIntegrationRow(ctx.db, name))) return;
  const access = await integrationAccess(ctx, caller, name);
  requireIntegration(access, 'admin');
  await integrations.remove(ctx.db, name);
}

/**
 * Installs the integration in an organization of the caller (by id or hostname) where they may install
 * integrations: once per organization, a private one in its owner only. Records the `installation_setup` event and
 * returns the installation.
 */
export async function installIntegration(ctx: Scope, caller: Caller, name: string, organization: string): Promise<InstallationRow> {
  const access = await integrationAccess(ctx, caller, name);
  const { integration } = access;
  const target = await callerOrganization(ctx, caller, organization, 'organization');
  requireOrganization(target, 'installIntegration');
  const organizationId = target.organization.id;
  if (INTEGRATION_VISIBILITIES[integration.visibility].ownerOnly && organizationId !== integration.organizationId) {
    throw badRequest(`organization: the private integration ${integration.name} can only be installed in its owner organization`);
  }
  if (await integrations.isInstalled(ctx.db, integration.name, organizationId)) {
    throw conflict(`organization: ${integration.name} is already installed in ${organizationId}`);
  }
  const now = ctx.now();
  const id = newId();
  await integrations.insertInstallation(ctx.db, { id, integrationName: integration.name, organizationId: organizationId, createdAt: now, updatedAt: now });
  const installation = (await getInstallationRow(ctx.db, id))!;
  await recordEvent(ctx, integration, installation, { type: 'installation_setup', status: installation.status });
  return installation;
}

/**
 * Turns development mode on (its admins only): the events of the owner's installations, or of every installation
 * with `all`, are delivered to the tunnel.
 */
export async function enableDevMode(ctx: Scope, caller: Caller, name: string, mode: { tunnelUrl: string; all?: boolean }): Promise<void> {
  const access = await integrationAccess(ctx, caller, name);
  requireIntegration(access, 'admin');
  checkTunnelUrl(mode.tunnelUrl, ctx.config);
  await integrations.update(ctx.db, name, { devTunnelUrl: mode.tunnelUrl, devAll: mode.all ? 1 : 0 });
}

/** Turns development mode off (its admins only): events are recorded without delivery again. */
export async function disableDevMode(ctx: Scope, caller: Caller, name: string): Promise<void> {
  const access = await integrationAccess(ctx, caller, name);
  requireIntegration(access, 'admin');
  await integrations.update(ctx.db, name, { devTunnelUrl: null, devAll: 0 });
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const URL_PATTERN = /^https?:\/\/[^/\s]+/i;

/** What the contract cannot say about a publish body: base64 images, unique ids, known required properties. */
function checkPublishBody(body: PublishBody): void {
  const base64 = (value: string, field: string) => {
    if (value.length === 0 || !BASE64.test(value)) throw badRequest(`${field}: must be base64-encoded`);
  };
  if (body.icon !== undefined) base64(body.icon, 'icon');
  body.previewImages?.forEach((image, i) => base64(image, `previewImages[${i}]`));
  const unique = (items: { id: string }[] | undefined, field: string) => {
    const seen = new Set<string>();
    items?.forEach((item, i) => {
      if (seen.has(item.id)) throw badRequest(`${field}[${i}].id: "${item.id}" is the id of another item`);
      seen.add(item.id);
    });
  };
  unique(body.blocks, 'blocks');
  unique(body.contentSources, 'contentSources');
  body.blocks?.forEach((block, i) =>
    block.urlUnfurl?.forEach((pattern, j) => {
      if (!URL_PATTERN.test(pattern)) {
        throw badRequest(`blocks[${i}].urlUnfurl[${j}]: "${pattern}" is not an http(s) URL pattern such as https://example.com/**`);
      }
    }),
  );
  for (const [level, schema] of Object.entries(body.configurations ?? {})) {
    const missing = schema?.required?.find((property) => !(property in schema.properties));
    if (missing !== undefined) {
      throw badRequest(`configurations.${level}.required: "${missing}" is not one of its properties`);
    }
  }
}

/** Columns of the fields present in a publish body: absent fields keep their value (their default on creation). */
function publishColumns(body: PublishBody): Record<string, string | null> {
  const json = (value: unknown) => (value === undefined ? undefined : toJson(value));
  const columns: Record<string, string | null | undefined> = {
    runtime: body.runtime,
    title: body.title,
    description: body.description,
    summary: body.summary,
    icon: body.icon,
    previewImages: json(body.previewImages),
    visibility: body.visibility,
    target: body.target,
    scopes: json(body.scopes),
    categories: json(body.categories),
    blocks: json(body.blocks),
    contentSources: json(body.contentSources),
    externalLinks: json(body.externalLinks),
    configurations: json(body.configurations),
    script: body.script,
    secrets: json(body.secrets),
    contentSecurityPolicy: body.contentSecurityPolicy,
  };
  return Object.fromEntries(Object.entries(columns).filter(([, value]) => value !== undefined)) as Record<string, string | null>;
}

/**
 * The organization a first publish without `organization` goes to: the caller's only organization, else the only
 * one where they may create content; otherwise `organization` is required.
 */
async function defaultPublisher(ctx: Scope, caller: Caller) {
  const memberships = await callerMemberships(ctx.db, caller);
  const candidates =
    memberships.length === 1 ? memberships : memberships.filter((membership) => organizationPermissions(membership).createContent);
  if (candidates.length !== 1) {
    throw badRequest(
      `organization: required: ${candidates.length} of your organizations may publish it; name one by id or hostname`,
    );
  }
  const membership = candidates[0]!;
  return {
    organization: (await getOrganizationRow(ctx, membership.organizationId))!,
    membership,
    permissions: organizationPermissions(membership),
  };
}

/** A private integration is installed in its owner organization only: one installed elsewhere cannot become private. */
async function checkCanBePrivate(ctx: Scope, integration: IntegrationRow): Promise<void> {
  const others = await integrations.installedElsewhere(ctx.db, integration.name, integration.organizationId);
  if (others > 0) {
    throw badRequest(`visibility: the integration is installed in ${others} other organization(s), so it cannot become private`);
  }
}

/**
 * A tunnel is an http(s) address; one that names a loopback, private or otherwise non-public address only when the
 * server allows those. A host name is checked when events are delivered, against the address connected to.
 */
function checkTunnelUrl(tunnelUrl: string, rule: AddressRule): void {
  let url: URL;
  try {
    url = new URL(tunnelUrl);
  } catch {
    throw badRequest('tunnelUrl: must be an absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw badRequest('tunnelUrl: must be an http or https address');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const refused = isIP(host) !== 0 ? isRefusedAddress(host, rule) : host === 'localhost' && !rule.allowPrivateNetworks;
  if (refused) {
    throw badRequest('tunnelUrl: is not a public address, which this server does not call (ALLOW_PRIVATE_NETWORKS)');
  }
}

// Lists

/** What `listIntegrations` filters on. */
export interface IntegrationFilters {
  search?: string;
  category?: string;
  scope?: string;
  owner?: string;
  target?: Model<'IntegrationTarget'>;
  blocks?: boolean;
  contentSources?: boolean;
  blockDomain?: string;
}

/** Where a list is and which page of it: `list` identifies the list (and its filters) in its cursors. */
interface PageRequest {
  list: string;
  page?: string;
  limit?: number;
}

/** An item of the spaces or sites of the installations in scope: the row, its installation, the caller's membership. */
export type InstallationItem<Row> = { installation: InstallationRow; membership: Membership; row: Row };

/**
 * A page of the integrations the caller sees that match `filters`, by name: the public ones, and the private ones of
 * the organizations where the caller has listIntegrations (guests do not).
 */
export async function integrationsPage(ctx: Scope, caller: Caller, request: PageRequest & { filters: IntegrationFilters }): Promise<Page<IntegrationRow>> {
  const listing = (await callerMemberships(ctx.db, caller))
    .filter((membership) => organizationPermissions(membership).listIntegrations)
    .map((membership) => membership.organizationId);
  const rows = (await integrations.visible(ctx.db, listing)).map(parseIntegrationRow).filter((row) => matchesFilters(row, request.filters));
  return pageSorted(ctx, request, rows, (row) => [row.name]);
}

/** A page of the installations in the caller's scope (installationScope), oldest first, optionally with an external id. */
export async function integrationInstallationsPage(
  ctx: Scope,
  caller: Caller,
  access: IntegrationAccess,
  request: PageRequest & { externalId?: string },
): Promise<Page<InstallationRow>> {
  const rows = await scopedInstallations(ctx, access, caller, request.externalId);
  return pageSorted(ctx, request, rows, (row) => [row.createdAt, row.id]);
}

/** A page of the events of the installations in the caller's scope, in the order they were recorded (pending ones left out). */
export async function integrationEventsPage(ctx: Scope, caller: Caller, access: IntegrationAccess, request: PageRequest): Promise<Page<EventRow>> {
  const name = access.integration.name;
  const scope = await installationScope(ctx, caller, access);
  return ctx.cursors.page({
    list: request.list,
    page: request.page,
    limit: request.limit,
    key: (row: EventRow) => [row.seq],
    count: () => integrations.countEvents(ctx.db, name, scope),
    fetch: async (key, limit) => (await integrations.pageOfEvents(ctx.db, name, scope, key, limit)).map(parseEventRow),
  });
}

/** A handled event of an installation in the caller's scope; 404 otherwise (pending events are not shown). */
export async function integrationEvent(ctx: Scope, caller: Caller, access: IntegrationAccess, eventId: string): Promise<EventRow> {
  const scope = await installationScope(ctx, caller, access);
  const event = await integrations.getHandledEvent(ctx.db, access.integration.name, eventId, scope);
  if (!event) throw notFound(`event ${eventId}`);
  return parseEventRow(event);
}

/** A page of the live spaces of the installations in scope (of the organizations where the caller sees all content). */
export async function integrationSpacesPage(
  ctx: Scope,
  caller: Caller,
  access: IntegrationAccess,
  request: PageRequest & { externalId?: string },
): Promise<Page<InstallationItem<SpaceRow>>> {
  return installationItemsPage<SpaceRow>(ctx, {
    request,
    installations: await scopedInstallations(ctx, access, caller, request.externalId),
    caller,
    sees: viewsAllContent,
    rows: async (organizationId, key, limit) => (await spaces.livePage(ctx.db, organizationId, 'asc', key, limit)).map(parseSpaceRow),
    count: (organizationId) => liveSpaceCount(ctx.db, organizationId),
  });
}

/** A page of the sites of the installations in scope (of the organizations where the caller may view sites). */
export async function integrationSitesPage(
  ctx: Scope,
  caller: Caller,
  access: IntegrationAccess,
  request: PageRequest & { externalId?: string },
): Promise<Page<InstallationItem<SiteRow>>> {
  return installationItemsPage(ctx, {
    request,
    installations: await scopedInstallations(ctx, access, caller, request.externalId),
    caller,
    sees: (membership) => sitePermissions(membership).view,
    rows: async (organizationId, key, limit) => (await sites.page(ctx.db, { organizationId }, key, limit)).map(parseSiteRow),
    count: (organizationId) => sites.count(ctx.db, { organizationId }),
  });
}

/** Installations of the integration in the caller's scope, oldest first, optionally with an external id. */
async function scopedInstallations(ctx: Scope, access: IntegrationAccess, caller: Caller, externalId: string | undefined): Promise<InstallationRow[]> {
  const rows = (await integrations.installations(ctx.db, access.integration.name, await installationScope(ctx, caller, access))).map(parseInstallationRow);
  return rows.filter((row) => externalId === undefined || fromJson<string[]>(row.externalIds, []).includes(externalId));
}

/** One page of items computed in memory, sorted by `key`: keyset pagination over the array. */
function pageSorted<Item>(ctx: Scope, request: PageRequest, all: Item[], key: (item: Item) => Key): Promise<Page<Item>> {
  return ctx.cursors.page({
    list: request.list,
    page: request.page,
    limit: request.limit,
    key,
    count: async () => all.length,
    fetch: async (last, limit) => (last ? all.filter((item) => compareKeys(key(item), last) > 0) : all).slice(0, limit),
  });
}

/**
 * One page of the spaces or sites of the installations in scope: installations oldest first (those whose
 * organization the caller `sees` the rows of), and each one's rows by creation (`rows`: a page of an organization's
 * rows after a key). A keyset walk over the installations (a few) that reads only the rows the page shows, however
 * many the organizations have; `count` gives the number of an organization's rows.
 */
async function installationItemsPage<Row extends { createdAt: string; id: string }>(
  ctx: Scope,
  options: {
    request: PageRequest;
    installations: InstallationRow[];
    caller: Caller;
    sees: (membership: Membership) => boolean;
    rows: (organizationId: string, key: Key | undefined, limit: number) => Promise<Row[]>;
    count: (organizationId: string) => Promise<number>;
  },
): Promise<Page<InstallationItem<Row>>> {
  type Item = InstallationItem<Row>;
  const seen: { installation: InstallationRow; membership: Membership }[] = [];
  for (const installation of options.installations) {
    const membership = await membershipOf(ctx.db, options.caller.user.id, installation.organizationId);
    if (membership && options.sees(membership)) seen.push({ installation, membership });
  }
  return ctx.cursors.page({
    list: options.request.list,
    page: options.request.page,
    limit: options.request.limit,
    key: ({ installation, row }: Item) => [installation.createdAt, installation.id, row.createdAt, row.id],
    count: async () => {
      let sum = 0;
      for (const { installation } of seen) sum += await options.count(installation.organizationId);
      return sum;
    },
    fetch: async (key, limit) => {
      const items: Item[] = [];
      for (const { installation, membership } of seen) {
        const order = key ? compareKeys([installation.createdAt, installation.id], key.slice(0, 2)) : 1;
        if (order < 0) continue; // an installation the cursor has passed
        const after = order === 0 ? key!.slice(2) : undefined;
        for (const row of await options.rows(installation.organizationId, after, limit - items.length)) items.push({ installation, membership, row });
        if (items.length >= limit) break;
      }
      return items;
    },
  });
}

/** Orders two sort keys of the same shape, element by element. */
function compareKeys(a: Key, b: Key): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const [x, y] = [a[i] ?? '', b[i] ?? ''];
    if (x < y) return -1;
    if (x > y) return 1;
  }
  return 0;
}

/** Whether a URL pattern of a block (`https://*.example.com/**`) covers `domain` or one of its subdomains. */
function unfurlsDomain(pattern: string, domain: string): boolean {
  const host = pattern.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').split(/[/?#]/)[0]!.replace(/:\d+$/, '').toLowerCase();
  const wanted = domain.toLowerCase();
  const glob = new RegExp(`^${host.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^.]*')}$`);
  return glob.test(wanted) || host === wanted || host.endsWith(`.${wanted}`);
}

function matchesFilters(row: IntegrationRow, filters: IntegrationFilters): boolean {
  const blocks = fromJson<Model<'IntegrationBlock'>[]>(row.blocks, []);
  const sources = fromJson<unknown[]>(row.contentSources, []);
  const search = filters.search?.toLowerCase();
  return (
    (search === undefined || row.name.toLowerCase().includes(search) || row.title.toLowerCase().includes(search)) &&
    (filters.category === undefined || fromJson<string[]>(row.categories, []).includes(filters.category)) &&
    (filters.scope === undefined || fromJson<string[]>(row.scopes, []).includes(filters.scope)) &&
    (filters.owner === undefined || row.organizationId === filters.owner) &&
    (filters.target === undefined || row.target === filters.target || INTEGRATION_TARGETS[row.target].everyTarget) &&
    (filters.blocks === undefined || blocks.length > 0 === filters.blocks) &&
    (filters.contentSources === undefined || sources.length > 0 === filters.contentSources) &&
    (filters.blockDomain === undefined ||
      blocks.some((block) => (block.urlUnfurl ?? []).some((pattern) => unfurlsDomain(pattern, filters.blockDomain!))))
  );
}

// Presentation

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

export async function presentIntegration(ctx: Scope, row: IntegrationRow, caller: Caller): Promise<Model<'Integration'>> {
  const membership = await membershipOf(ctx.db, caller.user.id, row.organizationId);
  const owner = (await getOrganizationRow(ctx, row.organizationId))!;
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

// Events and their delivery

export const EVENT_DELIVERY_JOB = 'integration-event-delivery';

/** Largest answer of a tunnel read back. */
const TUNNEL_ANSWER_MAX_BYTES = 1024 * 1024;
/** Most external ids, and most configuration entries, a tunnel's answer can give an installation. */
const MAX_EXTERNAL_IDS = 100;
const MAX_CONFIGURATION_ENTRIES = 100;

function addLog(ctx: Scope, eventId: string, level: LogLevel, message: string): Promise<void> {
  return integrations.addLog(ctx.db, { eventId: eventId, message, level, timestamp: ctx.now() });
}

function setEventStatus(ctx: Scope, eventId: string, status: EventRow['status']): Promise<void> {
  return integrations.setEventStatus(ctx.db, eventId, status);
}

/** Whether development mode forwards the events of this installation to the tunnel. */
const forwards = (integration: IntegrationRow, installation: InstallationRow) =>
  integration.devTunnelUrl !== null &&
  (integration.devAll === 1 || installation.organizationId === integration.organizationId);

/**
 * Records an event of an installation (inside the caller's write transaction). In development mode it is queued
 * for delivery to the tunnel and shown once delivered or failed; otherwise it is recorded as handled, since the
 * reference server runs no integration code.
 */
export async function recordEvent(
  ctx: Scope,
  integration: IntegrationRow,
  installation: InstallationRow,
  event: { type: string; status?: InstallationRow['status']; previous?: Model<'IntegrationEventPrevious'> },
): Promise<string> {
  const id = newId();
  const payload: Model<'IntegrationEventPayload'> = {
    eventId: id,
    type: event.type,
    installationId: installation.id,
    ...(event.status ? { status: event.status } : {}),
    ...(event.previous ? { previous: event.previous } : {}),
  };
  const delivered = forwards(integration, installation);
  await integrations.insertEvent(ctx.db, {
    id,
    integrationName: integration.name,
    installationId: installation.id,
    organizationId: installation.organizationId,
    createdAt: ctx.now(),
    payload: toJson(payload),
    status: delivered ? 'pending' : 'success',
  });
  await addLog(ctx, id, 'debug', `${event.type} event of installation ${installation.id} (organization ${installation.organizationId})`);
  if (delivered) {
    await addLog(ctx, id, 'info', `queued for delivery to the development tunnel ${integration.devTunnelUrl}`);
    await enqueue(ctx, {
      kind: EVENT_DELIVERY_JOB,
      resource: `integration:${integration.name}`,
      payload: { eventId: id },
      createdAt: ctx.now(),
    });
  } else if (integration.devTunnelUrl !== null) {
    await addLog(ctx, id, 'info', 'recorded without delivery: development mode forwards only the events of the owner organization (all: false)');
  } else {
    await addLog(ctx, id, 'info', 'recorded without delivery: no integration runtime runs here; enable development mode to deliver events to a tunnel');
  }
  return id;
}

/**
 * What a tunnel may answer to update its installation: `{"installation": {"externalIds"?: string[],
 * "configuration"?: object}}`. Returns the changes, or a reason why the answer's `installation` is ignored.
 */
function installationUpdate(answer: unknown): { externalIds?: string[]; configuration?: Record<string, unknown> } | string | undefined {
  if (typeof answer !== 'object' || answer === null || !('installation' in answer)) return undefined;
  const update = (answer as { installation: unknown }).installation;
  if (typeof update !== 'object' || update === null || Array.isArray(update)) return 'installation must be an object';
  const { externalIds, configuration } = update as Record<string, unknown>;
  if (
    externalIds !== undefined &&
    !(
      Array.isArray(externalIds) &&
      externalIds.length <= MAX_EXTERNAL_IDS &&
      externalIds.every((id) => typeof id === 'string' && id.length > 0 && id.length <= MAX_JSON_KEY_LENGTH)
    )
  ) {
    return `installation.externalIds must be an array of at most ${MAX_EXTERNAL_IDS} strings of 1 to ${MAX_JSON_KEY_LENGTH} characters`;
  }
  if (configuration !== undefined && (typeof configuration !== 'object' || configuration === null || Array.isArray(configuration))) {
    return 'installation.configuration must be an object';
  }
  // The configuration is stored and shown as a request body would be: the same bounds apply.
  if (configuration !== undefined && Object.keys(configuration).length > MAX_CONFIGURATION_ENTRIES) {
    return `installation.configuration has more than ${MAX_CONFIGURATION_ENTRIES} entries`;
  }
  const shape = jsonShapeProblem(configuration, { maxDepth: MAX_JSON_DEPTH, maxKeyLength: MAX_JSON_KEY_LENGTH }, 'installation.configuration');
  if (shape !== undefined) return shape;
  return {
    ...(externalIds !== undefined ? { externalIds: [...new Set(externalIds as string[])] } : {}),
    ...(configuration !== undefined ? { configuration: configuration as Record<string, unknown> } : {}),
  };
}

async function applyTunnelAnswer(ctx: Scope, event: EventRow, body: Buffer): Promise<void> {
  let answer: unknown;
  try {
    answer = JSON.parse(body.toString('utf8'));
  } catch {
    return; // any 2xx answer is a success; only a JSON one can update the installation
  }
  const update = installationUpdate(answer);
  if (update === undefined) return;
  if (typeof update === 'string') {
    await addLog(ctx, event.id, 'warn', `the answer's installation update is ignored: ${update}`);
    return;
  }
  const changes = Object.keys(update);
  if (changes.length === 0) return;
  await integrations.updateInstallation(ctx.db, event.installationId, {
    ...(update.externalIds ? { externalIds: toJson(update.externalIds) } : {}),
    ...(update.configuration ? { configuration: toJson(update.configuration) } : {}),
    updatedAt: ctx.now(),
  });
  await addLog(ctx, event.id, 'info', `the integration updated its installation: ${changes.join(', ')}`);
}

/** Delivers a queued event to the development tunnel: one POST of its payload; the outcome lands on the event. */
export const eventDeliveryJob: JobKind<{ eventId: string }> = {
  resumable: true,
  async run(ctx, job) {
    const { db } = reading(ctx);
    const stored = await integrations.getEvent(db, job.payload.eventId);
    const event = stored === undefined ? undefined : parseEventRow(stored);
    if (!event || event.status !== 'pending') return; // unpublished since, or already handled
    const integration = (await getIntegrationRow(db, event.integrationName))!;
    const tunnel = integration.devTunnelUrl;
    if (tunnel === null) {
      await inWrite(ctx, async (scope) => {
        await addLog(scope, event.id, 'info', 'recorded without delivery: development mode was disabled before delivery');
        await setEventStatus(scope, event.id, 'success');
        await job.done(scope.db);
      });
      return;
    }
    // Delivered outside any transaction; the outcome is recorded in a write of its own. A delivery is an effect
    // outside the database: it is made only while the job still holds its lease, and stops when it is lost.
    const payload = fromJson<Model<'IntegrationEventPayload'>>(event.payload, {} as never);
    await job.confirmLease();
    let outcome: { status: number; body: Buffer } | Error;
    try {
      outcome = await outboundFor(ctx.config)(tunnel, {
        signal: job.signal,
        method: 'POST',
        maxBytes: TUNNEL_ANSWER_MAX_BYTES,
        headers: {
          'content-type': 'application/json',
          'x-docs-integration': integration.name,
          'x-docs-integration-version': String(integration.version),
          'x-docs-event-id': event.id,
          'x-docs-event-type': payload.type,
          'x-docs-installation-id': event.installationId,
        },
        body: JSON.stringify(payload),
      });
    } catch (error) {
      job.signal.throwIfAborted();
      outcome = error as Error;
    }
    await inWrite(ctx, async (scope) => {
      await job.done(scope.db);
      if (!(await getIntegrationRow(scope.db, event.integrationName))) return;
      if (outcome instanceof Error) {
        await addLog(scope, event.id, 'error', `delivery failed: ${outcome.message}`);
        await setEventStatus(scope, event.id, 'failed');
      } else if (outcome.status >= 200 && outcome.status < 300) {
        await addLog(scope, event.id, 'info', `delivered to ${tunnel}: HTTP ${outcome.status}`);
        await applyTunnelAnswer(scope, event, outcome.body);
        await setEventStatus(scope, event.id, 'success');
      } else {
        await addLog(scope, event.id, 'error', `delivery failed: ${tunnel} answered HTTP ${outcome.status}`);
        await setEventStatus(scope, event.id, 'failed');
      }
    });
  },
  async fail(ctx, job, reason) {
    const event = await integrations.getEvent(ctx.db, job.payload.eventId);
    if (event?.status !== 'pending') return;
    await addLog(ctx, job.payload.eventId, 'error', `delivery failed: ${reason}`);
    await setEventStatus(ctx, job.payload.eventId, 'failed');
  },
};

/** Registers the background work of integrations with the job runner. */
export function registerIntegrationJobs(runner: JobRunner): void {
  runner.register(EVENT_DELIVERY_JOB, eventDeliveryJob);
}

// Rendering of blocks

/** Longest JSON a render request decompresses to (the request itself is at most 8192 characters). */
const MAX_RENDER_REQUEST_LENGTH = 256 * 1024;

/**
 * The element tree of a block for `request`, the URI-safe LZ-string encoding of `{"blockId": string, "props"?:
 * object}`: `{type: 'block', blockId, props, children: [{type: 'card', title, hint?, icon?, children:
 * [{type: 'markdown', content}]?}]}`, where `content` is the block's markdown body with `{{props.<path>}}` replaced.
 */
export function renderBlock(integration: IntegrationRow, request: string): Record<string, unknown> {
  const invalid = (why: string) => badRequest(`request: ${why}`);
  let text = '';
  let decoded: unknown;
  try {
    text = LZString.decompressFromEncodedURIComponent(request) ?? '';
    if (!text) throw new Error('empty');
    if (text.length <= MAX_RENDER_REQUEST_LENGTH) decoded = JSON.parse(text);
  } catch {
    throw invalid('not JSON compressed with lz-string (compressToEncodedURIComponent)');
  }
  if (text.length > MAX_RENDER_REQUEST_LENGTH) throw invalid(`decompresses to more than ${MAX_RENDER_REQUEST_LENGTH} characters`);
  // The props are echoed in the answer and substituted as JSON: the same bounds as a request body.
  const shape = jsonShapeProblem(decoded, { maxDepth: MAX_JSON_DEPTH, maxKeyLength: MAX_JSON_KEY_LENGTH }, 'request');
  if (shape !== undefined) throw badRequest(shape);
  if (typeof decoded !== 'object' || decoded === null || Array.isArray(decoded)) {
    throw invalid('expected {"blockId": string, "props"?: object}');
  }
  const { blockId, props = {} } = decoded as { blockId?: unknown; props?: unknown };
  if (typeof blockId !== 'string') throw invalid('blockId: expected a string');
  if (typeof props !== 'object' || props === null || Array.isArray(props)) throw invalid('props: expected an object');
  const blocks = fromJson<Model<'IntegrationBlock'>[]>(integration.blocks, []);
  const block = blocks.find((candidate) => candidate.id === blockId);
  if (!block) throw invalid(`the integration ${integration.name} has no block "${blockId}"`);

  const content = block.markdown ? substituteProps(block.markdown.body, props as Record<string, unknown>) : undefined;
  return {
    type: 'block',
    blockId,
    props,
    children: [
      {
        type: 'card',
        title: block.title,
        ...(block.description !== undefined ? { hint: block.description } : {}),
        ...(block.icon !== undefined ? { icon: block.icon } : {}),
        children: content !== undefined ? [{ type: 'markdown', content }] : [],
      },
    ],
  };
}

/** The Content-Security-Policy the integration's rendered blocks are served with (`renderBlock`); null when it sets none. */
export const blockContentSecurityPolicy = (integration: IntegrationRow): string | null => integration.contentSecurityPolicy;

/** Replaces `{{props.a.b}}` with the prop's value: strings as they are, other values as JSON, missing ones by nothing. */
export function substituteProps(template: string, props: Record<string, unknown>): string {
  return template.replace(/\{\{\s*props\.([\w$-]+(?:\.[\w$-]+)*)\s*\}\}/g, (_match, path: string) => {
    let value: unknown = props;
    for (const key of path.split('.')) {
      value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
    }
    if (value === undefined || value === null) return '';
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}

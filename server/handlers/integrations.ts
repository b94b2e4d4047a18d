// Integrations: publishing (global names, owned by an organization), installations in organizations, their events
// (delivered to a development tunnel in development mode), the spaces and sites they cover, and block rendering.
import { isIP } from 'node:net';
import type { Caller } from '../auth/caller.ts';
import { type Membership, membershipOf } from '../auth/roles.ts';
import type { Scope } from '../context.ts';
import type { Input, Model } from '../domain/contract.ts';
import { newId } from '../domain/ids.ts';
import {
  callerMemberships,
  callerOrganization,
  EVENT_DELIVERY_JOB,
  eventDeliveryJob,
  type EventRow,
  eventTrace,
  getInstallationRow,
  getIntegrationRow,
  type IntegrationAccess,
  integrationAccess,
  integrationPermissions,
  type InstallationRow,
  INTEGRATION_TARGETS,
  INTEGRATION_VISIBILITIES,
  parseIntegrationRow,
  installationPath,
  installationScope,
  type IntegrationRow,
  presentEvent,
  presentInstallation,
  presentIntegration,
  recordEvent,
  renderBlock,
  requireIntegration,
} from '../domain/integrations.ts';
import { getOrganizationRow, organizationPermissions, requireOrganization } from '../domain/organizations.ts';
import { parseSiteRow, presentSiteFor, sitePermissions } from '../domain/sites.ts';
import { viewsAllContent } from '../domain/collections.ts';
import { type Key, listId, type Page } from '../domain/paging.ts';
import { liveSpaceCount, parseSpaceRow, presentSpaceFor, type SpaceRow } from '../domain/spaces.ts';
import { badRequest, conflict, notFound } from '../errors.ts';
import type { HandlerGroup, QueryParams } from './types.ts';
import type { JobRunner } from '../jobs/runner.ts';
import { type AddressRule, isRefusedAddress } from '../net/outbound.ts';
import { fromJson, toJson } from '../store/db.ts';
import * as integrations from '../store/integrations.ts';
import * as sites from '../store/sites.ts';
import * as spaces from '../store/spaces.ts';

type Operations =
  | 'listIntegrations'
  | 'getIntegration'
  | 'publishIntegration'
  | 'unpublishIntegration'
  | 'listIntegrationInstallations'
  | 'installIntegration'
  | 'listIntegrationEvents'
  | 'getIntegrationEvent'
  | 'listIntegrationSpaces'
  | 'listIntegrationSites'
  | 'enableIntegrationDevMode'
  | 'disableIntegrationDevMode'
  | 'renderIntegrationBlock';

type PublishBody = Input<'PublishIntegrationRequest'>;

/** Installations of the integration in the caller's scope, oldest first, optionally with an external id. */
async function scopedInstallations(ctx: Scope, access: IntegrationAccess, caller: Caller, externalId: string | undefined): Promise<InstallationRow[]> {
  const rows = (await integrations.installations(ctx.db, access.integration.name, await installationScope(ctx, caller, access))) as InstallationRow[];
  return rows.filter((row) => externalId === undefined || fromJson<string[]>(row.external_ids, []).includes(externalId));
}

/** One page of items computed in memory, sorted by `key`: keyset pagination over the array. */
function pageSorted<Item>(ctx: Scope, list: string, query: { page?: string; limit?: number }, all: Item[], key: (item: Item) => Key): Promise<Page<Item>> {
  return ctx.cursors.page({
    list,
    page: query.page,
    limit: query.limit,
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
async function installationItemsPage<Row extends { created_at: string; id: string }>(
  ctx: Scope,
  options: {
    list: string;
    query: { page?: string; limit?: number };
    installations: InstallationRow[];
    caller: Caller;
    sees: (membership: Membership) => boolean;
    rows: (organizationId: string, key: Key | undefined, limit: number) => Promise<Row[]>;
    count: (organizationId: string) => Promise<number>;
  },
) {
  type Item = { installation: InstallationRow; membership: Membership; row: Row };
  const seen: { installation: InstallationRow; membership: Membership }[] = [];
  for (const installation of options.installations) {
    const membership = await membershipOf(ctx.db, options.caller.user.id, installation.organization_id);
    if (membership && options.sees(membership)) seen.push({ installation, membership });
  }
  return ctx.cursors.page({
    list: options.list,
    page: options.query.page,
    limit: options.query.limit,
    key: ({ installation, row }: Item) => [installation.created_at, installation.id, row.created_at, row.id],
    count: async () => {
      let sum = 0;
      for (const { installation } of seen) sum += await options.count(installation.organization_id);
      return sum;
    },
    fetch: async (key, limit) => {
      const items: Item[] = [];
      for (const { installation, membership } of seen) {
        const order = key ? compareKeys([installation.created_at, installation.id], key.slice(0, 2)) : 1;
        if (order < 0) continue; // an installation the cursor has passed
        const after = order === 0 ? key!.slice(2) : undefined;
        for (const row of await options.rows(installation.organization_id, after, limit - items.length)) items.push({ installation, membership, row });
        if (items.length >= limit) break;
      }
      return items;
    },
  });
}

/** Items of an installation's spaces or sites, as the integration item lists show them. */
const itemOf = (ctx: Scope, installation: InstallationRow, kind: 'spaces' | 'sites', id: string) => ({
  integration: installation.integration_name,
  installation: installation.id,
  status: installation.status,
  configuration: {},
  externalIds: fromJson<string[]>(installation.external_ids, []),
  urls: {
    location: ctx.urls.api(`${installationPath(installation)}/${kind}/${id}`),
    publicEndpoint: ctx.urls.app(`/integrations/${installation.integration_name}/installations/${installation.id}/${kind}/${id}/endpoint`),
  },
});

export const integrationHandlers: HandlerGroup<Operations> = {
  async listIntegrations({ query, caller }, ctx) {
    // Private integrations of the organizations where the caller has listIntegrations (guests do not).
    const listing = (await callerMemberships(ctx.db, caller))
      .filter((membership) => organizationPermissions(membership).listIntegrations)
      .map((membership) => membership.organizationId);
    const rows = (await integrations.visible(ctx.db, listing)).map(parseIntegrationRow).filter((row) => matchesFilters(row, query));
    const page = await pageSorted(ctx, listId('listIntegrations', caller.user.id, filtersOf(query)), query, rows, (row) => [row.name]);
    const items: Model<'Integration'>[] = [];
    for (const row of page.items) items.push(await presentIntegration(ctx, row, caller));
    return { status: 200, body: { ...page, items } };
  },

  async getIntegration({ params, caller }, ctx) {
    const access = await integrationAccess(ctx, caller, params.integrationName);
    return { status: 200, body: await presentIntegration(ctx, access.integration, caller) };
  },

  async publishIntegration({ params, body, caller }, ctx) {
    checkPublishBody(body);
    const name = params.integrationName;
    const existing = await getIntegrationRow(ctx.db, name);
    const named = body.organization !== undefined ? await callerOrganization(ctx, caller, body.organization, 'organization') : undefined;
    const now = ctx.now();
    if (existing) {
      const membership = await membershipOf(ctx.db, caller.user.id, existing.organization_id);
      if (!membership || (named && named.organization.id !== existing.organization_id)) {
        throw conflict(`integrationName: "${name}" is already published by another organization`);
      }
      requireIntegration({ integration: existing, membership, permissions: integrationPermissions(membership) }, 'admin');
      if (body.visibility !== undefined && INTEGRATION_VISIBILITIES[body.visibility].ownerOnly) {
        await checkCanBePrivate(ctx, existing);
      }
      await integrations.update(ctx.db, name, { ...publishColumns(body), version: existing.version + 1, updated_at: now });
    } else {
      const owner = named ?? (await defaultPublisher(ctx, caller));
      requireOrganization(owner, 'createContent');
      await integrations.insert(ctx.db, {
        title: name,
        ...publishColumns(body),
        name,
        organization_id: owner.organization.id,
        version: 1,
        created_at: now,
        updated_at: now,
      });
    }
    return { status: 200, body: await presentIntegration(ctx, (await getIntegrationRow(ctx.db, name))!, caller) };
  },

  async unpublishIntegration({ params, caller }, ctx) {
    if (!(await getIntegrationRow(ctx.db, params.integrationName))) return { status: 204 };
    const access = await integrationAccess(ctx, caller, params.integrationName);
    requireIntegration(access, 'admin');
    await integrations.remove(ctx.db, params.integrationName);
    return { status: 204 };
  },

  async listIntegrationInstallations({ params, query, caller }, ctx) {
    const access = await integrationAccess(ctx, caller, params.integrationName);
    const rows = await scopedInstallations(ctx, access, caller, query.externalId);
    const page = await pageSorted(
      ctx,
      listId('listIntegrationInstallations', params.integrationName, caller.user.id, query.externalId),
      query,
      rows,
      (row) => [row.created_at, row.id],
    );
    const items: Model<'IntegrationInstallation'>[] = [];
    for (const row of page.items) items.push(await presentInstallation(ctx, row));
    return { status: 200, body: { ...page, items } };
  },

  async installIntegration({ params, body, caller }, ctx) {
    const access = await integrationAccess(ctx, caller, params.integrationName);
    const { integration } = access;
    const target = await callerOrganization(ctx, caller, body.organization, 'organization');
    requireOrganization(target, 'installIntegration');
    const organizationId = target.organization.id;
    if (INTEGRATION_VISIBILITIES[integration.visibility].ownerOnly && organizationId !== integration.organization_id) {
      throw badRequest(`organization: the private integration ${integration.name} can only be installed in its owner organization`);
    }
    if (await integrations.isInstalled(ctx.db, integration.name, organizationId)) {
      throw conflict(`organization: ${integration.name} is already installed in ${organizationId}`);
    }
    const now = ctx.now();
    const id = newId();
    await integrations.insertInstallation(ctx.db, { id, integration_name: integration.name, organization_id: organizationId, created_at: now, updated_at: now });
    const installation = (await getInstallationRow(ctx.db, id))!;
    await recordEvent(ctx, integration, installation, { type: 'installation_setup', status: installation.status });
    return { status: 201, body: await presentInstallation(ctx, installation) };
  },

  async listIntegrationEvents({ params, query, caller }, ctx) {
    const access = await integrationAccess(ctx, caller, params.integrationName);
    const scope = await installationScope(ctx, caller, access);
    const page = await ctx.cursors.page({
      list: listId('listIntegrationEvents', params.integrationName, caller.user.id),
      page: query.page,
      limit: query.limit,
      key: (row: EventRow) => [row.seq],
      count: () => integrations.countEvents(ctx.db, params.integrationName, scope),
      fetch: async (key, limit) => (await integrations.pageOfEvents(ctx.db, params.integrationName, scope, key, limit)) as EventRow[],
    });
    return { status: 200, body: { ...page, items: page.items.map(presentEvent) } };
  },

  async getIntegrationEvent({ params, caller }, ctx) {
    const access = await integrationAccess(ctx, caller, params.integrationName);
    const scope = await installationScope(ctx, caller, access);
    const event = (await integrations.getHandledEvent(ctx.db, params.integrationName, params.eventId, scope)) as EventRow | undefined;
    if (!event) throw notFound(`event ${params.eventId}`);
    return { status: 200, body: { event: presentEvent(event), trace: await eventTrace(ctx.db, event.id) } };
  },

  async listIntegrationSpaces({ params, query, caller }, ctx) {
    const access = await integrationAccess(ctx, caller, params.integrationName);
    const page = await installationItemsPage<SpaceRow>(ctx, {
      list: listId('listIntegrationSpaces', params.integrationName, caller.user.id, query.externalId, query.extended ?? false),
      query,
      installations: await scopedInstallations(ctx, access, caller, query.externalId),
      caller,
      sees: viewsAllContent,
      rows: async (organizationId, key, limit) => (await spaces.livePage(ctx.db, organizationId, 'asc', key, limit)).map(parseSpaceRow),
      count: (organizationId) => liveSpaceCount(ctx.db, organizationId),
    });
    const items = [];
    for (const { installation, membership, row: space } of page.items) {
      items.push({ ...itemOf(ctx, installation, 'spaces', space.id), space: query.extended ? await presentSpaceFor(ctx, space, membership) : space.id });
    }
    return { status: 200, body: { ...page, items } };
  },

  async listIntegrationSites({ params, query, caller }, ctx) {
    const access = await integrationAccess(ctx, caller, params.integrationName);
    const page = await installationItemsPage(ctx, {
      list: listId('listIntegrationSites', params.integrationName, caller.user.id, query.externalId, query.extended ?? false),
      query,
      installations: await scopedInstallations(ctx, access, caller, query.externalId),
      caller,
      sees: (membership) => sitePermissions(membership).view,
      rows: async (organizationId, key, limit) => (await sites.page(ctx.db, { organizationId }, key, limit)).map(parseSiteRow),
      count: (organizationId) => sites.count(ctx.db, { organizationId }),
    });
    const items = [];
    for (const { installation, membership, row: site } of page.items) {
      items.push({ ...itemOf(ctx, installation, 'sites', site.id), site: query.extended ? await presentSiteFor(ctx, site, membership) : site.id });
    }
    return { status: 200, body: { ...page, items } };
  },

  async enableIntegrationDevMode({ params, body, caller }, ctx) {
    const access = await integrationAccess(ctx, caller, params.integrationName);
    requireIntegration(access, 'admin');
    checkTunnelUrl(body.tunnelUrl, ctx.config);
    await integrations.update(ctx.db, params.integrationName, { dev_tunnel_url: body.tunnelUrl, dev_all: body.all ? 1 : 0 });
    return { status: 204 };
  },

  async disableIntegrationDevMode({ params, caller }, ctx) {
    const access = await integrationAccess(ctx, caller, params.integrationName);
    requireIntegration(access, 'admin');
    await integrations.update(ctx.db, params.integrationName, { dev_tunnel_url: null, dev_all: 0 });
    return { status: 204 };
  },

  async renderIntegrationBlock({ params, query, caller }, ctx) {
    const { integration } = await integrationAccess(ctx, caller, params.integrationName);
    const element = renderBlock(integration, query.request);
    const csp = integration.content_security_policy;
    return { status: 200, body: { type: 'element', element }, ...(csp ? { headers: { 'content-security-policy': csp } } : {}) };
  },
};

/** Registers the background work of this group with the job runner. */
export function registerIntegrationJobs(runner: JobRunner): void {
  runner.register(EVENT_DELIVERY_JOB, eventDeliveryJob);
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

type ListQuery = NonNullable<QueryParams<'listIntegrations'>>;

const filtersOf = ({ page: _page, limit: _limit, ...filters }: ListQuery) => filters;

/** Whether a URL pattern of a block (`https://*.example.com/**`) covers `domain` or one of its subdomains. */
function unfurlsDomain(pattern: string, domain: string): boolean {
  const host = pattern.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').split(/[/?#]/)[0]!.replace(/:\d+$/, '').toLowerCase();
  const wanted = domain.toLowerCase();
  const glob = new RegExp(`^${host.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^.]*')}$`);
  return glob.test(wanted) || host === wanted || host.endsWith(`.${wanted}`);
}

function matchesFilters(row: IntegrationRow, query: ListQuery): boolean {
  const blocks = fromJson<Model<'IntegrationBlock'>[]>(row.blocks, []);
  const sources = fromJson<unknown[]>(row.content_sources, []);
  const search = query.search?.toLowerCase();
  return (
    (search === undefined || row.name.toLowerCase().includes(search) || row.title.toLowerCase().includes(search)) &&
    (query.category === undefined || fromJson<string[]>(row.categories, []).includes(query.category)) &&
    (query.scope === undefined || fromJson<string[]>(row.scopes, []).includes(query.scope)) &&
    (query.owner === undefined || row.organization_id === query.owner) &&
    (query.target === undefined || row.target === query.target || INTEGRATION_TARGETS[row.target].everyTarget) &&
    (query.blocks === undefined || blocks.length > 0 === query.blocks) &&
    (query.contentSources === undefined || sources.length > 0 === query.contentSources) &&
    (query.blockDomain === undefined ||
      blocks.some((block) => (block.urlUnfurl ?? []).some((pattern) => unfurlsDomain(pattern, query.blockDomain!))))
  );
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
    preview_images: json(body.previewImages),
    visibility: body.visibility,
    target: body.target,
    scopes: json(body.scopes),
    categories: json(body.categories),
    blocks: json(body.blocks),
    content_sources: json(body.contentSources),
    external_links: json(body.externalLinks),
    configurations: json(body.configurations),
    script: body.script,
    secrets: json(body.secrets),
    content_security_policy: body.contentSecurityPolicy,
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
  const others = await integrations.installedElsewhere(ctx.db, integration.name, integration.organization_id);
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

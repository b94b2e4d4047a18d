// The lists of integrations: the catalog a caller sees, an integration's installations and events, and the spaces
// and sites its installations cover. Each is a keyset list of `Cursors.page` (paging.ts) over the store's pages; the
// catalog's filters on its rows' text and JSON fields run here, on its rows read in batches.
import type { Caller } from '../auth/caller.ts';
import { type Membership, membershipOf } from '../auth/roles.ts';
import type { Scope } from '../context/context.ts';
import { notFound } from '../common/errors.ts';
import type { Model } from '../common/contract.ts';
import { fromJson } from '../store/db.ts';
import * as integrations from '../store/integrations.ts';
import * as sites from '../store/sites.ts';
import * as spaces from '../store/spaces.ts';
import { viewsAllContent } from './collections.ts';
import {
  callerMemberships,
  type EventRow,
  type IntegrationAccess,
  installationScope,
  type InstallationRow,
  INTEGRATION_TARGETS,
  type IntegrationRow,
  parseEventRow,
  parseInstallationRow,
  parseIntegrationRow,
} from './integrations.ts';
import { organizationPermissions } from './organizations.ts';
import { type Key, keptInBatches, type Page } from '../common/paging.ts';
import { parseSiteRow, type SiteRow, sitePermissions } from './sites.ts';
import { liveSpaceCount, parseSpaceRow, type SpaceRow } from './spaces.ts';

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

/** How many integrations a page of a filtered catalog reads at a time, to keep those that match. */
const CATALOG_BATCH = 200;

/**
 * A page of the integrations the caller sees that match `filters`, by name: the public ones, and the private ones of
 * the organizations where the caller has listIntegrations (guests do not). The catalog is global, and its filters
 * look into the rows' JSON fields: a filtered list reads it in batches, in order, and keeps the rows that match.
 */
export async function integrationsPage(ctx: Scope, caller: Caller, request: PageRequest & { filters: IntegrationFilters }): Promise<Page<IntegrationRow>> {
  const { filters } = request;
  const privateOf = (await callerMemberships(ctx.db, caller))
    .filter((membership) => organizationPermissions(membership).listIntegrations)
    .map((membership) => membership.organizationId);
  const read = async (after: Key | undefined, limit: number) => (await integrations.catalogPage(ctx.db, privateOf, after, limit)).map(parseIntegrationRow);
  const key = (row: IntegrationRow) => [row.name];
  const filtered = Object.values(filters).some((filter) => filter !== undefined);
  const kept = (after: Key | undefined, limit: number) =>
    keptInBatches({ after, limit, batch: CATALOG_BATCH, read, key, keep: (row) => matchesFilters(row, filters) });
  return ctx.cursors.page({
    list: request.list,
    page: request.page,
    limit: request.limit,
    key,
    count: async () => (filtered ? (await kept(undefined, Number.POSITIVE_INFINITY)).length : integrations.countCatalog(ctx.db, privateOf)),
    fetch: (after, limit) => (filtered ? kept(after, limit) : read(after, limit)),
  });
}

/** A page of the installations in the caller's scope (installationScope), oldest first, optionally with an external id. */
export async function integrationInstallationsPage(
  ctx: Scope,
  caller: Caller,
  access: IntegrationAccess,
  request: PageRequest & { externalId?: string },
): Promise<Page<InstallationRow>> {
  const name = access.integration.name;
  const scope = await installationScope(ctx, caller, access);
  return ctx.cursors.page({
    list: request.list,
    page: request.page,
    limit: request.limit,
    key: (row: InstallationRow) => [row.createdAt, row.id],
    count: () => integrations.countInstallations(ctx.db, name, scope, request.externalId),
    fetch: async (key, limit) =>
      (await integrations.pageOfInstallations(ctx.db, name, scope, request.externalId, key, limit)).map(parseInstallationRow),
  });
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
  const scope = await installationScope(ctx, caller, access);
  return (await integrations.installations(ctx.db, access.integration.name, scope, externalId)).map(parseInstallationRow);
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

/** Whether the integration matches the filters of `listIntegrations`. */
export function matchesFilters(row: IntegrationRow, filters: IntegrationFilters): boolean {
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

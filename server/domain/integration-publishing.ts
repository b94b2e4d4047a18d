// Publishing integrations (a first publish creates one, a later one changes it), unpublishing them, installing them
// in organizations, and their development mode (events delivered to a tunnel: integration-events.ts).
import { isIP } from 'node:net';
import type { Caller } from '../auth/caller.ts';
import { membershipOf } from '../auth/roles.ts';
import type { Scope } from '../context/context.ts';
import { badRequest, conflict } from '../common/errors.ts';
import type { Input } from '../common/contract.ts';
import { type AddressRule, isRefusedAddress } from '../net/outbound.ts';
import { toJson } from '../store/db.ts';
import * as integrations from '../store/integrations.ts';
import { newId } from '../common/ids.ts';
import {
  callerMemberships,
  callerOrganization,
  getInstallationRow,
  getIntegrationRow,
  INTEGRATION_VISIBILITIES,
  integrationAccess,
  integrationPermissions,
  type InstallationRow,
  type IntegrationRow,
  requireIntegration,
} from './integrations.ts';
import { recordEvent } from './integration-events.ts';
import { getOrganizationRow, organizationPermissions, requireOrganization } from './organizations.ts';

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
export function checkTunnelUrl(tunnelUrl: string, rule: AddressRule): void {
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

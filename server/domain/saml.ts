// SAML providers: rows, their status, the checks on what is written, their creation, changes and deletion (by the
// organization's admins), the sign-in options they give, and how the API shows them.
import { X509Certificate } from 'node:crypto';
import type { Caller } from '../auth/caller.ts';
import { DEFAULT_ROLE_RANKS, type Role } from '../auth/roles.ts';
import type { AppContext, Scope } from '../context/context.ts';
import { badRequest, notFound } from '../common/errors.ts';
import type { Input, Model } from '../common/contract.ts';
import { rowParser } from '../store/enums.ts';
import { newId } from '../common/ids.ts';
import type { Page } from '../common/paging.ts';
import * as saml from '../store/saml.ts';
import { organizationAccess, type OrganizationAccess, requireOrganization } from './organizations.ts';
import { getTeamRow, presentTeam, teamFigures } from './teams.ts';
import type { Row } from '../store/schema.ts';

/** Most SAML providers of an organization (the SSO sign-in list, not paginated, holds the active ones). */
export const MAX_SAML_PROVIDERS = 50;

export type SamlProviderRow = Row<'saml_providers', { defaultRole: Role | 'guest' | null }>;

/** A `saml_providers` row checked: its default role, when it has one, is a role or `guest`. */
export const parseSamlProviderRow = rowParser<SamlProviderRow>('saml_providers', { defaultRole: DEFAULT_ROLE_RANKS });

/** Per `SamlProviderStatus`: whether members can sign in through the provider. */
export const SAML_STATUSES = {
  active: { signIn: true },
  pending: { signIn: false },
} satisfies Record<Model<'SamlProviderStatus'>, { signIn: boolean }>;

/** A provider is active once members can sign in through it: the identity provider is fully described. */
export function samlStatus(row: SamlProviderRow): Model<'SamlProviderStatus'> {
  return row.ssoUrl !== null && row.entityId !== null && row.certificate !== null ? 'active' : 'pending';
}

/** Addresses of the service provider (this server's app) for one identity provider. */
export function samlService(ctx: AppContext, row: SamlProviderRow): Model<'SamlService'> {
  const base = `/o/${row.organizationId}/saml/${row.id}`;
  return {
    acsURL: ctx.urls.app(`${base}/acs`),
    startURL: ctx.urls.app(`${base}/start`),
    entityID: ctx.urls.app(base),
  };
}

export async function getSamlProviderRow(ctx: Scope, organizationId: string, id: string): Promise<SamlProviderRow | undefined> {
  const row = await saml.get(ctx.db, organizationId, id);
  return row === undefined ? undefined : parseSamlProviderRow(row);
}

/** The provider; otherwise 404. */
export async function requireSamlProvider(ctx: Scope, organizationId: string, id: string): Promise<SamlProviderRow> {
  const row = await getSamlProviderRow(ctx, organizationId, id);
  if (!row) throw notFound(`SAML provider ${id}`);
  return row;
}

/**
 * The organization, when the caller administers it, and its provider `id`: read together (one round trip on
 * PostgreSQL), the organization's refusals first, then the provider's 404.
 */
export async function samlProviderAccess(ctx: Scope, caller: Caller, organizationId: string, id: string): Promise<{ access: OrganizationAccess; row: SamlProviderRow }> {
  const [access, row] = await Promise.all([samlAdminAccess(ctx, caller, organizationId), getSamlProviderRow(ctx, organizationId, id)]);
  if (!row) throw notFound(`SAML provider ${id}`);
  return { access, row };
}

/** The organization, when the caller administers it: 404 for non-members, 403 for other members. */
export async function samlAdminAccess(ctx: Scope, caller: Caller, organizationId: string): Promise<OrganizationAccess> {
  const access = await organizationAccess(ctx, caller, organizationId);
  requireOrganization(access, 'admin');
  return access;
}

const isBlank = (text: string) => text.trim() === '';

function isCertificate(text: string): boolean {
  const pem = text.includes('-----BEGIN');
  try {
    new X509Certificate(pem ? text : Buffer.from(text.replace(/\s+/g, ''), 'base64'));
    return true;
  } catch {
    return false;
  }
}

/**
 * The columns to write for the fields given (create or update), after the checks the contract cannot express:
 * non-blank label and entity id, an http(s) sign-on address, a parseable X.509 certificate, a team of the
 * organization.
 */
export async function samlColumns(
  ctx: Scope,
  organizationId: string,
  body: Input<'UpdateSamlProviderRequest'>,
): Promise<Partial<SamlProviderRow>> {
  const columns: Partial<SamlProviderRow> = {};
  if (body.label !== undefined) {
    if (isBlank(body.label)) throw badRequest('label: must not be blank');
    columns.label = body.label;
  }
  if (body.ssoURL !== undefined) {
    if (!/^https?:\/\//i.test(body.ssoURL)) throw badRequest('ssoURL: must be an http or https address');
    columns.ssoUrl = body.ssoURL;
  }
  if (body.entityID !== undefined) {
    if (isBlank(body.entityID)) throw badRequest('entityID: must not be blank');
    // Stored as sent, as every field is read back (the blank check alone looks past whitespace).
    columns.entityId = body.entityID;
  }
  if (body.certificate !== undefined) {
    if (!isCertificate(body.certificate.trim())) {
      throw badRequest('certificate: not an X.509 certificate (PEM, or base64 DER)');
    }
    columns.certificate = body.certificate;
  }
  if (body.defaultTeam !== undefined) {
    if (!(await getTeamRow(ctx.db, organizationId, body.defaultTeam))) {
      throw badRequest(`defaultTeam: no team ${body.defaultTeam} in this organization`);
    }
    columns.defaultTeamId = body.defaultTeam;
  }
  if (body.defaultRole !== undefined) columns.defaultRole = body.defaultRole ?? 'guest';
  return columns;
}

export async function presentSamlProvider(
  ctx: Scope,
  row: SamlProviderRow,
  access: OrganizationAccess,
  userId: string,
): Promise<Model<'SamlProvider'>> {
  // The default team read with its figures: one round trip on PostgreSQL.
  const [team, figures] = row.defaultTeamId
    ? await Promise.all([getTeamRow(ctx.db, row.organizationId, row.defaultTeamId), teamFigures(ctx, [row.defaultTeamId], userId)])
    : [];
  const defaultTeam = team ? await presentTeam(ctx, team, access, userId, figures) : undefined;
  return {
    object: 'saml-provider',
    id: row.id,
    label: row.label,
    ...(row.ssoUrl !== null ? { ssoURL: row.ssoUrl } : {}),
    ...(row.entityId !== null ? { entityID: row.entityId } : {}),
    ...(row.certificate !== null ? { certificate: row.certificate } : {}),
    ...(defaultTeam ? { defaultTeam } : {}),
    ...(row.defaultRole !== null ? { defaultRole: row.defaultRole === 'guest' ? null : row.defaultRole } : {}),
    createdAt: row.createdAt,
    status: samlStatus(row),
    service: samlService(ctx, row),
    urls: { location: ctx.urls.api(`/v1/orgs/${row.organizationId}/saml/${row.id}`) },
  };
}

/** A page of an organization's SAML providers, by creation. */
export function samlProvidersPage(
  ctx: Scope,
  options: { list: string; organizationId: string; page?: string; limit?: number },
): Promise<Page<SamlProviderRow>> {
  const { list, page, limit, organizationId } = options;
  return ctx.cursors.page({
    list,
    page,
    limit,
    key: (row: SamlProviderRow) => [row.createdAt, row.id],
    count: () => saml.count(ctx.db, organizationId),
    fetch: async (key, limit) => (await saml.page(ctx.db, organizationId, key, limit)).map(parseSamlProviderRow),
  });
}

/** Creates a SAML provider of the organization, for admins, up to MAX_SAML_PROVIDERS of them. */
export async function createSamlProvider(
  ctx: Scope,
  caller: Caller,
  organizationId: string,
  input: Input<'CreateSamlProviderRequest'>,
): Promise<Model<'SamlProvider'>> {
  const access = await samlAdminAccess(ctx, caller, organizationId);
  const columns = await samlColumns(ctx, organizationId, input);
  // The SSO sign-in list shows every active provider in one answer.
  if ((await saml.count(ctx.db, organizationId)) >= MAX_SAML_PROVIDERS) {
    throw badRequest(`label: an organization has at most ${MAX_SAML_PROVIDERS} SAML providers`);
  }
  const id = newId();
  await saml.insert(ctx.db, {
    id,
    organizationId: organizationId,
    label: columns.label!,
    ssoUrl: columns.ssoUrl ?? null,
    entityId: columns.entityId ?? null,
    certificate: columns.certificate ?? null,
    defaultTeamId: columns.defaultTeamId ?? null,
    defaultRole: columns.defaultRole ?? null,
    createdAt: ctx.now(),
  });
  return presentSamlProvider(ctx, await requireSamlProvider(ctx, organizationId, id), access, caller.user.id);
}

/** Changes the fields given of a SAML provider, for admins. */
export async function updateSamlProvider(
  ctx: Scope,
  caller: Caller,
  organizationId: string,
  id: string,
  input: Input<'UpdateSamlProviderRequest'>,
): Promise<Model<'SamlProvider'>> {
  const { access, row } = await samlProviderAccess(ctx, caller, organizationId, id);
  await saml.update(ctx.db, row.id, await samlColumns(ctx, organizationId, input));
  const updated = await requireSamlProvider(ctx, organizationId, row.id);
  return presentSamlProvider(ctx, updated, access, caller.user.id);
}

/** Deletes a SAML provider, for admins (no error when there is none). */
export async function deleteSamlProvider(ctx: Scope, caller: Caller, organizationId: string, id: string): Promise<void> {
  await samlAdminAccess(ctx, caller, organizationId);
  await saml.remove(ctx.db, organizationId, id);
}

/** The SSO sign-in options of an organization: its active SAML providers. */
export async function ssoSignInOptions(ctx: Scope, organizationId: string): Promise<Model<'SsoLoginInfo'>[]> {
  const rows = (await saml.all(ctx.db, organizationId)).map(parseSamlProviderRow);
  return rows
    .filter((row) => SAML_STATUSES[samlStatus(row)].signIn)
    .map((row) => ({ id: row.id, label: row.label, startURL: samlService(ctx, row).startURL }));
}

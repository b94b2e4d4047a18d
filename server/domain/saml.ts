// SAML providers: rows, their status, the checks on what is written, and how the API shows them.
import { X509Certificate } from 'node:crypto';
import type { Role } from '../auth/roles.ts';
import type { AppContext, Scope } from '../context.ts';
import { badRequest } from '../errors.ts';
import type { Input, Model } from './contract.ts';
import * as saml from '../store/saml.ts';
import type { OrganizationAccess } from './organizations.ts';
import { getTeamRow, presentTeam } from './teams.ts';

export type SamlProviderRow = {
  id: string;
  organization_id: string;
  label: string;
  sso_url: string | null;
  entity_id: string | null;
  certificate: string | null;
  default_team_id: string | null;
  /** NULL: not set (members get the organization's default role); `guest`: explicitly null. */
  default_role: Role | 'guest' | null;
  created_at: string;
};

/** Per `SamlProviderStatus`: whether members can sign in through the provider. */
export const SAML_STATUSES = {
  active: { signIn: true },
  pending: { signIn: false },
} satisfies Record<Model<'SamlProviderStatus'>, { signIn: boolean }>;

/** A provider is active once members can sign in through it: the identity provider is fully described. */
export function samlStatus(row: SamlProviderRow): Model<'SamlProviderStatus'> {
  return row.sso_url !== null && row.entity_id !== null && row.certificate !== null ? 'active' : 'pending';
}

/** Addresses of the service provider (this server's app) for one identity provider. */
export function samlService(ctx: AppContext, row: SamlProviderRow): Model<'SamlService'> {
  const base = `/o/${row.organization_id}/saml/${row.id}`;
  return {
    acsURL: ctx.urls.app(`${base}/acs`),
    startURL: ctx.urls.app(`${base}/start`),
    entityID: ctx.urls.app(base),
  };
}

export async function getSamlProviderRow(ctx: Scope, organizationId: string, id: string): Promise<SamlProviderRow | undefined> {
  return (await saml.get(ctx.db, organizationId, id)) as SamlProviderRow | undefined;
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
    columns.sso_url = body.ssoURL;
  }
  if (body.entityID !== undefined) {
    if (isBlank(body.entityID)) throw badRequest('entityID: must not be blank');
    columns.entity_id = body.entityID.trim();
  }
  if (body.certificate !== undefined) {
    if (!isCertificate(body.certificate.trim())) {
      throw badRequest('certificate: not an X.509 certificate (PEM, or base64 DER)');
    }
    columns.certificate = body.certificate.trim();
  }
  if (body.defaultTeam !== undefined) {
    if (!(await getTeamRow(ctx.db, organizationId, body.defaultTeam))) {
      throw badRequest(`defaultTeam: no team ${body.defaultTeam} in this organization`);
    }
    columns.default_team_id = body.defaultTeam;
  }
  if (body.defaultRole !== undefined) columns.default_role = body.defaultRole ?? 'guest';
  return columns;
}

export async function presentSamlProvider(
  ctx: Scope,
  row: SamlProviderRow,
  access: OrganizationAccess,
  userId: string,
): Promise<Model<'SamlProvider'>> {
  const team = row.default_team_id ? await getTeamRow(ctx.db, row.organization_id, row.default_team_id) : undefined;
  const defaultTeam = team ? await presentTeam(ctx, team, access, userId) : undefined;
  return {
    object: 'saml-provider',
    id: row.id,
    label: row.label,
    ...(row.sso_url !== null ? { ssoURL: row.sso_url } : {}),
    ...(row.entity_id !== null ? { entityID: row.entity_id } : {}),
    ...(row.certificate !== null ? { certificate: row.certificate } : {}),
    ...(defaultTeam ? { defaultTeam } : {}),
    ...(row.default_role !== null ? { defaultRole: row.default_role === 'guest' ? null : row.default_role } : {}),
    createdAt: row.created_at,
    status: samlStatus(row),
    service: samlService(ctx, row),
    urls: { location: ctx.urls.api(`/v1/orgs/${row.organization_id}/saml/${row.id}`) },
  };
}

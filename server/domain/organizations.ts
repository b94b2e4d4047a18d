// Organizations: their rows, the caller's permissions on them, and how the API shows them.
import type { Caller } from '../auth/caller.ts';
import { atLeast, type Membership, membershipOf, type Role } from '../auth/roles.ts';
import type { AppContext, Scope } from '../context.ts';
import { forbidden, notFound } from '../errors.ts';
import type { Model } from './contract.ts';
import { bool, fromJson } from '../store/db.ts';
import * as organizations from '../store/organizations.ts';

export type OrganizationRow = {
  id: string;
  title: string;
  created_at: string;
  type: Model<'OrganizationType'>;
  use_case: Model<'Organization'>['useCase'] | null;
  community_type: Model<'Organization'>['communityType'] | null;
  hostname: string | null;
  /** NULL: not set; `guest`: explicitly null (new members are guests). */
  default_role: Role | 'guest' | null;
  default_content_site: string | null;
  sso: number;
  ai: number;
  invite_links: number;
  plan: Model<'Organization'>['plan'];
  custom_hostname: string | null;
  logo: string | null;
  email_domains: string;
};

export type OrganizationPermissions = Model<'OrganizationPermissions'>;

/** What a member with `role` may do in the organization; handlers enforce exactly these. */
export function organizationPermissions(membership: Membership | undefined): OrganizationPermissions {
  const role = membership?.role;
  const member = membership !== undefined;
  const admin = member && atLeast(role, 'admin');
  const creator = member && atLeast(role, 'create');
  const reader = member && atLeast(role, 'read');
  return {
    view: member,
    admin,
    ownTeam: creator,
    createContent: creator,
    createOpenAPISpec: creator,
    ingestConversations: admin,
    viewBilling: admin,
    listMembers: reader,
    listTeams: reader,
    listIntegrations: reader,
    listInstallations: admin,
    installIntegration: admin,
  };
}

export async function getOrganizationRow(ctx: Scope, id: string): Promise<OrganizationRow | undefined> {
  return (await organizations.get(ctx.db, id)) as OrganizationRow | undefined;
}

export interface OrganizationAccess {
  organization: OrganizationRow;
  membership: Membership;
  permissions: OrganizationPermissions;
}

/** The organization, when the caller is a member of it; otherwise 404 (no existence leak). */
export async function organizationAccess(ctx: Scope, caller: Caller, organizationId: string): Promise<OrganizationAccess> {
  const organization = await getOrganizationRow(ctx, organizationId);
  const membership = organization && (await membershipOf(ctx.db, caller.user.id, organizationId));
  if (!organization || !membership) throw notFound(`organization ${organizationId}`);
  return { organization, membership, permissions: organizationPermissions(membership) };
}

/** Throws 403 unless the caller has `permission` in the organization. */
export function requireOrganization(access: OrganizationAccess, permission: keyof OrganizationPermissions): void {
  if (!access.permissions[permission]) {
    throw forbidden(`this operation needs the ${permission} permission on the organization`);
  }
}

export function presentOrganization(
  ctx: AppContext,
  row: OrganizationRow,
  membership: Membership | undefined,
): Model<'Organization'> {
  return {
    object: 'organization',
    id: row.id,
    title: row.title,
    createdAt: row.created_at,
    emailDomains: fromJson<string[]>(row.email_domains, []),
    ...(row.hostname ? { hostname: row.hostname } : {}),
    type: row.type,
    ...(row.use_case ? { useCase: row.use_case } : {}),
    ...(row.community_type ? { communityType: row.community_type } : {}),
    ...(row.default_role ? { defaultRole: row.default_role === 'guest' ? null : row.default_role } : {}),
    ...(row.default_content_site ? { defaultContent: { type: 'site', site: row.default_content_site } } : {}),
    sso: bool(row.sso),
    ai: bool(row.ai),
    inviteLinks: bool(row.invite_links),
    plan: row.plan,
    ...(row.custom_hostname ? { customHostname: row.custom_hostname } : {}),
    internal_isOnNewTrial: true,
    urls: {
      location: ctx.urls.api(`/v1/orgs/${row.id}`),
      app: ctx.urls.app(`/o/${row.id}`),
      ...(row.logo ? { logo: row.logo } : {}),
    },
    permissions: organizationPermissions(membership),
  };
}

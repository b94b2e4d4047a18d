// Organizations: their rows, the caller's permissions on them, the changes to their settings, the lists of them, and
// how the API shows them.
import type { Caller } from '../auth/caller.ts';
import { atLeast, DEFAULT_ROLE_RANKS, type Membership, membershipOf, type Role } from '../auth/roles.ts';
import { type PageHits, presentPages } from '../content/search-results.ts';
import type { AppContext, Scope } from '../context/context.ts';
import { badRequest, conflict, forbidden, notFound } from '../common/errors.ts';
import type { Input, Model } from '../common/contract.ts';
import { rowParser } from '../store/enums.ts';
import type { Page } from '../common/paging.ts';
import { bool, fromJson, toJson } from '../store/db.ts';
import * as organizations from '../store/organizations.ts';
import * as sites from '../store/sites.ts';
import * as spaces from '../store/spaces.ts';
import type { Row } from '../store/schema.ts';

export type OrganizationRow = Row<'organizations', {
  type: Model<'OrganizationType'>;
  useCase: Model<'Organization'>['useCase'] | null;
  communityType: Model<'Organization'>['communityType'] | null;
  defaultRole: Role | 'guest' | null;
  plan: Model<'Organization'>['plan'];
}>;

/** Per `OrganizationType`: one entry per type of organization. */
const ORGANIZATION_TYPES = { business: true, community: true } satisfies Record<Model<'OrganizationType'>, true>;

/** Per `OrganizationUseCase`: one entry per use case an organization may name. */
const ORGANIZATION_USE_CASES = {
  internalDocs: true,
  docsSite: true,
  audienceControlledSite: true,
  productDocs: true,
  teamKnowledgeBase: true,
  designSystem: true,
  openSourceDocs: true,
  notes: true,
  other: true,
} satisfies Record<Model<'OrganizationUseCase'>, true>;

/** Per `CommunityType`: one entry per kind of community organization. */
const COMMUNITY_TYPES = { nonProfit: true, openSource: true, education: true } satisfies Record<Model<'CommunityType'>, true>;

/** Per `Plan`: one entry per subscription plan. */
const PLANS = {
  free_2024: true,
  plus_2024: true,
  pro_2024: true,
  enterprise_2024: true,
  community_2024: true,
  free: true,
  plus: true,
  pro: true,
} satisfies Record<Model<'Plan'>, true>;

/** An `organizations` row checked: its type, use case, community type, default role and plan are members of theirs. */
export const parseOrganizationRow = rowParser<OrganizationRow>('organizations', {
  type: ORGANIZATION_TYPES,
  useCase: ORGANIZATION_USE_CASES,
  communityType: COMMUNITY_TYPES,
  defaultRole: DEFAULT_ROLE_RANKS,
  plan: PLANS,
});

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
  const row = await organizations.get(ctx.db, id);
  return row === undefined ? undefined : parseOrganizationRow(row);
}

/** The organization that owns integration `name` (see `organizations.ownerOfIntegration`). */
export async function integrationOwnerRow(ctx: Scope, name: string): Promise<OrganizationRow | undefined> {
  const row = await organizations.ownerOfIntegration(ctx.db, name);
  return row === undefined ? undefined : parseOrganizationRow(row);
}

export interface OrganizationAccess {
  organization: OrganizationRow;
  membership: Membership;
  permissions: OrganizationPermissions;
}

/** The organization, when the caller is a member of it; otherwise 404 (no existence leak). */
export async function organizationAccess(ctx: Scope, caller: Caller, organizationId: string): Promise<OrganizationAccess> {
  // Both read at once: one round trip on PostgreSQL, whose statements sent together travel together.
  const [organization, membership] = await Promise.all([getOrganizationRow(ctx, organizationId), membershipOf(ctx.db, caller.user.id, organizationId)]);
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
    createdAt: row.createdAt,
    emailDomains: fromJson<string[]>(row.emailDomains, []),
    ...(row.hostname ? { hostname: row.hostname } : {}),
    type: row.type,
    ...(row.useCase ? { useCase: row.useCase } : {}),
    ...(row.communityType ? { communityType: row.communityType } : {}),
    ...(row.defaultRole ? { defaultRole: row.defaultRole === 'guest' ? null : row.defaultRole } : {}),
    ...(row.defaultContentSite ? { defaultContent: { type: 'site', site: row.defaultContentSite } } : {}),
    sso: bool(row.sso),
    ai: bool(row.ai),
    inviteLinks: bool(row.inviteLinks),
    plan: row.plan,
    ...(row.customHostname ? { customHostname: row.customHostname } : {}),
    internal_isOnNewTrial: true,
    urls: {
      location: ctx.urls.api(`/v1/orgs/${row.id}`),
      app: ctx.urls.app(`/o/${row.id}`),
      ...(row.logo ? { logo: row.logo } : {}),
    },
    permissions: organizationPermissions(membership),
  };
}

/** A page of the organizations a user is a member of, by creation. */
export function memberOrganizationsPage(
  ctx: Scope,
  options: { list: string; userId: string; page?: string; limit?: number },
): Promise<Page<OrganizationRow>> {
  const { list, page, limit, userId } = options;
  return ctx.cursors.page({
    list,
    page,
    limit,
    key: (row: OrganizationRow) => [row.createdAt, row.id],
    count: () => organizations.countOfMember(ctx.db, userId),
    fetch: async (key, limit) => (await organizations.pageOfMember(ctx.db, userId, key, limit)).map(parseOrganizationRow),
  });
}

/**
 * Changes an organization's settings, for admins, after the checks the contract cannot express: email domains, a
 * hostname no other organization uses, a default site of the organization.
 */
export async function updateOrganization(
  ctx: Scope,
  caller: Caller,
  organizationId: string,
  input: Input<'UpdateOrganizationRequest'>,
): Promise<Model<'Organization'>> {
  const access = await organizationAccess(ctx, caller, organizationId);
  requireOrganization(access, 'admin');
  const id = access.organization.id;
  const changes: Parameters<typeof organizations.update>[2] = {};
  if (input.title !== undefined) changes.title = input.title;
  if (input.emailDomains !== undefined) {
    const domains = [...new Set(input.emailDomains.map((domain) => domain.trim().toLowerCase()))];
    const invalid = domains.find((domain) => !/^([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,}$/.test(domain));
    if (invalid !== undefined) badRequestField('emailDomains', `"${invalid}" is not an email domain`);
    changes.emailDomains = toJson(domains);
  }
  if (input.hostname !== undefined) {
    if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/.test(input.hostname)) {
      badRequestField('hostname', 'use lower-case letters, digits and inner hyphens');
    }
    if (await organizations.hostnameTaken(ctx.db, input.hostname, id)) {
      throw conflict(`hostname: "${input.hostname}" is already used by another organization`);
    }
    changes.hostname = input.hostname;
  }
  if (input.defaultRole !== undefined) changes.defaultRole = input.defaultRole ?? 'guest';
  if (input.defaultContent !== undefined) {
    if (input.defaultContent !== null && !(await sites.inOrganization(ctx.db, input.defaultContent.site, id))) {
      badRequestField('defaultContent.site', `no site ${input.defaultContent.site} in this organization`);
    }
    changes.defaultContentSite = input.defaultContent?.site ?? null;
  }
  if (input.logo !== undefined) changes.logo = input.logo;
  if (input.sso !== undefined) changes.sso = input.sso ? 1 : 0;
  if (input.ai !== undefined) changes.ai = input.ai ? 1 : 0;
  if (input.inviteLinks !== undefined) changes.inviteLinks = input.inviteLinks ? 1 : 0;
  await organizations.update(ctx.db, id, changes);
  // Answered from the row read and the changes made (no trigger changes the row), not read again.
  return presentOrganization(ctx, parseOrganizationRow({ ...access.organization, ...changes }), access.membership);
}

function badRequestField(field: string, message: string): never {
  throw badRequest(`${field}: ${message}`);
}

/** Deletes an invite link of the organization, for admins (no error when there is none). */
export async function deleteInviteLink(ctx: Scope, caller: Caller, organizationId: string, inviteId: string): Promise<void> {
  const access = await organizationAccess(ctx, caller, organizationId);
  requireOrganization(access, 'admin');
  await organizations.removeInviteLink(ctx.db, organizationId, inviteId);
}

/**
 * The organizations with this email domain, for a caller whose own email address has it. Organizations are
 * discoverable by the domain of the caller's own email address only, so that this does not reveal which organizations
 * exist for other domains.
 */
export async function organizationsByEmailDomain(ctx: Scope, caller: Caller, emailDomain: string): Promise<OrganizationRow[]> {
  const domain = emailDomain.trim().toLowerCase();
  const callerDomain = caller.user.email?.split('@')[1]?.toLowerCase();
  return callerDomain === domain ? (await organizations.byEmailDomain(ctx.db, domain)).map(parseOrganizationRow) : [];
}

/**
 * Results of a search of `text` in an organization, as the API shows them: per space (its hits grouped by page), the
 * space's title and its pages, presented.
 */
export async function presentSpaceResults(
  ctx: Scope,
  text: string,
  bySpace: readonly (readonly PageHits[])[],
): Promise<Model<'SearchSpaceResult'>[]> {
  const presented = await presentPages(ctx, text, bySpace.flat());
  const titles = await spaces.titles(ctx.db, bySpace.map((pages) => pages[0]!.spaceId));
  return bySpace.map((pages) => ({
    id: pages[0]!.spaceId,
    title: titles.get(pages[0]!.spaceId)!,
    pages: presented.splice(0, pages.length),
  }));
}

// Members of an organization: roles, activity (ping), SSO, and the spaces and teams of a member.
import type { Scope } from '../context.ts';
import { contentRoles } from '../domain/collections.ts';
import type { Model } from '../domain/contract.ts';
import { signJwt } from '../domain/jwt.ts';
import { getMemberRow, type MemberRow, membershipOfRow, presentMember, presentMembers } from '../domain/members.ts';
import { organizationAccess, type OrganizationAccess, requireOrganization } from '../domain/organizations.ts';
import { listId } from '../domain/paging.ts';
import { liveSpacesPage, presentSpaces, spacePermissions } from '../domain/spaces.ts';
import { presentTeams, type TeamRow } from '../domain/teams.ts';
import { conflict, notFound } from '../errors.ts';
import type { HandlerGroup } from './types.ts';
import * as members from '../store/members.ts';
import * as teams from '../store/teams.ts';

type Operations =
  | 'listMembers'
  | 'getMember'
  | 'removeMember'
  | 'updateMember'
  | 'pingOrganization'
  | 'makeMemberSso'
  | 'listMemberSpaces'
  | 'listMemberTeams';

/** How long the visitor claims returned by ping stay valid. */
const VISITOR_CLAIMS_TTL_SECONDS = 60 * 60;

/** Per `MemberSort`: the column, the row's key for cursors, and whether only active members are listed. */
const MEMBER_SORTS = {
  joinedAt: { column: 'joined_at', key: (row: MemberRow) => row.joined_at, activeOnly: false },
  // Sorting by last activity lists only members who have been active.
  lastSeenAt: { column: 'last_seen_at', key: (row: MemberRow) => row.last_seen_at, activeOnly: true },
  // The user's display name as the member row carries it (by an index: migration 160_member_display_names).
  name: { column: 'user_display_name', key: (row: MemberRow) => row.user_display_name, activeOnly: false },
} satisfies Record<Model<'MemberSort'>, { column: members.MemberSort; key: (row: MemberRow) => string | null; activeOnly: boolean }>;

async function requireMemberRow(ctx: Scope, organizationId: string, userId: string): Promise<MemberRow> {
  const row = await getMemberRow(ctx, organizationId, userId);
  if (!row) throw notFound(`member ${userId}`);
  return row;
}

/** Throws 409 when the change would leave the organization without an active admin. */
async function keepAnAdmin(ctx: Scope, access: OrganizationAccess, row: MemberRow): Promise<void> {
  if (row.role !== 'admin') return;
  if ((await members.adminCount(ctx.db, access.organization.id)) <= 1) {
    throw conflict(`member ${row.user_id} is the last admin of the organization`);
  }
}

export const memberHandlers: HandlerGroup<Operations> = {
  async listMembers({ params, query, caller }, ctx) {
    const access = await organizationAccess(ctx, caller, params.organizationId);
    requireOrganization(access, 'listMembers');
    const sort = query.sort ?? 'joinedAt';
    const order = query.order ?? 'desc';
    const { column, key, activeOnly } = MEMBER_SORTS[sort];
    const filters: members.MemberFilters = {
      organizationId: params.organizationId,
      ...(query.role ? { role: query.role } : {}),
      ...(query.search ? { search: query.search } : {}),
      activeOnly,
    };
    const page = await ctx.cursors.page({
      list: listId('listMembers', params.organizationId, query.role, query.search, sort, order),
      page: query.page,
      limit: query.limit,
      key: (row: MemberRow) => [key(row), row.user_id],
      count: () => members.count(ctx.db, filters),
      fetch: async (after, limit) => (await members.page(ctx.db, filters, column, order, after, limit)) as MemberRow[],
    });
    return { status: 200, body: { ...page, items: await presentMembers(ctx, page.items) } };
  },

  async getMember({ params, caller }, ctx) {
    const access = await organizationAccess(ctx, caller, params.organizationId);
    if (params.userId !== caller.user.id) requireOrganization(access, 'listMembers');
    return { status: 200, body: await presentMember(ctx, await requireMemberRow(ctx, params.organizationId, params.userId)) };
  },

  async removeMember({ params, caller }, ctx) {
    const access = await organizationAccess(ctx, caller, params.organizationId);
    // Members may leave; removing someone else needs admin.
    if (params.userId !== caller.user.id) requireOrganization(access, 'admin');
    const row = await getMemberRow(ctx, params.organizationId, params.userId);
    if (row) {
      await keepAnAdmin(ctx, access, row);
      await teams.removeFromOrganizationTeams(ctx.db, params.organizationId, params.userId);
      await members.remove(ctx.db, params.organizationId, params.userId);
    }
    return { status: 204 };
  },

  async updateMember({ params, body, caller }, ctx) {
    const access = await organizationAccess(ctx, caller, params.organizationId);
    requireOrganization(access, 'admin');
    const row = await requireMemberRow(ctx, params.organizationId, params.userId);
    if (body.role !== 'admin') await keepAnAdmin(ctx, access, row);
    await members.update(ctx.db, params.organizationId, params.userId, { role: body.role });
    return { status: 200, body: await presentMember(ctx, await requireMemberRow(ctx, params.organizationId, params.userId)) };
  },

  async pingOrganization({ params, caller }, ctx) {
    const access = await organizationAccess(ctx, caller, params.organizationId);
    const now = ctx.clock.now();
    await members.update(ctx.db, params.organizationId, caller.user.id, { last_seen_at: now.toISOString() });
    const issuedAt = Math.floor(now.getTime() / 1000);
    const serviceVisitorClaims = signJwt(
      {
        iss: ctx.config.publicUrl,
        sub: caller.user.id,
        org: access.organization.id,
        role: access.membership.role,
        iat: issuedAt,
        exp: issuedAt + VISITOR_CLAIMS_TTL_SECONDS,
      },
      ctx.secrets.visitorClaims,
    );
    return { status: 200, body: { serviceVisitorClaims } };
  },

  async makeMemberSso({ params, caller }, ctx) {
    const access = await organizationAccess(ctx, caller, params.organizationId);
    requireOrganization(access, 'admin');
    await requireMemberRow(ctx, params.organizationId, params.userId);
    await members.update(ctx.db, params.organizationId, params.userId, { sso: 1 });
    return { status: 200, body: await presentMember(ctx, await requireMemberRow(ctx, params.organizationId, params.userId)) };
  },

  async listMemberSpaces({ params, query, caller }, ctx) {
    const access = await organizationAccess(ctx, caller, params.organizationId);
    if (params.userId !== caller.user.id) requireOrganization(access, 'listMembers');
    const row = await requireMemberRow(ctx, params.organizationId, params.userId);
    const membership = membershipOfRow(row);
    const page = await liveSpacesPage(ctx, {
      list: listId('listMemberSpaces', params.organizationId, params.userId, query.order),
      organizationId: params.organizationId,
      membership,
      order: query.order ?? 'desc',
      page: query.page,
      limit: query.limit,
    });
    const roles = await contentRoles(ctx.db, membership, page.items);
    const presented = await presentSpaces(ctx, page.items, (space) => spacePermissions(roles(space), space));
    return {
      status: 200,
      body: {
        ...page,
        items: presented.map((space, index) => ({
          // The member's role on a space it views (liveSpacesPage lists only those) is never null.
          permission: roles(page.items[index]!)!,
          space,
        })),
      },
    };
  },

  async listMemberTeams({ params, query, caller }, ctx) {
    const access = await organizationAccess(ctx, caller, params.organizationId);
    if (params.userId !== caller.user.id) requireOrganization(access, 'listTeams');
    await requireMemberRow(ctx, params.organizationId, params.userId);
    const filters: teams.MemberTeamFilters = {
      organizationId: params.organizationId,
      userId: params.userId,
      ...(query.title ? { title: query.title } : {}),
    };
    type Row = TeamRow & { member_role: Model<'TeamMemberRole'> };
    const page = await ctx.cursors.page({
      list: listId('listMemberTeams', params.organizationId, params.userId, query.title),
      page: query.page,
      limit: query.limit,
      key: (row: Row) => [row.created_at, row.id],
      count: () => teams.countOfMember(ctx.db, filters),
      fetch: async (key, limit) => (await teams.pageOfMember(ctx.db, filters, key, limit)) as Row[],
    });
    const presented = await presentTeams(ctx, page.items, access, caller.user.id);
    return {
      status: 200,
      body: { ...page, items: presented.map((team, index) => ({ team, member: { role: page.items[index]!.member_role } })) },
    };
  },
};

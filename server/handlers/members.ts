// Members of an organization: roles, activity (ping), SSO, and the spaces and teams of a member.
import { contentRoles } from '../domain/collections.ts';
import {
  changeMemberRole,
  getMemberRow,
  makeMemberSso,
  memberRead,
  membershipOfRow,
  membersPage,
  memberTeamsPage,
  pingOrganization,
  presentMemberById,
  presentMembers,
  presentMemberTeams,
  removeMember,
} from '../domain/members.ts';
import { organizationAccess, requireOrganization } from '../domain/organizations.ts';
import { listId } from '../common/paging.ts';
import { liveSpacesPage, presentSpaces, spacePermissions } from '../domain/spaces.ts';
import type { HandlerGroup } from './types.ts';

type Operations =
  | 'listMembers'
  | 'getMember'
  | 'removeMember'
  | 'updateMember'
  | 'pingOrganization'
  | 'makeMemberSso'
  | 'listMemberSpaces'
  | 'listMemberTeams';

export const memberHandlers: HandlerGroup<Operations> = {
  async listMembers({ params, query, caller }, ctx) {
    const access = await organizationAccess(ctx, caller, params.organizationId);
    requireOrganization(access, 'listMembers');
    const sort = query.sort ?? 'joinedAt';
    const order = query.order ?? 'desc';
    const page = await membersPage(ctx, {
      list: listId('listMembers', params.organizationId, query.role, query.search, sort, order),
      organizationId: params.organizationId,
      role: query.role,
      search: query.search,
      sort,
      order,
      page: query.page,
      limit: query.limit,
    });
    return { status: 200, body: { ...page, items: await presentMembers(ctx, page.items) } };
  },

  async getMember({ params, caller }, ctx) {
    return { status: 200, body: (await memberRead(ctx, caller, params, 'listMembers', presentMemberById)).member };
  },

  async removeMember({ params, caller }, ctx) {
    await removeMember(ctx, caller, params.organizationId, params.userId);
    return { status: 204 };
  },

  async updateMember({ params, body, caller }, ctx) {
    return { status: 200, body: await changeMemberRole(ctx, caller, params.organizationId, params.userId, body.role) };
  },

  async pingOrganization({ params, caller }, ctx) {
    return { status: 200, body: { serviceVisitorClaims: await pingOrganization(ctx, caller, params.organizationId) } };
  },

  async makeMemberSso({ params, caller }, ctx) {
    return { status: 200, body: await makeMemberSso(ctx, caller, params.organizationId, params.userId) };
  },

  async listMemberSpaces({ params, query, caller }, ctx) {
    const membership = membershipOfRow((await memberRead(ctx, caller, params, 'listMembers', getMemberRow)).member);
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
    const { access } = await memberRead(ctx, caller, params, 'listTeams', getMemberRow);
    const page = await memberTeamsPage(ctx, {
      list: listId('listMemberTeams', params.organizationId, params.userId, query.title),
      organizationId: params.organizationId,
      userId: params.userId,
      title: query.title,
      page: query.page,
      limit: query.limit,
    });
    return { status: 200, body: { ...page, items: await presentMemberTeams(ctx, page.items, access, caller.user.id) } };
  },
};

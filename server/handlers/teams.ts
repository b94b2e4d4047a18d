// Teams of an organization: listing (with the owner and title filters), creation, renaming and deletion.
import { membershipOf } from '../auth/roles.ts';
import { newId } from '../domain/ids.ts';
import { organizationAccess, organizationPermissions, requireOrganization } from '../domain/organizations.ts';
import { listId } from '../domain/paging.ts';
import { getTeamRow, presentTeam, presentTeams, requireTeam, teamAccess, teamPermissions, type TeamRow } from '../domain/teams.ts';
import { badRequest } from '../errors.ts';
import type { HandlerGroup } from './types.ts';
import * as teams from '../store/teams.ts';

type Operations = 'listTeams' | 'createTeam' | 'getTeam' | 'deleteTeam' | 'updateTeam';

export const teamHandlers: HandlerGroup<Operations> = {
  async listTeams({ params, query, caller }, ctx) {
    const access = await organizationAccess(ctx, caller, params.organizationId);
    requireOrganization(access, 'listTeams');
    const filters: teams.TeamFilters = { organizationId: params.organizationId };
    if (query.owner !== undefined) {
      const owner = await membershipOf(ctx.db, query.owner, params.organizationId);
      if (!owner) throw badRequest(`owner: no member ${query.owner} in this organization`);
      // Organization admins manage every team; other members the teams they own.
      if (!organizationPermissions(owner).admin) filters.ownedBy = query.owner;
    }
    // Case-insensitive for every script (store/teams.ts keeps each title folded).
    if (query.title !== undefined) filters.title = query.title;
    const page = await ctx.cursors.page({
      list: listId('listTeams', params.organizationId, query.owner, query.title),
      page: query.page,
      limit: query.limit,
      key: (row: TeamRow) => [row.created_at, row.id],
      count: () => teams.count(ctx.db, filters),
      fetch: (key, limit) => teams.page(ctx.db, filters, key, limit),
    });
    return { status: 200, body: { ...page, items: await presentTeams(ctx, page.items, access, caller.user.id) } };
  },

  async createTeam({ params, body, caller }, ctx) {
    const access = await organizationAccess(ctx, caller, params.organizationId);
    requireOrganization(access, 'ownTeam');
    const members = [...new Set(body.members ?? [])].filter((userId) => userId !== caller.user.id);
    const outside: string[] = [];
    for (const userId of members) if (!(await membershipOf(ctx.db, userId, params.organizationId))) outside.push(userId);
    if (outside.length > 0) throw badRequest(`members: not members of this organization: ${outside.join(', ')}`);
    const id = newId();
    await teams.insert(ctx.db, { id, organization_id: params.organizationId, title: body.title, created_at: ctx.now() });
    await teams.addMember(ctx.db, id, caller.user.id, 'owner');
    for (const userId of members) await teams.addMember(ctx.db, id, userId, 'member');
    const team = (await getTeamRow(ctx.db, params.organizationId, id))!;
    return { status: 201, body: await presentTeam(ctx, team, access, caller.user.id) };
  },

  async getTeam({ params, caller }, ctx) {
    const access = await teamAccess(ctx, caller, params.organizationId, params.teamId);
    requireTeam(access, 'view');
    return { status: 200, body: await presentTeam(ctx, access.team, access.organization, caller.user.id) };
  },

  async deleteTeam({ params, caller }, ctx) {
    const organization = await organizationAccess(ctx, caller, params.organizationId);
    const team = await getTeamRow(ctx.db, params.organizationId, params.teamId);
    if (!team) return { status: 204 };
    requireTeam({ organization, team, permissions: await teamPermissions(ctx.db, team, organization, caller.user.id) }, 'admin');
    // Memberships and space grants go with the team; SAML providers joining members to it no longer do.
    await teams.remove(ctx.db, team.id);
    return { status: 204 };
  },

  async updateTeam({ params, body, caller }, ctx) {
    const access = await teamAccess(ctx, caller, params.organizationId, params.teamId);
    requireTeam(access, 'admin');
    await teams.rename(ctx.db, access.team.id, body.title);
    const team = (await getTeamRow(ctx.db, params.organizationId, access.team.id))!;
    return { status: 200, body: await presentTeam(ctx, team, access.organization, caller.user.id) };
  },
};

// Teams of an organization: listing (with the owner and title filters), creation, renaming and deletion.
import { organizationAccess, requireOrganization } from '../domain/organizations.ts';
import { listId } from '../common/paging.ts';
import { createTeam, deleteTeam, presentTeam, presentTeams, renameTeam, requireTeam, teamAccess, teamFigures, teamsPage } from '../domain/teams.ts';
import type { HandlerGroup } from './types.ts';

type Operations = 'listTeams' | 'createTeam' | 'getTeam' | 'deleteTeam' | 'updateTeam';

export const teamHandlers: HandlerGroup<Operations> = {
  async listTeams({ params, query, caller }, ctx) {
    const access = await organizationAccess(ctx, caller, params.organizationId);
    requireOrganization(access, 'listTeams');
    const page = await teamsPage(ctx, {
      list: listId('listTeams', params.organizationId, query.owner, query.title),
      organizationId: params.organizationId,
      owner: query.owner,
      title: query.title,
      page: query.page,
      limit: query.limit,
    });
    return { status: 200, body: { ...page, items: await presentTeams(ctx, page.items, access, caller.user.id) } };
  },

  async createTeam({ params, body, caller }, ctx) {
    return { status: 201, body: await createTeam(ctx, caller, params.organizationId, body) };
  },

  async getTeam({ params, caller }, ctx) {
    // The team's figures are read with its access (one round trip on PostgreSQL), and shown only when it allows.
    const [access, figures] = await Promise.all([teamAccess(ctx, caller, params.organizationId, params.teamId), teamFigures(ctx, [params.teamId], caller.user.id)]);
    requireTeam(access, 'view');
    return { status: 200, body: await presentTeam(ctx, access.team, access.organization, caller.user.id, figures) };
  },

  async deleteTeam({ params, caller }, ctx) {
    await deleteTeam(ctx, caller, params.organizationId, params.teamId);
    return { status: 204 };
  },

  async updateTeam({ params, body, caller }, ctx) {
    return { status: 200, body: await renameTeam(ctx, caller, params.organizationId, params.teamId, body.title) };
  },
};

// Teams of an organization: listing (with the owner and title filters), creation, renaming and deletion.
import { membershipOf } from '../auth/roles.ts';
import type { AppContext } from '../context.ts';
import { newId } from '../domain/ids.ts';
import {
  organizationAccess,
  organizationPermissions,
  requireOrganization,
} from '../domain/organizations.ts';
import {
  getTeamRow,
  presentTeam,
  presentTeams,
  requireTeam,
  teamAccess,
  teamPermissions,
  type TeamRow,
} from '../domain/teams.ts';
import { badRequest } from '../http/errors.ts';
import { after, listId } from '../http/pagination.ts';
import type { HandlerGroup } from '../http/types.ts';

type Operations = 'listTeams' | 'createTeam' | 'getTeam' | 'deleteTeam' | 'updateTeam';

export function teamHandlers(ctx: AppContext): HandlerGroup<Operations> {
  const { db } = ctx;
  // SQLite's LIKE and lower() fold ASCII letters only; the title filter is case-insensitive for every script.
  db.function('casefold', { deterministic: true }, (text) => (typeof text === 'string' ? text.toLowerCase() : text));

  return {
    listTeams({ params, query, caller }) {
      const access = organizationAccess(ctx, caller, params.organizationId);
      requireOrganization(access, 'listTeams');
      const filters = ['organization_id = ?'];
      const values: unknown[] = [params.organizationId];
      if (query.owner !== undefined) {
        const owner = membershipOf(db, query.owner, params.organizationId);
        if (!owner) throw badRequest(`owner: no member ${query.owner} in this organization`);
        // Organization admins manage every team; other members the teams they own.
        if (!organizationPermissions(owner).admin) {
          filters.push(`id IN (SELECT team_id FROM team_members WHERE user_id = ? AND role = 'owner')`);
          values.push(query.owner);
        }
      }
      if (query.title !== undefined) {
        filters.push('instr(casefold(title), ?) > 0');
        values.push(query.title.toLowerCase());
      }
      const where = filters.join(' AND ');
      const page = ctx.cursors.page({
        list: listId('listTeams', params.organizationId, query.owner, query.title),
        page: query.page,
        limit: query.limit,
        key: (row: TeamRow) => [row.created_at, row.id],
        count: () => (db.prepare(`SELECT COUNT(*) AS n FROM teams WHERE ${where}`).get(...values) as { n: number }).n,
        fetch: (key, limit) =>
          db
            .prepare(
              `SELECT * FROM teams WHERE ${where} ${key ? `AND ${after(['created_at', 'id'])}` : ''}
               ORDER BY created_at, id LIMIT ?`,
            )
            .all(...values, ...(key ?? []), limit) as TeamRow[],
      });
      return {
        status: 200,
        body: { ...page, items: presentTeams(ctx, page.items, access, caller.user.id) },
      };
    },

    createTeam({ params, body, caller }) {
      const access = organizationAccess(ctx, caller, params.organizationId);
      requireOrganization(access, 'ownTeam');
      const members = [...new Set(body.members ?? [])].filter((userId) => userId !== caller.user.id);
      const outside = members.filter((userId) => !membershipOf(db, userId, params.organizationId));
      if (outside.length > 0) {
        throw badRequest(`members: not members of this organization: ${outside.join(', ')}`);
      }
      const id = newId();
      db.prepare('INSERT INTO teams (id, organization_id, title, created_at) VALUES (?, ?, ?, ?)').run(
        id,
        params.organizationId,
        body.title,
        ctx.now(),
      );
      const addMember = db.prepare('INSERT INTO team_members (team_id, user_id, role) VALUES (?, ?, ?)');
      addMember.run(id, caller.user.id, 'owner');
      for (const userId of members) addMember.run(id, userId, 'member');
      return { status: 201, body: presentTeam(ctx, getTeamRow(db, params.organizationId, id)!, access, caller.user.id) };
    },

    getTeam({ params, caller }) {
      const access = teamAccess(ctx, caller, params.organizationId, params.teamId);
      requireTeam(access, 'view');
      return { status: 200, body: presentTeam(ctx, access.team, access.organization, caller.user.id) };
    },

    deleteTeam({ params, caller }) {
      const organization = organizationAccess(ctx, caller, params.organizationId);
      const team = getTeamRow(db, params.organizationId, params.teamId);
      if (!team) return { status: 204 };
      requireTeam({ organization, team, permissions: teamPermissions(db, team, organization, caller.user.id) }, 'admin');
      // Memberships and space grants go with the team; SAML providers joining members to it no longer do.
      db.prepare('DELETE FROM teams WHERE id = ?').run(team.id);
      return { status: 204 };
    },

    updateTeam({ params, body, caller }) {
      const access = teamAccess(ctx, caller, params.organizationId, params.teamId);
      requireTeam(access, 'admin');
      db.prepare('UPDATE teams SET title = ? WHERE id = ?').run(body.title, access.team.id);
      const team = getTeamRow(db, params.organizationId, access.team.id)!;
      return { status: 200, body: presentTeam(ctx, team, access.organization, caller.user.id) };
    },
  };
}

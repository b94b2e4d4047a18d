// Teams: rows, the caller's permissions on them, and how the API shows them.
import type { Caller } from '../auth/caller.ts';
import type { AppContext } from '../context.ts';
import { organizationAccess, type OrganizationAccess } from './organizations.ts';
import { forbidden, notFound } from '../http/errors.ts';
import type { Model } from '../http/types.ts';
import { type AmongIds, amongIds, type Db } from '../store/db.ts';
import { parseEnum } from './enums.ts';

export type TeamRow = { id: string; organization_id: string; title: string; created_at: string };

export type TeamPermissions = Model<'TeamPermissions'>;

export function getTeamRow(db: Db, organizationId: string, teamId: string): TeamRow | undefined {
  return db.prepare('SELECT * FROM teams WHERE id = ? AND organization_id = ?').get(teamId, organizationId) as
    | TeamRow
    | undefined;
}

/** Per `TeamMemberRole`: whether the team's members with it administer the team. */
export const TEAM_ROLES = {
  owner: { admin: true },
  member: { admin: false },
} satisfies Record<Model<'TeamMemberRole'>, { admin: boolean }>;

function teamRole(db: Db, teamId: string, userId: string): Model<'TeamMemberRole'> | undefined {
  const row = db.prepare('SELECT role FROM team_members WHERE team_id = ? AND user_id = ?').get(teamId, userId) as
    | { role: unknown }
    | undefined;
  return row && parseEnum(TEAM_ROLES, { table: 'team_members', column: 'role' }, row.role);
}

/**
 * Organization admins and the team's owners administer a team; members who may list teams, and the team's own
 * members, view it.
 */
export function teamPermissions(db: Db, team: TeamRow, access: OrganizationAccess, userId: string): TeamPermissions {
  return permissionsOf(teamRole(db, team.id, userId), access);
}

/** The permissions on a team of a caller with this role in it (undefined: not a member). */
const permissionsOf = (role: Model<'TeamMemberRole'> | undefined, access: OrganizationAccess): TeamPermissions => ({
  admin: access.permissions.admin || (role !== undefined && TEAM_ROLES[role].admin),
  view: access.permissions.listTeams || role !== undefined,
});

export interface TeamAccess {
  organization: OrganizationAccess;
  team: TeamRow;
  permissions: TeamPermissions;
}

/** The team, for a member of its organization; otherwise 404. */
export function teamAccess(ctx: AppContext, caller: Caller, organizationId: string, teamId: string): TeamAccess {
  const organization = organizationAccess(ctx, caller, organizationId);
  const team = getTeamRow(ctx.db, organizationId, teamId);
  if (!team) throw notFound(`team ${teamId}`);
  return { organization, team, permissions: teamPermissions(ctx.db, team, organization, caller.user.id) };
}

/** Throws 403 unless the caller has `permission` on the team. */
export function requireTeam(access: TeamAccess, permission: keyof TeamPermissions): void {
  if (!access.permissions[permission]) throw forbidden(`this operation needs the ${permission} permission on the team`);
}

const TEAM_MEMBERS_AMONG = amongIds(
  (among) => `SELECT team_id, COUNT(*) AS value FROM team_members WHERE team_id ${among} GROUP BY team_id`,
);
const TEAM_SPACES_AMONG = amongIds(
  (among) => `SELECT team_spaces.team_id AS team_id, COUNT(*) AS value FROM team_spaces JOIN spaces ON spaces.id = team_spaces.space_id
              WHERE team_spaces.team_id ${among} AND spaces.deleted_at IS NULL GROUP BY team_spaces.team_id`,
);
const TEAM_ROLES_AMONG = amongIds((among) => `SELECT team_id, role AS value FROM team_members WHERE team_id ${among} AND user_id = ?`);

/**
 * Teams as the API shows them to `userId`, a page of them with one query each for their members' counts, their live
 * spaces' counts and the caller's roles in them (not three per team).
 */
export function presentTeams(ctx: AppContext, rows: readonly TeamRow[], access: OrganizationAccess, userId: string): Model<'Team'>[] {
  const teamIds = rows.map((row) => row.id);
  const byTeam = <T>(statement: AmongIds, ...params: unknown[]) => {
    const { sql, ids } = statement(teamIds);
    return new Map((ctx.db.prepare(sql).all(ids, ...params) as { team_id: string; value: T }[]).map((row) => [row.team_id, row.value]));
  };
  const members = byTeam<number>(TEAM_MEMBERS_AMONG);
  const spaces = byTeam<number>(TEAM_SPACES_AMONG);
  const roles = byTeam<unknown>(TEAM_ROLES_AMONG, userId);
  return rows.map((row) => {
    const role = roles.has(row.id) ? parseEnum(TEAM_ROLES, { table: 'team_members', column: 'role' }, roles.get(row.id)) : undefined;
    return {
      object: 'team',
      id: row.id,
      title: row.title,
      members: members.get(row.id) ?? 0,
      spaces: spaces.get(row.id) ?? 0,
      createdAt: row.created_at,
      permissions: permissionsOf(role, access),
    };
  });
}

/** A team as the API shows it to `userId`. */
export const presentTeam = (ctx: AppContext, row: TeamRow, access: OrganizationAccess, userId: string): Model<'Team'> =>
  presentTeams(ctx, [row], access, userId)[0]!;

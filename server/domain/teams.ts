// Teams: rows, the caller's permissions on them, and how the API shows them.
import type { Caller } from '../auth/caller.ts';
import type { Scope } from '../context.ts';
import { organizationAccess, type OrganizationAccess } from './organizations.ts';
import { forbidden, notFound } from '../errors.ts';
import type { Model } from './contract.ts';
import type { Db } from '../store/db.ts';
import * as teams from '../store/teams.ts';
import { parseEnum } from './enums.ts';

export type TeamRow = { id: string; organization_id: string; title: string; created_at: string };

export type TeamPermissions = Model<'TeamPermissions'>;

export function getTeamRow(db: Db, organizationId: string, teamId: string): Promise<TeamRow | undefined> {
  return teams.get(db, organizationId, teamId);
}

/** Per `TeamMemberRole`: whether the team's members with it administer the team. */
export const TEAM_ROLES = {
  owner: { admin: true },
  member: { admin: false },
} satisfies Record<Model<'TeamMemberRole'>, { admin: boolean }>;

async function teamRole(db: Db, teamId: string, userId: string): Promise<Model<'TeamMemberRole'> | undefined> {
  const role = await teams.roleOf(db, teamId, userId);
  return role === undefined ? undefined : parseEnum(TEAM_ROLES, { table: 'team_members', column: 'role' }, role);
}

/**
 * Organization admins and the team's owners administer a team; members who may list teams, and the team's own
 * members, view it.
 */
export async function teamPermissions(db: Db, team: TeamRow, access: OrganizationAccess, userId: string): Promise<TeamPermissions> {
  return permissionsOf(await teamRole(db, team.id, userId), access);
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
export async function teamAccess(ctx: Scope, caller: Caller, organizationId: string, teamId: string): Promise<TeamAccess> {
  const organization = await organizationAccess(ctx, caller, organizationId);
  const team = await getTeamRow(ctx.db, organizationId, teamId);
  if (!team) throw notFound(`team ${teamId}`);
  return { organization, team, permissions: await teamPermissions(ctx.db, team, organization, caller.user.id) };
}

/** Throws 403 unless the caller has `permission` on the team. */
export function requireTeam(access: TeamAccess, permission: keyof TeamPermissions): void {
  if (!access.permissions[permission]) throw forbidden(`this operation needs the ${permission} permission on the team`);
}

/**
 * Teams as the API shows them to `userId`, a page of them with one query each for their members' counts, their live
 * spaces' counts and the caller's roles in them (not three per team).
 */
export async function presentTeams(ctx: Scope, rows: readonly TeamRow[], access: OrganizationAccess, userId: string): Promise<Model<'Team'>[]> {
  if (rows.length === 0) return [];
  const teamIds = rows.map((row) => row.id);
  const byTeam = <T>(found: { team_id: string; value: T }[]) => new Map(found.map((row) => [row.team_id, row.value]));
  const members = byTeam(await teams.memberCounts(ctx.db, teamIds));
  const spaces = byTeam(await teams.spaceCounts(ctx.db, teamIds));
  const roles = byTeam<unknown>(await teams.rolesOf(ctx.db, teamIds, userId));
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
export const presentTeam = async (ctx: Scope, row: TeamRow, access: OrganizationAccess, userId: string): Promise<Model<'Team'>> =>
  (await presentTeams(ctx, [row], access, userId))[0]!;

// Teams: rows, the caller's permissions on them, their listing, creation, renaming and deletion, and how the API
// shows them.
import type { Caller } from '../auth/caller.ts';
import { membershipOf } from '../auth/roles.ts';
import type { Scope } from '../context/context.ts';
import { organizationAccess, type OrganizationAccess, organizationPermissions, requireOrganization } from './organizations.ts';
import { badRequest, forbidden, notFound } from '../common/errors.ts';
import type { Input, Model } from '../common/contract.ts';
import type { Page } from '../common/paging.ts';
import type { Db } from '../store/db.ts';
import * as teams from '../store/teams.ts';
import { parseEnum } from '../store/enums.ts';
import { newId } from '../common/ids.ts';
import type { Row } from '../store/schema.ts';

/** A team's row without the folded title the store keeps for its filters. */
export type TeamRow = Omit<Row<'teams'>, 'titleFolded'>;

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
 * The permissions on a team of a caller with this role in it (undefined: not a member): organization admins and the
 * team's owners administer a team; members who may list teams, and the team's own members, view it.
 */
const permissionsOf = (role: Model<'TeamMemberRole'> | undefined, access: OrganizationAccess): TeamPermissions => ({
  admin: access.permissions.admin || (role !== undefined && TEAM_ROLES[role].admin),
  view: access.permissions.listTeams || role !== undefined,
});

export interface TeamAccess {
  organization: OrganizationAccess;
  team: TeamRow;
  /** The caller's role in the team (undefined: not a member). */
  role: Model<'TeamMemberRole'> | undefined;
  permissions: TeamPermissions;
}

/** The team, for a member of its organization; otherwise 404. */
export async function teamAccess(ctx: Scope, caller: Caller, organizationId: string, teamId: string): Promise<TeamAccess> {
  const access = await teamAccessIfAny(ctx, caller, organizationId, teamId);
  if (!access) throw notFound(`team ${teamId}`);
  return access;
}

/** The team with the caller's permissions on it, for a member of its organization (404 otherwise); undefined when there is no such team. */
async function teamAccessIfAny(ctx: Scope, caller: Caller, organizationId: string, teamId: string): Promise<TeamAccess | undefined> {
  // Read together: one round trip on PostgreSQL (the organization's 404 first, as when read one after the other).
  const [organization, team, role] = await Promise.all([
    organizationAccess(ctx, caller, organizationId),
    getTeamRow(ctx.db, organizationId, teamId),
    teamRole(ctx.db, teamId, caller.user.id),
  ]);
  return team ? { organization, team, role, permissions: permissionsOf(role, organization) } : undefined;
}

/** Throws 403 unless the caller has `permission` on the team. */
export function requireTeam(access: TeamAccess, permission: keyof TeamPermissions): void {
  if (!access.permissions[permission]) throw forbidden(`this operation needs the ${permission} permission on the team`);
}

/**
 * A page of an organization's teams, by creation: with `owner`, the teams that member manages; with `title`, those
 * whose title contains it.
 */
export async function teamsPage(
  ctx: Scope,
  options: { list: string; organizationId: string; owner?: string; title?: string; page?: string; limit?: number },
): Promise<Page<TeamRow>> {
  const { list, page, limit, organizationId, owner: ownerId } = options;
  const filters: teams.TeamFilters = { organizationId };
  if (ownerId !== undefined) {
    const owner = await membershipOf(ctx.db, ownerId, organizationId);
    if (!owner) throw badRequest(`owner: no member ${ownerId} in this organization`);
    // Organization admins manage every team; other members the teams they own.
    if (!organizationPermissions(owner).admin) filters.ownedBy = ownerId;
  }
  // Case-insensitive for every script (store/teams.ts keeps each title folded).
  if (options.title !== undefined) filters.title = options.title;
  return ctx.cursors.page({
    list,
    page,
    limit,
    key: (row: TeamRow) => [row.createdAt, row.id],
    count: () => teams.count(ctx.db, filters),
    fetch: (key, limit) => teams.page(ctx.db, filters, key, limit),
  });
}

/**
 * Creates a team of the organization, for members who may own one: the caller is its owner, `members` (members of
 * the organization) its members.
 */
export async function createTeam(ctx: Scope, caller: Caller, organizationId: string, input: Input<'CreateTeamRequest'>): Promise<Model<'Team'>> {
  const members = [...new Set(input.members ?? [])].filter((userId) => userId !== caller.user.id);
  // Read together (one round trip on PostgreSQL), the organization's refusal first.
  const [access, ...memberships] = await Promise.all([
    organizationAccess(ctx, caller, organizationId),
    ...members.map((userId) => membershipOf(ctx.db, userId, organizationId)),
  ]);
  requireOrganization(access, 'ownTeam');
  const outside = members.filter((_, index) => !memberships[index]);
  if (outside.length > 0) throw badRequest(`members: not members of this organization: ${outside.join(', ')}`);
  const team: TeamRow = { id: newId(), organizationId: organizationId, title: input.title, createdAt: ctx.now() };
  await teams.insert(ctx.db, team);
  await teams.addMember(ctx.db, team.id, caller.user.id, 'owner');
  for (const userId of members) await teams.addMember(ctx.db, team.id, userId, 'member');
  // Answered from the row as inserted and the members added (no trigger changes them), not read again: a new team
  // reaches no space yet, and the caller owns it.
  const figures: TeamFigures = { members: new Map([[team.id, 1 + members.length]]), spaces: new Map(), roles: new Map([[team.id, 'owner']]) };
  return presentTeam(ctx, team, access, caller.user.id, figures);
}

/** Renames a team, for its admins. */
export async function renameTeam(ctx: Scope, caller: Caller, organizationId: string, teamId: string, title: string): Promise<Model<'Team'>> {
  // Its counts, which a new title does not change, are read with its access (one round trip on PostgreSQL); the
  // caller's role in it, which the access reads, is not read twice.
  const [access, counts] = await Promise.all([teamAccess(ctx, caller, organizationId, teamId), teamCounts(ctx, [teamId])]);
  requireTeam(access, 'admin');
  const figures: TeamFigures = { ...counts, roles: new Map(access.role === undefined ? [] : [[teamId, access.role]]) };
  await teams.rename(ctx.db, access.team.id, title);
  // Answered from the row read and its new title, not read again.
  return presentTeam(ctx, { ...access.team, title }, access.organization, caller.user.id, figures);
}

/** Deletes a team, for its admins (for members of the organization, a team already gone is no error). */
export async function deleteTeam(ctx: Scope, caller: Caller, organizationId: string, teamId: string): Promise<void> {
  const access = await teamAccessIfAny(ctx, caller, organizationId, teamId);
  if (!access) return;
  requireTeam(access, 'admin');
  // Memberships and space grants go with the team; SAML providers joining members to it no longer do.
  await teams.remove(ctx.db, access.team.id);
}

/** What a page of teams shows beside their rows: their members' and live spaces' counts, the caller's role in each. */
export interface TeamFigures {
  members: Map<string, number>;
  spaces: Map<string, number>;
  roles: Map<string, unknown>;
}

const byTeam = <T>(found: { teamId: string; value: T }[]) => new Map(found.map((row) => [row.teamId, row.value]));

/** The members' and live spaces' counts of `teamIds`, one query each for all of them (read together). */
async function teamCounts(ctx: Scope, teamIds: readonly string[]): Promise<Omit<TeamFigures, 'roles'>> {
  const [memberCounts, spaceCounts] = await Promise.all([teams.memberCounts(ctx.db, teamIds), teams.spaceCounts(ctx.db, teamIds)]);
  return { members: byTeam(memberCounts), spaces: byTeam(spaceCounts) };
}

/** The figures of `teamIds` as `userId` sees them, one query each for all of them (read together: one round trip on PostgreSQL). */
export async function teamFigures(ctx: Scope, teamIds: readonly string[], userId: string): Promise<TeamFigures> {
  const [counts, userRoles] = await Promise.all([teamCounts(ctx, teamIds), teams.rolesOf(ctx.db, teamIds, userId)]);
  return { ...counts, roles: byTeam<unknown>(userRoles) };
}

/**
 * Teams as the API shows them to `userId`, a page of them with one query each for their members' counts, their live
 * spaces' counts and the caller's roles in them (not three per team); `figures` when read already (`teamFigures`).
 */
export async function presentTeams(ctx: Scope, rows: readonly TeamRow[], access: OrganizationAccess, userId: string, figures?: TeamFigures): Promise<Model<'Team'>[]> {
  if (rows.length === 0) return [];
  const { members, spaces, roles } = figures ?? (await teamFigures(ctx, rows.map((row) => row.id), userId));
  return rows.map((row) => {
    const role = roles.has(row.id) ? parseEnum(TEAM_ROLES, { table: 'team_members', column: 'role' }, roles.get(row.id)) : undefined;
    return {
      object: 'team',
      id: row.id,
      title: row.title,
      members: members.get(row.id) ?? 0,
      spaces: spaces.get(row.id) ?? 0,
      createdAt: row.createdAt,
      permissions: permissionsOf(role, access),
    };
  });
}

/** A team as the API shows it to `userId`. */
export const presentTeam = async (ctx: Scope, row: TeamRow, access: OrganizationAccess, userId: string, figures?: TeamFigures): Promise<Model<'Team'>> =>
  (await presentTeams(ctx, [row], access, userId, figures))[0]!;

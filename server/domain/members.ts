// Members of an organization: their rows, the changes to them (role, activity, SSO, leaving), the lists of members
// and of a member's teams, and how the API shows them (a Member, also in lists of commenters).
import { type Caller, findUsers, type UserRecord } from '../auth/caller.ts';
import { type Membership, type Role, ROLE_RANKS } from '../auth/roles.ts';
import type { Scope } from '../context/context.ts';
import { conflict, notFound } from '../common/errors.ts';
import type { Input, Model } from '../common/contract.ts';
import { rowParser } from '../store/enums.ts';
import type { Page } from '../common/paging.ts';
import { bool } from '../store/db.ts';
import * as members from '../store/members.ts';
import * as teams from '../store/teams.ts';
import { viewsAllContent } from './collections.ts';
import { signJwt } from './jwt.ts';
import { organizationAccess, type OrganizationAccess, type OrganizationPermissions, requireOrganization } from './organizations.ts';
import { liveSpaceCount } from './spaces.ts';
import { presentTeams, TEAM_ROLES, type TeamRow } from './teams.ts';
import { presentUser } from './users.ts';
import type { Row } from '../store/schema.ts';

export type MemberRow = Row<'members', { role: Role | null }>;

/** A `members` row checked: its role, unless the member is a guest, is a role. */
export const parseMemberRow = rowParser<MemberRow>('members', { role: ROLE_RANKS });

export async function getMemberRow(ctx: Scope, organizationId: string, userId: string): Promise<MemberRow | undefined> {
  const row = await members.get(ctx.db, organizationId, userId);
  return row === undefined ? undefined : parseMemberRow(row);
}

/** The member row; otherwise 404. */
export async function requireMemberRow(ctx: Scope, organizationId: string, userId: string): Promise<MemberRow> {
  return memberFound(await getMemberRow(ctx, organizationId, userId), userId);
}

/** What was read of member `userId` (its row, or as shown); otherwise 404. */
function memberFound<T>(read: T | undefined, userId: string): T {
  if (read === undefined) throw notFound(`member ${userId}`);
  return read;
}

/**
 * The caller's access to the organization, and what `read` reads of member `userId` sent with it (one round trip on
 * PostgreSQL) but shown only once the access allows: `permission` is needed unless the member is the caller; 404 when
 * not a member.
 */
export async function memberRead<T>(
  ctx: Scope,
  caller: Caller,
  { organizationId, userId }: { organizationId: string; userId: string },
  permission: keyof OrganizationPermissions,
  read: (ctx: Scope, organizationId: string, userId: string) => Promise<T | undefined>,
): Promise<{ access: OrganizationAccess; member: T }> {
  const [access, member] = await Promise.all([organizationAccess(ctx, caller, organizationId), read(ctx, organizationId, userId)]);
  if (userId !== caller.user.id) requireOrganization(access, permission);
  return { access, member: memberFound(member, userId) };
}

/** The membership a member row stands for. */
export const membershipOfRow = (row: MemberRow): Membership => ({
  organizationId: row.organizationId,
  role: row.role,
  disabled: bool(row.disabled),
});

/**
 * Members as the API shows them, a page of them with one query each for their users and their teams' counts (not
 * three per member); `spaces` is their organization's count kept by triggers (a lookup, once per organization).
 */
export async function presentMembers(ctx: Scope, rows: readonly MemberRow[]): Promise<Model<'Member'>[]> {
  // Read together: one round trip on PostgreSQL.
  const counted = [...new Set(rows.filter((row) => viewsAllContent(membershipOfRow(row))).map((row) => row.organizationId))];
  const [users, teams, counts] = await Promise.all([
    findUsers(ctx.db, rows.map((row) => row.userId)),
    teamCountsOf(ctx, rows),
    Promise.all(counted.map((organizationId) => liveSpaceCount(ctx.db, organizationId))),
  ]);
  const spaces = new Map(counted.map((organizationId, i) => [organizationId, counts[i]!]));
  return rows.map((row) => memberShown(ctx, row, users.get(row.userId), teams(row), spaces.get(row.organizationId) ?? 0));
}

/** A member as the API shows it. */
export const presentMember = async (ctx: Scope, row: MemberRow): Promise<Model<'Member'>> => (await presentMembers(ctx, [row]))[0]!;

/**
 * Member `userId` of `organizationId` as the API shows it, its row read with all it shows (one round trip on
 * PostgreSQL, with what else the request sends meanwhile; the organization's count of spaces whatever the role); undefined
 * when not a member.
 */
export async function presentMemberById(ctx: Scope, organizationId: string, userId: string): Promise<Model<'Member'> | undefined> {
  const [row, users, teams, spaces] = await Promise.all([
    getMemberRow(ctx, organizationId, userId),
    findUsers(ctx.db, [userId]),
    members.teamCounts(ctx.db, organizationId, [userId]),
    liveSpaceCount(ctx.db, organizationId),
  ]);
  return row && memberShown(ctx, row, users.get(userId), teams[0]?.n ?? 0, spaces);
}

/** A member as the API shows it, from its row, its user, its count of teams and its organization's of spaces. */
function memberShown(ctx: Scope, row: MemberRow, user: UserRecord | undefined, teams: number, spaces: number): Model<'Member'> {
  if (!user) throw new Error(`member ${row.userId} of ${row.organizationId} has no user`);
  return {
    object: 'member',
    id: row.userId,
    role: row.role,
    user: presentUser(ctx, user),
    disabled: bool(row.disabled),
    joinedAt: row.joinedAt,
    ...(row.lastSeenAt ? { lastSeenAt: row.lastSeenAt } : {}),
    sso: bool(row.sso),
    spaces: viewsAllContent(membershipOfRow(row)) ? spaces : 0,
    teams,
  };
}

/** How many of their organization's teams each member is in. */
async function teamCountsOf(ctx: Scope, rows: readonly MemberRow[]): Promise<(row: MemberRow) => number> {
  const counts = new Map<string, number>();
  for (const organizationId of new Set(rows.map((row) => row.organizationId))) {
    const userIds = rows.filter((row) => row.organizationId === organizationId).map((row) => row.userId);
    const found = await members.teamCounts(ctx.db, organizationId, userIds);
    for (const { userId, n } of found) counts.set(`${organizationId} ${userId}`, n);
  }
  return (row) => counts.get(`${row.organizationId} ${row.userId}`) ?? 0;
}

/** Per `MemberSort`: the field of the row it follows (its key for cursors), and whether only active members are listed. */
const MEMBER_SORTS = {
  joinedAt: { by: 'joinedAt', activeOnly: false },
  // Sorting by last activity lists only members who have been active.
  lastSeenAt: { by: 'lastSeenAt', activeOnly: true },
  // The user's display name as the member row carries it (by an index: migration 160_member_display_names).
  name: { by: 'userDisplayName', activeOnly: false },
} satisfies Record<Model<'MemberSort'>, { by: members.MemberSort; activeOnly: boolean }>;

/** A page of an organization's members, with `role` and whose name or email contains `search` when given, by `sort`. */
export function membersPage(
  ctx: Scope,
  options: {
    list: string;
    organizationId: string;
    role?: Model<'Role'>;
    search?: string;
    sort: Model<'MemberSort'>;
    order: Model<'SortOrder'>;
    page?: string;
    limit?: number;
  },
): Promise<Page<MemberRow>> {
  const { list, page, limit, order } = options;
  const { by, activeOnly }: { by: members.MemberSort; activeOnly: boolean } = MEMBER_SORTS[options.sort];
  const filters: members.MemberFilters = {
    organizationId: options.organizationId,
    ...(options.role ? { role: options.role } : {}),
    ...(options.search ? { search: options.search } : {}),
    activeOnly,
  };
  return ctx.cursors.page({
    list,
    page,
    limit,
    key: (row: MemberRow) => [row[by], row.userId],
    count: () => members.count(ctx.db, filters),
    fetch: async (after, limit) => (await members.page(ctx.db, filters, by, order, after, limit)).map(parseMemberRow),
  });
}

/** Throws 409 when the change would leave the organization without an active admin. */
async function keepAnAdmin(ctx: Scope, access: OrganizationAccess, row: MemberRow): Promise<void> {
  if (row.role !== 'admin') return;
  if ((await members.adminCount(ctx.db, access.organization.id)) <= 1) {
    throw conflict(`member ${row.userId} is the last admin of the organization`);
  }
}

/** Removes a member from the organization and from its teams (no error when not a member). */
export async function removeMember(ctx: Scope, caller: Caller, organizationId: string, userId: string): Promise<void> {
  // The member is read with the access (one round trip on PostgreSQL), and used only when it allows.
  const [access, row] = await Promise.all([organizationAccess(ctx, caller, organizationId), getMemberRow(ctx, organizationId, userId)]);
  // Members may leave; removing someone else needs admin.
  if (userId !== caller.user.id) requireOrganization(access, 'admin');
  if (row) {
    await keepAnAdmin(ctx, access, row);
    await teams.removeFromOrganizationTeams(ctx.db, organizationId, userId);
    await members.remove(ctx.db, organizationId, userId);
  }
}

/** Changes a member's role, for admins; the organization keeps an admin. */
export async function changeMemberRole(
  ctx: Scope,
  caller: Caller,
  organizationId: string,
  userId: string,
  role: Input<'UpdateMemberRequest'>['role'],
): Promise<Model<'Member'>> {
  // The member is read with the access (one round trip on PostgreSQL): the organization's refusals first, then its 404.
  const [access, found] = await Promise.all([organizationAccess(ctx, caller, organizationId), getMemberRow(ctx, organizationId, userId)]);
  requireOrganization(access, 'admin');
  if (!found) throw notFound(`member ${userId}`);
  if (role !== 'admin') await keepAnAdmin(ctx, access, found);
  await members.update(ctx.db, organizationId, userId, { role });
  // Answered from the row read and its new role (no trigger changes the row), not read again.
  return presentMember(ctx, { ...found, role });
}

/** How long the visitor claims returned by ping stay valid. */
const VISITOR_CLAIMS_TTL_SECONDS = 60 * 60;

/** Records the caller's activity in the organization; returns its visitor claims, signed. */
export async function pingOrganization(ctx: Scope, caller: Caller, organizationId: string): Promise<string> {
  const access = await organizationAccess(ctx, caller, organizationId);
  const now = ctx.clock.now();
  await members.update(ctx.db, organizationId, caller.user.id, { lastSeenAt: now.toISOString() });
  const issuedAt = Math.floor(now.getTime() / 1000);
  return signJwt(
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
}

/** Marks a member as signing in through SSO, for admins. */
export async function makeMemberSso(ctx: Scope, caller: Caller, organizationId: string, userId: string): Promise<Model<'Member'>> {
  const access = await organizationAccess(ctx, caller, organizationId);
  requireOrganization(access, 'admin');
  await requireMemberRow(ctx, organizationId, userId);
  await members.update(ctx.db, organizationId, userId, { sso: 1 });
  return presentMember(ctx, await requireMemberRow(ctx, organizationId, userId));
}

/** A team of a member, with the member's role in it. */
export type MemberTeamRow = TeamRow & { memberRole: Model<'TeamMemberRole'> };

/** A team of a member read with the member's role in it (`team_members.role`), that role checked. */
export const parseMemberTeamRow = rowParser<MemberTeamRow>('team_members', { memberRole: TEAM_ROLES });

/** A page of the teams of a member of the organization, by creation, whose titles contain `title` when given. */
export function memberTeamsPage(
  ctx: Scope,
  options: { list: string; organizationId: string; userId: string; title?: string; page?: string; limit?: number },
): Promise<Page<MemberTeamRow>> {
  const { list, page, limit } = options;
  const filters: teams.MemberTeamFilters = {
    organizationId: options.organizationId,
    userId: options.userId,
    ...(options.title ? { title: options.title } : {}),
  };
  return ctx.cursors.page({
    list,
    page,
    limit,
    key: (row: MemberTeamRow) => [row.createdAt, row.id],
    count: () => teams.countOfMember(ctx.db, filters),
    fetch: async (key, limit) => (await teams.pageOfMember(ctx.db, filters, key, limit)).map(parseMemberTeamRow),
  });
}

/**
 * Teams of a member (a page of `memberTeamsPage`) as the API shows them: each team as the caller sees it, with the
 * member's role in it.
 */
export async function presentMemberTeams(
  ctx: Scope,
  rows: readonly MemberTeamRow[],
  access: OrganizationAccess,
  callerId: string,
): Promise<Model<'MemberTeam'>[]> {
  const presented = await presentTeams(ctx, rows, access, callerId);
  return presented.map((team, index) => ({ team, member: { role: rows[index]!.memberRole } }));
}

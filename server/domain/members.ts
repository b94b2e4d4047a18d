// Members of an organization: their rows and how the API shows them (a Member, also in lists of commenters).
import { findUsers } from '../auth/caller.ts';
import type { Membership, Role } from '../auth/roles.ts';
import type { AppContext } from '../context.ts';
import type { Model } from '../http/types.ts';
import { amongIds, bool } from '../store/db.ts';
import { viewsAllContent } from './collections.ts';
import { liveSpaceCount } from './spaces.ts';
import { presentUser } from './users.ts';

export type MemberRow = {
  organization_id: string;
  user_id: string;
  role: Role | null;
  disabled: number;
  sso: number;
  joined_at: string;
  last_seen_at: string | null;
  /** The user's display name, kept by the triggers of migration 160_member_display_names (members sort by it). */
  user_display_name: string;
};

export function getMemberRow(ctx: AppContext, organizationId: string, userId: string): MemberRow | undefined {
  return ctx.db
    .prepare('SELECT * FROM members WHERE organization_id = ? AND user_id = ?')
    .get(organizationId, userId) as MemberRow | undefined;
}

/** The membership a member row stands for. */
export const membershipOfRow = (row: MemberRow): Membership => ({
  organizationId: row.organization_id,
  role: row.role,
  disabled: bool(row.disabled),
});

/**
 * Members as the API shows them, a page of them with one query each for their users and their teams' counts (not
 * three per member); `spaces` is their organization's count kept by triggers (a lookup, once per organization).
 */
export function presentMembers(ctx: AppContext, rows: readonly MemberRow[]): Model<'Member'>[] {
  const users = findUsers(ctx.db, rows.map((row) => row.user_id));
  const teams = teamCountsOf(ctx, rows);
  const spaces = new Map<string, number>();
  const spaceCount = (organizationId: string) => {
    let count = spaces.get(organizationId);
    if (count === undefined) spaces.set(organizationId, (count = liveSpaceCount(ctx.db, organizationId)));
    return count;
  };
  return rows.map((row) => {
    const user = users.get(row.user_id);
    if (!user) throw new Error(`member ${row.user_id} of ${row.organization_id} has no user`);
    return {
      object: 'member',
      id: row.user_id,
      role: row.role,
      user: presentUser(ctx, user),
      disabled: bool(row.disabled),
      joinedAt: row.joined_at,
      ...(row.last_seen_at ? { lastSeenAt: row.last_seen_at } : {}),
      sso: bool(row.sso),
      spaces: viewsAllContent(membershipOfRow(row)) ? spaceCount(row.organization_id) : 0,
      teams: teams(row),
    };
  });
}

/** A member as the API shows it. */
export const presentMember = (ctx: AppContext, row: MemberRow): Model<'Member'> => presentMembers(ctx, [row])[0]!;

const TEAM_COUNTS_AMONG = amongIds(
  (among) => `SELECT team_members.user_id AS user_id, COUNT(*) AS n FROM team_members CROSS JOIN teams ON teams.id = team_members.team_id
              WHERE team_members.user_id ${among} AND teams.organization_id = ?
              GROUP BY team_members.user_id`,
);

/** How many of their organization's teams each member is in. */
function teamCountsOf(ctx: AppContext, rows: readonly MemberRow[]): (row: MemberRow) => number {
  const counts = new Map<string, number>();
  for (const organizationId of new Set(rows.map((row) => row.organization_id))) {
    const userIds = rows.filter((row) => row.organization_id === organizationId).map((row) => row.user_id);
    // The members' teams, then which of them are the organization's: CROSS JOIN keeps SQLite to this order, which
    // otherwise went through every team of the organization (50 members of an organization with 10 000 teams: 136 ms).
    const { sql, ids } = TEAM_COUNTS_AMONG(userIds);
    const found = ctx.db.prepare(sql).all(ids, organizationId) as { user_id: string; n: number }[];
    for (const { user_id, n } of found) counts.set(`${organizationId} ${user_id}`, n);
  }
  return (row) => counts.get(`${row.organization_id} ${row.user_id}`) ?? 0;
}

// Members of an organization: their rows and how the API shows them (a Member, also in lists of commenters).
import { findUser } from '../auth/caller.ts';
import type { Membership, Role } from '../auth/roles.ts';
import type { AppContext } from '../context.ts';
import type { Model } from '../http/types.ts';
import { bool } from '../store/db.ts';
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

/** Members as the API shows them. */
export const presentMembers = (ctx: AppContext, rows: MemberRow[]): Model<'Member'>[] => rows.map((row) => presentMember(ctx, row));

/** A member as the API shows it; `spaces` is the organization's count kept by triggers (a lookup, not a count). */
export function presentMember(ctx: AppContext, row: MemberRow): Model<'Member'> {
  // The member's teams, then which of them are the organization's: CROSS JOIN keeps SQLite to this order, which
  // otherwise went through every team of the organization (50 members of an organization with 10 000 teams: 136 ms).
  const teams = ctx.db
    .prepare(
      `SELECT COUNT(*) AS n FROM team_members CROSS JOIN teams ON teams.id = team_members.team_id
       WHERE team_members.user_id = ? AND teams.organization_id = ?`,
    )
    .get(row.user_id, row.organization_id) as { n: number };
  return {
    object: 'member',
    id: row.user_id,
    role: row.role,
    user: presentUser(ctx, findUser(ctx.db, row.user_id)!),
    disabled: bool(row.disabled),
    joinedAt: row.joined_at,
    ...(row.last_seen_at ? { lastSeenAt: row.last_seen_at } : {}),
    sso: bool(row.sso),
    spaces: viewsAllContent(membershipOfRow(row)) ? liveSpaceCount(ctx.db, row.organization_id) : 0,
    teams: teams.n,
  };
}

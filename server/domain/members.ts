// Members of an organization: their rows and how the API shows them (a Member, also in lists of commenters).
import { findUsers } from '../auth/caller.ts';
import type { Membership, Role } from '../auth/roles.ts';
import type { Scope } from '../context.ts';
import type { Model } from './contract.ts';
import { bool } from '../store/db.ts';
import * as members from '../store/members.ts';
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

export async function getMemberRow(ctx: Scope, organizationId: string, userId: string): Promise<MemberRow | undefined> {
  return (await members.get(ctx.db, organizationId, userId)) as MemberRow | undefined;
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
export async function presentMembers(ctx: Scope, rows: readonly MemberRow[]): Promise<Model<'Member'>[]> {
  const users = await findUsers(ctx.db, rows.map((row) => row.user_id));
  const teams = await teamCountsOf(ctx, rows);
  const spaces = new Map<string, number>();
  for (const row of rows) {
    if (viewsAllContent(membershipOfRow(row)) && !spaces.has(row.organization_id)) {
      spaces.set(row.organization_id, await liveSpaceCount(ctx.db, row.organization_id));
    }
  }
  const spaceCount = (organizationId: string) => spaces.get(organizationId) ?? 0;
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
export const presentMember = async (ctx: Scope, row: MemberRow): Promise<Model<'Member'>> => (await presentMembers(ctx, [row]))[0]!;

/** How many of their organization's teams each member is in. */
async function teamCountsOf(ctx: Scope, rows: readonly MemberRow[]): Promise<(row: MemberRow) => number> {
  const counts = new Map<string, number>();
  for (const organizationId of new Set(rows.map((row) => row.organization_id))) {
    const userIds = rows.filter((row) => row.organization_id === organizationId).map((row) => row.user_id);
    const found = await members.teamCounts(ctx.db, organizationId, userIds);
    for (const { user_id, n } of found) counts.set(`${organizationId} ${user_id}`, n);
  }
  return (row) => counts.get(`${row.organization_id} ${row.user_id}`) ?? 0;
}

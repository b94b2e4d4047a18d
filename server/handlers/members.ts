// Members of an organization: roles, activity (ping), SSO, and the spaces and teams of a member.
import { type AppContext, persistentSecret } from '../context.ts';
import { signJwt } from '../domain/jwt.ts';
import { organizationAccess, type OrganizationAccess, requireOrganization } from '../domain/organizations.ts';
import {
  getMemberRow as getMemberRowOf,
  type MemberRow,
  membershipOfRow,
  presentMember as presentMemberOf,
  presentMembers,
} from '../domain/members.ts';
import { liveSpacesPage, presentSpaces, spacePermissions } from '../domain/spaces.ts';
import { contentRoles } from '../domain/collections.ts';
import { presentTeams, type TeamRow } from '../domain/teams.ts';
import { conflict, notFound } from '../http/errors.ts';
import { after, listId, SORT_ORDERS } from '../http/pagination.ts';
import type { HandlerGroup, Model } from '../http/types.ts';

type Operations =
  | 'listMembers'
  | 'getMember'
  | 'removeMember'
  | 'updateMember'
  | 'pingOrganization'
  | 'makeMemberSso'
  | 'listMemberSpaces'
  | 'listMemberTeams';

/** How long the visitor claims returned by ping stay valid. */
const VISITOR_CLAIMS_TTL_SECONDS = 60 * 60;

/** Per `MemberSort`: the column, the row's key for cursors, and whether only active members are listed. */
const MEMBER_SORTS = {
  joinedAt: { column: 'members.joined_at', key: (row: MemberRow) => row.joined_at, activeOnly: false },
  // Sorting by last activity lists only members who have been active.
  lastSeenAt: { column: 'members.last_seen_at', key: (row: MemberRow) => row.last_seen_at, activeOnly: true },
  // The user's display name as the member row carries it (by an index: migration 160_member_display_names).
  name: { column: 'members.user_display_name', key: (row: MemberRow) => row.user_display_name, activeOnly: false },
} satisfies Record<Model<'MemberSort'>, { column: string; key: (row: MemberRow) => unknown; activeOnly: boolean }>;

export function memberHandlers(ctx: AppContext): HandlerGroup<Operations> {
  const { db } = ctx;

  const getMemberRow = (organizationId: string, userId: string) => getMemberRowOf(ctx, organizationId, userId);

  const requireMemberRow = (organizationId: string, userId: string) => {
    const row = getMemberRow(organizationId, userId);
    if (!row) throw notFound(`member ${userId}`);
    return row;
  };

  const presentMember = (row: MemberRow) => presentMemberOf(ctx, row);

  /** Throws 409 when the change would leave the organization without an active admin. */
  const keepAnAdmin = (access: OrganizationAccess, row: MemberRow) => {
    if (row.role !== 'admin') return;
    const admins = db
      .prepare(`SELECT COUNT(*) AS n FROM members WHERE organization_id = ? AND role = 'admin' AND disabled = 0`)
      .get(access.organization.id) as { n: number };
    if (admins.n <= 1) throw conflict(`member ${row.user_id} is the last admin of the organization`);
  };

  return {
    listMembers({ params, query, caller }) {
      const access = organizationAccess(ctx, caller, params.organizationId);
      requireOrganization(access, 'listMembers');
      const sort = query.sort ?? 'joinedAt';
      const order = query.order ?? 'desc';
      const { column, key } = MEMBER_SORTS[sort];
      const filters = ['members.organization_id = ?'];
      const values: unknown[] = [params.organizationId];
      if (query.role) {
        filters.push('members.role = ?');
        values.push(query.role);
      }
      if (query.search) {
        filters.push(`(users.display_name LIKE ? ESCAPE '\\' OR users.email LIKE ? ESCAPE '\\')`);
        const pattern = `%${query.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
        values.push(pattern, pattern);
      }
      if (MEMBER_SORTS[sort].activeOnly) filters.push('members.last_seen_at IS NOT NULL');
      const where = filters.join(' AND ');
      // Every member has its user (a foreign key, deleted with it) and carries its name: users are read only to
      // search them (the count at 50 000 members: 26 ms with the join, 3 without).
      const from = query.search ? 'members JOIN users ON users.id = members.user_id' : 'members';
      const page = ctx.cursors.page({
        list: listId('listMembers', params.organizationId, query.role, query.search, sort, order),
        page: query.page,
        limit: query.limit,
        key: (row: MemberRow) => [key(row), row.user_id],
        count: () => (db.prepare(`SELECT COUNT(*) AS n FROM ${from} WHERE ${where}`).get(...values) as { n: number }).n,
        fetch: (key, limit) =>
          db
            .prepare(
              `SELECT members.* FROM ${from} WHERE ${where} ${key ? `AND ${after([column, 'members.user_id'], order)}` : ''}
               ORDER BY ${column} ${SORT_ORDERS[order].sql}, members.user_id ${SORT_ORDERS[order].sql} LIMIT ?`,
            )
            .all(...values, ...(key ?? []), limit) as MemberRow[],
      });
      return { status: 200, body: { ...page, items: presentMembers(ctx, page.items) } };
    },

    getMember({ params, caller }) {
      const access = organizationAccess(ctx, caller, params.organizationId);
      if (params.userId !== caller.user.id) requireOrganization(access, 'listMembers');
      return { status: 200, body: presentMember(requireMemberRow(params.organizationId, params.userId)) };
    },

    removeMember({ params, caller }) {
      const access = organizationAccess(ctx, caller, params.organizationId);
      // Members may leave; removing someone else needs admin.
      if (params.userId !== caller.user.id) requireOrganization(access, 'admin');
      const row = getMemberRow(params.organizationId, params.userId);
      if (row) {
        keepAnAdmin(access, row);
        db.prepare(
          `DELETE FROM team_members WHERE user_id = ?
           AND team_id IN (SELECT id FROM teams WHERE organization_id = ?)`,
        ).run(params.userId, params.organizationId);
        db.prepare('DELETE FROM members WHERE organization_id = ? AND user_id = ?').run(
          params.organizationId,
          params.userId,
        );
      }
      return { status: 204 };
    },

    updateMember({ params, body, caller }) {
      const access = organizationAccess(ctx, caller, params.organizationId);
      requireOrganization(access, 'admin');
      const row = requireMemberRow(params.organizationId, params.userId);
      if (body.role !== 'admin') keepAnAdmin(access, row);
      db.prepare('UPDATE members SET role = ? WHERE organization_id = ? AND user_id = ?').run(
        body.role,
        params.organizationId,
        params.userId,
      );
      return { status: 200, body: presentMember(requireMemberRow(params.organizationId, params.userId)) };
    },

    pingOrganization({ params, caller }) {
      const access = organizationAccess(ctx, caller, params.organizationId);
      const now = ctx.clock.now();
      db.prepare('UPDATE members SET last_seen_at = ? WHERE organization_id = ? AND user_id = ?').run(
        now.toISOString(),
        params.organizationId,
        caller.user.id,
      );
      const issuedAt = Math.floor(now.getTime() / 1000);
      const serviceVisitorClaims = signJwt(
        {
          iss: ctx.config.publicUrl,
          sub: caller.user.id,
          org: access.organization.id,
          role: access.membership.role,
          iat: issuedAt,
          exp: issuedAt + VISITOR_CLAIMS_TTL_SECONDS,
        },
        persistentSecret(db, 'visitor-claims-secret'),
      );
      return { status: 200, body: { serviceVisitorClaims } };
    },

    makeMemberSso({ params, caller }) {
      const access = organizationAccess(ctx, caller, params.organizationId);
      requireOrganization(access, 'admin');
      requireMemberRow(params.organizationId, params.userId);
      db.prepare('UPDATE members SET sso = 1 WHERE organization_id = ? AND user_id = ?').run(
        params.organizationId,
        params.userId,
      );
      return { status: 200, body: presentMember(requireMemberRow(params.organizationId, params.userId)) };
    },

    listMemberSpaces({ params, query, caller }) {
      const access = organizationAccess(ctx, caller, params.organizationId);
      if (params.userId !== caller.user.id) requireOrganization(access, 'listMembers');
      const row = requireMemberRow(params.organizationId, params.userId);
      const membership = membershipOfRow(row);
      const page = liveSpacesPage(ctx, {
        list: listId('listMemberSpaces', params.organizationId, params.userId, query.order),
        organizationId: params.organizationId,
        membership,
        order: query.order ?? 'desc',
        page: query.page,
        limit: query.limit,
      });
      const roles = contentRoles(db, membership, page.items);
      return {
        status: 200,
        body: {
          ...page,
          items: presentSpaces(ctx, page.items, (space) => spacePermissions(roles(space), space)).map((space, index) => ({
            // The member's role on a space it views (liveSpacesPage lists only those) is never null.
            permission: roles(page.items[index]!)!,
            space,
          })),
        },
      };
    },

    listMemberTeams({ params, query, caller }) {
      const access = organizationAccess(ctx, caller, params.organizationId);
      if (params.userId !== caller.user.id) requireOrganization(access, 'listTeams');
      requireMemberRow(params.organizationId, params.userId);
      const filters = ['teams.organization_id = ?', 'team_members.user_id = ?'];
      const values: unknown[] = [params.organizationId, params.userId];
      if (query.title) {
        filters.push(`teams.title LIKE ? ESCAPE '\\'`);
        values.push(`%${query.title.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      }
      const where = filters.join(' AND ');
      const from = 'FROM teams JOIN team_members ON team_members.team_id = teams.id';
      const page = ctx.cursors.page({
        list: listId('listMemberTeams', params.organizationId, params.userId, query.title),
        page: query.page,
        limit: query.limit,
        key: (row: TeamRow & { member_role: Model<'TeamMemberRole'> }) => [row.created_at, row.id],
        count: () => (db.prepare(`SELECT COUNT(*) AS n ${from} WHERE ${where}`).get(...values) as { n: number }).n,
        fetch: (key, limit) =>
          db
            .prepare(
              `SELECT teams.*, team_members.role AS member_role ${from}
               WHERE ${where} ${key ? `AND ${after(['teams.created_at', 'teams.id'])}` : ''}
               ORDER BY teams.created_at, teams.id LIMIT ?`,
            )
            .all(...values, ...(key ?? []), limit) as (TeamRow & { member_role: Model<'TeamMemberRole'> })[],
      });
      return {
        status: 200,
        body: {
          ...page,
          items: presentTeams(ctx, page.items, access, caller.user.id).map((team, index) => ({
            team,
            member: { role: page.items[index]!.member_role },
          })),
        },
      };
    },
  };
}

// Teams of an organization, their members (team_members) and the spaces they reach (team_spaces). A team's title is
// kept folded too (`title_folded`, the title in JavaScript's lower case), so that a title filter is case-insensitive
// for every script on both engines.
import { type Insertable, type Selectable, sql } from 'kysely';
import { columns, type Db } from './db.ts';
import { after, type Key } from './keyset.ts';
import { containingAscii } from './members.ts';
import type { Camelized, TeamsTable } from './schema.ts';

export type TeamRecord = Camelized<Omit<Selectable<TeamsTable>, 'title_folded'>>;

const COLUMNS = ['id', 'organization_id', 'title', 'created_at'] as const;

/** `%text%` for LIKE, with LIKE's own characters escaped (`\`). */
const containing = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export function get(db: Db, organizationId: string, teamId: string): Promise<TeamRecord | undefined> {
  return db.first(db.q.selectFrom('teams').select(COLUMNS).where('id', '=', teamId).where('organization_id', '=', organizationId));
}

export async function insert(db: Db, team: TeamRecord): Promise<void> {
  await db.send(db.q.insertInto('teams').values({ ...columns<Omit<Insertable<TeamsTable>, 'title_folded'>>(team), title_folded: team.title.toLowerCase() }));
}

export async function rename(db: Db, teamId: string, title: string): Promise<void> {
  await db.send(db.q.updateTable('teams').set({ title, title_folded: title.toLowerCase() }).where('id', '=', teamId));
}

/** Removes a team, its memberships and its space grants (cascade). */
export async function remove(db: Db, teamId: string): Promise<void> {
  await db.send(db.q.deleteFrom('teams').where('id', '=', teamId));
}

/** Filters of a list of an organization's teams: those a user owns, those whose title contains some text. */
export interface TeamFilters {
  organizationId: string;
  ownedBy?: string;
  title?: string;
}

function filtered(db: Db, filters: TeamFilters) {
  let query = db.q.selectFrom('teams').where('organization_id', '=', filters.organizationId);
  if (filters.ownedBy !== undefined) {
    const owner = filters.ownedBy;
    query = query.where('id', 'in', (eb) => eb.selectFrom('team_members').select('team_id').where('user_id', '=', owner).where('role', '=', 'owner'));
  }
  if (filters.title !== undefined) query = query.where(sql<boolean>`title_folded LIKE ${containing(filters.title.toLowerCase())} ESCAPE '\\'`);
  return query;
}

export async function count(db: Db, filters: TeamFilters): Promise<number> {
  const row = await db.first(filtered(db, filters).select((eb) => eb.fn.countAll<number>().as('n')));
  return row?.n ?? 0;
}

/** A page of the teams, by creation (created_at, id), after `key`. */
export function page(db: Db, filters: TeamFilters, key: Key | undefined, limit: number): Promise<TeamRecord[]> {
  let query = filtered(db, filters).select(COLUMNS);
  if (key) query = query.where(after(['created_at', 'id'], key));
  return db.all(query.orderBy('created_at').orderBy('id').limit(limit));
}

/** The role of a user in a team, when a member. */
export async function roleOf(db: Db, teamId: string, userId: string): Promise<string | undefined> {
  return (await db.first(db.q.selectFrom('team_members').select('role').where('team_id', '=', teamId).where('user_id', '=', userId)))?.role;
}

/** Adds a member to a team (nothing when already one). */
export async function addMember(db: Db, teamId: string, userId: string, role: string): Promise<void> {
  await db.send(
    db.q.insertInto('team_members').values({ team_id: teamId, user_id: userId, role }).onConflict((oc) => oc.columns(['team_id', 'user_id']).doNothing()),
  );
}

/** Gives a team access to a space (nothing when it has it). */
export async function addSpace(db: Db, teamId: string, spaceId: string): Promise<void> {
  await db.send(db.q.insertInto('team_spaces').values({ team_id: teamId, space_id: spaceId }).onConflict((oc) => oc.columns(['team_id', 'space_id']).doNothing()));
}

/** Takes a user out of every team of an organization. */
export async function removeFromOrganizationTeams(db: Db, organizationId: string, userId: string): Promise<void> {
  await db.send(
    db.q.deleteFrom('team_members').where('user_id', '=', userId)
      .where('team_id', 'in', (eb) => eb.selectFrom('teams').select('id').where('organization_id', '=', organizationId)),
  );
}

/** How many members each of these teams has. */
export function memberCounts(db: Db, teamIds: readonly string[]): Promise<{ teamId: string; value: number }[]> {
  return db.all(
    db.q.selectFrom('team_members').select(['team_id', (eb) => eb.fn.countAll<number>().as('value')])
      .where(db.specific.among('team_id', teamIds)).groupBy('team_id'),
  );
}

/** How many live spaces each of these teams reaches. */
export function spaceCounts(db: Db, teamIds: readonly string[]): Promise<{ teamId: string; value: number }[]> {
  return db.all(
    db.q.selectFrom('team_spaces').innerJoin('spaces', 'spaces.id', 'team_spaces.space_id')
      .select(['team_spaces.team_id as team_id', (eb) => eb.fn.countAll<number>().as('value')])
      .where(db.specific.among('team_spaces.team_id', teamIds)).where('spaces.deleted_at', 'is', null)
      .groupBy('team_spaces.team_id'),
  );
}

/** A user's role in each of these teams that they are a member of. */
export function rolesOf(db: Db, teamIds: readonly string[], userId: string): Promise<{ teamId: string; value: string }[]> {
  return db.all(
    db.q.selectFrom('team_members').select(['team_id', 'role as value']).where(db.specific.among('team_id', teamIds)).where('user_id', '=', userId),
  );
}

/** Filters of the teams of one member: those whose title contains some text (case-insensitive, ASCII). */
export interface MemberTeamFilters {
  organizationId: string;
  userId: string;
  title?: string;
}

function memberTeams(db: Db, filters: MemberTeamFilters) {
  let query = db.q.selectFrom('teams').innerJoin('team_members', 'team_members.team_id', 'teams.id')
    .where('teams.organization_id', '=', filters.organizationId).where('team_members.user_id', '=', filters.userId);
  if (filters.title !== undefined) query = query.where(sql<boolean>`lower(teams.title) LIKE ${containingAscii(filters.title)} ESCAPE '\\'`);
  return query;
}

export async function countOfMember(db: Db, filters: MemberTeamFilters): Promise<number> {
  const row = await db.first(memberTeams(db, filters).select((eb) => eb.fn.countAll<number>().as('n')));
  return row?.n ?? 0;
}

/** A page of a member's teams with the member's role in each, by creation (created_at, id), after `key`. */
export function pageOfMember(db: Db, filters: MemberTeamFilters, key: Key | undefined, limit: number): Promise<(TeamRecord & { memberRole: string })[]> {
  let query = memberTeams(db, filters).select(['teams.id', 'teams.organization_id', 'teams.title', 'teams.created_at', 'team_members.role as member_role']);
  if (key) query = query.where(after(['teams.created_at', 'teams.id'], key));
  return db.all(query.orderBy('teams.created_at').orderBy('teams.id').limit(limit));
}

/** Whether a team with this id exists. */
export async function exists(db: Db, id: string): Promise<boolean> {
  return (await db.first(db.q.selectFrom('teams').select('id').where('id', '=', id))) !== undefined;
}

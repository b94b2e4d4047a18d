// Members of organizations (`members`, one row per organization and user; role NULL is a guest).
import { type Insertable, type Selectable, sql, type Updateable } from 'kysely';
import { columns, type Db, prepared } from './db.ts';
import { after, type Key, type SortOrder } from './keyset.ts';
import type { Camelized, MembersTable } from './schema.ts';

/** A member row as stored; `user_display_name` is kept by triggers from the user's display name. */
export type MemberRow = Camelized<Selectable<MembersTable>>;

/** A user's role and state in an organization. */
export type MemberRole = { role: string | null; disabled: number };

/**
 * The role and state of a user in an organization, when a member. Within a unit of work (a request's transaction or
 * reads) on an engine where reading ahead saves round trips (`Specific.readsAhead`: PostgreSQL), a user's memberships
 * are read once, all of them in one statement (`membershipsOf`); through the store's reader, and on SQLite, each call
 * reads its one row.
 */
export async function roleOf(db: Db, organizationId: string, userId: string): Promise<MemberRole | undefined> {
  if (db === db.store.reader || !db.specific.readsAhead) return db.first(ROLE_OF, { organizationId, userId });
  asked.add(db);
  const known = await membershipsOf(db, userId);
  if (known.complete || known.roles.has(organizationId)) return known.roles.get(organizationId);
  // Not among those read: read alone, and kept with them for the unit's next asks.
  const role = await db.first(ROLE_OF, { organizationId, userId });
  known.roles.set(organizationId, role);
  return role;
}

const ROLE_OF = prepared((q, p: { organizationId: string; userId: string }) =>
  q.selectFrom('members').select(['role', 'disabled']).where('organization_id', '=', p.organizationId).where('user_id', '=', p.userId),
);

/** Most memberships of a user read at once; a user with more has the others read one by one, as asked for. */
const MOST_MEMBERSHIPS = 100;

const ROLES_OF_USER = prepared((q, p: { userId: string; limit: number }) =>
  q.selectFrom('members').select(['organization_id', 'role', 'disabled']).where('user_id', '=', p.userId).limit(p.limit),
);

/**
 * A user's memberships as one unit of work read them: by organization (undefined where read and not a member), and
 * whether that is all of them.
 */
interface Memberships {
  roles: Map<string, MemberRole | undefined>;
  complete: boolean;
}

/**
 * Per unit of work (`Db.unit`: the handles of one transaction share it; never the store's reader), the memberships
 * read of each user; forgotten when it writes members.
 */
const readMemberships = new WeakMap<object, Map<string, Promise<Memberships>>>();

/**
 * The memberships of `userId` as the unit of work of `db` reads them: read with the first call, and kept for the
 * others until the unit writes a member (`forgetMemberships`); of `organizationId` alone when given (the others read
 * as asked for). `readAhead` sends the read before anything asks for it.
 */
function membershipsOf(db: Db, userId: string, organizationId?: string): Promise<Memberships> {
  let byUser = readMemberships.get(db.unit);
  if (byUser === undefined) readMemberships.set(db.unit, (byUser = new Map()));
  let read = byUser.get(userId);
  if (read === undefined) {
    read =
      organizationId === undefined
        ? db.all(ROLES_OF_USER, { userId, limit: MOST_MEMBERSHIPS }).then((rows) => ({
            roles: new Map<string, MemberRole | undefined>(rows.map((row) => [row.organizationId, { role: row.role, disabled: row.disabled }])),
            complete: rows.length < MOST_MEMBERSHIPS,
          }))
        : db.first(ROLE_OF, { organizationId, userId }).then((row) => ({ roles: new Map([[organizationId, row]]), complete: false }));
    // Read ahead and never asked for, it fails with the unit of work, which reports the failure.
    read.catch(() => undefined);
    byUser.set(userId, read);
  }
  return read;
}

/**
 * Sends the read of `userId`'s memberships now, for the unit of work of `db` (a request of that caller), where reading
 * ahead costs no round trip of its own (`Specific.readsAhead`): PostgreSQL sends it with the unit's first statement.
 * Of `organizationId` alone when the request names one (one row, where all of them are up to 100); all of them
 * otherwise, the organizations the request will ask about being unknown yet.
 */
export function readAhead(db: Db, userId: string, organizationId?: string): void {
  if (db.specific.readsAhead && db !== db.store.reader) void membershipsOf(db, userId, organizationId);
}

/** The units of work that asked for a membership (`roleOf`). */
const asked = new WeakSet<Db>();

/** Whether the unit of work of `db` asked for a membership: whether reading them ahead for it was of use. */
export const membershipsAsked = (db: Db): boolean => asked.has(db);

/** The unit of work of `db` changed members: what it read of memberships is read again when next asked for. */
function forgetMemberships(db: Db): void {
  readMemberships.delete(db.unit);
}

export function get(db: Db, organizationId: string, userId: string): Promise<MemberRow | undefined> {
  return db.first(db.q.selectFrom('members').selectAll().where('organization_id', '=', organizationId).where('user_id', '=', userId));
}

/**
 * How many of their organization's teams each of these users is in: the members' teams, then which of them are the
 * organization's (CROSS JOIN keeps SQLite to this order, which otherwise went through every team of the organization, a
 * cost that grew with its teams rather than with the page).
 */
export function teamCounts(db: Db, organizationId: string, userIds: readonly string[]): Promise<{ userId: string; n: number }[]> {
  return db.all(
    db.q.selectFrom('team_members')
      .crossJoin('teams')
      .select(['team_members.user_id as user_id', (eb) => eb.fn.countAll<number>().as('n')])
      .whereRef('teams.id', '=', 'team_members.team_id')
      .where(db.specific.among('team_members.user_id', userIds))
      .where('teams.organization_id', '=', organizationId)
      .groupBy('team_members.user_id'),
  );
}

/** How many enabled admins an organization has. */
export async function adminCount(db: Db, organizationId: string): Promise<number> {
  const row = await db.first(
    db.q.selectFrom('members').select((eb) => eb.fn.countAll<number>().as('n'))
      .where('organization_id', '=', organizationId).where('role', '=', 'admin').where('disabled', '=', 0),
  );
  return row?.n ?? 0;
}

export async function remove(db: Db, organizationId: string, userId: string): Promise<void> {
  forgetMemberships(db);
  await db.send(db.q.deleteFrom('members').where('organization_id', '=', organizationId).where('user_id', '=', userId));
}

/** Changes columns of a member. */
export async function update(
  db: Db,
  organizationId: string,
  userId: string,
  changes: Partial<Pick<MemberRow, 'role' | 'lastSeenAt' | 'sso' | 'disabled'>>,
): Promise<void> {
  forgetMemberships(db);
  await db.send(
    db.q.updateTable('members').set(columns<Updateable<MembersTable>>(changes)).where('organization_id', '=', organizationId).where('user_id', '=', userId),
  );
}

/** The column of each order members are listed in: by join date, by last activity (active members only), by display name. */
const SORT_COLUMNS = { joinedAt: 'joined_at', lastSeenAt: 'last_seen_at', userDisplayName: 'user_display_name' } as const;

/** The orders members are listed in, by the field of a member's row they follow. */
export type MemberSort = keyof typeof SORT_COLUMNS;

export interface MemberFilters {
  organizationId: string;
  role?: string;
  /** Text the display name or the email address contains (case-insensitive, ASCII letters). */
  search?: string;
  /** Only members who have been active (last_seen_at set). */
  activeOnly?: boolean;
}

/**
 * `%text%` for LIKE against `lower(column)`: LIKE's own characters escaped (`\`), ASCII letters in lower case. lower()
 * folds ASCII letters only, in SQLite and under PostgreSQL's "C" collation of every column; the text is folded here
 * rather than by lower() in SQL, where a bound value has PostgreSQL's database collation, whose lower() may fold
 * other letters too (`É` to `é`) that the column keeps.
 */
export const containingAscii = (text: string): string =>
  `%${text.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/[A-Z]+/g, (letters) => letters.toLowerCase())}%`;

function filtered(db: Db, filters: MemberFilters) {
  // Every member has its user (a foreign key, deleted with it) and carries its name: users are read only to search
  // them (joined, the count of a large organization's members read every member's user too).
  let query = db.q.selectFrom('members').where('members.organization_id', '=', filters.organizationId);
  if (filters.role !== undefined) query = query.where('members.role', '=', filters.role);
  if (filters.activeOnly) query = query.where('members.last_seen_at', 'is not', null);
  if (filters.search !== undefined) {
    const pattern = containingAscii(filters.search);
    query = query.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('users').select('users.id').whereRef('users.id', '=', 'members.user_id')
          .where(sql<boolean>`(lower(users.display_name) LIKE ${pattern} ESCAPE '\\' OR lower(users.email) LIKE ${pattern} ESCAPE '\\')`),
      ),
    );
  }
  return query;
}

export async function count(db: Db, filters: MemberFilters): Promise<number> {
  const row = await db.first(filtered(db, filters).select((eb) => eb.fn.countAll<number>().as('n')));
  return row?.n ?? 0;
}

/** A page of members in the order of `sort` then user id, after `key`. */
export function page(db: Db, filters: MemberFilters, by: MemberSort, order: SortOrder, key: Key | undefined, limit: number): Promise<MemberRow[]> {
  const sort = SORT_COLUMNS[by];
  let query = filtered(db, filters).selectAll('members');
  if (key) query = query.where(after([`members.${sort}`, 'members.user_id'], key, order));
  return db.all(query.orderBy(`members.${sort}`, order).orderBy('members.user_id', order).limit(limit));
}

/** Makes a user a member of an organization, unless already one (then nothing changes). */
export async function insertIfMissing(db: Db, member: { organizationId: string; userId: string; role: string | null; joinedAt: string }): Promise<void> {
  forgetMemberships(db);
  await db.send(
    db.q.insertInto('members').values(columns<Insertable<MembersTable>>(member)).onConflict((oc) => oc.columns(['organization_id', 'user_id']).doNothing()),
  );
}

/** The organizations a user is an enabled member of, with the user's role, in the order they joined them. */
export function ofUser(db: Db, userId: string): Promise<{ organizationId: string; role: string | null }[]> {
  return db.all(
    db.q.selectFrom('members').select(['organization_id', 'role']).where('user_id', '=', userId).where('disabled', '=', 0)
      .orderBy('joined_at').orderBy('organization_id'),
  );
}

// Spaces, their counters (kept by triggers: space_counters, organization_space_counts) and the teams that reach them.
import type { Insertable, Selectable, Updateable } from 'kysely';
import { camelName, columns, type Db, type Prepared, prepared } from './db.ts';
import { noteOrganization } from './organizations.ts';
import { after, type Key, type SortOrder } from './keyset.ts';
import type { Camelized, SpacesTable } from './schema.ts';

/** A space's row, as the API's code reads it (the two search and revision columns are the store's business). */
export type SpaceRecord = Camelized<Omit<Selectable<SpacesTable>, 'search_revision_id' | 'unwritten_revision_id'>>;

const COLUMNS = [
  'id',
  'organization_id',
  'parent_id',
  'title',
  'emoji',
  'visibility',
  'edit_mode',
  'language',
  'default_level',
  'revision_id',
  'share_key',
  'git_sync',
  'visitor_auth',
  'position',
  'created_at',
  'updated_at',
  'deleted_at',
] as const satisfies readonly (keyof SpacesTable)[];

/** The names of COLUMNS in a row read. */
const NAMES = COLUMNS.map(camelName) as (keyof SpaceRecord)[];

const GET = prepared((q, p: { id: string }) => q.selectFrom('spaces').select(COLUMNS).where('id', '=', p.id));

export async function get(db: Db, id: string): Promise<SpaceRecord | undefined> {
  const row = await db.first(GET, { id });
  if (row !== undefined) noteOrganization(db, `spaceId:${id}`, row.organizationId);
  return row;
}

/** What a request on a space reads first: the space, the caller's row of its organization, the space's counters. */
export interface SpaceForUser {
  space: SpaceRecord;
  /** The user's role and state in the space's organization; undefined when not a member. */
  member: { role: string | null; disabled: number } | undefined;
  /** The space's counters, as the triggers keep them (undefined: no row, all at 0). */
  counters: SpaceCounters | undefined;
}

const FOR_USER = prepared((q, p: { id: string; userId: string }) =>
  q.selectFrom('spaces')
    .leftJoin('members', (join) => join.onRef('members.organization_id', '=', 'spaces.organization_id').on('members.user_id', '=', p.userId))
    .leftJoin('space_counters', 'space_counters.space_id', 'spaces.id')
    .select(COLUMNS.map((column) => `spaces.${column}` as const))
    .select([
      'members.user_id as member_user_id',
      'members.role as member_role',
      'members.disabled as member_disabled',
      'space_counters.space_id as counters_space_id',
      'space_counters.comments as counters_comments',
      'space_counters.change_requests as counters_change_requests',
      'space_counters.change_requests_open as counters_change_requests_open',
      'space_counters.change_requests_draft as counters_change_requests_draft',
    ])
    .where('spaces.id', '=', p.id),
);

/**
 * A space with what a request on it needs first, in one query: the user's membership of its organization and the
 * space's counters (three queries otherwise, each a round trip on PostgreSQL).
 */
export async function getForUser(db: Db, id: string, userId: string): Promise<SpaceForUser | undefined> {
  const row = await db.first(FOR_USER, { id, userId });
  if (row === undefined) return undefined;
  noteOrganization(db, `spaceId:${id}`, row.organizationId);
  return forUserOf(row);
}

type ForUserRow = typeof FOR_USER extends Prepared<{ id: string; userId: string }, infer Row> ? Camelized<Row> : never;

const forUserOf = (row: ForUserRow): SpaceForUser => ({
  space: spaceOf(row),
  member: row.memberUserId === null ? undefined : { role: row.memberRole, disabled: row.memberDisabled! },
  counters: countersFrom(row),
});

/** The space's columns of a row that holds more, copied by name: an object rest (`{ memberRole, ...space } = row`) takes V8's slow path. */
function spaceOf(row: SpaceRecord): SpaceRecord {
  const space = {} as Record<string, unknown>;
  for (const name of NAMES) space[name] = row[name];
  return space as SpaceRecord;
}

/** The counters read with a space (`counters_…` columns), undefined when it has no row of them. */
function countersFrom(row: {
  countersSpaceId: string | null;
  countersComments: number | null;
  countersChangeRequests: number | null;
  countersChangeRequestsOpen: number | null;
  countersChangeRequestsDraft: number | null;
}): SpaceCounters | undefined {
  return row.countersSpaceId === null
    ? undefined
    : {
        spaceId: row.countersSpaceId,
        comments: row.countersComments!,
        changeRequests: row.countersChangeRequests!,
        changeRequestsOpen: row.countersChangeRequestsOpen!,
        changeRequestsDraft: row.countersChangeRequestsDraft!,
      };
}

/**
 * Writes a new space's row. `searchRevisionId`: the revision the search index holds the space's rows of (a space of a
 * new id has none, and its first revision's pages are added as such); `unwrittenRevisionId`: its first revision, when
 * that has no row (content/revisions.ts).
 */
export async function insert(
  db: Db,
  row: SpaceRecord,
  revisions: { searchRevisionId: string | null; unwrittenRevisionId: string | null },
): Promise<void> {
  noteOrganization(db, `spaceId:${row.id}`, row.organizationId);
  await db.send(INSERT, {
    ...columns<Insertable<SpacesTable>>(row),
    search_revision_id: revisions.searchRevisionId,
    unwritten_revision_id: revisions.unwrittenRevisionId,
  });
}

const INSERT = prepared((q, p: Insertable<SpacesTable>) => q.insertInto('spaces').values(p));

type SpaceChanges = Camelized<Updateable<Omit<SpacesTable, 'id'>>>;

// Compiled once per set of columns changed (a PATCH sets those it was sent).
const UPDATE = prepared((q, { id, ...changes }: Updateable<Omit<SpacesTable, 'id'>> & { id: string }) => q.updateTable('spaces').set(changes).where('id', '=', id));

/** Changes columns of a space. */
export async function update(db: Db, id: string, changes: SpaceChanges): Promise<void> {
  await db.send(UPDATE, { ...columns<Updateable<Omit<SpacesTable, 'id'>>>(changes), id });
}

/** Permanently removes a space and, by cascade, everything in it. */
export async function remove(db: Db, id: string): Promise<void> {
  await db.send(db.q.deleteFrom('spaces').where('id', '=', id));
}

/** Ids of the spaces deleted before `cutoff`. */
export async function deletedBefore(db: Db, cutoff: string): Promise<string[]> {
  const rows = await db.all(db.q.selectFrom('spaces').select('id').where('deleted_at', 'is not', null).where('deleted_at', '<', cutoff));
  return rows.map((row) => row.id);
}

export type SpaceCounters = { spaceId: string; comments: number; changeRequests: number; changeRequestsOpen: number; changeRequestsDraft: number };

/** The counters of these spaces, as the triggers keep them (a space without a row has all at 0). */
export function counters(db: Db, spaceIds: readonly string[]): Promise<SpaceCounters[]> {
  return db.all(
    db.q.selectFrom('space_counters')
      .select(['space_id', 'comments', 'change_requests', 'change_requests_open', 'change_requests_draft'])
      .where(db.specific.among('space_id', spaceIds)),
  );
}

const COUNTERS_OF = prepared((q, p: { spaceId: string }) =>
  q.selectFrom('space_counters')
    .select(['space_id', 'comments', 'change_requests', 'change_requests_open', 'change_requests_draft'])
    .where('space_id', '=', p.spaceId),
);

/** The counters of one space (none: all at 0). */
export function countersOf(db: Db, spaceId: string): Promise<SpaceCounters | undefined> {
  return db.first(COUNTERS_OF, { spaceId });
}

/** Number of live spaces of an organization, as the triggers keep it. */
export async function liveCount(db: Db, organizationId: string): Promise<number> {
  const row = await db.first(db.q.selectFrom('organization_space_counts').select('live_spaces').where('organization_id', '=', organizationId));
  return row?.liveSpaces ?? 0;
}

/** A page of the live spaces of an organization by creation (created_at, id), after `key`. */
export function livePage(db: Db, organizationId: string, order: SortOrder, key: Key | undefined, limit: number): Promise<SpaceRecord[]> {
  let query = db.q.selectFrom('spaces').select(COLUMNS).where('organization_id', '=', organizationId).where('deleted_at', 'is', null);
  if (key) query = query.where(after(['created_at', 'id'], key, order));
  return db.all(query.orderBy('created_at', order).orderBy('id', order).limit(limit));
}

/** Takes the space away from every team (teams are per organization: a transferred space leaves them). */
export async function removeFromTeams(db: Db, spaceId: string): Promise<void> {
  await db.send(db.q.deleteFrom('team_spaces').where('space_id', '=', spaceId));
}

/** The titles of these spaces, by id. */
export async function titles(db: Db, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.all(db.q.selectFrom('spaces').select(['id', 'title']).where(db.specific.among('id', ids)));
  return new Map(rows.map((row) => [row.id, row.title]));
}

/** Whether a space with this id exists (deleted or not). */
export async function exists(db: Db, id: string): Promise<boolean> {
  return (await db.first(db.q.selectFrom('spaces').select('id').where('id', '=', id))) !== undefined;
}

/** How many live spaces a collection holds directly. */
export async function liveCountInCollection(db: Db, collectionId: string): Promise<number> {
  const row = await db.first(
    db.q.selectFrom('spaces').select((eb) => eb.fn.countAll<number>().as('n')).where('parent_id', '=', collectionId).where('deleted_at', 'is', null),
  );
  return row?.n ?? 0;
}

/** A page of the live spaces a collection holds directly, in their order (position, id), after `key`. */
export function livePageInCollection(db: Db, collectionId: string, key: Key | undefined, limit: number): Promise<SpaceRecord[]> {
  let query = db.q.selectFrom('spaces').select(COLUMNS).where('parent_id', '=', collectionId).where('deleted_at', 'is', null);
  if (key) query = query.where(after(['position', 'id'], key));
  return db.all(query.orderBy('position').orderBy('id').limit(limit));
}

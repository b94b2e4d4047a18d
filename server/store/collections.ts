// Collections: a tree per organization (`parent_id`), sharing one order among siblings with spaces (`position`).
import { type Insertable, type RawBuilder, type Selectable, sql, type Updateable } from 'kysely';
import { columns, type Db } from './db.ts';
import { noteOrganization } from './organizations.ts';
import { after, type Key } from './keyset.ts';
import type { Camelized, CollectionsTable } from './schema.ts';

export type CollectionRecord = Camelized<Selectable<CollectionsTable>>;

export async function get(db: Db, id: string): Promise<CollectionRecord | undefined> {
  const row = await db.first(db.q.selectFrom('collections').selectAll().where('id', '=', id));
  // Stryker disable next-line StringLiteral: the noted organization only picks the queue a write takes after a conflict (another key: the conflicted writes' queue), never what it writes
  if (row !== undefined) noteOrganization(db, `collectionId:${id}`, row.organizationId);
  return row;
}

/**
 * The default level each collection gives what it contains: its own, else its nearest ancestor's (no row: none, or
 * no such collection). One query for many collections (a page of spaces or collections in several collections), up
 * to 1 000 ancestors each.
 */
export function inheritedDefaultLevels(db: Db, collectionIds: readonly string[]): Promise<{ start: string; level: string }[]> {
  return db.all(
    sql<{ start: string; level: string }>`WITH RECURSIVE chain (start, id, level, hops) AS (
       SELECT collections.id, collections.parent_id, collections.default_level, 1 FROM collections
       WHERE ${db.specific.among('collections.id', collectionIds)}
       UNION ALL
       SELECT chain.start, collections.parent_id, collections.default_level, chain.hops + 1
       FROM chain JOIN collections ON collections.id = chain.id
       WHERE chain.level IS NULL AND chain.hops < 1000
     )
     SELECT start, level FROM chain WHERE level IS NOT NULL`,
  );
}

/**
 * `WITH RECURSIVE subtree (id) AS (…)`: the ids of a collection and of every collection nested in it, at any depth,
 * for statements over a tree's collections and spaces, so that the ids stay in the database rather than coming back
 * to be bound, a parameter each (SQLite takes at most 32 766). Use it as `… IN (SELECT id FROM subtree)`.
 */
export const withSubtree = (collectionId: string): RawBuilder<unknown> =>
  sql`WITH RECURSIVE subtree (id) AS (
    SELECT id FROM collections WHERE id = ${collectionId}
    UNION SELECT collections.id FROM collections JOIN subtree ON collections.parent_id = subtree.id)`;

/** Ids of a collection and of every collection nested in it, at any depth. */
export async function subtreeIds(db: Db, collectionId: string): Promise<string[]> {
  const rows = await db.all(sql<{ id: string }>`${withSubtree(collectionId)} SELECT id FROM subtree`);
  return rows.map((row) => row.id);
}

/** Whether a collection with this id exists. */
export async function exists(db: Db, id: string): Promise<boolean> {
  return (await db.first(db.q.selectFrom('collections').select('id').where('id', '=', id))) !== undefined;
}

/** A position after every collection of the organization (at any level). */
export async function nextPositionInOrganization(db: Db, organizationId: string): Promise<number> {
  const row = await db.first(db.q.selectFrom('collections').select((eb) => eb.fn.max('position').as('last')).where('organization_id', '=', organizationId));
  return (row?.last ?? 0) + 1;
}

export async function insert(db: Db, collection: CollectionRecord): Promise<void> {
  // Stryker disable next-line StringLiteral: the noted organization only picks the queue a write takes after a conflict (another key: the conflicted writes' queue), never what it writes
  noteOrganization(db, `collectionId:${collection.id}`, collection.organizationId);
  await db.send(db.q.insertInto('collections').values(columns<Insertable<CollectionsTable>>(collection)));
}

/** Changes columns of a collection. */
export async function update(db: Db, id: string, changes: Camelized<Updateable<Omit<CollectionsTable, 'id'>>>): Promise<void> {
  if (Object.keys(changes).length === 0) return;
  await db.send(db.q.updateTable('collections').set(columns<Updateable<Omit<CollectionsTable, 'id'>>>(changes)).where('id', '=', id));
}

/** Removes a collection; its nested collections go with it (cascade), its spaces are left at the top level. */
export async function remove(db: Db, id: string): Promise<void> {
  await db.send(db.q.deleteFrom('collections').where('id', '=', id));
}

/** How many collections an organization has (at the top level only, with `topLevelOnly`). */
export async function count(db: Db, organizationId: string, topLevelOnly: boolean): Promise<number> {
  let query = db.q.selectFrom('collections').select((eb) => eb.fn.countAll<number>().as('n')).where('organization_id', '=', organizationId);
  if (topLevelOnly) query = query.where('parent_id', 'is', null);
  return (await db.first(query))?.n ?? 0;
}

/** A page of an organization's collections by creation (created_at, id), after `key`. */
export function page(db: Db, organizationId: string, topLevelOnly: boolean, key: Key | undefined, limit: number): Promise<CollectionRecord[]> {
  let query = db.q.selectFrom('collections').selectAll().where('organization_id', '=', organizationId);
  if (topLevelOnly) query = query.where('parent_id', 'is', null);
  if (key) query = query.where(after(['created_at', 'id'], key));
  return db.all(query.orderBy('created_at').orderBy('id').limit(limit));
}

/**
 * Moves the live spaces of a collection and of the collections nested in it, at any depth, to the trash (deleted at
 * `deletedAt`), in one statement; answers their ids.
 */
export async function trashSpacesOfTree(db: Db, collectionId: string, deletedAt: string): Promise<string[]> {
  const rows = await db.all(
    sql<{ id: string }>`${withSubtree(collectionId)} UPDATE spaces SET deleted_at = ${deletedAt}
      WHERE parent_id IN (SELECT id FROM subtree) AND deleted_at IS NULL RETURNING id`,
  );
  return rows.map((row) => row.id);
}

/**
 * Moves a collection, with its nested collections and all their spaces (deleted ones too), to the top level of
 * another organization, at `position`; teams of the old organization no longer grant access to those spaces.
 */
export async function transferTree(db: Db, collectionId: string, organizationId: string, position: number, updatedAt: string): Promise<void> {
  await db.send(db.q.updateTable('collections').set({ parent_id: null, position }).where('id', '=', collectionId));
  await db.send(
    sql`${withSubtree(collectionId)} DELETE FROM team_spaces
        WHERE space_id IN (SELECT id FROM spaces WHERE parent_id IN (SELECT id FROM subtree))`,
  );
  await db.send(
    sql`${withSubtree(collectionId)} UPDATE spaces SET organization_id = ${organizationId}, updated_at = ${updatedAt}
        WHERE parent_id IN (SELECT id FROM subtree)`,
  );
  await db.send(sql`${withSubtree(collectionId)} UPDATE collections SET organization_id = ${organizationId} WHERE id IN (SELECT id FROM subtree)`);
}

// Order among siblings: the live spaces and the collections of one parent (a collection, or the organization's top
// level) share one order, by `position` (REAL: an item moved between two others takes the midpoint), then id. Each
// query reads the position indexes (spaces_sibling_position, collections_sibling_position) one step on each side, so
// a move or a create costs the same however many siblings there are; `renumber`, which domain/ordering.ts calls when
// the gap between two neighbours has no midpoint left, is the one query that reads and writes them all.
import { type RawBuilder, sql } from 'kysely';
import { type Db, prepared } from './db.ts';

export type Sibling = { kind: 'space' | 'collection'; id: string; position: number };

/** The siblings: a parent in an organization, without one item (the one being placed). */
export type Siblings = { organizationId: string; parentId: string | null; excludeId?: string };

/** The conditions that make a row of `table` one of the siblings. */
function among(table: 'spaces' | 'collections', of: Omit<Siblings, 'parentId'> & { parentId?: string | null }): RawBuilder<unknown> {
  const parent = of.parentId == null ? sql`parent_id IS NULL` : sql`parent_id = ${of.parentId}`;
  const live = table === 'spaces' ? sql` AND deleted_at IS NULL` : sql``;
  const other = of.excludeId === undefined ? sql`` : sql` AND id <> ${of.excludeId}`;
  return sql`organization_id = ${of.organizationId} AND ${parent}${live}${other}`;
}

/** The sibling next to a place (position, then id), on the given side of it. */
export async function neighbour(db: Db, of: Siblings, side: 'before' | 'after', at: { position: number; id: string }): Promise<Sibling | undefined> {
  const [comparison, direction] = side === 'before' ? [sql`<`, sql`DESC`] : [sql`>`, sql`ASC`];
  const closest = sql`(position, id) ${comparison} (${at.position}, ${at.id}) ORDER BY position ${direction}, id ${direction} LIMIT 1`;
  return db.first(
    sql<Sibling>`SELECT kind, id, position FROM (
        SELECT * FROM (SELECT 'space' AS kind, id, position FROM spaces WHERE ${among('spaces', of)} AND ${closest}) AS space
        UNION ALL
        SELECT * FROM (SELECT 'collection' AS kind, id, position FROM collections WHERE ${among('collections', of)} AND ${closest}) AS collection
      ) AS nearest
      ORDER BY position ${direction}, id ${direction} LIMIT 1`,
  );
}

/** The last sibling (position, then id), if there is one. */
export function last(db: Db, of: Siblings): Promise<Sibling | undefined> {
  const latest = sql`ORDER BY position DESC, id DESC LIMIT 1`;
  return db.first(
    sql<Sibling>`SELECT kind, id, position FROM (
        SELECT * FROM (SELECT 'space' AS kind, id, position FROM spaces WHERE ${among('spaces', of)} ${latest}) AS space
        UNION ALL
        SELECT * FROM (SELECT 'collection' AS kind, id, position FROM collections WHERE ${among('collections', of)} ${latest}) AS collection
      ) AS nearest
      ${latest}`,
  );
}

/**
 * Gives every child of a parent the position of its rank, 1, 2, 3…, in the order they have (position, then id): the
 * live siblings, and the parent's spaces in the trash too, so that one restored comes back to its place among them.
 * Writes only the rows whose position changes; returns how many it wrote.
 */
export async function renumber(db: Db, of: Omit<Siblings, 'excludeId'>): Promise<number> {
  const parent = of.parentId == null ? sql`parent_id IS NULL` : sql`parent_id = ${of.parentId}`;
  const children = await db.all(
    sql<Sibling>`SELECT 'space' AS kind, id, position FROM spaces WHERE organization_id = ${of.organizationId} AND ${parent}
      UNION ALL
      SELECT 'collection' AS kind, id, position FROM collections WHERE organization_id = ${of.organizationId} AND ${parent}
      ORDER BY position, id`,
  );
  let written = 0;
  for (const [index, child] of children.entries()) {
    if (child.position === index + 1) continue;
    await db.send(child.kind === 'space' ? SET_SPACE_POSITION : SET_COLLECTION_POSITION, { id: child.id, position: index + 1 });
    written++;
  }
  return written;
}

const SET_SPACE_POSITION = prepared((q, row: { id: string; position: number }) =>
  q.updateTable('spaces').set({ position: row.position }).where('id', '=', row.id),
);
const SET_COLLECTION_POSITION = prepared((q, row: { id: string; position: number }) =>
  q.updateTable('collections').set({ position: row.position }).where('id', '=', row.id),
);

/** The sibling with this id, if it is one. */
export function sibling(db: Db, of: Siblings, id: string): Promise<Sibling | undefined> {
  return db.first(
    sql<Sibling>`SELECT 'space' AS kind, id, position FROM spaces WHERE id = ${id} AND ${among('spaces', of)}
      UNION ALL
      SELECT 'collection' AS kind, id, position FROM collections WHERE id = ${id} AND ${among('collections', of)}
      ORDER BY position, id LIMIT 1`,
  );
}

/** The last position of the spaces and of the collections among the siblings (a row each, none when there are none). */
function lastOfEach(of: Omit<Siblings, 'parentId'> & { parentId?: string | null }): RawBuilder<unknown> {
  return sql`(
      SELECT * FROM (SELECT position FROM spaces WHERE ${among('spaces', of)} ORDER BY position DESC LIMIT 1) AS space
      UNION ALL
      SELECT * FROM (SELECT position FROM collections WHERE ${among('collections', of)} ORDER BY position DESC LIMIT 1) AS collection
    ) AS last`;
}

/** The highest position among the siblings (undefined: none), read from the position indexes. */
export async function lastPosition(db: Db, of: Siblings): Promise<number | undefined> {
  // A prepared query binds values only: the top level (no parent) and no item left out are told by their absence.
  const row = await db.first(LAST_POSITION, {
    organizationId: of.organizationId,
    ...(of.parentId === null ? {} : { parentId: of.parentId }),
    ...(of.excludeId === undefined ? {} : { excludeId: of.excludeId }),
  });
  return row?.position ?? undefined;
}

// Compiled once per shape: under a parent or at the top level, with or without an item left out (a create, a move).
const LAST_POSITION = prepared(
  (_q, of: { organizationId: string; parentId?: string; excludeId?: string }) =>
    sql<{ position: number | null }>`SELECT MAX(position) AS position FROM ${lastOfEach(of)}`,
);

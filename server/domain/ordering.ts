// Order among siblings. Spaces and collections with the same parent (a collection, or the organization's top
// level) share one order, kept as REAL positions: an item moved between two others takes the midpoint.
import { badRequest } from '../http/errors.ts';
import type { Db } from '../store/db.ts';

type Sibling = { kind: 'space' | 'collection'; id: string; position: number };
type Siblings = { organizationId: string; parentId: string | null; excludeId: string };

/**
 * The sibling next to a place in the siblings' order (position, then id), on the given side of it: read from the
 * position indexes, one row of each kind, so a move costs the same however many siblings there are.
 */
function neighbour(db: Db, of: Siblings, side: 'before' | 'after', at: { position: number; id: string }): Sibling | undefined {
  const [comparison, direction] = side === 'before' ? ['<', 'DESC'] : ['>', 'ASC'];
  const closest = `(position, id) ${comparison} (?, ?) ORDER BY position ${direction}, id ${direction} LIMIT 1`;
  const parameters = [of.organizationId, of.parentId, of.excludeId, at.position, at.id];
  return db
    .prepare(
      `SELECT * FROM (SELECT 'space' AS kind, id, position FROM spaces
         WHERE organization_id = ? AND parent_id IS ? AND deleted_at IS NULL AND id IS NOT ? AND ${closest})
       UNION ALL
       SELECT * FROM (SELECT 'collection' AS kind, id, position FROM collections
         WHERE organization_id = ? AND parent_id IS ? AND id IS NOT ? AND ${closest})
       ORDER BY position ${direction}, id ${direction} LIMIT 1`,
    )
    .get(...parameters, ...parameters) as Sibling | undefined;
}

/** The sibling with this id, if it is one. */
function sibling(db: Db, of: Siblings, id: string): Sibling | undefined {
  const parameters = [id, of.organizationId, of.parentId, of.excludeId];
  return db
    .prepare(
      `SELECT 'space' AS kind, id, position FROM spaces
         WHERE id = ? AND organization_id = ? AND parent_id IS ? AND deleted_at IS NULL AND id IS NOT ?
       UNION ALL
       SELECT 'collection' AS kind, id, position FROM collections
         WHERE id = ? AND organization_id = ? AND parent_id IS ? AND id IS NOT ?
       ORDER BY position, id LIMIT 1`,
    )
    .get(...parameters, ...parameters) as Sibling | undefined;
}

/** A position after every sibling: read from the position indexes, without reading the siblings. */
export function lastPosition(db: Db, organizationId: string, parentId: string | null, excludeId?: string): number {
  const last = db
    .prepare(
      `SELECT MAX(position) AS position FROM (
         SELECT * FROM (SELECT position FROM spaces
           WHERE organization_id = ? AND parent_id IS ? AND deleted_at IS NULL AND id IS NOT ? ORDER BY position DESC LIMIT 1)
         UNION ALL
         SELECT * FROM (SELECT position FROM collections
           WHERE organization_id = ? AND parent_id IS ? AND id IS NOT ? ORDER BY position DESC LIMIT 1))`,
    )
    .get(organizationId, parentId, excludeId ?? null, organizationId, parentId, excludeId ?? null) as { position: number | null };
  return (last.position ?? 0) + 1;
}

export interface PositionRequest {
  before?: { space: string };
  after?: { space: string };
}

/**
 * The position for an item placed just before `before.space` or just after `after.space` among the siblings
 * (last when neither is given). The reference must be a sibling (a space or collection with the same parent).
 */
export function positionAmong(
  db: Db,
  organizationId: string,
  parentId: string | null,
  itemId: string,
  request: PositionRequest | undefined,
): number {
  const reference = request?.before ?? request?.after;
  if (!reference) return lastPosition(db, organizationId, parentId, itemId);
  const of = { organizationId, parentId, excludeId: itemId };
  const field = request?.before ? 'position.before.space' : 'position.after.space';
  const at = sibling(db, of, reference.space);
  if (!at) throw badRequest(`${field}: ${reference.space} is not a sibling in the target parent`);
  if (request?.before) {
    const previous = neighbour(db, of, 'before', at)?.position ?? at.position - 2;
    return (previous + at.position) / 2;
  }
  const next = neighbour(db, of, 'after', at)?.position ?? at.position + 2;
  return (at.position + next) / 2;
}

/** Whether moving an item (with its current parent and position) to `to` among the same siblings changes nothing. */
export function staysInPlace(
  db: Db,
  item: { id: string; organization_id: string; parent_id: string | null; position: number },
  to: number,
): boolean {
  const of = { organizationId: item.organization_id, parentId: item.parent_id, excludeId: item.id };
  // The sibling last before a position: (position, id) < (p, '') holds for every id exactly when position < p.
  const previous = (position: number) => neighbour(db, of, 'before', { position, id: '' })?.id;
  return previous(item.position) === previous(to);
}

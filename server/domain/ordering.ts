// Order among siblings. Spaces and collections with the same parent (a collection, or the organization's top
// level) share one order, kept as REAL positions: an item moved between two others takes the midpoint.
import { badRequest } from '../http/errors.ts';
import type { Db } from '../store/db.ts';

type Sibling = { kind: 'space' | 'collection'; id: string; position: number };

export function siblingsOf(db: Db, organizationId: string, parentId: string | null, excludeId?: string): Sibling[] {
  const rows = db
    .prepare(
      `SELECT 'space' AS kind, id, position FROM spaces
         WHERE organization_id = ? AND parent_id IS ? AND deleted_at IS NULL AND id IS NOT ?
       UNION ALL
       SELECT 'collection' AS kind, id, position FROM collections
         WHERE organization_id = ? AND parent_id IS ? AND id IS NOT ?
       ORDER BY position, id`,
    )
    .all(organizationId, parentId, excludeId ?? null, organizationId, parentId, excludeId ?? null) as Sibling[];
  return rows;
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
  const siblings = siblingsOf(db, organizationId, parentId, itemId);
  const reference = request?.before ?? request?.after;
  if (!reference) return (siblings.at(-1)?.position ?? 0) + 1;
  const field = request?.before ? 'position.before.space' : 'position.after.space';
  const index = siblings.findIndex((sibling) => sibling.id === reference.space);
  if (index < 0) throw badRequest(`${field}: ${reference.space} is not a sibling in the target parent`);
  if (request?.before) {
    const previous = siblings[index - 1]?.position ?? siblings[index]!.position - 2;
    return (previous + siblings[index]!.position) / 2;
  }
  const next = siblings[index + 1]?.position ?? siblings[index]!.position + 2;
  return (siblings[index]!.position + next) / 2;
}

/** Whether moving an item (with its current parent and position) to `to` among the same siblings changes nothing. */
export function staysInPlace(
  db: Db,
  item: { id: string; organization_id: string; parent_id: string | null; position: number },
  to: number,
): boolean {
  const siblings = siblingsOf(db, item.organization_id, item.parent_id, item.id);
  const previous = (position: number) => siblings.filter((sibling) => sibling.position < position).at(-1)?.id;
  return previous(item.position) === previous(to);
}

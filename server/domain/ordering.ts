// Order among siblings. Spaces and collections with the same parent (a collection, or the organization's top
// level) share one order, kept as REAL positions: an item moved between two others takes the midpoint.
import { badRequest } from '../errors.ts';
import type { Db } from '../store/db.ts';
import * as siblings from '../store/siblings.ts';

/** A position after every sibling: read from the position indexes, without reading the siblings. */
export async function lastPosition(db: Db, organizationId: string, parentId: string | null, excludeId?: string): Promise<number> {
  return ((await siblings.lastPosition(db, { organizationId, parentId, excludeId })) ?? 0) + 1;
}

export interface PositionRequest {
  before?: { space: string };
  after?: { space: string };
}

/**
 * The position for an item placed just before `before.space` or just after `after.space` among the siblings
 * (last when neither is given). The reference must be a sibling (a space or collection with the same parent).
 */
export async function positionAmong(
  db: Db,
  organizationId: string,
  parentId: string | null,
  itemId: string,
  request: PositionRequest | undefined,
): Promise<number> {
  const reference = request?.before ?? request?.after;
  if (!reference) return lastPosition(db, organizationId, parentId, itemId);
  const of = { organizationId, parentId, excludeId: itemId };
  const field = request?.before ? 'position.before.space' : 'position.after.space';
  const at = await siblings.sibling(db, of, reference.space);
  if (!at) throw badRequest(`${field}: ${reference.space} is not a sibling in the target parent`);
  if (request?.before) {
    const previous = (await siblings.neighbour(db, of, 'before', at))?.position ?? at.position - 2;
    return (previous + at.position) / 2;
  }
  const next = (await siblings.neighbour(db, of, 'after', at))?.position ?? at.position + 2;
  return (at.position + next) / 2;
}

/** Whether moving an item (with its current parent and position) to `to` among the same siblings changes nothing. */
export async function staysInPlace(
  db: Db,
  item: { id: string; organization_id: string; parent_id: string | null; position: number },
  to: number,
): Promise<boolean> {
  const of = { organizationId: item.organization_id, parentId: item.parent_id, excludeId: item.id };
  // The sibling last before a position: (position, id) < (p, '') holds for every id exactly when position < p.
  const previous = async (position: number) => (await siblings.neighbour(db, of, 'before', { position, id: '' }))?.id;
  return (await previous(item.position)) === (await previous(to));
}

// Order among siblings: the spaces and collections of one parent share one order, kept as REAL positions, ties broken
// by id. An item placed between two takes the midpoint of their positions, one placed first or last the position next
// to the end's; when a gap has no midpoint left, the parent's children are renumbered 1, 2, 3… in the same transaction
// (server/docs/wire-behaviour.md, "Order").
import type { Db } from '../store/db.ts';
import { badRequest } from '../common/errors.ts';
import * as siblings from '../store/siblings.ts';

/** A position after every sibling: read from the position indexes, without reading the siblings. */
export async function lastPosition(db: Db, organizationId: string, parentId: string | null, excludeId?: string): Promise<number> {
  return ((await siblings.lastPosition(db, { organizationId, parentId, excludeId })) ?? 0) + 1;
}

export interface PositionRequest {
  before?: { space: string };
  after?: { space: string };
}

/** An item to place: its id, and where it is now. */
export interface Placed {
  id: string;
  organizationId: string;
  parentId: string | null;
  position: number;
}

/** The gap an item goes into: the sibling just before it and the one just after it (none at an end). */
type Gap = { before?: siblings.Sibling; after?: siblings.Sibling };

/**
 * The position for `item` placed among the children of `parentId` just before `before.space` or just after
 * `after.space` (last when neither is given), or `undefined` when the item is already there (the same parent, and the
 * same sibling just before it): a move that changes nothing. The reference must be a sibling (a space or collection
 * with that parent), else a 400 naming the field. When the gap has no position left between its ends, the siblings
 * are renumbered first (see the top of this file): call it inside the write that stores the position.
 */
export async function positionAmong(
  db: Db,
  item: Placed,
  parentId: string | null,
  request: PositionRequest | undefined,
): Promise<number | undefined> {
  const of = { organizationId: item.organizationId, parentId, excludeId: item.id };
  const gap = await gapOf(db, of, request);
  if (item.parentId === parentId) {
    const previous = await siblings.neighbour(db, of, 'before', item);
    if (previous?.id === gap.before?.id) return undefined;
  }
  const position = between(gap);
  if (position !== undefined) return position;
  await siblings.renumber(db, of);
  return between(await gapOf(db, of, request))!;
}

/** The siblings on each side of the place the request names. */
async function gapOf(db: Db, of: siblings.Siblings, request: PositionRequest | undefined): Promise<Gap> {
  const reference = request?.before ?? request?.after;
  if (!reference) return { before: await siblings.last(db, of) };
  const field = request?.before ? 'position.before.space' : 'position.after.space';
  const at = await siblings.sibling(db, of, reference.space);
  if (!at) throw badRequest(`${field}: ${reference.space} is not a sibling in the target parent`);
  return request?.before
    ? { before: await siblings.neighbour(db, of, 'before', at), after: at }
    : { before: at, after: await siblings.neighbour(db, of, 'after', at) };
}

/** A position strictly between the gap's ends (by position alone: ties by id are not kept), if there is one. */
export function between(gap: { before?: { position: number }; after?: { position: number } }): number | undefined {
  const low = gap.before?.position;
  const high = gap.after?.position;
  if (low === undefined) return high === undefined ? 1 : high - 1 < high ? high - 1 : undefined;
  if (high === undefined) return low + 1 > low ? low + 1 : undefined;
  const middle = low + (high - low) / 2;
  return low < middle && middle < high ? middle : undefined;
}

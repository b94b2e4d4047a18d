// Positions among siblings are found from the position indexes (ordering.ts reads the sibling next to a place, not
// every sibling): on random trees of spaces and collections, with equal positions among them, they are the positions
// the order of all siblings gives (position, then id; the reference below reads them all, as the server once did).
import { afterAll, describe, expect, test } from 'vitest';
import { lastPosition, positionAmong, staysInPlace } from '../../server/domain/ordering.ts';
import { SqliteStore } from '../../server/store/sqlite/store.ts';

const store = new SqliteStore(':memory:');
afterAll(() => store.close());
const db = store.reader;
const connection = store.connection;
const AT = '2026-01-01T00:00:00.000Z';

/** A small deterministic generator (mulberry32), so that a failure names its seed. */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Item = { kind: 'space' | 'collection'; id: string; position: number; parent: string | null; deleted: boolean };

/** The reference: every live sibling but the item, in order. */
function siblings(items: Item[], parent: string | null, exclude: string): Item[] {
  return items
    .filter((item) => item.parent === parent && !item.deleted && item.id !== exclude)
    .sort((a, b) => a.position - b.position || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

describe('positions among siblings', () => {
  test('are those the order of all siblings gives, for 40 random trees', async () => {
    for (let seed = 1; seed <= 40; seed++) {
      const next = random(seed);
      const pick = <T,>(list: T[]) => list[Math.floor(next() * list.length)]!;
      const organization = `org-${seed}`;
      connection.prepare(`INSERT INTO organizations (id, title, created_at, type) VALUES (?, ?, ?, 'business')`).run(organization, organization, AT);
      const items: Item[] = [];
      const parents: (string | null)[] = [null];
      for (let i = 0; i < 30; i++) {
        const kind = next() < 0.3 ? 'collection' : 'space';
        // Few distinct positions, so that ties are common; ids in another order than creation.
        const item: Item = { kind, id: `${seed}-${(i * 7) % 30}-${kind}`, position: Math.floor(next() * 6), parent: pick(parents), deleted: false };
        if (kind === 'collection') {
          connection.prepare('INSERT INTO collections (id, organization_id, parent_id, title, position, created_at) VALUES (?, ?, ?, ?, ?, ?)').run(
            item.id, organization, item.parent, 'C', item.position, AT,
          );
          parents.push(item.id);
        } else {
          item.deleted = next() < 0.15;
          connection.prepare(
            `INSERT INTO spaces (id, organization_id, parent_id, title, revision_id, share_key, position, created_at, updated_at, deleted_at)
             VALUES (?, ?, ?, 'S', 'none', 'k', ?, ?, ?, ?)`,
          ).run(item.id, organization, item.parent, item.position, AT, AT, item.deleted ? AT : null);
        }
        items.push(item);
      }

      for (let round = 0; round < 40; round++) {
        const item = pick(items);
        const parent = pick(parents);
        const others = siblings(items, parent, item.id);
        const context = `seed ${seed}, ${item.id} into ${parent}`;
        expect(await lastPosition(db, organization, parent, item.id), context).toBe((others.at(-1)?.position ?? 0) + 1);
        const reference = others.length > 0 && next() < 0.8 ? pick(others) : undefined;
        const side = next() < 0.5 ? 'before' : 'after';
        const request = reference ? { [side]: { space: reference.id } } : undefined;
        let expected: number;
        if (!reference) expected = (others.at(-1)?.position ?? 0) + 1;
        else {
          const index = others.indexOf(reference);
          expected =
            side === 'before'
              ? ((others[index - 1]?.position ?? reference.position - 2) + reference.position) / 2
              : (reference.position + (others[index + 1]?.position ?? reference.position + 2)) / 2;
        }
        expect(await positionAmong(db, organization, parent, item.id, request), context).toBe(expected);
        if (!item.deleted && parent === item.parent) {
          const previous = (position: number) => others.filter((sibling) => sibling.position < position).at(-1)?.id;
          const row = { id: item.id, organization_id: organization, parent_id: item.parent, position: item.position };
          expect(await staysInPlace(db, row, expected), context).toBe(previous(item.position) === previous(expected));
        }
      }
      const stranger = items.find((item) => item.deleted) ?? items[0]!;
      await expect(positionAmong(db, organization, 'no-such-parent', stranger.id, { after: { space: stranger.id } })).rejects.toThrow(
        /position\.after\.space: .* is not a sibling in the target parent/,
      );
    }
  });
});

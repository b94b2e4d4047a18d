// Positions among siblings (domain/ordering.ts), below the API: on random trees of spaces and collections, with equal
// positions among them and spaces in the trash, every move puts the item where a model list says (position, then id,
// read back from the database after the move), a move that changes nothing is told apart, a reference that is not a
// sibling is a 400; and 1 000 moves into one gap keep the order, renumbering the siblings when the gap closes. The
// same through the API, on both engines and with two instances: test/api/ordering.test.ts.
import { afterAll, describe, expect, test } from 'vitest';
import { between, positionAmong } from '../../server/domain/ordering.ts';
import { SqliteStore } from '../../server/store/sqlite/store.ts';

const store = new SqliteStore(':memory:');
afterAll(() => store.close());
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

type Item = { kind: 'space' | 'collection'; id: string; parent: string | null; deleted: boolean };

/** Positions as the database has them now. */
function positions(organization?: string): Map<string, number> {
  const where = organization === undefined ? '' : ' WHERE organization_id = ?';
  const rows = connection
    .prepare(`SELECT id, position FROM spaces${where} UNION ALL SELECT id, position FROM collections${where}`)
    .all(...(organization === undefined ? [] : [organization, organization])) as { id: string; position: number }[];
  return new Map(rows.map((row) => [row.id, row.position]));
}

/** The live children of a parent in the database's order (position, then id). */
function orderOf(items: Item[], parent: string | null, organization?: string): string[] {
  const at = positions(organization);
  return items
    .filter((item) => item.parent === parent && !item.deleted)
    .sort((a, b) => at.get(a.id)! - at.get(b.id)! || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((item) => item.id);
}

function insert(organization: string, item: Item, position: number): void {
  if (item.kind === 'collection') {
    connection.prepare('INSERT INTO collections (id, organization_id, parent_id, title, position, created_at) VALUES (?, ?, ?, ?, ?, ?)').run(
      item.id, organization, item.parent, 'C', position, AT,
    );
  } else {
    connection.prepare(
      `INSERT INTO spaces (id, organization_id, parent_id, title, revision_id, share_key, position, created_at, updated_at, deleted_at)
       VALUES (?, ?, ?, 'S', 'none', 'k', ?, ?, ?, ?)`,
    ).run(item.id, organization, item.parent, position, AT, AT, item.deleted ? AT : null);
  }
}

/** Moves an item as the handlers do: the position, then the row, in one write. */
async function move(organization: string, item: Item, parent: string | null, request: Parameters<typeof positionAmong>[3]) {
  return store.write(async (db) => {
    const row = { id: item.id, organizationId: organization, parentId: item.parent, position: positions(organization).get(item.id)! };
    const position = await positionAmong(db, row, parent, request);
    if (position !== undefined) {
      const table = item.kind === 'space' ? 'spaces' : 'collections';
      connection.prepare(`UPDATE ${table} SET parent_id = ?, position = ? WHERE id = ?`).run(parent, position, item.id);
    }
    return position;
  });
}

describe('positions among siblings', () => {
  test('put every move where the model list says, for 40 random trees with ties and trashed spaces', async () => {
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
        const item: Item = { kind, id: `${seed}-${(i * 7) % 30}-${kind}`, parent: pick(parents), deleted: kind === 'space' && next() < 0.15 };
        insert(organization, item, Math.floor(next() * 6));
        if (kind === 'collection') parents.push(item.id);
        items.push(item);
      }

      for (let round = 0; round < 60; round++) {
        const item = pick(items.filter((candidate) => !candidate.deleted));
        const parent = pick(parents);
        const others = orderOf(items, parent, organization).filter((id) => id !== item.id);
        const reference = others.length > 0 && next() < 0.8 ? pick(others) : undefined;
        const side = next() < 0.5 ? 'before' : 'after';
        const index = reference === undefined ? others.length : others.indexOf(reference) + (side === 'after' ? 1 : 0);
        const expected = [...others.slice(0, index), item.id, ...others.slice(index)];
        const context = `seed ${seed}, round ${round}: ${item.id} ${reference ? `${side} ${reference}` : 'last'} in ${parent}`;
        const stays = item.parent === parent && orderOf(items, parent, organization).join() === expected.join();
        const now = positions(organization);
        const trashed = new Map(items.filter((other) => other.deleted).map((other) => [other.id, now.get(other.id)!]));
        const position = await move(organization, item, parent, reference ? { [side]: { space: reference } } : undefined);
        expect(position === undefined, `${context}: changes nothing`).toBe(stays);
        if (!stays) item.parent = parent;
        expect(orderOf(items, parent, organization), context).toEqual(expected);
        const then = positions(organization);
        // A renumbering keeps trashed spaces in their place relative to each other.
        const kept = [...trashed.keys()].filter((id) => items.find((other) => other.id === id)!.parent === parent);
        const before = [...kept].sort((a, b) => trashed.get(a)! - trashed.get(b)! || (a < b ? -1 : 1));
        const after = [...kept].sort((a, b) => then.get(a)! - then.get(b)! || (a < b ? -1 : 1));
        expect(after, `${context}: trashed spaces`).toEqual(before);
      }
      const stranger = items.find((item) => item.deleted) ?? items[0]!;
      await expect(move(organization, items.find((item) => !item.deleted)!, 'no-such-parent', { after: { space: stranger.id } })).rejects.toThrow(
        /position\.after\.space: .* is not a sibling in the target parent/,
      );
    }
  });

  test('1 000 moves into one gap keep the order asked for, renumbering the siblings when it closes', async () => {
    const organization = 'one-gap';
    connection.prepare(`INSERT INTO organizations (id, title, created_at, type) VALUES (?, ?, ?, 'business')`).run(organization, organization, AT);
    const items: Item[] = [];
    for (let i = 0; i < 1002; i++) {
      const item: Item = { kind: i % 10 === 5 ? 'collection' : 'space', id: `g${String(i).padStart(4, '0')}`, parent: null, deleted: false };
      insert(organization, item, i + 1);
      items.push(item);
    }
    const [first, ...rest] = items;
    const moved = rest.slice(0, 1000);
    let renumbered = 0;
    const changes = () => (connection.prepare('SELECT total_changes() AS n').get() as { n: number }).n;
    for (const item of moved) {
      const before = changes();
      await move(organization, item, null, { after: { space: first!.id } });
      // One row written by the move itself; more when the siblings were renumbered.
      if (changes() - before > 1) renumbered++;
    }
    // Each moved item went right after `first`: the last moved comes first.
    expect(orderOf(items, null, organization)).toEqual([first!.id, ...[...moved].reverse().map((item) => item.id), items[1001]!.id]);
    expect(new Set(positions(organization).values()).size).toBe(1002);
    expect(renumbered).toBeGreaterThan(10);
    expect(renumbered).toBeLessThan(40);
  });

  test('a gap has a position strictly between its ends, or none', () => {
    expect(between({})).toBe(1);
    expect(between({ before: { position: 3 } })).toBe(4);
    expect(between({ after: { position: 3 } })).toBe(2);
    expect(between({ before: { position: 1 }, after: { position: 2 } })).toBe(1.5);
    expect(between({ before: { position: 2 }, after: { position: 2 } })).toBeUndefined();
    expect(between({ before: { position: 1 }, after: { position: 1 + Number.EPSILON } })).toBeUndefined();
    expect(between({ before: { position: 2 ** 53 } })).toBeUndefined();
  });
});

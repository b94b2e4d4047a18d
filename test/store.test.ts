// The store's connection prepares each SQL text once, and a shared statement behaves as a fresh one would.
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import Database from 'better-sqlite3';
import { Store } from '../server/store/db.ts';

let store: Store;
beforeEach(() => {
  store = new Store(':memory:');
  store.db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)');
  const insert = store.db.prepare('INSERT INTO t (id, name) VALUES (?, ?)');
  for (const [id, name] of [[1, 'a'], [2, 'b'], [3, 'c']] as const) insert.run(id, name);
});
afterEach(() => store.close());

describe('prepared statements', () => {
  test('a SQL text is prepared once, and its statement reads what is there now', () => {
    const { db } = store;
    const select = 'SELECT name FROM t WHERE id = ?';
    expect(db.prepare(select)).toBe(db.prepare(select));
    expect(db.prepare(select)).not.toBe(db.prepare('SELECT id FROM t WHERE id = ?'));
    expect(db.prepare(select).get(1)).toEqual({ name: 'a' });
    db.prepare('UPDATE t SET name = ? WHERE id = ?').run('z', 1);
    expect(db.prepare(select).get(1)).toEqual({ name: 'z' });
  });

  test('the same text can be run while its statement is still being iterated', () => {
    const { db } = store;
    const all = 'SELECT id FROM t ORDER BY id';
    const pairs: [number, number][] = [];
    for (const outer of db.prepare(all).iterate() as Iterable<{ id: number }>) {
      for (const inner of db.prepare(all).iterate() as Iterable<{ id: number }>) pairs.push([outer.id, inner.id]);
    }
    expect(pairs).toHaveLength(9);
    expect(db.prepare(all).all()).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
  });

  test('switching a mode or binding for good gives the caller a statement of its own', () => {
    const { db } = store;
    const select = 'SELECT name FROM t WHERE id = ?';
    expect(db.prepare(select).pluck().get(2)).toBe('b');
    expect(db.prepare(select).raw().get(2)).toEqual(['b']);
    expect(db.prepare(select).bind(3).get()).toEqual({ name: 'c' });
    expect(db.prepare(select).get(2)).toEqual({ name: 'b' });
  });
});

describe('rows', () => {
  test('are the objects better-sqlite3 makes: same keys in the same order, a repeated name as it gives it, undefined for none', () => {
    const plain = new Database(':memory:');
    const setup = `CREATE TABLE w (id INTEGER PRIMARY KEY, name TEXT, note TEXT, size REAL, data BLOB);
      INSERT INTO w VALUES (1, 'a', NULL, 1.5, x'0102'), (2, 'b', 'n', 2, NULL);`;
    plain.exec(setup);
    store.db.exec(setup);
    const queries: [string, unknown[]][] = [
      ['SELECT * FROM w ORDER BY id', []],
      ['SELECT * FROM w WHERE id = ?', [1]],
      ['SELECT * FROM w WHERE id = ?', [9]],
      ['SELECT name, id, name AS id, size * 2 AS twice FROM w ORDER BY id DESC', []],
      ['SELECT w.id, v.id, v.name FROM w JOIN w AS v ON v.id = 3 - w.id', []],
      ['SELECT COUNT(*) AS n FROM w', []],
      // Names a row-building function must write as they are (rowBuilder in server/store/db.ts).
      [`SELECT id AS "a""b", name AS "x\ny", note AS "\\u0041", size AS "é", id AS constructor, 1 AS __proto__ FROM w`, []],
      ['SELECT NULL AS __proto__, id FROM w', []],
    ];
    for (const [sql, params] of queries) {
      const theirs = plain.prepare(sql);
      const ours = store.db.prepare(sql);
      const same = (a: unknown, b: unknown) => {
        expect(a, sql).toEqual(b);
        if (a && b && typeof a === 'object') expect(JSON.stringify(a), sql).toBe(JSON.stringify(b));
      };
      same(ours.get(...params), theirs.get(...params));
      same(ours.all(...params), theirs.all(...params));
      same([...(ours.iterate(...params) as Iterable<unknown>)], [...(theirs.iterate(...params) as Iterable<unknown>)]);
    }
    expect(store.db.prepare('SELECT * FROM w WHERE id = ?').get(9)).toBeUndefined();
    plain.close();
  });

  test('a statement reading `*` gives the columns a table has now, after one is added', () => {
    const { db } = store;
    expect(db.prepare('SELECT * FROM t WHERE id = ?').get(1)).toEqual({ id: 1, name: 'a' });
    db.exec(`ALTER TABLE t ADD COLUMN note TEXT DEFAULT 'n'`);
    expect(db.prepare('SELECT * FROM t WHERE id = ?').get(1)).toEqual({ id: 1, name: 'a', note: 'n' });
    expect(db.prepare('SELECT * FROM t ORDER BY id').all()).toHaveLength(3);
    expect(Object.keys((db.prepare('SELECT * FROM t ORDER BY id').all() as object[])[2]!)).toEqual(['id', 'name', 'note']);
  });

  test('an iteration left early frees its statement', () => {
    const { db } = store;
    const all = 'SELECT id, name FROM t ORDER BY id';
    for (const row of db.prepare(all).iterate() as Iterable<{ id: number }>) {
      expect(row).toEqual({ id: 1, name: 'a' });
      break;
    }
    expect(db.prepare(all).busy).toBe(false);
    expect(db.prepare(all).all()).toEqual([{ id: 1, name: 'a' }, { id: 2, name: 'b' }, { id: 3, name: 'c' }]);
  });
});

describe("SQLite's page cache", () => {
  test('is 2 MiB unless DB_CACHE_MB says otherwise, and a server opens its database with it', async () => {
    const { readConfig } = await import('../server/config.ts');
    const { startTestServer } = await import('./support/server.ts');
    expect(store.db.pragma('cache_size', { simple: true })).toBe(-2048);
    const sized = new Store(':memory:', 24);
    expect(sized.db.pragma('cache_size', { simple: true })).toBe(-24 * 1024);
    sized.close();
    expect(readConfig({}).dbCacheMb).toBe(2);
    for (const value of ['0', '2048', 'lots', '1.5']) expect(() => readConfig({ DB_CACHE_MB: value }), value).toThrow(/^DB_CACHE_MB/);
    const server = await startTestServer({ env: { DB_CACHE_MB: '7' }, recordCoverage: false });
    try {
      expect(server.running.ctx.db.pragma('cache_size', { simple: true })).toBe(-7 * 1024);
    } finally {
      await server.close();
    }
  });
});

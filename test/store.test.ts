// The SQLite store's own parts: each SQL text is prepared once and reused (its statement cache, through
// better-sqlite3's public `prepare`), reads outside a write refuse to write, and a write that fails changes nothing.
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { SqliteStore } from '../server/store/sqlite/store.ts';

let store: SqliteStore;
beforeEach(() => {
  store = new SqliteStore(':memory:');
  store.connection.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c');");
});
afterEach(() => store.close());

describe('statements', () => {
  test('a SQL text is prepared once, and its statement reads what is there now', async () => {
    const select = 'SELECT name FROM t WHERE id = ?';
    expect(store.statement(select)).toBe(store.statement(select));
    expect(store.statement(select)).not.toBe(store.statement('SELECT id FROM t WHERE id = ?'));
    expect(await store.reader.first(sql`SELECT name FROM t WHERE id = ${1}`)).toEqual({ name: 'a' });
    await store.write((db) => db.run(sql`UPDATE t SET name = ${'z'} WHERE id = ${1}`));
    expect(await store.reader.first(sql`SELECT name FROM t WHERE id = ${1}`)).toEqual({ name: 'z' });
  });

  test('rows are the objects better-sqlite3 makes', async () => {
    expect(await store.reader.all(sql`SELECT id, name FROM t ORDER BY id`)).toEqual(store.connection.prepare('SELECT id, name FROM t ORDER BY id').all());
    expect(await store.reader.first(sql`SELECT id FROM t WHERE id = ${9}`)).toBeUndefined();
  });
});

describe('writes', () => {
  test('the reader refuses to write: writes go through Store.write', async () => {
    await expect(store.reader.run(sql`UPDATE t SET name = ${'x'}`)).rejects.toThrow(/Store\.write/);
    expect(await store.reader.all(sql`SELECT name FROM t ORDER BY id`)).toEqual([{ name: 'a' }, { name: 'b' }, { name: 'c' }]);
  });

  test('a write that throws changes nothing, and answers how many rows a statement changed otherwise', async () => {
    await expect(
      store.write(async (db) => {
        await db.run(sql`DELETE FROM t`);
        throw new Error('given up');
      }),
    ).rejects.toThrow('given up');
    expect(await store.reader.all(sql`SELECT id FROM t`)).toHaveLength(3);
    expect(await store.write((db) => db.run(sql`UPDATE t SET name = 'y' WHERE id > 1`))).toBe(2);
  });
});

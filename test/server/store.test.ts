// The SQLite store's own parts: each SQL text is prepared once and reused (its statement cache, through
// better-sqlite3's public `prepare`), reads outside a write refuse to write, and a write that fails changes nothing;
// and the store's prepared queries (compiled once per engine, bound per call).
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { camelName, columnName, columns, compiled, prepared } from '../../server/store/db.ts';
import { postgresQueries } from '../../server/store/postgres/store.ts';
import { SqliteStore, sqliteQueries } from '../../server/store/sqlite/store.ts';

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

describe('names', () => {
  test('rows come up with their columns named as above the store, camelCase, aliases too', async () => {
    store.connection.exec("CREATE TABLE snake (some_id TEXT, created_at TEXT); INSERT INTO snake VALUES ('s', 't');");
    expect(await store.reader.first(sql`SELECT some_id, created_at, 1 AS member_role FROM snake`)).toEqual({ someId: 's', createdAt: 't', memberRole: 1 });
    expect(await store.reader.all(sql`SELECT * FROM snake`)).toEqual([{ someId: 's', createdAt: 't' }]);
  });

  test('every column of the schema is named back to itself, so what is written under a camelCase name lands in its column', () => {
    const tables = (store.connection.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all() as string[]);
    const columnsOfSchema = tables.flatMap((table) => (store.connection.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(table) as string[]));
    expect(columnsOfSchema.length).toBeGreaterThan(100);
    expect(columnsOfSchema.filter((column) => columnName(camelName(column)) !== column)).toEqual([]);
    expect(columns<{ organization_id: string; title: string }>({ organizationId: 'o', title: 't' })).toEqual({ organization_id: 'o', title: 't' });
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

describe('prepared queries', () => {
  const byId = prepared((_q, p: { id: number }) => sql<{ name: string }>`SELECT name FROM t WHERE id = ${p.id} AND name <> ${'never'}`);

  test('compile once per engine and bind each call its own values, in order, beside the values written in the query', async () => {
    const first = compiled(byId, sqliteQueries, { id: 1 });
    const second = compiled(byId, sqliteQueries, { id: 2 });
    expect(second.sql).toBe(first.sql);
    expect(first.parameters).toEqual([1, 'never']);
    expect(second.parameters).toEqual([2, 'never']);
    expect(compiled(byId, postgresQueries, { id: 3 })).toEqual({ sql: 'SELECT name FROM t WHERE id = $1 AND name <> $2', parameters: [3, 'never'] });
    expect(await store.reader.first(byId, { id: 2 })).toEqual({ name: 'b' });
    expect(await store.reader.all(byId, { id: 9 })).toEqual([]);
  });

  test('give each engine the SQL the same query written inline compiles to', () => {
    const inline = (q: typeof sqliteQueries, id: string, organizationId: string) =>
      q.selectFrom('spaces').select(['id', 'title']).where('id', '=', id).where('organization_id', '=', organizationId).where('deleted_at', 'is', null).limit(1);
    const space = prepared((q, p: { id: string; organizationId: string }) => inline(q, p.id, p.organizationId));
    for (const q of [sqliteQueries, postgresQueries]) {
      const { sql: text, parameters } = inline(q, 's1', 'o1').compile();
      expect(compiled(space, q, { id: 's1', organizationId: 'o1' })).toEqual({ sql: text, parameters });
    }
  });

  test('take the columns of `values` from the names that have a value, one compiled query per set of names', async () => {
    const insert = prepared((_q, p: { id: number; name?: string }) => sql`INSERT INTO t ${sql.raw(Object.keys(p).length === 2 ? '(id, name)' : '(id)')} VALUES (${sql.join(Object.values(p))})`);
    const both = compiled(insert, sqliteQueries, { id: 4, name: 'd' });
    const idOnly = compiled(insert, sqliteQueries, { id: 5, name: undefined });
    expect([both.sql, both.parameters]).toEqual(['INSERT INTO t (id, name) VALUES (?, ?)', [4, 'd']]);
    expect([idOnly.sql, idOnly.parameters]).toEqual(['INSERT INTO t (id) VALUES (?)', [5]]);
    expect(await store.write((db) => db.run(insert, { id: 6, name: 'f' }))).toBe(1);
    expect(await store.reader.first(byId, { id: 6 })).toEqual({ name: 'f' });
    await expect(store.reader.run(insert, { id: 7 })).rejects.toThrow(/Store\.write/);
    expect(await store.reader.first(byId, { id: 7 })).toBeUndefined();
  });

  test('refuse a query that computes with a parameter instead of binding it, which would compile to a wrong constant', () => {
    const like = prepared((_q, p: { name: string }) => sql`SELECT id FROM t WHERE name LIKE ${`%${p.name}%`}`);
    expect(() => compiled(like, sqliteQueries, { name: 'a' })).toThrow(/computes with a parameter/);
    const inlined = prepared((_q, p: { name: string }) => sql`SELECT id FROM t WHERE name = ${sql.lit(p.name)}`);
    expect(() => compiled(inlined, sqliteQueries, { name: 'a' })).toThrow(/computes with a parameter/);
  });
});

// Writes on PostgreSQL that name the same queue (WriteOptions.queue) commit together, one transaction and one flush
// for a group of them, each after the first in a savepoint of its own: a write that fails is undone alone and gets
// its own error, the others commit; a write that conflicts with another transaction breaks the group up, and each then
// runs on its own. Writes of no queue run each in a transaction of its own.
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { notFound } from '../../server/errors.ts';
import type { Db } from '../../server/store/db.ts';
import { PostgresStore } from '../../server/store/postgres/store.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';

let database: TestDatabase;
let store: PostgresStore;
let other: pg.Client;

beforeAll(async () => {
  database = await createTestDatabase();
  other = new pg.Client({ connectionString: database.url });
  await other.connect();
  await other.query('CREATE TABLE scratch (id text PRIMARY KEY, txid bigint NOT NULL)');
  store = await PostgresStore.open({ url: database.url });
});
afterAll(async () => {
  await store?.close();
  await other?.end();
  await database?.drop();
});

/** Inserts a row named `id` with the id of the transaction it commits in, and answers `id`. */
const insert = (id: string) => async (db: Db) => {
  await db.run(sql`INSERT INTO scratch (id, txid) VALUES (${id}, txid_current())`);
  return id;
};

const rows = async (prefix: string) =>
  (await other.query<{ id: string; txid: string }>('SELECT id, txid FROM scratch WHERE id LIKE $1 ORDER BY id', [`${prefix}%`])).rows;

describe('writes of one queue', () => {
  test('sent together, they commit in fewer transactions than writes, and each caller gets its own result', async () => {
    const names = Array.from({ length: 12 }, (_, i) => `burst-${String(i).padStart(2, '0')}`);
    const results = await Promise.all(names.map((name) => store.write(insert(name), { queue: 'spaceId:burst' })));
    expect(results).toEqual(names);
    const written = await rows('burst-');
    expect(written.map((row) => row.id)).toEqual(names);
    expect(new Set(written.map((row) => row.txid)).size).toBeLessThan(names.length);
  });

  test('a write of a group that fails is undone alone, with its own error, first of its group or not', async () => {
    const writes = Array.from({ length: 8 }, (_, i) => {
      const name = `failing-${i}`;
      const fails = i === 0 || i === 4;
      return store.write(
        async (db) => {
          await insert(name)(db);
          if (fails) throw notFound(`write ${i}`);
          return name;
        },
        { queue: 'spaceId:failing' },
      );
    });
    const outcomes = await Promise.allSettled(writes);
    expect(outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : (outcome.reason as Error).message))).toEqual([
      'write 0 not found',
      'failing-1',
      'failing-2',
      'failing-3',
      'write 4 not found',
      'failing-5',
      'failing-6',
      'failing-7',
    ]);
    expect((await rows('failing-')).map((row) => row.id)).toEqual(['failing-1', 'failing-2', 'failing-3', 'failing-5', 'failing-6', 'failing-7']);
  });

  test('a write that conflicts breaks its group up: the others commit, and it ends as the error it is', async () => {
    await other.query(`INSERT INTO scratch (id, txid) VALUES ('conflict-taken', 0)`);
    const names = ['conflict-a', 'conflict-taken', 'conflict-b', 'conflict-c'];
    const outcomes = await Promise.allSettled(names.map((name) => store.write(insert(name), { queue: 'spaceId:conflict' })));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ code: '23505' });
    expect((await rows('conflict-')).map((row) => row.id)).toEqual(['conflict-a', 'conflict-b', 'conflict-c', 'conflict-taken']);
  });

  test('writes of no queue commit each in a transaction of its own', async () => {
    const names = Array.from({ length: 6 }, (_, i) => `alone-${i}`);
    await Promise.all(names.map((name) => store.write(insert(name))));
    const written = await rows('alone-');
    expect(new Set(written.map((row) => row.txid)).size).toBe(names.length);
  });
});

describe('the reader', () => {
  test('refuses to write, as on SQLite: writes go through Store.write', async () => {
    await expect(store.reader.run(sql`INSERT INTO scratch (id, txid) VALUES (${'reader-1'}, 0)`)).rejects.toThrow(/Store\.write/);
    await expect(store.reader.all(sql`DELETE FROM scratch`)).rejects.toThrow(/Store\.write/);
    expect(await store.reader.first(sql<{ n: number }>`SELECT count(*) AS n FROM scratch WHERE id = ${'reader-1'}`)).toEqual({ n: 0 });
    expect((await rows('')).length).toBeGreaterThan(0);
  });

  test('answers rows with their columns named as above the store, camelCase, aliases too', async () => {
    expect(await store.reader.first(sql`SELECT id AS some_id, txid AS tx_id FROM scratch ORDER BY id LIMIT 1`)).toEqual({ someId: expect.any(String), txId: expect.any(Number) });
    expect(await store.reader.all(sql`SELECT 1 AS member_role WHERE false`)).toEqual([]);
  });
});

describe('effects after commit (Db.afterCommit)', () => {
  test('a write run again after a serialization failure runs the effects of the attempt that committed, once, after its commit', async () => {
    const ran: { attempt: number; committed: boolean }[] = [];
    let attempts = 0;
    await store.write(async (db) => {
      const attempt = ++attempts;
      await insert(`retried-${attempt}`)(db);
      db.afterCommit(() => {
        // After the commit: another connection sees the row.
        void other.query('SELECT 1 FROM scratch WHERE id = $1', [`retried-${attempt}`]).then(({ rowCount }) => ran.push({ attempt, committed: rowCount === 1 }));
      });
      if (attempt === 1) throw Object.assign(new Error('could not serialize access (forced)'), { code: '40001' });
    });
    await vi.waitFor(() => expect(ran).toHaveLength(1));
    expect(attempts).toBe(2);
    expect(ran).toEqual([{ attempt: 2, committed: true }]);
    expect((await rows('retried-')).map((row) => row.id)).toEqual(['retried-2']);
  });

  test("a group runs the effects of the writes that committed, once each: not a failing member's, and once after a conflict breaks it up", async () => {
    const ran: string[] = [];
    await other.query(`INSERT INTO scratch (id, txid) VALUES ('effects-taken', 0)`);
    const names = ['effects-a', 'effects-failing', 'effects-taken', 'effects-b'];
    const outcomes = await Promise.allSettled(
      names.map((name) =>
        store.write(
          async (db) => {
            db.afterCommit(() => ran.push(name));
            await insert(name)(db);
            if (name === 'effects-failing') throw notFound(name);
            return name;
          },
          { queue: 'spaceId:effects' },
        ),
      ),
    );
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect([...ran].sort()).toEqual(['effects-a', 'effects-b']);
    expect((await rows('effects-')).map((row) => row.id)).toEqual(['effects-a', 'effects-b', 'effects-taken']);
  });
});

// The PostgreSQL store's connections (server/store/postgres/connections.ts): reads outside a request share a
// connection, sent together, and take another only as they grow in number; a request's reads see one snapshot, taken
// by their first statement, and see a write they make; a transaction's lock and BEGIN travel with its first
// statement, whose snapshot still follows the wait for the lock; a transaction whose connection is lost between two
// statements fails as unavailable and commits nothing, however postgres.js connects again.
// @needs postgres
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import * as members from '../../server/store/members.ts';
import type { Db } from '../../server/store/db.ts';
import { PostgresStore, queueKey } from '../../server/store/postgres/store.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';

let database: TestDatabase;
let store: PostgresStore;
let other: pg.Client;

beforeAll(async () => {
  database = await createTestDatabase();
  other = new pg.Client({ connectionString: database.url });
  await other.connect();
  await other.query('CREATE TABLE scratch (id text PRIMARY KEY, value bigint NOT NULL)');
  store = await PostgresStore.open({ url: database.url });
});
afterAll(async () => {
  await store?.close();
  await other?.end();
  await database?.drop();
});

/** The process id of the database's backend that runs the statement: which connection it went on. */
const backendOf = async () => (await store.reader.first(sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`))!.pid;

describe('reads', () => {
  test('sent together, they share connections: 40 at once take 3, each answered with its own rows', async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const row = await store.reader.first(sql<{ n: number; pid: number }>`SELECT ${i}::bigint AS n, pg_backend_pid() AS pid`);
        return row!;
      }),
    );
    expect(answers.map((answer) => answer.n)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    expect(new Set(answers.map((answer) => answer.pid)).size).toBe(3);
  });

  test('one at a time, they stay on one connection', async () => {
    const pids = new Set<number>();
    for (let i = 0; i < 10; i++) pids.add(await backendOf());
    expect(pids.size).toBe(1);
  });
});

describe("a request's reads", () => {
  const valueOf = async (db: Db, id: string) => (await db.first(sql<{ value: number }>`SELECT value FROM scratch WHERE id = ${id}`))?.value;

  test('see the snapshot their first statement took, on one connection, whatever commits meanwhile', async () => {
    await other.query(`INSERT INTO scratch (id, value) VALUES ('read', 1)`);
    // A kind whose last request read more than one burst begins in a snapshot at once.
    const kind = {};
    await store.read(async (db) => [await valueOf(db, 'read'), await valueOf(db, 'read')], { kind });
    const seen = await store.read(async (db) => {
      // Two statements at once: the snapshot is taken by the first of them.
      const [first] = await Promise.all([valueOf(db, 'read'), valueOf(db, 'read')]);
      await other.query(`UPDATE scratch SET value = 2 WHERE id = 'read'`);
      const { pid: one } = (await db.first(sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`))!;
      const [second, { pid: two }] = await Promise.all([valueOf(db, 'read'), db.first(sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`).then((row) => row!)]);
      return { first, second, same: one === two };
    }, { kind });
    expect(seen).toEqual({ first: 1, second: 1, same: true });
    // The next request's reads take a snapshot of their own.
    expect(await store.read((db) => valueOf(db, 'read'))).toBe(2);
  });

  test('a first statement alone goes outside any transaction; a second takes the snapshot, where the first is read again: unchanged, the work runs once; changed, it runs again in a snapshot from its start', async () => {
    await other.query(`INSERT INTO scratch (id, value) VALUES ('alone', 1)`);
    const inTransaction = sql<{ open: boolean }>`SELECT current_setting('transaction_read_only') = 'on' AS open`;
    expect((await store.read((db) => db.first(inTransaction)))!.open).toBe(false);
    let runs = 0;
    const unchanged = await store.read(async (db) => {
      runs++;
      const first = await valueOf(db, 'alone');
      const [second, inside] = await Promise.all([valueOf(db, 'alone'), db.first(inTransaction)]);
      return { first, second, inside: inside!.open };
    });
    expect({ ...unchanged, runs }).toEqual({ first: 1, second: 1, inside: true, runs: 1 });
    runs = 0;
    const changed = await store.read(async (db) => {
      runs++;
      const first = await valueOf(db, 'alone');
      if (runs === 1) await other.query(`UPDATE scratch SET value = value + 1 WHERE id = 'alone'`);
      const second = await valueOf(db, 'alone');
      return { first, second };
    });
    expect({ ...changed, runs }).toEqual({ first: 2, second: 2, runs: 2 });
    // A kind of request one of whose last requests read more than one burst begins its next two in a snapshot at once.
    const kind = {};
    await store.read(async (db) => [await valueOf(db, 'alone'), await valueOf(db, 'alone')], { kind });
    const opened = [];
    for (let i = 0; i < 3; i++) opened.push((await store.read((db) => db.first(inTransaction), { kind }))!.open);
    expect(opened).toEqual([true, true, false]);
  });

  test('a first burst of several statements leaves on a connection of the pool, shared with other reads, in a transaction of its own; a statement after it takes the snapshot, where the burst is read again', async () => {
    await other.query(`INSERT INTO scratch (id, value) VALUES ('burst', 1)`);
    const moment = sql<{ at: string; pid: number; readOnly: string }>`SELECT transaction_timestamp()::text AS at, pg_backend_pid() AS pid, current_setting('transaction_read_only') AS "readOnly"`;
    const [[one, two], outside] = await Promise.all([store.read((db) => Promise.all([db.first(moment), db.first(moment)])), store.reader.first(moment)]);
    expect({ sameMoment: one!.at === two!.at, readOnly: one!.readOnly, sameConnection: one!.pid === outside!.pid }).toEqual({ sameMoment: true, readOnly: 'on', sameConnection: true });
    // The connection is free once the burst is sent: no transaction stays open on it, and the next read is outside one.
    expect((await store.reader.first(moment))!.readOnly).toBe('off');
    let runs = 0;
    const unchanged = await store.read(async (db) => {
      runs++;
      const [first] = await Promise.all([valueOf(db, 'burst'), valueOf(db, 'read')]);
      return { first, second: await valueOf(db, 'burst') };
    });
    expect({ ...unchanged, runs }).toEqual({ first: 1, second: 1, runs: 1 });
    runs = 0;
    const changed = await store.read(async (db) => {
      runs++;
      const [first] = await Promise.all([valueOf(db, 'burst'), valueOf(db, 'read')]);
      if (runs === 1) await other.query(`UPDATE scratch SET value = value + 1 WHERE id = 'burst'`);
      return { first, second: await valueOf(db, 'burst') };
    });
    expect({ ...changed, runs }).toEqual({ first: 2, second: 2, runs: 2 });
  });

  test('in a read-only transaction that ends after them: a write through them is refused, and no transaction stays open', async () => {
    await expect(store.read((db) => db.all(sql`INSERT INTO scratch (id, value) VALUES ('refused', 1)`))).rejects.toThrow(/Store\.write/);
    // A write the store cannot tell from a read (a function that writes) is refused by PostgreSQL in the snapshot (a
    // first statement alone runs outside any transaction, as the reader's do).
    await expect(store.read((db) => Promise.all([valueOf(db, 'read'), db.all(sql`SELECT nextval('store_changes')`)]))).rejects.toThrow(/read-only transaction/);
    await store.read((db) => valueOf(db, 'read'));
    // Its COMMIT leaves with the next statement on its connection, or alone at most COMMIT_WAIT_MS (50 ms) later.
    const open = async () =>
      Number((await other.query<{ n: string }>(
        `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%' AND application_name = 'docs-platform-server'`,
      )).rows[0]!.n);
    for (let tries = 0; tries < 50 && (await open()) > 0; tries++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await open()).toBe(0);
  });

  test('see a write they make, on their own connection, and hold one connection however many requests read', async () => {
    const seen = await store.read(async (db) => {
      const before = await valueOf(db, 'read-write');
      const { pid } = (await db.first(sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`))!;
      const writer = await store.write(async (write) => {
        await write.run(sql`INSERT INTO scratch (id, value) VALUES ('read-write', 7)`);
        return (await write.first(sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`))!.pid;
      }, { reading: db });
      return { before, after: await valueOf(db, 'read-write'), sameConnection: writer === pid };
    });
    expect(seen).toEqual({ before: undefined, after: 7, sameConnection: true });
    // More requests reading at once than the pool has connections: each waits for one, none waits forever.
    const values = await Promise.all(Array.from({ length: 30 }, () => store.read((db) => valueOf(db, 'read-write'))));
    expect(values).toEqual(Array.from({ length: 30 }, () => 7));
  });
});

describe("the caller's memberships", () => {
  test('are read once per unit of work, all of them in one statement, and read again after it changes a member', async () => {
    await other.query(`INSERT INTO users (id, display_name, created_at) VALUES ('ahead-user', 'Ahead', 'now')`);
    for (const id of ['ahead-a', 'ahead-b']) {
      await other.query(`INSERT INTO organizations (id, title, created_at, type) VALUES ($1, $1, 'now', 'business')`, [id]);
      await other.query(`INSERT INTO members (organization_id, user_id, role, joined_at) VALUES ($1, 'ahead-user', 'read', 'now')`, [id]);
    }
    const seen = await store.write(async (db) => {
      const reads = vi.spyOn(db, 'all');
      const lookups = vi.spyOn(db, 'first');
      members.readAhead(db, 'ahead-user');
      const first = await Promise.all([members.roleOf(db, 'ahead-a', 'ahead-user'), members.roleOf(db, 'ahead-b', 'ahead-user'), members.roleOf(db, 'ahead-none', 'ahead-user')]);
      const statements = reads.mock.calls.length + lookups.mock.calls.length;
      await members.update(db, 'ahead-a', 'ahead-user', { role: 'admin' });
      return { first, statements, after: await members.roleOf(db, 'ahead-a', 'ahead-user'), asked: members.membershipsAsked(db) };
    });
    expect(seen).toEqual({
      first: [{ role: 'read', disabled: 0 }, { role: 'read', disabled: 0 }, undefined],
      statements: 1,
      after: { role: 'admin', disabled: 0 },
      asked: true,
    });
  });

  test("are read ahead for the organization a request names alone, any other read once as asked for", async () => {
    // Users and organizations of the test above, which made the user an admin of ahead-a.
    const seen = await store.read(async (db) => {
      const reads = vi.spyOn(db, 'all');
      const lookups = vi.spyOn(db, 'first');
      members.readAhead(db, 'ahead-user', 'ahead-a');
      const named = await Promise.all([members.roleOf(db, 'ahead-a', 'ahead-user'), members.roleOf(db, 'ahead-a', 'ahead-user')]);
      const ahead = { all: reads.mock.calls.length, one: lookups.mock.calls.length };
      const others = [await members.roleOf(db, 'ahead-b', 'ahead-user'), await members.roleOf(db, 'ahead-none', 'ahead-user')];
      // Asked again: kept from the first ask.
      const again = [await members.roleOf(db, 'ahead-b', 'ahead-user'), await members.roleOf(db, 'ahead-none', 'ahead-user')];
      return { named, ahead, others, again, lookups: lookups.mock.calls.length };
    });
    expect(seen).toEqual({
      named: [{ role: 'admin', disabled: 0 }, { role: 'admin', disabled: 0 }],
      ahead: { all: 0, one: 1 },
      others: [{ role: 'read', disabled: 0 }, undefined],
      again: [{ role: 'read', disabled: 0 }, undefined],
      lookups: 3,
    });
    // Not a member of the organization named: known from the row read ahead, not asked again.
    const outsider = await store.read(async (db) => {
      const lookups = vi.spyOn(db, 'first');
      members.readAhead(db, 'ahead-user', 'ahead-none');
      return { role: await members.roleOf(db, 'ahead-none', 'ahead-user'), lookups: lookups.mock.calls.length };
    });
    expect(outsider).toEqual({ role: undefined, lookups: 1 });
  });
});

describe('a transaction', () => {
  test('holds a connection of its own, though more transactions wait for one than the pool has', async () => {
    // Two connections for twelve transactions: each release wakes every waiter, and one alone may take it.
    const small = await PostgresStore.open({ url: database.url, poolSize: 2 });
    try {
      const seen = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          small.write(async (db) => {
            const first = await db.first(sql<{ tx: string }>`SELECT txid_current()::text AS tx`);
            await db.run(sql`INSERT INTO scratch (id, value) VALUES (${`pool-${i}`}, txid_current())`);
            const second = await db.first(sql<{ tx: string }>`SELECT txid_current()::text AS tx`);
            return [first!.tx, second!.tx];
          }, { isolation: i % 2 === 0 ? 'read committed' : 'serializable' }),
        ),
      );
      // Each in a transaction of its own: the same transaction from its first statement to its last, no other's.
      expect(seen.every(([first, second]) => first === second)).toBe(true);
      expect(new Set(seen.map(([first]) => first)).size).toBe(12);
    } finally {
      await small.close();
    }
  });

  test("takes its snapshot after the wait for its queue's lock, though its lock, BEGIN and first statement are sent together", async () => {
    await other.query(`INSERT INTO scratch (id, value) VALUES ('snapshot', 1)`);
    // Another session holds the queue's lock: the write waits for it, its first statement sent already.
    await other.query(`SELECT pg_advisory_lock(${queueKey('spaceId:snapshot')})`);
    const seen = store.write(async (db) => (await db.first(sql<{ value: number }>`SELECT value FROM scratch WHERE id = 'snapshot'`))!.value, {
      queue: 'spaceId:snapshot',
    });
    // The write waits on the lock (its backend is seen waiting), then the holder changes the row and lets go.
    for (;;) {
      const { rows } = await other.query<{ n: string }>(
        `SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      );
      if (Number(rows[0]!.n) > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await other.query(`UPDATE scratch SET value = 2 WHERE id = 'snapshot'`);
    await other.query(`SELECT pg_advisory_unlock(${queueKey('spaceId:snapshot')})`);
    expect(await seen).toBe(2);
  });

  test('whose connection is lost between two statements fails as unavailable, commits nothing, and the next one runs', async () => {
    const outcome = store.write(async (db) => {
      await db.run(sql`INSERT INTO scratch (id, value) VALUES ('lost-1', pg_backend_pid())`);
      const { pid } = (await db.first(sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`))!;
      const replaced = store.connectionsReplaced;
      await other.query('SELECT pg_terminate_backend($1)', [pid]);
      // The connection is gone before the next statement, and the pool has seen it close: postgres.js would send the
      // statement on a new connection, outside the transaction; the store refuses it.
      await vi.waitUntil(() => store.connectionsReplaced > replaced, { timeout: 10_000, interval: 5 });
      await db.run(sql`INSERT INTO scratch (id, value) VALUES ('lost-2', 0)`);
    });
    await expect(outcome).rejects.toMatchObject({ kind: 'unavailable' });
    expect((await other.query(`SELECT id FROM scratch WHERE id LIKE 'lost-%'`)).rows).toEqual([]);
    await store.write((db) => db.run(sql`INSERT INTO scratch (id, value) VALUES ('after-lost', 0)`));
    expect((await other.query(`SELECT id FROM scratch WHERE id = 'after-lost'`)).rows).toEqual([{ id: 'after-lost' }]);
  });
});

describe('parameters and lost connections', () => {
  test("an array parameter (ANY) is matched element by element, whatever its strings hold", async () => {
    const ids = ['plain', 'with "quotes"', 'back\\slash', 'a,comma', '{braces}', ' spaced ', 'NULL', 'ünï'];
    for (const [i, id] of ids.entries()) await other.query('INSERT INTO scratch (id, value) VALUES ($1, $2)', [`array:${id}`, i]);
    const wanted = ids.map((id) => `array:${id}`);
    const rows = await store.reader.all(sql<{ id: string }>`SELECT id FROM scratch WHERE id = ANY(${wanted}) ORDER BY value`);
    expect(rows.map((row) => row.id)).toEqual(wanted);
    const values = await store.reader.all(sql<{ value: number }>`SELECT value FROM scratch WHERE value = ANY(${[1, 3]}::bigint[]) AND id LIKE 'array:%' ORDER BY value`);
    expect(values.map((row) => row.value)).toEqual([1, 3]);
  });

  test('a connection the database ends while unused is replaced: the next reads run on a new backend, at once', async () => {
    const before = await backendOf();
    const replaced = store.connectionsReplaced;
    await other.query('SELECT pg_terminate_backend($1)', [before]);
    // Once the pool has seen the connection close.
    await vi.waitUntil(() => store.connectionsReplaced > replaced, { timeout: 10_000, interval: 5 });
    // Reads sent together, as a burst of requests would.
    const pids = await Promise.all(Array.from({ length: 20 }, () => backendOf()));
    expect(pids.every((pid) => pid !== before)).toBe(true);
  });
});

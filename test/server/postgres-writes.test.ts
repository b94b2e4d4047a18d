// Writes on PostgreSQL that name the same queue (WriteOptions.queue) commit together, one transaction and one flush
// for the group, without savepoints; a failing write is left out alone or breaks the group up; writes of no queue
// run each on its own; statements sent without waiting (Db.send) run in order with the write's others.
// The rules, case by case: test/README.md, "Writes grouped on PostgreSQL".
// @needs postgres
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { notFound } from '../../server/common/errors.ts';
import type { Db } from '../../server/store/db.ts';
import { CONFLICTED_QUEUE, noteOrganization, widerQueue } from '../../server/store/organizations.ts';
import { PostgresStore, queueKey } from '../../server/store/postgres/store.ts';
import { PostgresDriver } from '../../server/store/postgres/driver.ts';
import * as members from '../../server/store/members.ts';
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

/** Writes of one queue that start while the first waits for `open`: all of them are in the first's group. */
function gatedGroup<T>(queue: string, works: ((db: Db) => Promise<T>)[]): { open: () => void; outcomes: Promise<PromiseSettledResult<T>[]> } {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const writes = works.map((work, i) =>
    store.write(async (db) => {
      if (i === 0) await gate;
      return await work(db);
    }, { queue }),
  );
  return { open, outcomes: Promise.allSettled(writes) };
}

const outcomeOf = <T>(outcome: PromiseSettledResult<T>) => (outcome.status === 'fulfilled' ? outcome.value : (outcome.reason as { code?: string; message: string }).code ?? (outcome.reason as Error).message);

describe('a group without savepoints', () => {
  test('a write that fails before it changed anything is left out, and the others commit in the one transaction', async () => {
    const names = ['clean-0', 'clean-1', 'clean-2', 'clean-3', 'clean-4'];
    const { open, outcomes } = gatedGroup(
      'spaceId:clean',
      names.map((name, i) => async (db: Db) => {
        await db.first(sql`SELECT count(*) AS n FROM scratch`);
        if (i === 1 || i === 3) throw notFound(name);
        return await insert(name)(db);
      }),
    );
    open();
    expect((await outcomes).map(outcomeOf)).toEqual(['clean-0', 'clean-1 not found', 'clean-2', 'clean-3 not found', 'clean-4']);
    const written = await rows('clean-');
    expect(written.map((row) => row.id)).toEqual(['clean-0', 'clean-2', 'clean-4']);
    // Left out without undoing anything: the group was not broken up.
    expect(new Set(written.map((row) => row.txid)).size).toBe(1);
  });

  test('a write that fails after it changed something breaks the group up: each write then runs in a transaction of its own', async () => {
    const names = ['dirty-0', 'dirty-1', 'dirty-2'];
    const { open, outcomes } = gatedGroup(
      'spaceId:dirty',
      names.map((name, i) => async (db: Db) => {
        await insert(name)(db);
        if (i === 1) throw notFound(name);
        return name;
      }),
    );
    open();
    expect((await outcomes).map(outcomeOf)).toEqual(['dirty-0', 'dirty-1 not found', 'dirty-2']);
    const written = await rows('dirty-');
    expect(written.map((row) => row.id)).toEqual(['dirty-0', 'dirty-2']);
    expect(new Set(written.map((row) => row.txid)).size).toBe(2);
  });
});

describe('statements sent without waiting (Db.send)', () => {
  test('run in order with the write\'s others: a read after them sees what they wrote, and they commit with the write', async () => {
    const seen = await store.write(async (db) => {
      await db.send(sql`INSERT INTO scratch (id, txid) VALUES ('sent-a', txid_current())`);
      await db.send(sql`UPDATE scratch SET id = 'sent-b' WHERE id = 'sent-a'`);
      return await db.all(sql<{ id: string }>`SELECT id FROM scratch WHERE id LIKE 'sent-%'`);
    });
    expect(seen).toEqual([{ id: 'sent-b' }]);
    expect((await rows('sent-')).map((row) => row.id)).toEqual(['sent-b']);
  });

  test('one that fails fails the write with its own error, not the aborted transaction\'s that the statements after it meet, and changes nothing', async () => {
    let attempts = 0;
    const failing = store.write(async (db) => {
      attempts++;
      await db.send(sql`INSERT INTO scratch (id, txid) VALUES ('unsent-a', txid_current())`);
      await db.send(sql`INSERT INTO scratch (id, txid) VALUES ('unsent-b', NULL)`);
      return await db.first(sql`SELECT count(*) AS n FROM scratch`);
    });
    await expect(failing).rejects.toMatchObject({ code: '23502' });
    // The same when the failing statement is the write's last, answered only with its COMMIT.
    await expect(store.write(async (db) => db.send(sql`INSERT INTO scratch (id, txid) VALUES ('unsent-c', NULL)`))).rejects.toMatchObject({ code: '23502' });
    expect(attempts).toBe(1);
    expect(await rows('unsent-')).toEqual([]);
  });

  test('one that fails in a group fails its own write only: the others commit', async () => {
    const names = ['group-sent-0', 'group-sent-1', 'group-sent-2', 'group-sent-3'];
    const { open, outcomes } = gatedGroup(
      'spaceId:group-sent',
      names.map((name, i) => async (db: Db) => {
        await db.send(sql`INSERT INTO scratch (id, txid) VALUES (${name}, ${i === 2 ? null : sql`txid_current()`})`);
        return name;
      }),
    );
    open();
    expect((await outcomes).map(outcomeOf)).toEqual(['group-sent-0', 'group-sent-1', '23502', 'group-sent-3']);
    expect((await rows('group-sent-')).map((row) => row.id)).toEqual(['group-sent-0', 'group-sent-1', 'group-sent-3']);
  });

  test('a reader refuses them, as every write outside Store.write', async () => {
    await expect(store.reader.send(sql`INSERT INTO scratch (id, txid) VALUES ('reader-sent', 0)`)).rejects.toThrow(/Store\.write/);
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

describe('a unique violation', () => {
  test('that is no race ends once the write met it alone: ALONE_AFTER + 1 attempts, the last one holding the writers\' lock alone', async () => {
    await other.query(`INSERT INTO scratch (id, txid) VALUES ('unique-taken', 0)`);
    /** Whether this session holds the writers' lock exclusively, on each attempt. */
    const alone: boolean[] = [];
    const refused = store.write(async (db) => {
      const locks = await db.all(sql<{ mode: string }>`SELECT mode FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND objid = ${7_361_002_002 % 2 ** 32}::oid`);
      alone.push(locks.some((lock) => lock.mode === 'ExclusiveLock'));
      await db.run(sql`INSERT INTO scratch (id, txid) VALUES ('unique-taken', txid_current())`);
    });
    await expect(refused).rejects.toMatchObject({ code: '23505' });
    expect(alone).toEqual([false, false, false, true]);
  });
});

describe('a write that conflicted with another (WriteOptions.wider)', () => {
  test('takes its wider queue for its next attempts, and says so', async () => {
    /** The queues whose locks this transaction's session holds, as queueKey names them. */
    const queuesHeld = async (db: Db) =>
      (await db.all(sql<{ classid: string; objid: string }>`SELECT classid::text, objid::text FROM pg_locks WHERE locktype = 'advisory' AND mode = 'ExclusiveLock' AND pid = pg_backend_pid()`))
        .map((lock) => BigInt.asIntN(64, (BigInt(lock.classid) << 32n) | BigInt(lock.objid)).toString());
    const held: string[][] = [];
    const widened = vi.fn();
    let attempts = 0;
    await store.write(
      async (db) => {
        held.push(await queuesHeld(db));
        // A statement that fails as a conflict with another transaction does, the first time.
        if (++attempts === 1) await db.run(sql`DO $$ BEGIN RAISE EXCEPTION 'forced' USING ERRCODE = 'serialization_failure'; END $$`);
      },
      { queue: 'spaceId:conflicting', wider: 'organizationId:wider', widened },
    );
    expect(held).toEqual([[queueKey('spaceId:conflicting')], [queueKey('organizationId:wider')]]);
    expect(widened).toHaveBeenCalledTimes(1);
  });

  test("a route's wider queue is its record's organization's when noted, else the queue of writes of no known organization", async () => {
    expect(widerQueue(store, undefined)).toBeUndefined();
    expect(widerQueue(store, 'organizationId:demo')).toBeUndefined();
    expect(widerQueue(store, 'integrationName:never-seen')).toBe(CONFLICTED_QUEUE);
    await store.write(async (db) => noteOrganization(db, 'spaceId:noted', 'demo'));
    expect(widerQueue(store, 'spaceId:noted')).toBe('organizationId:demo');
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

describe("the caller's memberships in a group (Db.unit)", () => {
  const membershipReads = () => {
    let reads = 0;
    const counting = (method: 'all' | 'first') => {
      const original = PostgresDriver.prototype[method];
      return vi.spyOn(PostgresDriver.prototype, method).mockImplementation(function (this: PostgresDriver, statement, writing) {
        if (/from "members"/i.test(statement.sql)) reads++;
        return original.call(this, statement, writing) as never;
      });
    };
    const spies = [counting('all'), counting('first')];
    return { count: () => reads, restore: () => spies.forEach((spy) => spy.mockRestore()) };
  };

  beforeAll(async () => {
    await other.query(`INSERT INTO users (id, display_name, created_at) VALUES ('unit-user', 'Unit', '2026-01-01T00:00:00.000Z')`);
    await other.query(`INSERT INTO organizations (id, title, created_at, type) VALUES ('unit-org', 'Unit', '2026-01-01T00:00:00.000Z', 'business')`);
    await other.query(`INSERT INTO members (organization_id, user_id, role, joined_at) VALUES ('unit-org', 'unit-user', 'editor', '2026-01-01T00:00:00.000Z')`);
  });

  test('the writes of a group read a user\'s memberships once, the group\'s transaction\'s handles sharing its unit', async () => {
    const reads = membershipReads();
    try {
      const names = Array.from({ length: 6 }, (_, i) => `unit-${i}`);
      const roles = await Promise.all(
        names.map((name) =>
          store.write(async (db) => {
            members.readAhead(db, 'unit-user');
            await insert(name)(db);
            return (await members.roleOf(db, 'unit-org', 'unit-user'))?.role;
          }, { queue: 'organizationId:unit-org' }),
        ),
      );
      expect(roles).toEqual(names.map(() => 'editor'));
      const transactions = new Set((await rows('unit-')).map((row) => row.txid)).size;
      expect(transactions).toBeLessThan(names.length);
      expect(reads.count()).toBe(transactions);
    } finally {
      reads.restore();
    }
  });

  test('a write of a group that changes a member makes the next read the memberships again, in the same transaction', async () => {
    const reads = membershipReads();
    try {
      const role = (db: Db) => members.roleOf(db, 'unit-org', 'unit-user').then((found) => found?.role);
      const roles = await Promise.all([
        store.write(async (db) => [await role(db), await insert('changed-0')(db)], { queue: 'organizationId:unit-org' }),
        store.write(async (db) => {
          await members.update(db, 'unit-org', 'unit-user', { role: 'admin' });
          return [await role(db), await insert('changed-1')(db)];
        }, { queue: 'organizationId:unit-org' }),
        store.write(async (db) => [await role(db), await insert('changed-2')(db)], { queue: 'organizationId:unit-org' }),
      ]);
      expect(roles.map(([found]) => found)).toEqual(['editor', 'admin', 'admin']);
      expect(new Set((await rows('changed-')).map((row) => row.txid)).size).toBe(1);
      expect(reads.count()).toBe(2);
    } finally {
      reads.restore();
      await other.query(`UPDATE members SET role = 'editor' WHERE user_id = 'unit-user'`);
    }
  });
});

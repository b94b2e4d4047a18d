// On PostgreSQL, a failing statement never fails another party's: whoever sent it (reads, a write, a write of a group,
// a job) and whoever caught its error, the transaction it aborted is its own, ended before anything else is sent on its
// connection. Each case drives every ordering the store allows between the failing party and a valid write (microtask
// by microtask, or at a held point), with one, two and the default number of connections; then through the server:
// invalid requests and failing Git export jobs beside valid requests, and no answer a 5xx.
// @needs postgres
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Db } from '../../server/store/db.ts';
import { PostgresStore } from '../../server/store/postgres/store.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { ACME, extendFixture } from '../support/fixture.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let database: TestDatabase;
let other: pg.Client;

beforeAll(async () => {
  database = await createTestDatabase();
  other = new pg.Client({ connectionString: database.url });
  await other.connect();
  await other.query('CREATE TABLE scratch (id text PRIMARY KEY, n bigint NOT NULL DEFAULT 0)');
  await other.query(`INSERT INTO scratch (id) VALUES ('taken')`);
});
afterAll(async () => {
  await other?.end();
  await database?.drop();
});

/** A statement PostgreSQL refuses whatever the data: a division by zero. */
const failing = sql<{ n: number }>`SELECT 1 / (n - n) AS n FROM scratch WHERE id = 'taken'`;
const valid = sql<{ n: number }>`SELECT n FROM scratch WHERE id = 'taken'`;
/** A row the table's NOT NULL constraint refuses (a unique violation would be tried again, as a possible race). */
const nullRow = sql`INSERT INTO scratch (id, n) VALUES ('refused', NULL)`;

/** Resolves after `count` turns of the microtask queue. */
async function ticks(count: number): Promise<void> {
  for (let i = 0; i < count; i++) await Promise.resolve();
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

let written = 0;

/**
 * A valid write of two rows, in two statements; `between` runs after the first (what the test sends meanwhile). Answers
 * its rows' ids, which must all be committed.
 */
async function validWrite(store: PostgresStore, between: () => Promise<void> = async () => undefined, queue?: string): Promise<string[]> {
  const ids = [`w${++written}a`, `w${written}b`];
  const result = await store.write(
    async (db: Db) => {
      await db.run(sql`INSERT INTO scratch (id) VALUES (${ids[0]})`);
      await between();
      await db.run(sql`INSERT INTO scratch (id) VALUES (${ids[1]})`);
      return ids;
    },
    queue === undefined ? {} : { queue },
  );
  const found = await other.query<{ id: string }>('SELECT id FROM scratch WHERE id = ANY($1) ORDER BY id', [ids]);
  expect(found.rows.map((row) => row.id)).toEqual(ids);
  return result;
}

/** The ways a party's statement fails beside others' (each answers once the failure is met). */
const failures: Record<string, (store: PostgresStore) => Promise<unknown>> = {
  'a read on the pool': (store) => store.reader.first(failing),
  ...Object.fromEntries(
    [0, 1, 2].map((at) => [
      `a request's first burst, failing at ${at + 1} of 3`,
      (store: PostgresStore) => store.read((db) => Promise.all([0, 1, 2].map((i) => db.first(i === at ? failing : valid)))),
    ]),
  ),
  ...Object.fromEntries(
    [0, 1, 2].map((at) => [
      `a request's held transaction, failing at ${at + 1} of 3`,
      (store: PostgresStore) =>
        store.read(async (db) => {
          await db.first(valid);
          return await Promise.all([0, 1, 2].map((i) => db.first(i === at ? failing : valid)));
        }),
    ]),
  ),
  "a request's held transaction whose failure it swallows": (store) =>
    store.read(async (db) => {
      await db.first(valid);
      await db.first(failing).catch(() => undefined);
      return 'answered';
    }),
  'a write refused by a constraint': (store) => store.write((db) => db.run(nullRow)),
  'a write whose statement sent without waiting fails': (store) => store.write((db) => db.send(nullRow)),
  'a write that swallows a constraint violation': (store) =>
    store.write(async (db) => {
      await db.run(nullRow).catch(() => undefined);
      return 'answered';
    }),
};

describe.each([1, 2, 10])('with %i pool connections', (poolSize) => {
  let store: PostgresStore;
  beforeAll(async () => {
    store = await PostgresStore.open({ url: database.url, poolSize });
  });
  afterAll(async () => {
    await store?.close();
  });

  for (const [name, fail] of Object.entries(failures)) {
    test(`${name}, a valid write started 0 to 24 microtasks after it or while it is under way: the write commits`, async () => {
      for (let delay = 0; delay <= 24; delay++) {
        const failed = fail(store).then(
          () => undefined,
          () => undefined,
        );
        await ticks(delay);
        await validWrite(store);
        await failed;
      }
      // Under way: the valid write holds its connection between its statements while the failure is sent.
      for (let delay = 0; delay <= 8; delay++) {
        let failed: Promise<unknown> | undefined;
        await validWrite(store, async () => {
          failed = fail(store).then(
            () => undefined,
            () => undefined,
          );
          await ticks(delay);
        });
        await failed;
      }
    });
  }

  test("a write's statement sent after its work ended, its error swallowed, is refused: it never reaches the next transaction on the connection", async () => {
    const gate = deferred();
    let late: Promise<unknown> | undefined;
    await store.write(async (db) => {
      await db.first(valid);
      late = gate.promise.then(() => db.first(failing));
      late.catch(() => undefined);
      return 'done';
    });
    await validWrite(store, async () => {
      gate.resolve();
      await late?.catch(() => undefined);
    });
    await expect(late).rejects.toThrow();
  });

  test("a request's read sent after its request ended is refused", async () => {
    const gate = deferred();
    let late: Promise<unknown> | undefined;
    await store.read(async (db) => {
      await db.first(valid);
      await db.first(valid);
      late = gate.promise.then(() => db.first(failing));
      late.catch(() => undefined);
    });
    await validWrite(store, async () => {
      gate.resolve();
      await late?.catch(() => undefined);
    });
    await expect(late).rejects.toThrow();
  });

  test('writes of one queue beside one that swallows a constraint violation (the group tried again, each alone), at each position of the group: each valid write commits', async () => {
    for (let at = 0; at < 3; at++) {
      const writes = [0, 1, 2].map((i) =>
        i === at
          ? store.write(
              async (db) => {
                await db.run(nullRow).catch(() => undefined);
                return ['swallowed'];
              },
              { queue: 'spaceId:group' },
            ).catch(() => ['failed'])
          : validWrite(store, undefined, 'spaceId:group'),
      );
      const answers = await Promise.all(writes);
      // The one whose statement failed is not told it committed: its transaction was aborted there.
      expect(answers[at]).toEqual(['failed']);
    }
  });
});

describe.each([1, 2, undefined])('through the server on PostgreSQL, DATABASE_POOL_SIZE %s (undefined: the default)', (poolSize) => {
  const collections = Array.from({ length: 24 }, (_, i) => ({ id: `c${i}`, title: `Collection ${i}` }));
  const spaces = Array.from({ length: 4 }, (_, i) => ({ id: `s${i}`, title: `Space ${i}` }));
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      engine: 'postgres',
      fixture: extendFixture({ acme: { collections, spaces } }),
      env: poolSize === undefined ? {} : { DATABASE_POOL_SIZE: String(poolSize) },
      recordCoverage: false,
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  test('invalid requests and Git exports whose remote cannot be reached, beside valid writes and reads: no answer is a 5xx, each valid one is answered as alone', async () => {
    const admin = server.as('admin');
    const acme = { params: { path: { organizationId: ACME } } };
    const collection = (collectionId: string) => ({ params: { path: { collectionId } } });
    // Nothing listens on port 1: each export's job fails, and records its failure, while the requests run.
    const unreachable = 'http://127.0.0.1:1/nowhere.git';
    // Sent together: each answer's status once all are asked for.
    const status = async (answer: Promise<{ response: Response }>) => (await answer).response.status;
    for (let round = 0; round < 6; round++) {
      const mine = collections.slice(round * 4, round * 4 + 4).map((c) => c.id);
      // The valid requests go with the others, in the same turn.
      const [answers, valid] = await Promise.all([
        Promise.all([
        ...spaces.map((space) => status(admin.POST('/v1/spaces/{spaceId}/git/export', { params: { path: { spaceId: space.id } }, body: { url: unreachable, ref: 'refs/heads/main', commitMessage: 'Export' } }))),
        status(admin.GET('/v1/orgs/{organizationId}/collections', { params: { ...acme.params, query: { page: 'not-a-cursor' } } })),
        status(admin.GET('/v1/orgs/{organizationId}/collections', { params: { ...acme.params, query: { limit: 2 ** 40 } } })),
        status(admin.POST('/v1/orgs/{organizationId}/collections', { ...acme, body: { title: 7 } as never })),
        status(admin.PATCH('/v1/collections/{collectionId}', { ...collection(mine[0]!), body: {} })),
        status(admin.POST('/v1/orgs/{organizationId}/collections', { ...acme, body: { title: 'Nested', parent: 'no-such-collection' } })),
        ]),
        Promise.all([
        admin.DELETE('/v1/collections/{collectionId}', collection(mine[1]!)),
        admin.PATCH('/v1/collections/{collectionId}', { ...collection(mine[2]!), body: { title: `Renamed ${round}` } }),
        admin.GET('/v1/collections/{collectionId}', collection(mine[3]!)),
        admin.GET('/v1/orgs/{organizationId}/collections', { ...acme }),
        ]),
      ]);
      expect(answers.filter((status) => status >= 500)).toEqual([]);
      // The exports are queued (their jobs fail later); the invalid requests are refused as the caller's.
      expect(answers.slice(0, 4)).toEqual([204, 204, 204, 204]);
      expect([answers[4], answers[5], answers[6], answers[8]].every((status) => status! >= 400 && status! < 500)).toBe(true);
      expect(valid.map((answer) => answer.response.status)).toEqual([204, 200, 200, 200]);
    }
  });
});

// The caller behind a bearer token: looked up once per token and remembered, a token issued later still found, and a
// token given again to another user forgotten: at once by the instance that gave it, and on PostgreSQL by the other
// instances when it is announced, or when they could not hear announcements for a while.
// @needs postgres
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { callerOfToken, issueToken } from '../../server/auth/caller.ts';
import type { Scope } from '../../server/context/context.ts';
import { sha256 } from '../../server/common/ids.ts';
import type { Store } from '../../server/store/db.ts';
import { PostgresStore } from '../../server/store/postgres/store.ts';
import { SqliteStore } from '../../server/store/sqlite/store.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';

/** What the caller functions read of a scope: the store and a database handle. */
const reading = (store: Store) => ({ store, db: store.reader }) as unknown as Scope;
const issue = (store: Store, userId: string, token: string) =>
  store.write((db) => issueToken({ store, db } as unknown as Scope, userId, '2026-01-01T00:00:00Z', token));

let store: SqliteStore;
beforeEach(() => {
  store = new SqliteStore(':memory:');
  store.connection.prepare("INSERT INTO users (id, display_name, created_at) VALUES ('ada', 'Ada', '2026-01-01T00:00:00Z')").run();
  store.connection.prepare("INSERT INTO users (id, display_name, created_at) VALUES ('bob', 'Bob', '2026-01-01T00:00:00Z')").run();
});
afterEach(() => store.close());

test('a known token gives its user; the lookup is remembered and the caller cannot be changed', async () => {
  await issue(store, 'ada', 'token-of-ada');
  const first = await callerOfToken(reading(store), 'token-of-ada');
  expect(first?.user).toMatchObject({ id: 'ada', displayName: 'Ada' });
  // Remembered: the row is gone from the table, the caller is still known (tokens are never removed by the server).
  await store.write((db) => db.run(sql`DELETE FROM tokens WHERE hash = ${sha256('token-of-ada')}`));
  expect(await callerOfToken(reading(store), 'token-of-ada')).toBe(first);
  expect(() => {
    (first!.user as { id: string }).id = 'bob';
  }).toThrow(TypeError);
});

test('an unknown token is not remembered: issued later, it is found; issuing forgets what was remembered', async () => {
  expect(await callerOfToken(reading(store), 'later')).toBeUndefined();
  await issue(store, 'bob', 'later');
  expect((await callerOfToken(reading(store), 'later'))?.user.id).toBe('bob');
  // The same token given to another user.
  await issue(store, 'ada', 'later');
  expect((await callerOfToken(reading(store), 'later'))?.user.id).toBe('ada');
});

test('each database has its own callers', async () => {
  const other = new SqliteStore(':memory:');
  try {
    other.connection.prepare("INSERT INTO users (id, display_name, created_at) VALUES ('cy', 'Cy', '2026-01-01T00:00:00Z')").run();
    await issue(store, 'ada', 'shared');
    await issue(other, 'cy', 'shared');
    expect((await callerOfToken(reading(store), 'shared'))?.user.id).toBe('ada');
    expect((await callerOfToken(reading(other), 'shared'))?.user.id).toBe('cy');
  } finally {
    await other.close();
  }
});

describe('on PostgreSQL, two instances', () => {
  let database: TestDatabase;
  let a: PostgresStore;
  let b: PostgresStore;
  let admin: pg.Client;

  /** Polls until `check` holds, for at most 10 s. */
  const eventually = async (check: () => Promise<boolean>) => {
    for (const until = Date.now() + 10_000; !(await check()); ) {
      if (Date.now() > until) throw new Error('timed out waiting');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const userOf = async (store: Store, token: string) => (await callerOfToken(reading(store), token))?.user.id;
  /** Gives a token to a user behind the instances' backs, as a process that announces nothing would. */
  const giveSilently = (token: string, userId: string) => admin.query('UPDATE tokens SET user_id = $1 WHERE hash = $2', [userId, sha256(token)]);

  beforeAll(async () => {
    database = await createTestDatabase();
    admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    await admin.query("INSERT INTO users (id, display_name, created_at) VALUES ('ada', 'Ada', '2026-01-01T00:00:00Z'), ('bob', 'Bob', '2026-01-01T00:00:00Z')");
    [a, b] = await Promise.all([PostgresStore.open({ url: database.url }), PostgresStore.open({ url: database.url })]);
    // Each listens once it is first asked (a server asks at its first request).
    await eventually(async () => a.tokensVersion() !== undefined && b.tokensVersion() !== undefined);
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await admin?.end();
    await database?.drop();
  });

  /** Gives a token through `store`, and waits until `store` hears its own announcement. */
  const issueHeard = async (store: PostgresStore, userId: string, token: string) => {
    const before = store.tokensVersion();
    await issue(store, userId, token);
    await eventually(async () => store.tokensVersion() !== before);
  };

  test('a caller is remembered, and forgotten when another instance gives its token to another user', async () => {
    await issueHeard(a, 'ada', 'moving-token');
    expect(await userOf(a, 'moving-token')).toBe('ada');
    // Remembered: a change nobody announces is not seen.
    await giveSilently('moving-token', 'bob');
    expect(await userOf(a, 'moving-token')).toBe('ada');
    // Announced by b: a forgets, and reads the token's user again.
    await issue(b, 'bob', 'moving-token');
    await eventually(async () => (await userOf(a, 'moving-token')) === 'bob');
  });

  test('an instance that lost its listening connection forgets what it knew once it listens again', async () => {
    await issueHeard(a, 'ada', 'unheard-token');
    expect(await userOf(a, 'unheard-token')).toBe('ada');
    await giveSilently('unheard-token', 'bob');
    expect(await userOf(a, 'unheard-token')).toBe('ada');
    const before = a.tokensVersion();
    await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'docs-platform-server (announcements)'");
    await eventually(async () => a.tokensVersion() !== before);
    expect(await userOf(a, 'unheard-token')).toBe('bob');
  });
});

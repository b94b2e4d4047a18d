// The caller behind a bearer token: looked up once per token and remembered (SQLite, where the server sees every
// write of tokens), a token issued later still found.
import { sql } from 'kysely';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { callerOfToken, issueToken } from '../server/auth/caller.ts';
import type { Scope } from '../server/context.ts';
import { sha256 } from '../server/domain/ids.ts';
import { SqliteStore } from '../server/store/sqlite/store.ts';

/** What the caller functions read of a scope: the store and a database handle. */
const reading = (store: SqliteStore) => ({ store, db: store.reader }) as unknown as Scope;
const issue = (store: SqliteStore, userId: string, token: string) =>
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

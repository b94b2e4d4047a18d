// The caller behind a bearer token: looked up once per token and remembered, a token issued later still found.
import { afterEach, beforeEach, expect, test } from 'vitest';
import { callerOfToken, issueToken } from '../server/auth/caller.ts';
import { sha256 } from '../server/domain/ids.ts';
import { Store } from '../server/store/db.ts';

let store: Store;
beforeEach(() => {
  store = Store.open(':memory:').store;
  store.db.prepare("INSERT INTO users (id, display_name, created_at) VALUES ('ada', 'Ada', '2026-01-01T00:00:00Z')").run();
  store.db.prepare("INSERT INTO users (id, display_name, created_at) VALUES ('bob', 'Bob', '2026-01-01T00:00:00Z')").run();
});
afterEach(() => store.close());

test('a known token gives its user; the lookup is remembered and the caller cannot be changed', () => {
  const { db } = store;
  issueToken(db, 'ada', '2026-01-01T00:00:00Z', 'token-of-ada');
  const first = callerOfToken(db, 'token-of-ada');
  expect(first?.user).toMatchObject({ id: 'ada', displayName: 'Ada' });
  // Remembered: the row is gone from the table, the caller is still known (tokens are never removed by the server).
  db.prepare('DELETE FROM tokens WHERE hash = ?').run(sha256('token-of-ada'));
  expect(callerOfToken(db, 'token-of-ada')).toBe(first);
  expect(() => {
    (first!.user as { id: string }).id = 'bob';
  }).toThrow(TypeError);
});

test('an unknown token is not remembered: issued later, it is found; issuing forgets what was remembered', () => {
  const { db } = store;
  expect(callerOfToken(db, 'later')).toBeUndefined();
  issueToken(db, 'bob', '2026-01-01T00:00:00Z', 'later');
  expect(callerOfToken(db, 'later')?.user.id).toBe('bob');
  // INSERT OR REPLACE: the same token given to another user.
  issueToken(db, 'ada', '2026-01-01T00:00:00Z', 'later');
  expect(callerOfToken(db, 'later')?.user.id).toBe('ada');
});

test('each database has its own callers', () => {
  const other = Store.open(':memory:').store;
  try {
    other.db.prepare("INSERT INTO users (id, display_name, created_at) VALUES ('cy', 'Cy', '2026-01-01T00:00:00Z')").run();
    issueToken(store.db, 'ada', '2026-01-01T00:00:00Z', 'shared');
    issueToken(other.db, 'cy', '2026-01-01T00:00:00Z', 'shared');
    expect(callerOfToken(store.db, 'shared')?.user.id).toBe('ada');
    expect(callerOfToken(other.db, 'shared')?.user.id).toBe('cy');
  } finally {
    other.close();
  }
});

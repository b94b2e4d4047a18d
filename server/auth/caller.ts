// Who is calling: the user behind the bearer token. Tokens are stored as SHA-256 hashes only.
import type { Scope } from '../context.ts';
import { newSecret, sha256 } from '../domain/ids.ts';
import type { Db, Store } from '../store/db.ts';
import * as users from '../store/users.ts';

export interface UserRecord {
  id: string;
  displayName: string;
  email: string | null;
  photoURL: string | null;
}

export interface Caller {
  user: UserRecord;
}

export const toUser = (row: users.UserRow): UserRecord => ({
  id: row.id,
  displayName: row.display_name,
  email: row.email,
  photoURL: row.photo_url,
});

export async function findUser(db: Db, id: string): Promise<UserRecord | undefined> {
  const row = await users.get(db, id);
  return row && toUser(row);
}

/** The users with these ids (one query for a page of them); an id without a user has no entry. */
export async function findUsers(db: Db, ids: readonly string[]): Promise<Map<string, UserRecord>> {
  const rows = await users.getMany(db, [...new Set(ids)]);
  return new Map(rows.map((row) => [row.id, toUser(row)]));
}

/**
 * Callers of known tokens, by store. Every request looks its token up (a SHA-256 and a join were 7% of the CPU of a
 * GET); tokens and users are only ever added (seed, `issueToken`), never changed or removed, so a token once known
 * keeps its caller, in every instance. Unknown tokens are not remembered (a token issued later, here or by another
 * instance, is found), and the map is emptied when `issueToken` writes or when it holds `MAX_KNOWN_TOKENS`.
 */
const knownCallers = new WeakMap<Store, Map<string, Caller>>();
const MAX_KNOWN_TOKENS = 10_000;

/** The caller of a token, or undefined when the token is unknown. */
export async function callerOfToken(ctx: Scope, token: string): Promise<Caller | undefined> {
  let known = knownCallers.get(ctx.store);
  const cached = known?.get(token);
  if (cached) return cached;
  const row = await users.byTokenHash(ctx.db, sha256(token));
  const caller = row && Object.freeze({ user: Object.freeze(toUser(row)) });
  // Remembered only where this process sees every write of tokens (SQLite): on PostgreSQL another instance may
  // give a token to another user (its seed at start-up), so each request looks it up.
  if (caller && ctx.store.exclusive) {
    if (!known || known.size >= MAX_KNOWN_TOKENS) knownCallers.set(ctx.store, (known = new Map()));
    known.set(token, caller);
  }
  return caller;
}

/** Stores a token for a user (hashed) and returns it; `token` defaults to a new random secret. */
export async function issueToken(ctx: Scope, userId: string, createdAt: string, token = newSecret(), label?: string): Promise<string> {
  knownCallers.delete(ctx.store);
  await users.putToken(ctx.db, { hash: sha256(token), userId, label: label ?? null, createdAt });
  return token;
}

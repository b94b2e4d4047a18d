// Who is calling: the user behind the bearer token. Tokens are stored as SHA-256 hashes only.
import type { Scope } from '../context/context.ts';
import { newSecret, sha256 } from '../common/ids.ts';
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
  displayName: row.displayName,
  email: row.email,
  photoURL: row.photoUrl,
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
 * Callers of known tokens, by store. Every request looks its token up (a SHA-256 and a join, a visible share of a GET's
 * CPU on SQLite, and one of its few round trips on PostgreSQL); tokens and users are only ever added (seed, `issueToken`),
 * never removed, but a token may be given again to another user (a seed naming it). So what is remembered holds for
 * one `Store.tokensVersion`: issuing a token here forgets it at once, and on PostgreSQL each instance's issuing is
 * announced to the others (NOTIFY), which forget theirs; while an instance cannot hear the announcements, it
 * remembers nothing. Unknown tokens are not remembered (a token issued later is found), and the map is emptied when it
 * holds `MAX_KNOWN_TOKENS`.
 */
const knownCallers = new WeakMap<Store, { version: number; callers: Map<string, Caller> }>();
const MAX_KNOWN_TOKENS = 10_000;

/** How many callers are remembered for `store` (for tests). */
export const knownCallerCount = (store: Store): number => knownCallers.get(store)?.callers.size ?? 0;

/** The caller of a token, or undefined when the token is unknown. */
export async function callerOfToken(ctx: Scope, token: string): Promise<Caller | undefined> {
  const version = ctx.store.tokensVersion();
  const known = knownCallers.get(ctx.store);
  const cached = known !== undefined && known.version === version ? known.callers.get(token) : undefined;
  if (cached) return cached;
  const row = await users.byTokenHash(ctx.db, sha256(token));
  const caller = row && Object.freeze({ user: Object.freeze(toUser(row)) });
  // Remembered only when no token was announced while it was read: the row may predate the announcement.
  if (caller && version !== undefined && ctx.store.tokensVersion() === version) {
    let now = knownCallers.get(ctx.store);
    if (now?.version !== version || now.callers.size >= MAX_KNOWN_TOKENS) knownCallers.set(ctx.store, (now = { version, callers: new Map() }));
    now.callers.set(token, caller);
  }
  return caller;
}

/** Stores a token for a user (hashed) and returns it; `token` defaults to a new random secret. */
export async function issueToken(ctx: Scope, userId: string, createdAt: string, token = newSecret(), label?: string): Promise<string> {
  await users.putToken(ctx.db, { hash: sha256(token), userId, label: label ?? null, createdAt });
  await ctx.store.announceTokens(ctx.db);
  // The callers kept are forgotten once the token is there to be read, and not for a write that is undone.
  ctx.db.afterCommit(() => knownCallers.delete(ctx.store));
  return token;
}

// Who is calling: the user behind the bearer token. Tokens are stored as SHA-256 hashes only.
import { amongIds, type Db } from '../store/db.ts';
import { newSecret, sha256 } from '../domain/ids.ts';

export interface UserRecord {
  id: string;
  displayName: string;
  email: string | null;
  photoURL: string | null;
}

export interface Caller {
  user: UserRecord;
}

type UserRow = { id: string; display_name: string; email: string | null; photo_url: string | null };

/** The columns of a user that make a UserRecord (`toUser`). */
const SELECT_USERS = 'SELECT id, display_name, email, photo_url FROM users';

export const toUser = (row: UserRow): UserRecord => ({
  id: row.id,
  displayName: row.display_name,
  email: row.email,
  photoURL: row.photo_url,
});

const USERS_AMONG = amongIds((among) => `${SELECT_USERS} WHERE id ${among}`);

export function findUser(db: Db, id: string): UserRecord | undefined {
  const row = db.prepare(USERS_AMONG.one).get(id) as UserRow | undefined;
  return row && toUser(row);
}

/** The users with these ids (one query for a page of them); an id without a user has no entry. */
export function findUsers(db: Db, ids: readonly string[]): Map<string, UserRecord> {
  const { sql, ids: among } = USERS_AMONG(ids);
  const rows = db.prepare(sql).all(among) as UserRow[];
  return new Map(rows.map((row) => [row.id, toUser(row)]));
}

/**
 * Callers of known tokens, by database. Every request looks its token up (a SHA-256 and a join were 7% of the CPU of
 * a GET); tokens and users are only ever added (seed, `issueToken`), never changed or removed, so a token once known
 * keeps its caller. Unknown tokens are not remembered (a token issued later is found), and the map is emptied when
 * `issueToken` writes or when it holds `MAX_KNOWN_TOKENS`.
 */
const knownCallers = new WeakMap<Db, Map<string, Caller>>();
const MAX_KNOWN_TOKENS = 10_000;

/** The caller of a token, or undefined when the token is unknown. */
export function callerOfToken(db: Db, token: string): Caller | undefined {
  let known = knownCallers.get(db);
  const cached = known?.get(token);
  if (cached) return cached;
  const caller = lookUpCaller(db, token);
  if (caller) {
    if (!known || known.size >= MAX_KNOWN_TOKENS) knownCallers.set(db, (known = new Map()));
    known.set(token, caller);
  }
  return caller;
}

function lookUpCaller(db: Db, token: string): Caller | undefined {
  const row = db
    .prepare(
      `SELECT users.id, users.display_name, users.email, users.photo_url
       FROM tokens JOIN users ON users.id = tokens.user_id WHERE tokens.hash = ?`,
    )
    .get(sha256(token)) as UserRow | undefined;
  return row && Object.freeze({ user: Object.freeze(toUser(row)) });
}

/** Stores a token for a user (hashed) and returns it; `token` defaults to a new random secret. */
export function issueToken(db: Db, userId: string, createdAt: string, token = newSecret(), label?: string): string {
  knownCallers.delete(db);
  db.prepare('INSERT OR REPLACE INTO tokens (hash, user_id, label, created_at) VALUES (?, ?, ?, ?)').run(
    sha256(token),
    userId,
    label ?? null,
    createdAt,
  );
  return token;
}

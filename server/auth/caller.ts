// Who is calling: the user behind the bearer token. Tokens are stored as SHA-256 hashes only.
import type { Db } from '../store/db.ts';
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

export const toUser = (row: UserRow): UserRecord => ({
  id: row.id,
  displayName: row.display_name,
  email: row.email,
  photoURL: row.photo_url,
});

export function findUser(db: Db, id: string): UserRecord | undefined {
  const row = db.prepare('SELECT id, display_name, email, photo_url FROM users WHERE id = ?').get(id) as
    | UserRow
    | undefined;
  return row && toUser(row);
}

/** The caller of a token, or undefined when the token is unknown. */
export function callerOfToken(db: Db, token: string): Caller | undefined {
  const row = db
    .prepare(
      `SELECT users.id, users.display_name, users.email, users.photo_url
       FROM tokens JOIN users ON users.id = tokens.user_id WHERE tokens.hash = ?`,
    )
    .get(sha256(token)) as UserRow | undefined;
  return row && { user: toUser(row) };
}

/** Stores a token for a user (hashed) and returns it; `token` defaults to a new random secret. */
export function issueToken(db: Db, userId: string, createdAt: string, token = newSecret(), label?: string): string {
  db.prepare('INSERT OR REPLACE INTO tokens (hash, user_id, label, created_at) VALUES (?, ?, ?, ?)').run(
    sha256(token),
    userId,
    label ?? null,
    createdAt,
  );
  return token;
}

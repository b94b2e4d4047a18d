// Users and their access tokens (stored as SHA-256 hashes only).
import type { Insertable, Selectable } from 'kysely';
import { columns, type Db, prepared } from './db.ts';
import type { Camelized, UsersTable } from './schema.ts';

/** A user as the API's code reads it (when it was created is the store's business). */
export type UserRow = Camelized<Omit<Selectable<UsersTable>, 'created_at'>>;

/** The user with this id. */
export function get(db: Db, id: string): Promise<UserRow | undefined> {
  return db.first(db.q.selectFrom('users').select(['id', 'display_name', 'email', 'photo_url']).where('id', '=', id));
}

/** The users with these ids (one query for a page of them); an id without a user has no row. */
export function getMany(db: Db, ids: readonly string[]): Promise<UserRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.all(db.q.selectFrom('users').select(['id', 'display_name', 'email', 'photo_url']).where(db.specific.among('id', ids)));
}

/** The user a token's hash belongs to. */
export function byTokenHash(db: Db, hash: string): Promise<UserRow | undefined> {
  return db.first(BY_TOKEN_HASH, { hash });
}

const BY_TOKEN_HASH = prepared((q, p: { hash: string }) =>
  q.selectFrom('tokens').innerJoin('users', 'users.id', 'tokens.user_id')
    .select(['users.id', 'users.display_name', 'users.email', 'users.photo_url'])
    .where('tokens.hash', '=', p.hash),
);

/** Stores a token's hash for a user, replacing what the hash named before. */
export async function putToken(db: Db, token: { hash: string; userId: string; label: string | null; createdAt: string }): Promise<void> {
  await db.send(
    db.q.insertInto('tokens')
      .values({ hash: token.hash, user_id: token.userId, label: token.label, created_at: token.createdAt })
      .onConflict((conflict) => conflict.column('hash').doUpdateSet({ user_id: token.userId, label: token.label, created_at: token.createdAt })),
  );
}

/** Whether a user with this id exists. */
export async function exists(db: Db, id: string): Promise<boolean> {
  return (await db.first(db.q.selectFrom('users').select('id').where('id', '=', id))) !== undefined;
}

export async function insert(db: Db, user: UserRow & { createdAt: string }): Promise<void> {
  await db.send(db.q.insertInto('users').values(columns<Insertable<UsersTable>>(user)));
}

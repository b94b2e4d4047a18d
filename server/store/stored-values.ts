// The stored values that become fields the API answers with bounds (titles, addresses), read and rewritten one by
// one: domain/stored-values.ts checks them against the contract after a migration and rewrites those it refuses.
import type { Db } from './db.ts';

/** A column holding a value the API answers, with the table's key. */
export type CheckedColumn =
  | { table: 'organizations'; column: 'title' }
  | { table: 'teams'; column: 'title' }
  | { table: 'collections'; column: 'title' }
  | { table: 'spaces'; column: 'title' }
  | { table: 'users'; column: 'email' | 'photo_url' };

/** Every row's id and value of the column (null values left out: absent in answers). */
export async function values(db: Db, { table, column }: CheckedColumn): Promise<{ id: string; value: string }[]> {
  const rows = await db.all(db.q.selectFrom(table).select(['id', `${column} as value`] as never).where(column as never, 'is not', null));
  return rows as unknown as { id: string; value: string }[];
}

/** Sets the column of one row (a team's folded title follows its title, as store/teams.ts keeps it). */
export async function set(db: Db, { table, column }: CheckedColumn, id: string, value: string | null): Promise<void> {
  const changes: Record<string, string | null> = { [column]: value };
  if (table === 'teams' && value !== null) changes.title_folded = value.toLowerCase();
  await db.send(db.q.updateTable(table).set(changes as never).where('id', '=', id));
}

// The server's own values kept in the database, such as secrets made on first use, so that they survive restarts and
// are the same for every instance.
import type { Db } from './db.ts';

/** The value named `key`: the one kept, or else `value`, kept from now on (by whichever instance gets there first). */
export async function keep(db: Db, key: string, value: string): Promise<string> {
  const { q } = db;
  await db.send(q.insertInto('meta').values({ key, value }).onConflict((conflict) => conflict.column('key').doNothing()));
  const row = await db.first(q.selectFrom('meta').select('value').where('key', '=', key));
  return row!.value;
}

/** Writes `value` under `key`, replacing what was there. */
export async function put(db: Db, key: string, value: string): Promise<void> {
  await db.send(db.q.insertInto('meta').values({ key, value }).onConflict((conflict) => conflict.column('key').doUpdateSet({ value })));
}

// Rows written or read by a test directly in the server's store, where the API has no operation for it (bulk rows,
// rows as stored): Kysely's builders and `sql` template compile for the engine in use, so this works on both.
import type { Insertable } from 'kysely';
import type { AppContext } from '../../server/context/context.ts';
import type { Schema } from '../../server/store/schema.ts';

/** Inserts `rows` into `table` in one write, in statements of `chunk` rows (below both engines' parameter limits). */
export function insertRows<T extends keyof Schema & string>(app: AppContext, table: T, rows: Insertable<Schema[T]>[], chunk = 500): Promise<void> {
  return app.store.write(async (db) => {
    for (let start = 0; start < rows.length; start += chunk) {
      await db.run(db.q.insertInto(table).values(rows.slice(start, start + chunk) as never));
    }
  });
}

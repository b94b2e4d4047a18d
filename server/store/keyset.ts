// Keyset pagination in queries: a page continues after the sort key of the last row of the previous page
// (common/paging.ts makes the cursors). The columns of a key are sorted all ascending or all descending, and end
// with a unique column, so that "after" is a row comparison an index answers.
import { type RawBuilder, type SqlBool, sql } from 'kysely';

export type SortOrder = 'asc' | 'desc';

/** A sort key: the values of the key's columns for one row. */
export type Key = (string | number | null)[];

/** `(a, b) > (?, ?)` (or `<` for `desc`): the rows that sort after `key`. */
export function after(columns: readonly string[], key: Key, order: SortOrder = 'asc'): RawBuilder<SqlBool> {
  const comparison = order === 'asc' ? sql`>` : sql`<`;
  return sql<SqlBool>`(${sql.join(columns.map((column) => sql.ref(column)))}) ${comparison} (${sql.join(key)})`;
}

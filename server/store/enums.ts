// Branching on a value of a contract enumeration, exhaustively: a table `Record<Enum, …>`, or a `switch` whose
// `default` calls `unreachable(value)`, so that a value the contract adds fails `tsc` where it is branched on; and
// `parseEnum` and `rowParser`, which parse stored values at the row → domain boundary (server/docs/code.md, "Writing
// handlers").

import { columnName } from './db.ts';

/** Thrown when a stored value is not one of its enumeration's: names the table, the column and the value. */
export class StoredEnumError extends Error {
  constructor(table: string, column: string, value: unknown, allowed: readonly string[]) {
    super(`${table}.${column} holds ${JSON.stringify(value)}, not one of ${allowed.join(', ')}`);
  }
}

/**
 * The members of an enumeration, from a table with one key per member (`{ live: true, locked: true } satisfies
 * Record<Model<'EditMode'>, true>` is a type error as soon as the contract adds a member).
 */
export function members<E extends string>(table: Record<E, unknown>): readonly E[] {
  return Object.keys(table) as E[];
}

/** A stored value checked against its enumeration (see `members`); a value outside it throws `StoredEnumError`. */
export function parseEnum<E extends string>(
  table: Record<E, unknown>,
  where: { table: string; column: string },
  value: unknown,
): E {
  if (typeof value === 'string' && Object.hasOwn(table, value)) return value as E;
  throw new StoredEnumError(where.table, where.column, value, members(table));
}

/** Per column of a row type holding an enumeration: a table with one key per member (`EDIT_MODES`, …). */
export type EnumColumns<Row> = { [Column in keyof Row]?: Record<Extract<NonNullable<Row[Column]>, string>, unknown> };

/**
 * The parser of rows of `table` read with `SELECT`: each enumeration column is checked against its table (see
 * `parseEnum`, the column named as the database does; NULL passes, NOT NULL is the schema's business) and the row
 * comes back typed, its enumeration columns holding members of their enumerations only.
 */
export function rowParser<Row extends object>(table: string, columns: EnumColumns<Row>): (raw: unknown) => Row {
  // Per checked field: its name in the row, its members, and where an error says it is stored (made once, here).
  const checks = (Object.entries(columns) as [string, Record<string, unknown>][]).map(
    ([field, values]) => [field, values, { table, column: columnName(field) }] as const,
  );
  return (raw) => {
    const row = raw as Record<string, unknown>;
    for (const [field, values, where] of checks) {
      const value = row[field];
      if (value !== null && value !== undefined) parseEnum(values, where, value);
    }
    return raw as Row;
  };
}

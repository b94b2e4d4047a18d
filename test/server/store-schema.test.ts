// The two engines' schemas cannot drift: after their migrations, SQLite and PostgreSQL hold the same tables, with the
// same columns (name, type, nullability, default), primary keys, unique constraints, foreign keys (and what a delete
// does to the rows that refer), indexes (columns, uniqueness, condition) and triggers. What each engine keeps its own
// way is named here, with the reason.
// @needs postgres
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { readPostgresMigrations } from '../../server/store/postgres/store.ts';
import { readMigrations, SqliteStore } from '../../server/store/sqlite/store.ts';
import { PostgresStore } from '../../server/store/postgres/store.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';

/** Tables each engine has alone: the full-text index (FTS5 in SQLite, a tsvector in PostgreSQL) and bookkeeping. */
const ENGINE_TABLES = [/^content_search/, /^sqlite_/, /^schema_migrations$/];

/** PostgreSQL's `rowid` identity columns stand for SQLite's implicit rowid, by which the store orders three tables. */
const ROWID_TABLES = ['comment_reactions', 'content_links', 'git_operations'];

interface Schema {
  /** table → column → `type nullability default` */
  columns: Record<string, Record<string, string>>;
  primaryKeys: Record<string, string>;
  uniques: Record<string, string[]>;
  foreignKeys: Record<string, string[]>;
  /** index name → `table (columns) [unique] [where ...]` */
  indexes: Record<string, string>;
  /** trigger name → table */
  triggers: Record<string, string>;
}

const normalize = (text: string) =>
  text
    .toLowerCase()
    .replace(/::[a-z ]+(\[\])?/g, '')
    .replace(/["()\s]/g, '');

const sqliteType = (type: string) => ({ TEXT: 'text', INTEGER: 'integer', REAL: 'real', BLOB: 'blob' })[type.toUpperCase()] ?? type;
const postgresType = (type: string) =>
  ({ text: 'text', bigint: 'integer', 'double precision': 'real', bytea: 'blob' })[type] ?? type;
const onDelete = (action: string) => action.toLowerCase().replace('_', ' ');

function sqliteSchema(store: SqliteStore): Schema {
  const connection = store.connection;
  const all = <T>(sql: string, ...values: unknown[]) => connection.prepare(sql).all(...values) as T[];
  const schema: Schema = { columns: {}, primaryKeys: {}, uniques: {}, foreignKeys: {}, indexes: {}, triggers: {} };
  const tables = all<{ name: string; sql: string }>(`SELECT name, sql FROM sqlite_master WHERE type = 'table'`).filter(
    (table) => !ENGINE_TABLES.some((pattern) => pattern.test(table.name)),
  );
  for (const { name: table, sql } of tables) {
    const columns = all<{ name: string; type: string; notnull: number; dflt_value: string | null; pk: number }>(`PRAGMA table_xinfo("${table}")`);
    const autoincrement = /AUTOINCREMENT/i.test(sql);
    schema.columns[table] = Object.fromEntries(
      columns.map((column) => {
        const generated = autoincrement && column.pk === 1;
        const nullable = column.notnull || column.pk ? 'not null' : 'null';
        const fallback = generated ? 'generated' : column.dflt_value === null ? '' : normalize(column.dflt_value);
        return [column.name, `${sqliteType(column.type)} ${nullable} ${fallback}`.trim()];
      }),
    );
    schema.primaryKeys[table] = columns.filter((column) => column.pk > 0).sort((a, b) => a.pk - b.pk).map((column) => column.name).join(',');
    const indexList = all<{ name: string; unique: number; origin: string; partial: number }>(`PRAGMA index_list("${table}")`);
    schema.uniques[table] = indexList
      .filter((index) => index.origin === 'u')
      .map((index) => all<{ name: string }>(`PRAGMA index_info("${index.name}")`).map((column) => column.name).join(','))
      .sort();
    schema.foreignKeys[table] = all<{ from: string; table: string; to: string; on_delete: string }>(`PRAGMA foreign_key_list("${table}")`)
      .map((key) => `${key.from} -> ${key.table}.${key.to} on delete ${onDelete(key.on_delete)}`)
      .sort();
  }
  for (const index of all<{ name: string; tbl_name: string; sql: string }>(`SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL`)) {
    if (ENGINE_TABLES.some((pattern) => pattern.test(index.tbl_name))) continue;
    schema.indexes[index.name] = describeIndex(index.tbl_name, index.sql);
  }
  for (const trigger of all<{ name: string; tbl_name: string }>(`SELECT name, tbl_name FROM sqlite_master WHERE type = 'trigger'`)) {
    schema.triggers[trigger.name] = trigger.tbl_name;
  }
  return schema;
}

/** `table (columns) unique where …` from a CREATE INDEX statement of either engine. */
function describeIndex(table: string, sql: string): string {
  const unique = /CREATE UNIQUE INDEX/i.test(sql);
  const body = sql.replace(/^.*? ON [^(]*?(USING \w+ )?\(/is, '(');
  const whereAt = body.search(/\sWHERE\s/i);
  const columns = whereAt === -1 ? body : body.slice(0, whereAt);
  const where = whereAt === -1 ? '' : ` where ${normalize(body.slice(whereAt).replace(/^\s*WHERE\s/i, ''))}`;
  return `${table} ${normalize(columns)}${unique ? ' unique' : ''}${where}`;
}

async function postgresSchema(url: string): Promise<Schema> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const rows = async <T>(sql: string) => (await client.query(sql)).rows as T[];
    const schema: Schema = { columns: {}, primaryKeys: {}, uniques: {}, foreignKeys: {}, indexes: {}, triggers: {} };
    const columns = await rows<{ table_name: string; column_name: string; data_type: string; is_nullable: string; column_default: string | null; is_identity: string }>(
      `SELECT table_name, column_name, data_type, is_nullable, column_default, is_identity FROM information_schema.columns
       WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`,
    );
    for (const column of columns) {
      if (ENGINE_TABLES.some((pattern) => pattern.test(column.table_name))) continue;
      if (column.column_name === 'rowid' && ROWID_TABLES.includes(column.table_name)) continue;
      const fallback = column.is_identity === 'YES' ? 'generated' : column.column_default === null ? '' : normalize(column.column_default);
      const nullable = column.is_nullable === 'NO' ? 'not null' : 'null';
      (schema.columns[column.table_name] ??= {})[column.column_name] = `${postgresType(column.data_type)} ${nullable} ${fallback}`.trim();
    }
    const constraints = await rows<{ table: string; type: string; columns: string[]; target: string | null; target_columns: string[] | null; on_delete: string }>(
      `SELECT c.conrelid::regclass::text AS table, c.contype AS type,
              ARRAY(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY AS k(n, i) JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.i) AS columns,
              c.confrelid::regclass::text AS target,
              ARRAY(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY AS k(n, i) JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n ORDER BY k.i) AS target_columns,
              c.confdeltype AS on_delete
       FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = 'public' AND c.contype IN ('p', 'u', 'f')`,
    );
    const actions: Record<string, string> = { a: 'no action', c: 'cascade', n: 'set null', r: 'restrict', d: 'set default' };
    for (const table of Object.keys(schema.columns)) {
      schema.uniques[table] = [];
      schema.foreignKeys[table] = [];
    }
    for (const constraint of constraints) {
      if (ENGINE_TABLES.some((pattern) => pattern.test(constraint.table))) continue;
      if (constraint.type === 'p') schema.primaryKeys[constraint.table] = constraint.columns.join(',');
      if (constraint.type === 'u') schema.uniques[constraint.table]!.push(constraint.columns.join(','));
      if (constraint.type === 'f') {
        schema.foreignKeys[constraint.table]!.push(
          `${constraint.columns.join(',')} -> ${constraint.target}.${constraint.target_columns!.join(',')} on delete ${actions[constraint.on_delete]}`,
        );
      }
    }
    for (const table of Object.keys(schema.columns)) {
      schema.uniques[table]!.sort();
      schema.foreignKeys[table]!.sort();
      schema.primaryKeys[table] ??= '';
    }
    const owned = new Set(
      (await rows<{ name: string }>(`SELECT conname AS name FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = 'public'`)).map((row) => row.name),
    );
    for (const index of await rows<{ indexname: string; tablename: string; indexdef: string }>(`SELECT indexname, tablename, indexdef FROM pg_indexes WHERE schemaname = 'public'`)) {
      if (owned.has(index.indexname) || ENGINE_TABLES.some((pattern) => pattern.test(index.tablename))) continue;
      schema.indexes[index.indexname] = describeIndex(index.tablename, index.indexdef);
    }
    for (const trigger of await rows<{ name: string; table: string }>(
      `SELECT t.tgname AS name, t.tgrelid::regclass::text AS table FROM pg_trigger t WHERE NOT t.tgisinternal`,
    )) {
      schema.triggers[trigger.name] = trigger.table;
    }
    return schema;
  } finally {
    await client.end();
  }
}

describe('the SQLite and PostgreSQL schemas', () => {
  let database: TestDatabase;
  let sqlite: Schema;
  let postgres: Schema;

  beforeAll(async () => {
    database = await createTestDatabase({ empty: true });
    const store = await PostgresStore.open({ url: database.url });
    await store.close();
    const lite = SqliteStore.open(':memory:');
    sqlite = sqliteSchema(lite);
    await lite.close();
    postgres = await postgresSchema(database.url);
  });
  afterAll(() => database?.drop());

  test('have the same tables and columns, each of the same type, nullability and default', () => {
    expect(Object.keys(sqlite.columns).length).toBeGreaterThan(30);
    expect(postgres.columns).toEqual(sqlite.columns);
  });

  test('have the same primary keys, unique constraints and foreign keys', () => {
    expect(postgres.primaryKeys).toEqual(sqlite.primaryKeys);
    expect(postgres.uniques).toEqual(sqlite.uniques);
    expect(postgres.foreignKeys).toEqual(sqlite.foreignKeys);
  });

  test('have the same indexes, with the same columns, uniqueness and conditions', () => {
    expect(Object.keys(sqlite.indexes).length).toBeGreaterThan(40);
    expect(postgres.indexes).toEqual(sqlite.indexes);
  });

  test('keep the same counters and copies by triggers of the same names', () => {
    expect(postgres.triggers).toEqual(sqlite.triggers);
  });

  test("reach the same version: every migration after PostgreSQL's baseline exists for both engines", () => {
    const baseline = readPostgresMigrations()[0]!.version;
    const versions = (migrations: { version: number }[]) => migrations.map((migration) => migration.version).filter((version) => version > baseline);
    expect(versions(readPostgresMigrations())).toEqual(versions(readMigrations()));
    expect(readMigrations().some((migration) => migration.version === baseline)).toBe(true);
  });
});

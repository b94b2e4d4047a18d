// The migrations of an engine: `NNN_name.sql` files in its folder (sqlite/migrations, postgres/migrations), applied
// in version order by each engine's store. The two folders hold the same versions (test/server/store-schema.test.ts).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The migrations in `dir`, named `NNN_name.sql`, in version order. */
export function migrationsIn(dir: string): Migration[] {
  return readdirSync(dir)
    .filter((file) => /^\d+_[\w-]+\.sql$/.test(file))
    .map((file) => ({ version: Number(file.split('_')[0]), name: file, sql: readFileSync(path.join(dir, file), 'utf8') }))
    .sort((a, b) => a.version - b.version);
}

// Opens the store the configuration names: PostgreSQL when DATABASE_URL is set, SQLite in DATA_DIR otherwise.
import type { Store } from './db.ts';
import { PostgresStore } from './postgres/store.ts';
import { SqliteStore } from './sqlite/store.ts';

export interface StoreOptions {
  /** SQLite: the folder of data.sqlite, or `:memory:`. */
  dataDir: string;
  /** SQLite's page cache, MiB. */
  dbCacheMb: number;
  /** PostgreSQL's connection string; SQLite when absent. */
  databaseUrl?: string;
  /** PostgreSQL: connections of the pool. */
  poolSize?: number;
}

/** The store, opened and migrated; `applied` names the migrations this opening applied. */
export async function openStore(options: StoreOptions): Promise<{ store: Store; applied: string[] }> {
  if (options.databaseUrl !== undefined) {
    const store = await PostgresStore.open({ url: options.databaseUrl, poolSize: options.poolSize });
    return { store, applied: store.applied };
  }
  const store = SqliteStore.open(options.dataDir, options.dbCacheMb);
  return { store, applied: store.applied };
}

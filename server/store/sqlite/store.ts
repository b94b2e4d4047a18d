// The embedded engine: one SQLite file under DATA_DIR (WAL), or `:memory:` in tests, through better-sqlite3, on one
// connection this process owns. Writes are serialised and those of one turn commit together (group commit, `write`);
// statements are prepared once, rows read as arrays; a full disk refuses only the writes that need room
// (server/docs/store.md, "The SQLite engine").
import { mkdirSync, statfsSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import { type Migration, migrationsIn } from '../migrations.ts';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import {
  DummyDriver,
  Kysely,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import { unavailable } from '../../common/errors.ts';
import { atTurnEnd } from '../../common/turn-end.ts';
import { STORAGE_CHECK_KEY, StoreConditions, storageCheckValue } from '../conditions.ts';
import * as meta from '../meta.ts';
import { camelName, type Compiled, type Db, type Driver, Effects, EngineDb, type ReadOptions, rowOf, type Store, writeRefused } from '../db.ts';
import type { Schema } from '../schema.ts';
import { sqliteSpecific } from './specific.ts';

export type Connection = Database.Database;

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/** SQLite's page cache in MiB unless DB_CACHE_MB says otherwise (see `SqliteStore`). */
export const DEFAULT_CACHE_MB = 2;

/**
 * Free bytes DATA_DIR's disk must have before the store tries whether writes fit again: a write fits in less (into the
 * write-ahead log's existing pages) while the disk is still full, which would end the condition only to start it again.
 */
const ROOM_BYTES = 1024 * 1024;

/** The free bytes a `statfs` of a folder tells this process it may use. */
const freeBytes = (stats: { bavail: number; bsize: number }) => stats.bavail * stats.bsize;

/** How many distinct SQL texts the connection keeps prepared (texts built at run time could otherwise grow it). */
const STATEMENT_CACHE_SIZE = 1000;
/**
 * The longest SQL text kept prepared, in characters. Longer texts are the ones built from what is written (a batch of
 * rows inserted at once, an order of many siblings), which rarely come again: prepared for their one use, not kept,
 * so the cache holds at most STATEMENT_CACHE_SIZE × this (server/docs/limits.md, "What grows with requests").
 */
export const LONGEST_KEPT_STATEMENT = 4096;

/** Kysely as a query builder for SQLite: it compiles, the store executes (DummyDriver never runs anything). */
export const sqliteQueries = new Kysely<Schema>({
  dialect: {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  },
});

/** SQLite's migrations (sqlite/migrations), in version order. */
export const readMigrations = (dir = MIGRATIONS_DIR): Migration[] => migrationsIn(dir);

/**
 * Applies the migrations newer than the database's `user_version`, each in its own transaction. `casefold` (a
 * string's JavaScript `toLowerCase()`) is registered for them: SQLite's own lower() folds ASCII letters only.
 */
export function migrate(connection: Connection, migrations = readMigrations()): string[] {
  connection.function('casefold', { deterministic: true }, (text) => (typeof text === 'string' ? text.toLowerCase() : text));
  const applied: string[] = [];
  const current = connection.pragma('user_version', { simple: true }) as number;
  for (const migration of migrations) {
    if (migration.version <= current) continue;
    connection.transaction(() => {
      connection.exec(migration.sql);
      connection.pragma(`user_version = ${migration.version}`);
    })();
    applied.push(migration.name);
  }
  return applied;
}

/** A prepared statement of the cache, and the names of its columns when it reads rows. */
export interface CachedStatement {
  readonly statement: Database.Statement;
  /**
   * The names of the columns of the rows it reads, in order, as above the store (`camelName`); undefined for a
   * statement that reads none.
   */
  readonly columns: readonly string[] | undefined;
}

/** How SQLite runs a statement: prepared once through the store's cache, run synchronously on its one connection. */
class SqliteDriver implements Driver {
  readonly engine = 'sqlite';
  readonly q = sqliteQueries;
  readonly specific = sqliteSpecific;

  constructor(private readonly store: SqliteStore) {}

  all(statement: Compiled, writing: boolean): Promise<unknown[]> {
    try {
      return Promise.resolve(this.rows(statement, writing));
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  /** The rows of a statement, there and then; what fails is thrown (the store's error). */
  private rows({ sql, parameters }: Compiled, writing: boolean): unknown[] {
    try {
      const { statement, columns } = this.store.statement(sql);
      if (columns === undefined) {
        if (!writing) throw writeRefused(sql);
        statement.run(parameters as unknown[]);
        return [];
      }
      const rows = statement.all(parameters as unknown[]) as unknown[][];
      return rows.map((values) => rowOf(columns, values));
    } catch (error) {
      throw this.store.failure(error);
    }
  }

  first({ sql, parameters }: Compiled, writing: boolean): Promise<unknown> {
    try {
      const { statement, columns } = this.store.statement(sql);
      if (columns === undefined) {
        if (!writing) throw writeRefused(sql);
        statement.run(parameters as unknown[]);
        return Promise.resolve(undefined);
      }
      const row = statement.get(parameters as unknown[]) as unknown[] | undefined;
      return Promise.resolve(row === undefined ? undefined : rowOf(columns, row));
    } catch (error) {
      return Promise.reject(this.store.failure(error));
    }
  }

  run({ sql, parameters }: Compiled, writing: boolean): Promise<number> {
    try {
      const { statement, columns } = this.store.statement(sql);
      if (!writing && columns === undefined) throw writeRefused(sql);
      return Promise.resolve(statement.run(parameters as unknown[]).changes);
    } catch (error) {
      return Promise.reject(this.store.failure(error));
    }
  }

  /** SQLite runs every statement at once: a statement sent is a statement run. */
  async send(statement: Compiled, writing: boolean): Promise<void> {
    await this.run(statement, writing);
  }
}

export class SqliteStore implements Store {
  readonly engine = 'sqlite';
  readonly exclusive = true;
  readonly changesCommittedOnly = false;
  readonly connection: Connection;
  readonly reader: Db;
  /** Runs the statements of every handle (`reader`, each write's, each request's reads). */
  private readonly driver: SqliteDriver;
  /** What the writes of the open transaction registered to run once it commits (Db.afterCommit). */
  private readonly effects = new Effects();
  private readonly statements = new Map<string, CachedStatement>();
  /** Moves with each token this process gives (see tokensVersion). */
  private tokens = 0;
  private tail: Promise<unknown> = Promise.resolve();
  private writing = false;
  /** Statements that open, end and mark the shared transaction (see `write`). */
  private readonly control: Record<'begin' | 'commit' | 'rollback' | 'savepoint' | 'release' | 'rollbackTo', Database.Statement>;
  /** `SELECT total_changes()` (see `changeCount`). */
  private readonly changes: Database.Statement;
  /** The migrations applied when the store opened. */
  readonly applied: string[];
  readonly conditions = new StoreConditions({
    // One process owns the file: it cannot become unreachable, only closed (`unavailable`, not a condition).
    'database-unreachable': () => this.ping(),
    'storage-full': () => this.checkRoom(),
  });

  /**
   * `location`: a file, or `:memory:`. `cacheMb`: SQLite's page cache, in MiB. better-sqlite3 builds SQLite with a
   * 16 MiB cache (SQLite's own default is 2 MiB), which fills as the database grows: a server that wrote for a while
   * then held up to 16 MiB more, which the memory benchmark saw as steady growth. Pages outside it are read again from
   * the operating system's cache.
   */
  constructor(
    readonly location: string,
    cacheMb = DEFAULT_CACHE_MB,
    /** An in-memory database's starting content: an image `image()` gave (`location` must be `:memory:`). */
    image?: Buffer,
  ) {
    if (image && location !== ':memory:') throw new Error('SqliteStore: an image opens in memory only');
    if (location !== ':memory:') mkdirSync(path.dirname(location), { recursive: true });
    this.connection = image ? new Database(image) : new Database(location);
    if (location !== ':memory:') {
      // The server is the database's only user (DATA_DIR is locked: see data-dir.ts), so it holds SQLite's locks
      // from its first read to its close, and keeps the write-ahead log's index in its own memory (no -shm file):
      // each statement outside a transaction otherwise took and released a read lock on the log's index, two
      // fcntl calls, a large part of the cost of an indexed read (docs/performance.md, "SQLite as its only user").
      // Other processes cannot read the file while the server runs; stop it to copy or inspect data.sqlite.
      this.connection.pragma('locking_mode = EXCLUSIVE');
      this.connection.pragma('journal_mode = WAL');
      // With WAL, NORMAL keeps every commit across a crash of the process and syncs at checkpoints only.
      this.connection.pragma('synchronous = NORMAL');
      // Statement journals (the pages a statement or a savepoint changed, kept to undo it alone) in memory: SQLite
      // keeps one in memory up to 64 KiB, then spills it to a temporary file, and under EXCLUSIVE locking that file
      // stays open for the connection's life, so every later statement journal went through it (a run of pwrite calls
      // per create of a space). In memory, a create makes none of those system calls (docs/performance.md, "SQLite as its
      // only user"). The price is RAM while a statement runs (or a write, for one that runs in a
      // savepoint, see `write`): the former content of the pages it changes, on the order of the data it deletes or
      // rewrites, so the size of a space's rows for the largest cascade (purging a space).
      this.connection.pragma('temp_store = MEMORY');
    }
    this.connection.pragma('foreign_keys = ON');
    this.connection.pragma('busy_timeout = 5000');
    this.connection.pragma(`cache_size = ${-Math.round(cacheMb * 1024)}`);
    this.applied = migrate(this.connection);
    this.control = {
      begin: this.connection.prepare('BEGIN IMMEDIATE'),
      commit: this.connection.prepare('COMMIT'),
      rollback: this.connection.prepare('ROLLBACK'),
      savepoint: this.connection.prepare('SAVEPOINT store_write'),
      release: this.connection.prepare('RELEASE store_write'),
      rollbackTo: this.connection.prepare('ROLLBACK TO store_write'),
    };
    this.changes = this.connection.prepare('SELECT total_changes()').pluck();
    this.driver = new SqliteDriver(this);
    this.reader = new EngineDb(this, this.driver);
  }

  /**
   * A request's reads: on the connection, whose statements run one at a time in this thread (Store.read), through a
   * handle of their own (what a unit of work keeps of its reads is its own: members.ts).
   */
  read<T>(work: (db: Db) => Promise<T>, _options?: ReadOptions): Promise<T> {
    return work(new EngineDb(this, this.driver));
  }

  /** Opens the database file `data.sqlite` in `dataDir` (or an in-memory one) and migrates it. */
  static open(dataDir: string, cacheMb = DEFAULT_CACHE_MB): SqliteStore {
    return new SqliteStore(dataDir === ':memory:' ? ':memory:' : path.join(dataDir, 'data.sqlite'), cacheMb);
  }

  /**
   * The whole database as it is now, as bytes (SQLite's serialization, better-sqlite3's `serialize()`): a new store
   * opened in memory from them starts with the same content (the test harness's reset, server.ts). Call it between
   * writes: a write in progress is not in it.
   */
  image(): Buffer {
    return this.connection.serialize();
  }

  /** How many statements are kept prepared, and the characters of their texts (for tests). */
  get keptStatements(): { entries: number; chars: number } {
    let chars = 0;
    for (const sql of this.statements.keys()) chars += sql.length;
    return { entries: this.statements.size, chars };
  }

  /** The prepared statement of `sql`: prepared once, then reused (the most recently used are kept). */
  statement(sql: string): CachedStatement {
    const cached = this.statements.get(sql);
    if (cached) {
      // Most recently used last: a Map iterates in insertion order.
      this.statements.delete(sql);
      this.statements.set(sql, cached);
      return cached;
    }
    const prepared = this.connection.prepare(sql);
    const reader = prepared.reader;
    const statement: CachedStatement = {
      statement: reader ? prepared.raw(true) : prepared,
      columns: reader ? prepared.columns().map((column) => camelName(column.name)) : undefined,
    };
    if (sql.length > LONGEST_KEPT_STATEMENT) return statement;
    this.statements.set(sql, statement);
    if (this.statements.size > STATEMENT_CACHE_SIZE) this.statements.delete(this.statements.keys().next().value!);
    return statement;
  }

  /**
   * A failure of a statement: a closed database is unavailable, a full disk the `storage-full` condition's refusal;
   * anything else is a bug, as it was thrown.
   */
  failure(error: unknown): unknown {
    if (!this.connection.open) return unavailable('the database is closed');
    if (this.isStorageFull(error)) return this.conditions.failed('storage-full', error);
    return error;
  }

  /** SQLITE_FULL, or an I/O error of a write while the disk has no room (SQLite says FULL only for some calls). */
  private isStorageFull(error: unknown): boolean {
    const code = (error as { code?: unknown } | undefined)?.code;
    if (code === 'SQLITE_FULL') return true;
    if (typeof code !== 'string' || !code.startsWith('SQLITE_IOERR') || this.location === ':memory:') return false;
    try {
      return freeBytes(statfsSync(path.dirname(this.location))) < ROOM_BYTES;
    } catch {
      return false;
    }
  }

  /** Resolves once writes fit again: the disk has room, and a write of one row commits. */
  private async checkRoom(): Promise<void> {
    if (this.location !== ':memory:') {
      const free = freeBytes(await statfs(path.dirname(this.location)));
      if (free < ROOM_BYTES) throw new Error(`${free} bytes free`);
    }
    await this.write((db) => meta.put(db, STORAGE_CHECK_KEY, storageCheckValue()));
  }

  /**
   * Runs `work` in a write transaction, after every write started before it, and resolves once its changes are
   * committed; when `work` throws, its changes are undone and the promise rejects, so a failed request changes nothing.
   *
   * Group commit: the writes that finish in one turn of the event loop share one transaction, committed at the end of
   * the turn (turn-end.ts), before the turn's answers leave. A COMMIT writes every page the transaction changed to
   * SQLite's log, and a write's pages are mostly the same leaves and index pages as the next one's (a new space: the
   * same last leaf of the spaces table and of its indexes); under load, 10 connections, about 5 writes share a
   * commit, and a POST of a space or of a comment costs less CPU (docs/performance.md, "Group commit"). The first write of a group opens the
   * transaction; each later one runs inside a savepoint, so that its failure undoes its own changes only. A write
   * alone in its turn (one client at a time) commits as before, at the end of its turn. Should the COMMIT fail, every
   * write of the group rejects with its error: nothing is answered as done that was not committed.
   */
  write<T>(work: (db: Db) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const run = async () => {
        if (this.writing) throw new Error('Store.write called inside a write transaction');
        if (!this.connection.open) throw unavailable('the database is closed');
        const first = this.group === undefined;
        try {
          if (first) this.open();
          else this.control.savepoint.run();
        } catch (error) {
          throw this.failure(error);
        }
        this.writing = true;
        // The effects this write registers (Db.afterCommit): kept with the group's once it succeeds, dropped with its
        // savepoint when it fails.
        const mark = this.effects.mark();
        try {
          // A handle of its own: what a unit of work keeps of its reads is its own (members.ts).
          const result = await work(new EngineDb(this, this.driver, this.effects));
          if (!first) this.control.release.run();
          this.group!.push({ resolve: () => resolve(result), reject });
        } catch (error) {
          this.effects.undoTo(mark);
          this.undo(first, error);
          reject(error);
        } finally {
          this.writing = false;
          if (this.commitDue) this.commit();
        }
      };
      const done = this.tail.then(run, run);
      // What fails before `work` runs (the transaction could not be opened) rejects the write too.
      done.catch(reject);
      this.tail = done.catch(() => undefined);
    });
  }

  /** The writes done in the open transaction, waiting for its commit (undefined: no transaction open). */
  private group: { resolve: () => void; reject: (error: unknown) => void }[] | undefined;
  /** The end of the turn came while a write was still under way (it awaited): commit when it finishes. */
  private commitDue = false;
  private readonly commitAtTurnEnd = () => this.commit();

  private open(): void {
    this.control.begin.run();
    this.group = [];
    atTurnEnd('commit', this.commitAtTurnEnd);
  }

  /** Undoes a failed write: its savepoint, or the whole transaction when it was the first (or SQLite ended it). */
  private undo(first: boolean, error: unknown): void {
    try {
      if (!first && this.connection.inTransaction) {
        this.control.rollbackTo.run();
        this.control.release.run();
        return;
      }
    } catch {
      // The savepoint could not be undone: the transaction goes, and the group with it (below).
    }
    if (this.connection.inTransaction) this.control.rollback.run();
    this.settle(error);
  }

  /** Commits the open transaction, unless a write is under way (it commits when it finishes). */
  private commit(): void {
    if (this.group === undefined) return;
    if (this.writing) {
      this.commitDue = true;
      return;
    }
    this.commitDue = false;
    try {
      this.control.commit.run();
    } catch (error) {
      try {
        if (this.connection.inTransaction) this.control.rollback.run();
      } catch {
        // Runs at the end of a turn, where a throw would end the process: the group fails with the commit's error.
      }
      this.settle(this.failure(error));
      return;
    }
    this.settle();
    // A write that fits while the storage is full may say it has room again: checked now rather than in a second.
    this.conditions.recheck('storage-full');
  }

  /** Closes the group: its effects run and its writes resolve (committed), or they reject with `error` (rolled back). */
  private settle(error?: unknown): void {
    const group = this.group ?? [];
    this.group = undefined;
    this.commitDue = false;
    if (error === undefined) this.effects.run();
    else this.effects.drop();
    for (const write of group) {
      if (error === undefined) write.resolve();
      else write.reject(error);
    }
  }

  /**
   * SQLite's count of the rows written through this connection (`total_changes()`): by requests, jobs, tests or
   * anything else, committed or rolled back. It only grows: while it stays the same, the database has not changed.
   */
  changeCount(): number {
    return this.changes.get() as number;
  }

  /** Whether a transaction is open: its changes, seen by every read of the connection, may still be rolled back. */
  get inTransaction(): boolean {
    return this.connection.inTransaction;
  }

  ping(): Promise<void> {
    try {
      // A real read of the database file, not a constant: a closed, lost or locked database fails it.
      this.statement('SELECT count(*) AS n FROM meta').statement.get();
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(unavailable(`the database cannot be read (${(error as Error).message})`));
    }
  }

  /** One server owns a SQLite database: no other instance queues jobs. */
  onJobsQueued(): void {}

  announceJobs(): Promise<void> {
    return Promise.resolve();
  }

  /** No other process writes tokens: the version moves with this one's writes of them. */
  tokensVersion(): number {
    return this.tokens;
  }

  announceTokens(): Promise<void> {
    this.tokens++;
    return Promise.resolve();
  }

  /** Waits for the writes in progress and commits them, then closes the database. */
  async close(): Promise<void> {
    await this.tail;
    this.conditions.close();
    this.commit();
    if (this.connection.open) this.connection.close();
  }
}

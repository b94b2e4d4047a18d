// The embedded database: one SQLite file under DATA_DIR (WAL), or `:memory:` in tests. Versioned migrations run
// at start-up; writes are serialised, and those of one turn of the event loop commit together (`Store.write`).
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { badRequest } from '../http/errors.ts';
import { jsonShapeProblem } from '../http/json-limits.ts';
import { atTurnEnd } from '../turn-end.ts';

export type Db = Database.Database;

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/** SQLite's page cache in MiB unless DB_CACHE_MB says otherwise (see `Store`). */
export const DEFAULT_CACHE_MB = 2;

/** How many distinct SQL texts a connection keeps prepared (texts built at run time could otherwise grow it). */
const STATEMENT_CACHE_SIZE = 1000;

/**
 * Makes a connection prepare each SQL text once. better-sqlite3 statements are reusable, binding their parameters on
 * every call; preparing one parses and plans its SQL, which a profile of GET /v1/spaces/{id} put at 5% of the CPU,
 * done on every call of every handler. `db.prepare` now returns the statement prepared the first time the text was
 * seen (the cache is bounded, least recently used out), or a fresh one when that statement is busy, still being
 * iterated by a caller. A shared statement keeps no state of a caller's: switching a mode (`pluck`, `raw`, `expand`,
 * `safeIntegers`) or binding parameters for good (`bind`) on it gives a statement of the caller's own.
 */
function preparingOnce(db: Db): Db {
  const prepare = db.prepare.bind(db);
  const statements = new Map<string, Database.Statement>();
  db.prepare = ((source: string) => {
    const cached = statements.get(source);
    if (cached) {
      if (cached.busy) return prepare(source);
      // Most recently used last: a Map iterates in insertion order.
      statements.delete(source);
      statements.set(source, cached);
      return cached;
    }
    const statement = prepare(source);
    if (statement.reader) rowsBuiltInJs(statement);
    for (const method of ['pluck', 'raw', 'expand', 'safeIntegers', 'bind'] as const) {
      statement[method] = ((...args: unknown[]) => {
        const own = prepare(source) as unknown as Record<typeof method, (...a: unknown[]) => unknown>;
        return own[method](...args);
      }) as never;
    }
    statements.set(source, statement);
    if (statements.size > STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value!);
    return statement;
  }) as Db['prepare'];
  return db;
}

/**
 * Makes a reading statement return its rows as better-sqlite3 does, but built in JavaScript from the raw row (an
 * array) and the column names: better-sqlite3 sets each property of a row object through V8's C++ API, which for a
 * row of the 17 columns of `spaces` cost 40% more than reading it raw and building it here (10.3 against 7.3 µs).
 * Each statement builds its rows with a function made for its columns, an object literal (`rowBuilder`): V8 then
 * allocates every row at its full size with its final shape at once, where setting the keys one by one in a loop
 * shared by all statements grew each object key by key (a page of 50 spaces read and used: 88 -> 80 µs). The same
 * rows: keys in the same order, a later column of the same name overwriting an earlier one (as better-sqlite3 does),
 * `undefined` for no row.
 */
function rowsBuiltInJs(statement: Database.Statement): void {
  statement.raw(true);
  let width = -1;
  let build: (values: readonly unknown[]) => Record<string, unknown> = () => ({});
  // SQLite prepares a statement again when the schema changed (a column added to a table it reads with `*`): its
  // columns are read again when a row's width differs from what `build` was made for (checked once per call).
  const fit = (values: readonly unknown[]) => {
    if (values.length === width) return;
    const names = statement.columns().map((column) => column.name);
    build = rowBuilder(names);
    width = names.length;
  };
  const get = statement.get.bind(statement);
  const all = statement.all.bind(statement);
  const iterate = statement.iterate.bind(statement);
  statement.get = ((...params: unknown[]) => {
    const values = get(...params) as unknown[] | undefined;
    if (values === undefined) return undefined;
    fit(values);
    return build(values);
  }) as never;
  statement.all = ((...params: unknown[]) => {
    const rows = all(...params) as unknown[][];
    if (rows.length > 0) fit(rows[0]!);
    return rows.map(build);
  }) as never;
  statement.iterate = function* (...params: unknown[]) {
    for (const values of iterate(...params) as Iterable<unknown[]>) {
      fit(values);
      yield build(values);
    }
  } as never;
}

/**
 * `(values) => ({ "name": values[0], ... })`, each key written as a string literal (JSON.stringify). A name given
 * twice keeps its first place and takes its last value; `__proto__` sets the prototype (ignored unless an object or
 * null), as better-sqlite3's own rows do.
 */
export function rowBuilder(names: readonly string[]): (values: readonly unknown[]) => Record<string, unknown> {
  const members = names.map((name, index) => `${JSON.stringify(name)}: values[${index}]`);
  return new Function('values', `return { ${members.join(', ')} };`) as (values: readonly unknown[]) => Record<string, unknown>;
}

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The migrations in `server/store/migrations`, named `NNN_name.sql`, in version order. */
export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((file) => /^\d+_[\w-]+\.sql$/.test(file))
    .map((file) => ({
      version: Number(file.split('_')[0]),
      name: file,
      sql: readFileSync(path.join(dir, file), 'utf8'),
    }))
    .sort((a, b) => a.version - b.version);
}

/** Applies the migrations newer than the database's `user_version`, each in its own transaction. */
export function migrate(db: Db, migrations = readMigrations()): string[] {
  const applied: string[] = [];
  const current = db.pragma('user_version', { simple: true }) as number;
  for (const migration of migrations) {
    if (migration.version <= current) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      db.pragma(`user_version = ${migration.version}`);
    })();
    applied.push(migration.name);
  }
  return applied;
}

export class Store {
  readonly db: Db;
  private tail: Promise<unknown> = Promise.resolve();
  private writing = false;
  /** Statements that open, end and mark the shared transaction (see `write`). */
  private readonly control: Record<'begin' | 'commit' | 'rollback' | 'savepoint' | 'release' | 'rollbackTo', Database.Statement>;
  /** `SELECT total_changes()` (see `changeCount`). */
  private readonly changes: Database.Statement;

  /**
   * `cacheMb`: SQLite's page cache, in MiB. better-sqlite3 builds SQLite with a 16 MiB cache (SQLite's own default is
   * 2 MiB), which fills as the database grows: a server that wrote for a while then held up to 16 MiB more, which
   * the memory benchmark saw as steady growth. Pages outside it are read again from the operating system's cache.
   */
  constructor(readonly location: string, cacheMb = DEFAULT_CACHE_MB) {
    if (location !== ':memory:') mkdirSync(path.dirname(location), { recursive: true });
    this.db = preparingOnce(new Database(location));
    if (location !== ':memory:') {
      // The server is the database's only user (DATA_DIR is locked: see data-dir.ts), so it holds SQLite's locks
      // from its first read to its close, and keeps the write-ahead log's index in its own memory (no -shm file):
      // each statement outside a transaction otherwise took and released a read lock on the log's index, two
      // fcntl calls, about half of the cost of an indexed read (8.4 -> 3.7 us; GET a space 266 -> 225 us of CPU).
      // Other processes cannot read the file while the server runs; stop it to copy or inspect data.sqlite.
      this.db.pragma('locking_mode = EXCLUSIVE');
      this.db.pragma('journal_mode = WAL');
      // With WAL, NORMAL keeps every commit across a crash of the process and syncs at checkpoints only.
      this.db.pragma('synchronous = NORMAL');
      // Statement journals (the pages a statement or a savepoint changed, kept to undo it alone) in memory: SQLite
      // keeps one in memory up to 64 KiB, then spills it to a temporary file, and under EXCLUSIVE locking that file
      // stays open for the connection's life, so every later statement journal went through it (14 pwrite calls per
      // create of a space, a tenth of its CPU). In memory, a create costs 10 to 15 µs less system time (POST a space,
      // 10 connections: +8% req/s). The price is RAM while a statement runs (or a write, for one that runs in a
      // savepoint, see `write`): the former content of the pages it changes, on the order of the data it deletes or
      // rewrites, so the size of a space's rows for the largest cascade (purging a space); the lists benchmark's
      // RSS at 50 000 items was the same (402 MB against 419).
      this.db.pragma('temp_store = MEMORY');
    }
    this.db.pragma('foreign_keys = ON');
    this.db.pragma('busy_timeout = 5000');
    this.db.pragma(`cache_size = ${-Math.round(cacheMb * 1024)}`);
    this.control = {
      begin: this.db.prepare('BEGIN IMMEDIATE'),
      commit: this.db.prepare('COMMIT'),
      rollback: this.db.prepare('ROLLBACK'),
      savepoint: this.db.prepare('SAVEPOINT store_write'),
      release: this.db.prepare('RELEASE store_write'),
      rollbackTo: this.db.prepare('ROLLBACK TO store_write'),
    };
    this.changes = this.db.prepare('SELECT total_changes()').pluck();
  }

  /** Opens the database file `data.sqlite` in `dataDir` (or an in-memory one) and migrates it. */
  static open(dataDir: string, cacheMb = DEFAULT_CACHE_MB): { store: Store; applied: string[] } {
    const store = new Store(dataDir === ':memory:' ? ':memory:' : path.join(dataDir, 'data.sqlite'), cacheMb);
    return { store, applied: migrate(store.db) };
  }

  /**
   * Runs `work` in a write transaction, after every write started before it, and resolves once its changes are
   * committed; when `work` throws, its changes are undone and the promise rejects, so a failed request changes nothing.
   * Do not call it from inside `work`.
   *
   * Group commit: the writes that finish in one turn of the event loop share one transaction, committed at the end of
   * the turn (turn-end.ts), before the turn's answers leave. A COMMIT writes every page the transaction changed to
   * SQLite's log, and a write's pages are mostly the same leaves and index pages as the next one's (a new space: the
   * same last leaf of the spaces table and of its indexes); under load, 10 connections, about 5 writes share a
   * commit, and a POST of a space or of a comment costs 25 to 30% less CPU. The first write of a group opens the
   * transaction; each later one runs inside a savepoint, so that its failure undoes its own changes only. A write
   * alone in its turn (one client at a time) commits as before, at the end of its turn. Should the COMMIT fail, every
   * write of the group rejects with its error: nothing is answered as done that was not committed.
   */
  write<T>(work: () => Promise<T> | T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const run = async () => {
        if (this.writing) throw new Error('Store.write called inside a write transaction');
        const first = this.group === undefined;
        if (first) this.open();
        else this.control.savepoint.run();
        this.writing = true;
        try {
          const result = await work();
          if (!first) this.control.release.run();
          this.group!.push({ resolve: () => resolve(result), reject });
        } catch (error) {
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
      if (!first && this.db.inTransaction) {
        this.control.rollbackTo.run();
        this.control.release.run();
        return;
      }
    } catch {
      // The savepoint could not be undone: the transaction goes, and the group with it (below).
    }
    if (this.db.inTransaction) this.control.rollback.run();
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
        if (this.db.inTransaction) this.control.rollback.run();
      } catch {
        // Runs at the end of a turn, where a throw would end the process: the group fails with the commit's error.
      }
      this.settle(error);
      return;
    }
    this.settle();
  }

  /** Closes the group: its writes resolve (committed), or reject with `error` (rolled back). */
  private settle(error?: unknown): void {
    const group = this.group ?? [];
    this.group = undefined;
    this.commitDue = false;
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

  /** Whether a write transaction is open (a request's or a background job's). */
  get inWrite(): boolean {
    return this.writing;
  }

  /** Waits for the writes in progress and commits them, then closes the database. */
  async close(): Promise<void> {
    await this.tail;
    this.commit();
    if (this.db.open) this.db.close();
  }
}

/**
 * Deepest JSON the store writes. Request bodies nest at most 64 levels (http/json-limits.ts); this leaves room for
 * what the server wraps around them and for parsed OpenAPI documents, and stays far below the depth at which
 * JSON.stringify, which recurses, overflows the stack.
 */
export const MAX_STORED_JSON_DEPTH = 256;

/**
 * A statement reading rows for some ids, as `amongIds` makes it: its SQL for these ids, and the value to bind; `one`
 * is its text for a single id, whose parameter is the id itself.
 */
export type AmongIds = ((ids: readonly string[]) => { sql: string; ids: string }) & { readonly one: string };

/**
 * A statement that reads what some items show (their counts, their users), for a page of them at once: `sql` writes
 * the statement around `among`, the condition on the ids' column, whose one parameter is the ids. For several ids it
 * is `IN` a JSON array of them, read by SQLite's json_each; for one id, as a single item's GET or update asks, it is
 * `= ?`, which spares SQLite the JSON text, the table-valued function and its Bloom filter: about 1 µs a statement
 * (3.3 against 4.3 µs for a user). Both texts are made once, so each is prepared once.
 */
export function amongIds(sql: (among: string) => string): AmongIds {
  const one = sql('= ?');
  const many = sql('IN (SELECT value FROM json_each(?))');
  const among = (ids: readonly string[]) => (ids.length === 1 ? { sql: one, ids: ids[0]! } : { sql: many, ids: JSON.stringify(ids) });
  return Object.assign(among, { one });
}

/** JSON columns: parse what `toJson` wrote. */
export const fromJson = <T>(text: string | null | undefined, fallback: T): T =>
  text === null || text === undefined ? fallback : (JSON.parse(text) as T);

/**
 * JSON columns: the text of `value`. A value nesting deeper than MAX_STORED_JSON_DEPTH is refused with a 400 naming
 * `field`, checked without recursion before JSON.stringify recurses.
 */
export function toJson(value: unknown, field = 'value'): string {
  const problem = jsonShapeProblem(value, { maxDepth: MAX_STORED_JSON_DEPTH }, field);
  if (problem !== undefined) throw badRequest(problem);
  return JSON.stringify(value);
}
export const bool = (value: number | null | undefined): boolean => value === 1;

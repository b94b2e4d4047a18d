// The shared engine: PostgreSQL (DATABASE_URL=postgres://…), through node-postgres, for several instances of the
// server on one database. Reads run on the pool, one statement at a time; each write is a transaction of its own
// (SERIALIZABLE by default), run again when it conflicts with another instance's. Migrations (postgres/migrations)
// run once however many instances start together (an advisory lock). Instances tell each other of queued jobs
// with LISTEN/NOTIFY.
//
// The database may go away at any moment (a crash, a restart, the network): every connection's failure, wherever it
// shows (a query, a transaction's client between two queries, an idle client of the pool, the listening connection),
// becomes the `database-unreachable` condition (conditions.ts) and never an exception nobody catches; a connection
// that failed never returns to the pool; the store checks every quarter second whether the database is back, and
// listens again as soon as it is.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { type Migration, migrationsIn } from '../migrations.ts';
import { fileURLToPath } from 'node:url';
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
} from 'kysely';
import type pg from 'pg';
import { DomainError, unavailable } from '../../errors.ts';
import { STORAGE_CHECK_KEY, StoreConditions, storageCheckValue } from '../conditions.ts';
import * as meta from '../meta.ts';
import { camelName, type Compiled, type Db, type Driver, Effects, EngineDb, rowOf, type Store, type WriteOptions, writeRefused } from '../db.ts';
import type { Schema } from '../schema.ts';
import { postgresSpecific } from './specific.ts';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/** Kysely as a query builder for PostgreSQL: it compiles, the store executes (DummyDriver never runs anything). */
export const postgresQueries = new Kysely<Schema>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

/** The channel of LISTEN/NOTIFY on which instances announce queued jobs. */
const JOBS_CHANNEL = 'docs_platform_jobs';
/** The channel on which instances announce that they gave a token to a user. */
const TOKENS_CHANNEL = 'docs_platform_tokens';

/** The key of the advisory lock held while migrations run (any constant of this application's own). */
const MIGRATION_LOCK = 7_361_002_001;

/** How many times a write that conflicts with another instance's is tried in all. */
const WRITE_ATTEMPTS = 12;

/** After how many failed attempts a write runs alone (see `transaction`). */
const ALONE_AFTER = 3;

/** The advisory lock every write holds shared, and a write that failed ALONE_AFTER times holds alone. */
const WRITERS_LOCK = 7_361_002_002;

/**
 * SQLSTATEs of a transaction that failed only because of another one: tried again. A serialization failure, a
 * deadlock, and a unique violation: two serializable transactions that both read the largest number of a space and
 * insert the next one conflict on the unique key before the serializable check sees it (PostgreSQL's documentation
 * advises retrying those too, 13.2.3). A unique violation that is not a race fails again on every attempt and ends
 * as the error it is; the store's callers check what a client may send twice before they insert.
 */
const RETRYABLE = new Set(['40001', '40P01', '23505']);

/** The advisory lock of a write queue (WriteOptions.queue): 64 bits of its name's SHA-1, as a signed bigint literal. */
export function queueKey(queue: string): string {
  return BigInt.asIntN(64, createHash('sha1').update(`docs-platform:${queue}`).digest().readBigUInt64BE(0)).toString();
}

/**
 * Most writes of one queue that share a transaction (see `PostgresStore.grouped`). Each after the first runs in a
 * savepoint of its own, kept to the commit: PostgreSQL keeps 64 subtransactions of a transaction in shared memory and
 * slows every snapshot beyond that.
 */
const MOST_GROUPED = 32;

/** A write waiting in a queue's group, and how its caller learns its outcome once the group commits. */
interface GroupedWrite {
  work: (db: Db) => Promise<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** What a write of a group did: its result, or the error that undid it alone (its savepoint rolled back). */
type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** The first write of a group failed: its transaction is rolled back, and the group goes on without it. */
class FirstFailed extends Error {
  constructor(readonly error: unknown) {
    super('the first write of a group failed');
  }
}

/** A write of a group met a conflict with another transaction: the group is undone, and each write runs on its own. */
class GroupConflict extends Error {}

/** Distinct SQL texts prepared by name on each connection (beyond it, statements are sent unnamed). */
const NAMED_STATEMENTS = 2000;

export interface PostgresOptions {
  /** The connection string (DATABASE_URL). */
  url: string;
  /** Connections of the pool (reads, and one per write transaction under way). */
  poolSize?: number;
}

/** How long a new connection may take before it counts as failed (the pool's, and the listening one's). */
const CONNECT_TIMEOUT_MS = 10_000;

/** A failure to open the database at start-up: the message says what failed, without the connection's password. */
export class StoreOpenError extends Error {}

/** `url` without its password, for messages. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.href;
  } catch {
    return url.replace(/:[^:@/]*@/, ':***@');
  }
}

/** Whether `error` says the database cannot be reached (a connection refused, lost, or a server shutting down). */
export function isConnectionFailure(error: unknown): boolean {
  if (error instanceof DomainError) return false;
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  if (code !== undefined) {
    // Connection exceptions, operator intervention (a shutdown, a server starting up), too many connections.
    if (/^(08|57P)/.test(code) || code === '53300') return true;
    if (['ECONNREFUSED', 'ECONNRESET', 'ENOENT', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', '3D000'].includes(code)) return true;
  }
  // node-postgres's own: a connection lost or not made in time, a client that failed, a pool that waited too long for
  // a free connection (every one of them stuck on a database that does not answer).
  return /Connection terminated|connection timeout|Client has encountered a connection error|not queryable|timeout exceeded when trying to connect/i.test(message ?? '');
}

/** PostgreSQL's SQLSTATE for a disk full (`disk_full`): a write refused until the database's disk has room. */
const DISK_FULL = '53100';

/** Numbers as numbers: COUNT(*) and bigint columns arrive as text otherwise (every value here is far below 2^53). */
function typeParsers(types: typeof pg.types): pg.CustomTypesConfig {
  const asNumber = (text: string) => Number(text);
  return {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
      if (oid === types.builtins.INT8 || oid === types.builtins.NUMERIC) return asNumber;
      return types.getTypeParser(oid, format as 'text');
    }) as pg.CustomTypesConfig['getTypeParser'],
  };
}

type Queryable = Pick<pg.Pool | pg.PoolClient, 'query'>;

/** The names of a result's columns as rows come up (`camelName`). */
const namesOf = (fields: readonly pg.FieldDef[]) => fields.map((field) => camelName(field.name));

/** A statement that changes the database (refused through a reader). */
const WRITES = /^\s*(insert|update|delete|merge|create|alter|drop|truncate)\b/i;

/**
 * How PostgreSQL runs a statement: on the pool (a reader) or on the client of one transaction, prepared by name; rows
 * come as arrays and are made by `rowOf`, named as above the store.
 */
class PostgresDriver implements Driver {
  readonly engine = 'postgres';
  readonly q = postgresQueries;
  readonly specific = postgresSpecific;

  constructor(
    private readonly store: PostgresStore,
    private readonly target: Queryable,
  ) {}

  private async execute({ sql: text, parameters }: Compiled, writing: boolean): Promise<pg.QueryResult> {
    if (!writing && WRITES.test(text)) throw writeRefused(text);
    const began = performance.now();
    try {
      return await this.target.query({ text, values: parameters as unknown[], name: this.store.statementName(text), rowMode: 'array' });
    } catch (error) {
      throw this.store.failure(error, began);
    }
  }

  async all(statement: Compiled, writing: boolean): Promise<unknown[]> {
    const { rows, fields } = await this.execute(statement, writing);
    if (rows.length === 0) return rows;
    const names = namesOf(fields);
    return rows.map((values: unknown[]) => rowOf(names, values));
  }

  async first(statement: Compiled, writing: boolean): Promise<unknown> {
    const { rows, fields } = await this.execute(statement, writing);
    return rows.length === 0 ? undefined : rowOf(namesOf(fields), rows[0] as unknown[]);
  }

  async run(statement: Compiled, writing: boolean): Promise<number> {
    return (await this.execute(statement, writing)).rowCount ?? 0;
  }
}

export class PostgresStore implements Store {
  readonly engine = 'postgres';
  readonly exclusive = false;
  readonly changesCommittedOnly = true;
  /**
   * A connection to the database failed since the count of changes was last read: a write may have committed without
   * moving the count (the database stopped between its COMMIT and the count's move, sent together), so the next read
   * moves the count itself.
   */
  private countUnsure = false;
  readonly inTransaction = false;
  readonly reader: Db;
  private readonly names = new Map<string, string>();
  private readonly jobListeners: (() => void)[] = [];
  private listener: pg.Client | undefined;
  private listening = false;
  /** The next attempt to listen again, while one waits (see `listen`). */
  private relisten: NodeJS.Timeout | undefined;
  readonly conditions = new StoreConditions({
    'database-unreachable': () => this.pool.query('SELECT count(*) AS n FROM meta').then(() => undefined),
    'storage-full': () => this.write((db) => meta.put(db, STORAGE_CHECK_KEY, storageCheckValue())),
  });
  /** Moves with each token announced by an instance, and each time the listening connection is made again. */
  private tokens = 0;
  private closed = false;
  private readonly writes = new Set<Promise<unknown>>();
  /** Per write queue, the group of writes that may still join this process's next transaction on it. */
  private readonly groups = new Map<string, GroupedWrite[]>();
  /** The migrations applied when the store opened. */
  applied: string[] = [];

  private constructor(
    private readonly pgModule: typeof pg,
    private readonly pool: pg.Pool,
    private readonly options: PostgresOptions,
  ) {
    this.reader = new EngineDb(this, new PostgresDriver(this, pool));
    // Once the database is back, listen again at once rather than at the next retry's time.
    this.conditions.watch({
      ended: ({ kind }) => {
        if (kind === 'database-unreachable' && this.relisten !== undefined) {
          clearTimeout(this.relisten);
          this.relisten = undefined;
          void this.listen(0);
        }
      },
    });
  }

  /**
   * Connects to the database of `options.url` and migrates it. node-postgres is loaded here, on first use: a server
   * on SQLite never loads it.
   */
  static async open(options: PostgresOptions): Promise<PostgresStore> {
    const pgModule = ((await import('pg')) as unknown as { default: typeof pg }).default;
    const pool = new pgModule.Pool({
      connectionString: options.url,
      max: options.poolSize ?? 10,
      types: typeParsers(pgModule.types),
      application_name: 'docs-platform-server',
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      keepAlive: true,
    });
    // An idle client that loses its connection (the database stopped) leaves the pool; the next query gets a new
    // connection, or fails as unavailable.
    const store = new PostgresStore(pgModule, pool, options);
    pool.on('error', (error) => {
      store.countUnsure = true;
      store.conditions.failed('database-unreachable', error);
    });
    try {
      store.applied = await store.migrate();
    } catch (error) {
      await pool.end().catch(() => undefined);
      const reason = (error as Error).message || String(error);
      throw new StoreOpenError(`DATABASE_URL ${redactedUrl(options.url)}: cannot use the database (${reason})`, { cause: error });
    }
    return store;
  }

  /** The name a SQL text is prepared under on each connection (PostgreSQL then parses and plans it once per connection). */
  statementName(text: string): string | undefined {
    let name = this.names.get(text);
    if (name === undefined && this.names.size < NAMED_STATEMENTS) {
      name = `s${this.names.size + 1}`;
      this.names.set(text, name);
    }
    return name;
  }

  /**
   * A failure of an operation that began at `began` (`performance.now()`): the connection's becomes the
   * `database-unreachable` condition's refusal, a full disk the `storage-full` one's; anything else is thrown as it was.
   */
  failure(error: unknown, began: number): unknown {
    if (isConnectionFailure(error)) {
      this.countUnsure = true;
      return this.conditions.failed('database-unreachable', error, began);
    }
    if ((error as { code?: unknown } | undefined)?.code === DISK_FULL) return this.conditions.failed('storage-full', error, began);
    return error;
  }

  /**
   * A client of the pool for work of its own (a transaction, the migrations), with what says whether it failed: a
   * connection lost while the client is out of the pool is an 'error' event on it, which would end the process with
   * no listener (the pool listens only to its idle clients). `release` ends the client when given an error or when its
   * connection failed, and gives it back to the pool otherwise.
   */
  private async checkOut(): Promise<{ client: pg.PoolClient; failed(): unknown; release(error?: unknown): void }> {
    const client = await this.pool.connect();
    let lost: unknown;
    const onError = (error: unknown) => {
      lost ??= error;
    };
    client.on('error', onError);
    return {
      client,
      failed: () => lost,
      release: (error) => {
        client.removeListener('error', onError);
        // The pool ends a client released with an error instead of keeping it.
        const broken = error ?? lost;
        client.release(broken === undefined ? undefined : broken instanceof Error ? broken : new Error(String(broken)));
      },
    };
  }

  /** Applies the migrations the database has not seen, once, under an advisory lock that other instances wait on. */
  private async migrate(): Promise<string[]> {
    const { client, release } = await this.checkOut();
    try {
      await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
      try {
        await client.query(
          `CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at text NOT NULL)`,
        );
        const done = new Set((await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((row) => row.version));
        const applied: string[] = [];
        for (const migration of readPostgresMigrations()) {
          if (done.has(migration.version)) continue;
          await client.query('BEGIN');
          try {
            await client.query(migration.sql);
            await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
              migration.version,
              migration.name,
              new Date().toISOString(),
            ]);
            await client.query('COMMIT');
          } catch (error) {
            await client.query('ROLLBACK').catch(() => undefined);
            throw new Error(`migration ${migration.name} failed: ${(error as Error).message}`, { cause: error });
          }
          applied.push(migration.name);
        }
        return applied;
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
      }
    } finally {
      release();
    }
  }

  write<T>(work: (db: Db) => Promise<T>, options: WriteOptions = {}): Promise<T> {
    const done =
      options.queue !== undefined && options.isolation !== 'read committed' ? this.grouped(work, options.queue) : this.transaction(work, options);
    this.writes.add(done);
    const forget = () => this.writes.delete(done);
    done.then(forget, forget);
    return done;
  }

  /**
   * A write of a queue joins the writes of that queue waiting in this process, and they commit together: writes of one
   * queue run one after another anyway (its lock), and each transaction's commit waits for the disk, so one commit for
   * a group is what lets a burst of writes to one resource go faster than one flush each. The first write of a group
   * runs as the transaction's own work, each later one in a savepoint: a write that fails is undone alone and its
   * caller gets its error, while the others commit. A write that meets a conflict with another transaction undoes the
   * group, and each of its writes then runs on its own, with its own retries. Callers learn their outcome after the
   * commit, as with a write of its own.
   */
  private grouped<T>(work: (db: Db) => Promise<T>, queue: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.closed) return reject(unavailable('the database is closed'));
      const write: GroupedWrite = { work, resolve: resolve as (value: unknown) => void, reject };
      const group = this.groups.get(queue);
      if (group !== undefined && group.length < MOST_GROUPED) {
        group.push(write);
        return;
      }
      const started = [write];
      this.groups.set(queue, started);
      void this.runGroup(queue, started);
    });
  }

  private async runGroup(queue: string, group: GroupedWrite[]): Promise<void> {
    const close = () => {
      if (this.groups.get(queue) === group) this.groups.delete(queue);
    };
    for (;;) {
      let outcomes: Outcome[];
      try {
        outcomes = await this.transaction((db, effects) => this.runWrites(db, effects, group, close), { queue });
      } catch (error) {
        if (error instanceof FirstFailed) {
          group.shift()!.reject(error.error);
          if (group.length > 0) continue;
          close();
          return;
        }
        close();
        if (group.length === 1 || !(error instanceof GroupConflict)) {
          for (const write of group) write.reject(error);
          return;
        }
        for (const write of group) this.transaction(write.work, { queue }).then(write.resolve, write.reject);
        return;
      }
      group.forEach((write, i) => {
        const outcome = outcomes[i]!;
        if (outcome.ok) write.resolve(outcome.value);
        else write.reject(outcome.error);
      });
      return;
    }
  }

  /** The writes of a group, in one transaction (see `grouped`); `close` ends the group once the last has run. */
  private async runWrites(db: Db, effects: Effects, group: readonly GroupedWrite[], close: () => void): Promise<Outcome[]> {
    const outcomes: Outcome[] = [];
    for (let i = 0; i < group.length; i++) {
      const write = group[i]!;
      if (i > 0) await db.run(sql`SAVEPOINT grouped_write`);
      // The effects this write registers go with its savepoint when it is undone.
      const mark = effects.mark();
      try {
        outcomes.push({ ok: true, value: await write.work(db) });
      } catch (error) {
        const conflict = RETRYABLE.has((error as { code?: string }).code ?? '');
        if (conflict || isConnectionFailure(error)) throw conflict && group.length > 1 ? new GroupConflict('a write of a group conflicted', { cause: error }) : error;
        if (i === 0) throw new FirstFailed(error);
        await db.run(sql`ROLLBACK TO SAVEPOINT grouped_write`);
        effects.undoTo(mark);
        outcomes.push({ ok: false, error });
      }
    }
    // No write joins once the last has run: the group commits as it is (a later write starts the next group).
    close();
    return outcomes;
  }

  private async transaction<T>(work: (db: Db, effects: Effects) => Promise<T>, options: WriteOptions): Promise<T> {
    if (this.closed) throw unavailable('the database is closed');
    const isolation = options.isolation === 'read committed' ? 'READ COMMITTED' : 'SERIALIZABLE';
    const began = performance.now();
    const { client, failed, release } = await this.checkOut().catch((error: unknown) => {
      throw this.failure(error, began);
    });
    let broken: unknown;
    // Every write holds the writers' lock shared (and its queue's lock, when it names one) from before its BEGIN
    // (a statement sent with BEGIN would take the transaction's snapshot before the wait) to its COMMIT, across its
    // retries. A write that failed ALONE_AFTER times takes the writers' lock alone: it waits for the writes in
    // progress, runs while others wait, and so ends, however busy the other instances are (a long import among a
    // stream of small writes that kept invalidating it).
    let locked = false;
    let alone = false;
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          if (!locked) {
            const queue = options.queue === undefined || alone ? '' : `, pg_advisory_lock(${queueKey(options.queue)})`;
            await client.query(alone ? `SELECT pg_advisory_lock(${WRITERS_LOCK})` : `SELECT pg_advisory_lock_shared(${WRITERS_LOCK})${queue}`);
            locked = true;
          }
          await client.query(`BEGIN ISOLATION LEVEL ${isolation}`);
          // A handle per attempt: the effects of an attempt that is undone and run again go with it.
          const effects = new Effects();
          const result = await work(new EngineDb(this, new PostgresDriver(this, client), effects), effects);
          // The count of changes moves once the commit is visible, before the caller learns of it (see changeCount).
          await client.query(`COMMIT; SELECT pg_advisory_unlock_all(), nextval('store_changes')`);
          locked = false;
          effects.run();
          return result;
        } catch (error) {
          try {
            await client.query('ROLLBACK');
          } catch (rollbackError) {
            // The connection is gone: it must not return to the pool.
            broken = rollbackError;
          }
          broken ??= failed();
          const code = (error as { code?: string }).code;
          if (broken === undefined && code !== undefined && RETRYABLE.has(code) && attempt < WRITE_ATTEMPTS) {
            if (attempt >= ALONE_AFTER && !alone) {
              try {
                await client.query('SELECT pg_advisory_unlock_all()');
              } catch (unlockError) {
                broken = unlockError;
                throw this.failure(unlockError, began);
              }
              locked = false;
              alone = true;
            } else {
              // Conflicting writers retry at different moments: a random wait that grows with the attempts.
              await new Promise((resolve) => setTimeout(resolve, Math.random() * 2 ** Math.min(attempt, 6)));
            }
            continue;
          }
          // A conflict whose connection is gone cannot be tried again: it fails as the connection did.
          const conflictLost = broken !== undefined && code !== undefined && RETRYABLE.has(code);
          throw this.failure(conflictLost ? broken : error, began);
        }
      }
    } finally {
      if (locked && broken === undefined) {
        try {
          await client.query('SELECT pg_advisory_unlock_all()');
        } catch (error) {
          broken = error;
        }
      }
      release(broken);
    }
  }

  /**
   * The count of the writes every instance committed: the sequence `store_changes`, which each write moves right after
   * its COMMIT (sent in one message with it, so done even if the instance dies meanwhile). A page made after reading
   * it holds at least every write it counts; a write the page may have missed moves it before its client is answered.
   */
  async changeCount(): Promise<number> {
    const began = performance.now();
    const move = this.countUnsure;
    this.countUnsure = false;
    try {
      const { rows } = await this.pool.query<{ n: number }>({
        text: move ? `SELECT nextval('store_changes') AS n` : 'SELECT last_value AS n FROM store_changes',
        name: move ? 'store_changes_move' : 'store_changes_read',
      });
      return rows[0]!.n;
    } catch (error) {
      throw this.failure(error, began);
    }
  }

  async ping(): Promise<void> {
    const began = performance.now();
    try {
      await this.pool.query('SELECT count(*) AS n FROM meta');
    } catch (error) {
      const failure = this.failure(error, began);
      throw failure instanceof DomainError ? failure : unavailable(`the database cannot be read (${(error as Error).message})`);
    }
  }

  onJobsQueued(listener: () => void): void {
    this.jobListeners.push(listener);
    this.startListening();
  }

  private startListening(): void {
    if (!this.listening && !this.closed) {
      this.listening = true;
      void this.listen(0);
    }
  }

  /**
   * Keeps one connection of its own LISTENing for queued jobs and given tokens, connecting again when it is lost. A
   * connection lost without an error event (a network that drops packets) goes unnoticed until TCP gives up: until
   * then, tokens given by other instances may be missed, as they would be by a cache with a time to live.
   */
  private async listen(failures: number): Promise<void> {
    if (this.closed) return;
    const client = new this.pgModule.Client({
      connectionString: this.options.url,
      application_name: 'docs-platform-server (announcements)',
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      keepAlive: true,
    });
    let failed = false;
    // A failure is the database's condition (conditions.ts), logged there once; the connection is made again after a
    // wait that grows with the failures, or at once when the store sees the database back.
    const retry = (error: unknown, began = performance.now()) => {
      if (failed) return;
      failed = true;
      if (this.listener === client) this.listener = undefined;
      client.removeAllListeners();
      client.on('error', () => undefined);
      client.end().catch(() => undefined);
      if (this.closed) return;
      this.failure(error, began);
      const wait = Math.min(5000, 100 * 2 ** Math.min(failures, 6));
      this.relisten = setTimeout(() => {
        this.relisten = undefined;
        void this.listen(failures + 1);
      }, wait);
      this.relisten.unref();
    };
    client.on('error', (error) => retry(error));
    client.on('end', () => retry(new Error('Connection terminated: the connection that listens for announcements ended')));
    client.on('notification', (message) => {
      if (message.channel === TOKENS_CHANNEL) this.tokens++;
      else for (const listener of this.jobListeners) listener();
    });
    const began = performance.now();
    try {
      await client.connect();
      await client.query(`LISTEN ${JOBS_CHANNEL}; LISTEN ${TOKENS_CHANNEL}`);
      if (this.closed) {
        retry(new Error('the store closed'));
        return;
      }
      // Tokens given while no connection listened are unknown: what was remembered of them before is forgotten.
      this.tokens++;
      this.listener = client;
      // Jobs announced while the connection was down are found by the runner's poll; tell it to look now.
      if (failures > 0) for (const listener of this.jobListeners) listener();
    } catch (error) {
      retry(error, began);
    }
  }

  async announceJobs(db: Db): Promise<void> {
    await db.run(sql`SELECT pg_notify(${JOBS_CHANNEL}, '')`);
  }

  tokensVersion(): number | undefined {
    this.startListening();
    return this.listener === undefined ? undefined : this.tokens;
  }

  async announceTokens(db: Db): Promise<void> {
    await db.run(sql`SELECT pg_notify(${TOKENS_CHANNEL}, '')`);
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.writes]);
    this.closed = true;
    this.conditions.close();
    clearTimeout(this.relisten);
    const listener = this.listener;
    this.listener = undefined;
    if (listener) {
      listener.removeAllListeners();
      listener.on('error', () => undefined);
      await listener.end().catch(() => undefined);
    }
    await this.pool.end().catch(() => undefined);
  }
}

/** PostgreSQL's migrations (postgres/migrations), in version order. */
export const readPostgresMigrations = (dir = MIGRATIONS_DIR): Migration[] => migrationsIn(dir);

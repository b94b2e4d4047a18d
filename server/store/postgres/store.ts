// The shared engine: PostgreSQL (DATABASE_URL), through postgres.js, for several instances of the server on one
// database: each write a transaction of its own (SERIALIZABLE by default) run again on a conflict, migrations once
// under an advisory lock, queued jobs announced with LISTEN/NOTIFY; any connection's failure becomes the
// `database-unreachable` condition, never an uncaught exception (server/docs/store.md, "Two engines" and "PostgreSQL
// going away").
import { createHash } from 'node:crypto';
import path from 'node:path';
import { type Migration, migrationsIn } from '../migrations.ts';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import type postgres from 'postgres';
import { DomainError, Refusal, unavailable } from '../../common/errors.ts';
import { STORAGE_CHECK_KEY, StoreConditions, storageCheckValue } from '../conditions.ts';
import * as meta from '../meta.ts';
import { camelName, type Db, Effects, EngineDb, type ReadOptions, type Store, type WriteOptions } from '../db.ts';
import { Connections, readRequest, type Snapshot } from './connections.ts';
import { type Handle, PostgresDriver, rolledBack, Session } from './driver.ts';

export { postgresQueries } from './driver.ts';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/** The channel of LISTEN/NOTIFY on which instances announce queued jobs. */
const JOBS_CHANNEL = 'docs_platform_jobs';
/** The channel on which instances announce that they gave a token to a user. */
const TOKENS_CHANNEL = 'docs_platform_tokens';

/** The key of the advisory lock held while migrations run (any constant of this application's own). */
const MIGRATION_LOCK = 7_361_002_001;

/** How many times a write that conflicts with another instance's is tried in all. */
const WRITE_ATTEMPTS = 12;

/** PostgreSQL's SQLSTATE of a unique violation (`unique_violation`). */
const UNIQUE_VIOLATION = '23505';

/** After how many failed attempts a write runs alone (see `transaction`). */
const ALONE_AFTER = 3;

/** The advisory lock every write holds shared, and a write that failed ALONE_AFTER times holds alone. */
const WRITERS_LOCK = 7_361_002_002;

/**
 * SQLSTATEs of a transaction that failed only because of another one: tried again. A serialization failure, a
 * deadlock, and a unique violation: two serializable transactions that both read the largest number of a space and
 * insert the next one conflict on the unique key before the serializable check sees it (PostgreSQL's documentation
 * advises retrying those too, 13.2.3). A unique violation that is not a race fails again on every attempt: once met
 * by a write that runs alone (no other write under way, a snapshot that sees every committed row) it ends as the
 * error it is, after ALONE_AFTER + 1 attempts. The store's callers check what a client may send twice before they
 * insert.
 */
const RETRYABLE = new Set(['40001', '40P01', UNIQUE_VIOLATION]);

/** The advisory lock of a write queue (WriteOptions.queue): 64 bits of its name's SHA-1, as a signed bigint literal. */
export function queueKey(queue: string): string {
  return BigInt.asIntN(64, createHash('sha1').update(`docs-platform:${queue}`).digest().readBigUInt64BE(0)).toString();
}

/**
 * Most writes of one queue that share a transaction (see `PostgresStore.grouped`): a group waits for its last write,
 * and one that breaks up runs each of its writes again on its own.
 */
const MOST_GROUPED = 32;

/** A write waiting in a queue's group, and how its caller learns its outcome once the group commits. */
interface GroupedWrite {
  work: (db: Db) => Promise<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** What a write of a group did: its result, or the error it failed with before it changed anything. */
type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * A write of a group met a conflict with another transaction, or failed after it changed something: the group is
 * undone, and each of its writes runs on its own.
 */
class GroupConflict extends Error {}

/** A failure that every write would meet alone too (the database unreachable, its disk full): a group fails with it. */
const failsEveryWrite = (error: unknown) => error instanceof Refusal || isConnectionFailure(error);

/**
 * The error of a write whose statement sent without waiting (`Db.send`) failed: its own, but in a group one that does
 * not retry undoes the group (`GroupConflict`), for each write to meet its own outcome alone.
 */
function sentFailed(failure: unknown, grouped: boolean): unknown {
  const code = (failure as { code?: string }).code;
  const retried = code !== undefined && RETRYABLE.has(code);
  return grouped && !retried && !failsEveryWrite(failure) ? new GroupConflict('a statement of a group failed', { cause: failure }) : failure;
}

/**
 * The error of a transaction that a statement's failure aborted, however the work went on: the first failure (one sent
 * without waiting first, which is what the work could not see), as `sentFailed` makes it for a group.
 */
function abortedBy(session: Session, grouped: boolean): unknown {
  return sentFailed(session.sentFailure ?? session.firstFailure, grouped);
}

/** Distinct SQL texts prepared by name on each connection (beyond it, statements are sent unnamed). */
const NAMED_STATEMENTS = 2000;
/** The longest SQL text prepared by name (longer ones are built from what is written: server/docs/limits.md). */
export const LONGEST_NAMED_STATEMENT = 4096;

export interface PostgresOptions {
  /** The connection string (DATABASE_URL). */
  url: string;
  /** Connections of the pool (reads, and one per write transaction under way). */
  poolSize?: number;
}

/** How long a new connection may take before it counts as failed, in seconds. */
const CONNECT_TIMEOUT_SECONDS = 10;

/**
 * Longest wait before the listening connection, once lost, is made again, in seconds: postgres.js waits longer after
 * each failed attempt (50 ms, doubled each time), up to this, so that announcements are heard again within a second of
 * the database's return.
 */
const RELISTEN_SECONDS = 1;
/** How long a listening client may try before a connection's failure makes it anew (see `connectionClosed`). */
const RELISTEN_AFTER_MS = 5000;
const relistenWait = (attempts: number) => Math.min(RELISTEN_SECONDS, 0.05 * 2 ** attempts);

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

/** postgres.js's codes of a connection lost, ended, or not made in time. */
const CONNECTION_CODES = ['CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT'];

/** Whether `error` says the database cannot be reached (a connection refused, lost, or a server shutting down). */
export function isConnectionFailure(error: unknown): boolean {
  if (error instanceof DomainError) return false;
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  if (code !== undefined) {
    // Connection exceptions, operator intervention (a shutdown, a server starting up), too many connections.
    if (/^(08|57P)/.test(code) || code === '53300') return true;
    if (CONNECTION_CODES.includes(code)) return true;
    if (['ECONNREFUSED', 'ECONNRESET', 'ENOENT', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', '3D000'].includes(code)) return true;
  }
  return /Connection terminated/i.test(message ?? '');
}

/** PostgreSQL's SQLSTATE for a disk full (`disk_full`): a write refused until the database's disk has room. */
const DISK_FULL = '53100';

/**
 * postgres.js's options for DATABASE_URL. A Unix socket is given as libpq and node-postgres take it, `?host=<folder>`,
 * which postgres.js would send to the server as a setting: it is passed as the host instead (a folder: postgres.js
 * connects to its socket).
 */
export function connectionOptions(url: string): { url: string; host?: string } {
  const parsed = new URL(url);
  const host = parsed.searchParams.get('host');
  if (host === null) return { url };
  parsed.searchParams.delete('host');
  return { url: parsed.href, host };
}

/**
 * One client of one connection (see connections.ts), for `url`: numbers as numbers (COUNT(*) and bigint columns
 * arrive as text otherwise; every value here is far below 2^53), columns named as above the store (`camelName`),
 * undefined bound as NULL, notices ignored. No lifetime: a transaction's connection must not end under it.
 */
function client(module: typeof postgres, url: string, name: string, onclose: () => void): postgres.Sql {
  const { url: address, host } = connectionOptions(url);
  return module(address, {
    ...(host === undefined ? {} : { host }),
    max: 1,
    max_lifetime: null,
    idle_timeout: 0,
    connect_timeout: CONNECT_TIMEOUT_SECONDS,
    // Array parameters are sent as text (connections.ts, `arrayLiteral`), so no query of pg_type on each connection.
    fetch_types: false,
    onnotice: () => undefined,
    onclose,
    connection: { application_name: name },
    transform: { column: { from: camelName }, undefined: null },
    types: { bigint: { to: 20, from: [20, 1700], serialize: (value: number) => String(value), parse: (text: string) => Number(text) } },
  });
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
  /** The read of the count of changes that this turn's callers of `changeCount` share, until it is sent. */
  private countRead: Promise<number> | undefined;
  readonly inTransaction = false;
  readonly reader: Db;
  private readonly prepared = new Set<string>();
  private readonly jobListeners: (() => void)[] = [];
  /** The client whose connection LISTENs for announcements, once asked (`startListening`). */
  private announcements: postgres.Sql | undefined;
  /** Whether that connection listens for given tokens now (false after a failure, until it listens again). */
  private listening = false;
  /** When that client was made (`performance.now()`). */
  private listenStarted = 0;
  readonly conditions = new StoreConditions({
    'database-unreachable': () => this.connections.read('SELECT count(*) AS n FROM meta', [], true).then(() => undefined),
    'storage-full': () => this.write((db) => meta.put(db, STORAGE_CHECK_KEY, storageCheckValue())),
  });
  /** Moves with each token announced by an instance, and each time the listening connection is made again. */
  private tokens = 0;
  private closed = false;
  private readonly writes = new Set<Promise<unknown>>();
  /** Per write queue, the group of writes that may still join this process's next transaction on it. */
  private readonly groups = new Map<string, GroupedWrite[]>();
  /** Per write queue, the last group this process started on it, until it ends (see `grouped`). */
  private readonly running = new Map<string, Promise<void>>();
  /** The migrations applied when the store opened. */
  applied: string[] = [];
  /** The connection of each request's reads, by their handle (see `read`). */
  private readonly snapshots = new WeakMap<Db, Snapshot>();
  /** Per kind of request (`ReadOptions.kind`), how many of its next requests begin in a snapshot (see `readRequest`). */
  private readonly severalReads = new WeakMap<object, number>();

  /** How many times a connection of the pool closed and was replaced (a backend ended, the network lost). */
  get connectionsReplaced(): number {
    return this.connections.replaced;
  }

  private constructor(
    private readonly module: typeof postgres,
    private readonly connections: Connections,
    private readonly options: PostgresOptions,
  ) {
    this.reader = new EngineDb(this, new PostgresDriver(this, connections));
  }

  /**
   * Connects to the database of `options.url` and migrates it. postgres.js is loaded here, on first use: a server on
   * SQLite never loads it.
   */
  static async open(options: PostgresOptions): Promise<PostgresStore> {
    // postgres.js is an ES module: bundled as CommonJS into the server package (vendor/postgres.cjs), its function is
    // the `default` of what that file exports, which an import gives as its own `default`.
    const loaded = (await import('postgres')) as unknown as { default: typeof postgres | { default: typeof postgres } };
    const module = typeof loaded.default === 'function' ? loaded.default : loaded.default.default;
    // A connection lost while unused (the database stopped) is made again on its next use, or fails as unavailable;
    // a write may have committed without moving the count of changes meanwhile.
    let store: PostgresStore | undefined;
    const connections = new Connections(options.poolSize ?? 10, (onclose) =>
      client(module, options.url, 'docs-platform-server', () => {
        onclose();
        store?.connectionClosed();
      }),
    );
    store = new PostgresStore(module, connections, options);
    try {
      store.applied = await store.migrate();
    } catch (error) {
      await connections.end(0);
      const reason = (error as Error).message || String(error);
      throw new StoreOpenError(`DATABASE_URL ${redactedUrl(options.url)}: cannot use the database (${reason})`, { cause: error });
    }
    return store;
  }

  /**
   * Whether a SQL text is prepared by name on each connection (PostgreSQL then parses and plans it once per
   * connection): the first NAMED_STATEMENTS distinct texts are; beyond them, statements are sent unnamed.
   */
  prepares(text: string): boolean {
    if (this.prepared.has(text)) return true;
    if (this.prepared.size >= NAMED_STATEMENTS || text.length > LONGEST_NAMED_STATEMENT) return false;
    this.prepared.add(text);
    return true;
  }

  /**
   * A failure of an operation that began at `began` (`performance.now()`): the connection's becomes the
   * `database-unreachable` condition's refusal, a full disk the `storage-full` one's; anything else is thrown as it was.
   */
  failure(error: unknown, began: number): unknown {
    if (isConnectionFailure(error)) {
      this.connectionClosed();
      return this.conditions.failed('database-unreachable', error, began);
    }
    if ((error as { code?: unknown } | undefined)?.code === DISK_FULL) return this.conditions.failed('storage-full', error, began);
    return error;
  }

  /**
   * A connection closed or failed: a write may have committed without moving the count of changes (see `changeCount`),
   * and announcements may have been missed (the database restarted: the listening connection is lost too). The
   * listening connection is made anew (`startListening`), unless the one made last has not listened yet and was made
   * less than RELISTEN_AFTER_MS ago (it is still trying, during an outage).
   */
  private connectionClosed(): void {
    if (this.closed) return;
    this.countUnsure = true;
    const announcements = this.announcements;
    if (announcements === undefined || (!this.listening && performance.now() - this.listenStarted < RELISTEN_AFTER_MS)) return;
    this.listening = false;
    this.announcements = undefined;
    void announcements.end({ timeout: 0 }).catch(() => undefined);
    this.startListening();
  }

  /** Applies the migrations the database has not seen, once, under an advisory lock that other instances wait on. */
  private async migrate(): Promise<string[]> {
    const held = await this.connections.hold();
    try {
      await held.control(`SELECT pg_advisory_lock(${MIGRATION_LOCK})`);
      try {
        await held.control(
          `CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at text NOT NULL)`,
        );
        const done = new Set((await held.query('SELECT version FROM schema_migrations', [], false)).map((row) => row.version as number));
        const applied: string[] = [];
        for (const migration of readPostgresMigrations()) {
          if (done.has(migration.version)) continue;
          await held.control('BEGIN');
          try {
            await held.control(migration.sql);
            await held.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [migration.version, migration.name, new Date().toISOString()], false);
            await held.control('COMMIT');
          } catch (error) {
            await held.control('ROLLBACK').catch(() => undefined);
            throw new Error(`migration ${migration.name} failed: ${(error as Error).message}`, { cause: error });
          }
          applied.push(migration.name);
        }
        return applied;
      } finally {
        await held.control(`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`);
      }
    } finally {
      held.release();
    }
  }

  /** The reads of one request (see Store.read, and `readRequest` for how they begin). */
  read<T>(work: (db: Db) => Promise<T>, options: ReadOptions = {}): Promise<T> {
    if (this.closed) return Promise.reject(unavailable('the database is closed'));
    return readRequest(this.connections, this.severalReads, options.kind, (snapshot) => {
      const db = new EngineDb(this, new PostgresDriver(this, snapshot));
      this.snapshots.set(db, snapshot);
      return work(db);
    });
  }

  write<T>(work: (db: Db) => Promise<T>, options: WriteOptions = {}): Promise<T> {
    // A write of a request's reads runs on their connection, alone (see WriteOptions.reading).
    const snapshot = options.reading === undefined ? undefined : this.snapshots.get(options.reading);
    const done =
      snapshot !== undefined
        ? this.transaction(work, { ...options, snapshot })
        : options.queue !== undefined && options.isolation !== 'read committed'
          ? this.grouped(work, options.queue, options)
          : this.transaction(work, options);
    this.writes.add(done);
    const forget = () => this.writes.delete(done);
    done.then(forget, forget);
    return done;
  }

  /**
   * A write of a queue joins the writes of that queue waiting in this process, and they commit together: writes of one
   * queue run one after another anyway (its lock), and each transaction's commit waits for the disk, so one commit for
   * a group is what lets a burst of writes to one resource go faster than one flush each. The writes run one after the
   * other in the transaction, without savepoints (a savepoint is a statement more per write, and a subtransaction for
   * PostgreSQL to keep): a write that fails before it changed anything (a refusal after its reads, the most common
   * failure) is simply left out, and its caller gets its error while the others commit; a write that fails after it
   * changed something, or that meets a conflict with another transaction, undoes the group, and each of its writes
   * then runs on its own, with its own retries. Callers learn their outcome after the commit, as with a write of its own.
   *
   * A group starts once the group of its queue before it in this process has ended, and takes the writes that came
   * meanwhile: a write that waits for no answer before its commit (one that only sends its statements) would otherwise
   * end its group at once, and each such write would be a transaction of its own, waiting in PostgreSQL for the lock of
   * its queue. Writes that wait for their reads keep their group open while they run, and gather the writes that come
   * meanwhile anyway.
   */
  private grouped<T>(work: (db: Db) => Promise<T>, queue: string, wider: Pick<WriteOptions, 'wider' | 'widened'>): Promise<T> {
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
      const start = () => this.runGroup(queue, started, wider);
      const before = this.running.get(queue);
      const run = before === undefined ? start() : before.then(start, start);
      this.running.set(queue, run);
      const forget = () => {
        if (this.running.get(queue) === run) this.running.delete(queue);
      };
      run.then(forget, forget);
    });
  }

  private async runGroup(queue: string, group: GroupedWrite[], wider: Pick<WriteOptions, 'wider' | 'widened'>): Promise<void> {
    const close = () => {
      if (this.groups.get(queue) === group) this.groups.delete(queue);
    };
    let outcomes: Outcome[];
    try {
      outcomes = await this.transaction((_, effects, session, handle) => this.runWrites(handle, effects, session, group, close), { queue, ...wider, grouped: true });
    } catch (error) {
      close();
      if (group.length === 1 || !(error instanceof GroupConflict)) {
        for (const write of group) write.reject(error instanceof GroupConflict ? error.cause : error);
        return;
      }
      for (const write of group) this.transaction(write.work, { queue, ...wider }).then(write.resolve, write.reject);
      return;
    }
    group.forEach((write, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) write.resolve(outcome.value);
      else write.reject(outcome.error);
    });
  }

  /**
   * The writes of a group, in one transaction (see `grouped`), each with a handle of its own (`handle`), refused once
   * its work is over; `close` ends the group once the last has run.
   */
  private async runWrites(handle: () => Handle, effects: Effects, session: Session, group: readonly GroupedWrite[], close: () => void): Promise<Outcome[]> {
    const outcomes: Outcome[] = [];
    for (let i = 0; i < group.length; i++) {
      const write = group[i]!;
      // The effects this write registers go with it when it fails.
      const mark = effects.mark();
      const { writes, failures } = session;
      const { db, end } = handle();
      try {
        const value = await write.work(db);
        end();
        // A statement of the write failed and the write went on (it caught the error): the transaction is aborted.
        if (session.failures !== failures) throw abortedBy(session, group.length > 1);
        outcomes.push({ ok: true, value });
      } catch (error) {
        end();
        if (error instanceof GroupConflict) throw error;
        // Whether it changed anything, or left the transaction aborted, is known once every statement sent is answered.
        await session.settled();
        if (session.writes === writes && session.failures === failures) {
          effects.undoTo(mark);
          outcomes.push({ ok: false, error });
          continue;
        }
        const cause = session.sentFailure ?? session.firstFailure ?? error;
        if (group.length > 1 && !failsEveryWrite(cause)) throw new GroupConflict('a write of a group failed after it changed something', { cause });
        throw cause;
      }
    }
    // No write joins once the last has run: the group commits as it is (a later write starts the next group).
    close();
    return outcomes;
  }

  /**
   * Runs `work` in a transaction of its own, tried again when it conflicts with another. `grouped`: the work is a
   * group's (`runWrites`), which a statement sent without waiting (`Db.send`) that failed undoes as a whole, for each
   * of its writes to run on its own.
   */
  private async transaction<T>(
    work: (db: Db, effects: Effects, session: Session, handle: () => Handle) => Promise<T>,
    options: WriteOptions & { grouped?: boolean; snapshot?: Snapshot },
  ): Promise<T> {
    if (this.closed) throw unavailable('the database is closed');
    const isolation = options.isolation === 'read committed' ? 'READ COMMITTED' : 'SERIALIZABLE';
    const began = performance.now();
    const { snapshot } = options;
    const held = snapshot === undefined ? await this.connections.hold() : await snapshot.lend();
    // The connection cannot be used again as it is (a ROLLBACK or an unlock failed): it is closed, with its locks.
    let broken = false;
    /** What failed the ROLLBACK (the connection lost, most often). */
    let lost: unknown;
    // Every write holds the writers' lock shared (and its queue's lock, when it names one) from before its BEGIN
    // (a statement of the transaction would take its snapshot before the wait) to its COMMIT, across its retries. A
    // write that failed ALONE_AFTER times takes the writers' lock alone: it waits for the writes in progress, runs
    // while others wait, and so ends, however busy the other instances are (a long import among a stream of small
    // writes that kept invalidating it).
    let locked = false;
    let alone = false;
    // The queue whose lock it holds: its own, or the wider one after a conflict (WriteOptions.wider).
    let queue = options.queue;
    try {
      for (let attempt = 1; ; attempt++) {
        // The lock and BEGIN are sent with the work's first statement, without waiting for their answers: PostgreSQL
        // runs a connection's statements in order, so the transaction's snapshot, taken by its first statement, still
        // follows the wait for the lock, and one round trip does for the three.
        const begin: Promise<unknown>[] = [];
        if (!locked) {
          const queued = queue === undefined || alone ? '' : `, pg_advisory_lock(${queueKey(queue)})`;
          begin.push(held.control(alone ? `SELECT pg_advisory_lock(${WRITERS_LOCK})` : `SELECT pg_advisory_lock_shared(${WRITERS_LOCK})${queued}`));
          locked = true;
        }
        begin.push(held.control(`BEGIN ISOLATION LEVEL ${isolation}`));
        const begun = Promise.all(begin);
        begun.catch(() => undefined);
        // A handle and a session per attempt: the effects of an attempt that is undone and run again go with it.
        const session = new Session();
        try {
          const effects = new Effects();
          // Each handle of the attempt refuses statements once its work is over (`Handle`).
          const handles: Handle[] = [];
          // The handles of the attempt share its unit of work: what one write of a group read of memberships, the
          // next reads from it (the same transaction's snapshot), until a write changes members.
          const unit = {};
          const handle = (): Handle => {
            const driver = new PostgresDriver(this, held, session);
            const made = { db: new EngineDb(this, driver, effects, unit), end: () => driver.end() };
            handles.push(made);
            return made;
          };
          let result: T;
          try {
            result = await work(handle().db, effects, session, handle);
          } finally {
            for (const made of handles) made.end();
            // A lock or a BEGIN that failed is what failed the work too.
            await begun;
          }
          // The COMMIT leaves with the statements the work sent without waiting for them (`Db.send`), in one round trip;
          // if one of them failed, the transaction was aborted there and PostgreSQL answers the COMMIT by rolling back.
          // The count of changes moves once the commit is visible, before the caller learns of it (see changeCount).
          const commit = held.control(`COMMIT; SELECT pg_advisory_unlock_all(), nextval('store_changes')`);
          commit.catch(() => undefined);
          await session.settled();
          const committed = await commit;
          locked = false;
          // A statement failed (sent without waiting, or its error caught by the work): PostgreSQL answered the COMMIT
          // by rolling back, and that failure is the write's.
          if (session.failures > 0) throw abortedBy(session, options.grouped === true);
          if (rolledBack(committed)) throw new Error('the write transaction was rolled back at its COMMIT: a statement of it failed');
          effects.run();
          return result;
        } catch (thrown) {
          try {
            await held.control('ROLLBACK');
          } catch (rollbackError) {
            broken = true;
            lost = rollbackError;
          }
          // A statement sent without waiting that failed aborted the transaction: what the work met after it (25P02,
          // the transaction aborted) follows from it.
          await session.settled();
          const error = session.sentFailure !== undefined && !(thrown instanceof GroupConflict) ? sentFailed(session.sentFailure, options.grouped === true) : thrown;
          const code = (error as { code?: string }).code;
          // A unique violation met alone is no race (see RETRYABLE).
          const race = code !== undefined && RETRYABLE.has(code) && !(alone && code === UNIQUE_VIOLATION);
          if (!broken && race && attempt < WRITE_ATTEMPTS) {
            const widen = options.wider !== undefined && queue !== options.wider && !alone;
            if ((attempt >= ALONE_AFTER && !alone) || widen) {
              try {
                await held.control('SELECT pg_advisory_unlock_all()');
              } catch (unlockError) {
                broken = true;
                throw this.failure(unlockError, began);
              }
              locked = false;
              if (widen) {
                queue = options.wider;
                options.widened?.();
              } else alone = true;
            } else {
              // Conflicting writers retry at different moments: a random wait that grows with the attempts.
              await new Promise((resolve) => setTimeout(resolve, Math.random() * 2 ** Math.min(attempt, 6)));
            }
            continue;
          }
          // A conflict whose connection is gone cannot be tried again: it fails as the connection did.
          const conflictLost = broken && code !== undefined && RETRYABLE.has(code);
          throw this.failure(conflictLost ? lost : error, began);
        }
      }
    } finally {
      if (locked && !broken) {
        try {
          await held.control('SELECT pg_advisory_unlock_all()');
        } catch {
          broken = true;
        }
      }
      if (broken) held.discard();
      if (snapshot === undefined) held.release();
      else snapshot.giveBack(held, broken);
    }
  }

  /**
   * The count of the writes every instance committed: the sequence `store_changes`, which each write moves right after
   * its COMMIT (sent in one message with it, so done even if the instance dies meanwhile). A page made after reading
   * it holds at least every write it counts; a write the page may have missed moves it before its client is answered.
   * The callers of one turn of the event loop share one read, sent at the end of the turn (setImmediate): it is sent
   * after each of them asked, so it counts every write committed before any of their requests arrived.
   */
  changeCount(): Promise<number> {
    if (this.countRead === undefined) {
      this.countRead = new Promise<number>((resolve, reject) => {
        setImmediate(() => {
          this.countRead = undefined;
          this.readCount().then(resolve, reject);
        });
      });
    }
    return this.countRead;
  }

  private async readCount(): Promise<number> {
    const began = performance.now();
    const move = this.countUnsure;
    this.countUnsure = false;
    try {
      const rows = await this.connections.read(move ? `SELECT nextval('store_changes') AS n` : 'SELECT last_value AS n FROM store_changes', [], true);
      return rows[0]!.n as number;
    } catch (error) {
      throw this.failure(error, began);
    }
  }

  async ping(): Promise<void> {
    const began = performance.now();
    try {
      await this.connections.read('SELECT count(*) AS n FROM meta', [], true);
    } catch (error) {
      const failure = this.failure(error, began);
      throw failure instanceof DomainError ? failure : unavailable(`the database cannot be read (${(error as Error).message})`);
    }
  }

  onJobsQueued(listener: () => void): void {
    this.jobListeners.push(listener);
    this.startListening();
  }

  /**
   * Keeps one connection of its own LISTENing for queued jobs and given tokens (postgres.js's `listen`, which connects
   * again when the connection is lost, and says when it listens again). Tokens given while no connection listened are
   * unknown: each time it listens again, what was remembered of them is forgotten, and the job runner is told to look
   * for work announced meanwhile (its poll would find it later). postgres.js does not say when that connection is lost,
   * and may not connect that client again (see connections.ts): whenever another connection of the store closes or
   * fails, which a database that stopped or restarted does to all of them, the listening client is made anew
   * (`connectionClosed`) and what is remembered of tokens waits for it to listen. A connection lost without the socket closing (a
   * network that drops packets) goes unnoticed until TCP gives up: until then, tokens given by other instances may be
   * missed, as they would be by a cache with a time to live.
   */
  private startListening(): void {
    if (this.announcements !== undefined || this.closed) return;
    const { url, host } = connectionOptions(this.options.url);
    const announcements = this.module(url, {
      ...(host === undefined ? {} : { host }),
      max: 1,
      connect_timeout: CONNECT_TIMEOUT_SECONDS,
      backoff: relistenWait,
      onnotice: () => undefined,
      connection: { application_name: 'docs-platform-server (announcements)' },
    });
    this.announcements = announcements;
    this.listenStarted = performance.now();
    const jobsQueued = () => {
      for (const listener of this.jobListeners) listener();
    };
    const tokensHeard = () => {
      if (this.announcements !== announcements) return;
      this.tokens++;
      this.listening = true;
    };
    const began = performance.now();
    announcements.listen(TOKENS_CHANNEL, () => this.tokens++, tokensHeard).catch((error: unknown) => {
      if (this.announcements === announcements) this.failure(error, began);
    });
    announcements.listen(JOBS_CHANNEL, jobsQueued, jobsQueued).catch(() => undefined);
  }

  async announceJobs(db: Db): Promise<void> {
    await db.send(sql`SELECT pg_notify(${JOBS_CHANNEL}, '')`);
  }

  tokensVersion(): number | undefined {
    this.startListening();
    return this.listening ? this.tokens : undefined;
  }

  async announceTokens(db: Db): Promise<void> {
    await db.send(sql`SELECT pg_notify(${TOKENS_CHANNEL}, '')`);
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.writes]);
    this.closed = true;
    this.listening = false;
    this.conditions.close();
    await Promise.all([this.announcements?.end({ timeout: 0 }).catch(() => undefined), this.connections.end(5)]);
  }
}

/** PostgreSQL's migrations (postgres/migrations), in version order. */
export const readPostgresMigrations = (dir = MIGRATIONS_DIR): Migration[] => migrationsIn(dir);

// The database as the rest of the server reaches it: `Db`, the handle of one unit of work, over which each module of
// the store (one per resource group) is a set of typed functions. Queries are written once, with Kysely as a builder
// only (`db.q`), and run by each engine; what cannot be written once is behind `Specific` (server/docs/store.md,
// "Queries are written once").
import type { Compilable, CompiledQuery, Kysely, RawBuilder } from 'kysely';
import { badRequest } from '../common/errors.ts';
import type { StoreConditions } from './conditions.ts';
import { jsonShapeProblem } from '../common/json-limits.ts';
import { storableText } from '../common/text.ts';
import type { Camelized, Schema } from './schema.ts';
import type { Specific } from './specific.ts';

/** A query: built with `db.q` (Kysely's builders), or written with Kysely's `sql` template. */
export type Query<Row> = Compilable<Row> | RawBuilder<Row>;

/**
 * The SQL and parameters of a query, compiled for the engine of `q` (a prepared one's bound from `parameters`), each
 * string parameter as both engines store it alike: a NUL or an unpaired surrogate becomes U+FFFD (text.ts), where
 * PostgreSQL would refuse the statement and SQLite keep the NUL.
 */
export function compiled<Row, Params extends object>(query: Query<Row> | Prepared<Params, Row>, q: Kysely<Schema>, parameters?: Params): Compiled {
  const result = query instanceof Prepared ? query.bind(q, parameters ?? {}) : compile(query, q);
  const values = storableParameters(result.parameters);
  return values === result.parameters ? result : { sql: result.sql, parameters: values };
}

/** A builder compiles alone; a `sql` template needs the Kysely instance that knows the engine. */
function compile<Row>(query: Query<Row>, q: Kysely<Schema>): Compiled {
  return (query as { compile(executor: Kysely<Schema>): CompiledQuery<Row> }).compile(q);
}

/**
 * The parameters with their strings made storable, and those of an array parameter (PostgreSQL's lists, `ANY($1)`):
 * the same array when none needed it.
 */
function storableParameters(parameters: readonly unknown[]): readonly unknown[] {
  let copy: unknown[] | undefined;
  for (let i = 0; i < parameters.length; i++) {
    const value = parameters[i];
    const stored = typeof value === 'string' ? storableText(value) : Array.isArray(value) ? storableParameters(value) : value;
    if (stored !== value) (copy ??= [...parameters])[i] = stored;
  }
  return copy ?? parameters;
}

/** A query's SQL text and the values of its parameters, in order. */
export type Compiled = { readonly sql: string; readonly parameters: readonly unknown[] };

/**
 * Stands for the parameter of its name while a prepared query compiles, a text no query writes. Callers' values are
 * never compared with it: they are bound after compiling, by position.
 */
const MARK = '\u0000parameter:';
/** Most shapes of parameters (sets of names with a value) a prepared query keeps compiled, per engine. */
const MOST_SHAPES = 16;

/** A prepared query compiled for one engine and one set of parameter names. */
interface Shape {
  readonly names: readonly string[];
  readonly sql: string;
  /** Per parameter of the SQL: the name whose value it takes, or undefined for a value written in the query. */
  readonly slots: readonly (string | undefined)[];
  readonly constants: readonly unknown[];
}

/**
 * A query written once, with named parameters, and compiled once per engine (and per set of parameter names that
 * have a value, for a `values(...)` or a `set(...)` of the parameters themselves): each call only binds the values.
 * This is for the queries on every request's path, where building and compiling a query with Kysely costs more than
 * SQLite takes to run it; any other query is written inline. `build` receives each parameter as a marker, so it may
 * only pass parameters on as values (not compute with them: that is refused when it compiles).
 */
export class Prepared<Params extends object, Row> {
  private readonly shapes = new Map<Kysely<Schema>, Shape[]>();

  constructor(private readonly build: (q: Kysely<Schema>, parameters: Params) => Query<Row>) {}

  /** The SQL for the engine of `q`, with the values of `parameters` in the order it takes them. */
  bind(q: Kysely<Schema>, parameters: object): Compiled {
    const values = parameters as Record<string, unknown>;
    const names = Object.keys(values).filter((name) => values[name] !== undefined);
    let shapes = this.shapes.get(q);
    if (shapes === undefined) this.shapes.set(q, (shapes = []));
    let shape = shapes.find((known) => known.names.length === names.length && known.names.every((name, i) => name === names[i]));
    if (shape === undefined) {
      shape = this.compile(q, names);
      if (shapes.length < MOST_SHAPES) shapes.push(shape);
    }
    const bound = new Array<unknown>(shape.slots.length);
    for (let i = 0; i < bound.length; i++) {
      const name = shape.slots[i];
      bound[i] = name === undefined ? shape.constants[i] : values[name];
    }
    return { sql: shape.sql, parameters: bound };
  }

  private compile(q: Kysely<Schema>, names: readonly string[]): Shape {
    const markers = Object.fromEntries(names.map((name) => [name, MARK + name])) as Params;
    const { sql, parameters } = compile(this.build(q, markers), q);
    const slots = parameters.map((value) => (typeof value === 'string' && value.startsWith(MARK) ? value.slice(MARK.length) : undefined));
    const misused = parameters.some((value, i) => slots[i] === undefined && typeof value === 'string' && value.includes(MARK));
    if (misused || sql.includes(MARK)) throw new Error(`a prepared query computes with a parameter instead of binding it: ${sql.slice(0, 80)}`);
    return { names, sql, slots, constants: parameters };
  }
}

/** A query compiled once per engine, run with `db.all(query, parameters)`, `db.first` or `db.run` (see Prepared). */
export const prepared = <Params extends object, Row>(build: (q: Kysely<Schema>, parameters: Params) => Query<Row>) =>
  new Prepared<Params, Row>(build);

/** Most names each of `camelName` and `columnName` keeps made (the schema's columns and the queries' aliases are far fewer). */
const MOST_NAMES = 4096;
const camelNames = new Map<string, string>();

/** A column's name as the layers above the store spell it (`CamelName` in schema.ts): `organization_id` → `organizationId`. */
export function camelName(column: string): string {
  let name = camelNames.get(column);
  if (name === undefined) {
    name = column.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
    if (camelNames.size < MOST_NAMES) camelNames.set(column, name);
  }
  return name;
}

const columnNames = new Map<string, string>();

/** The column a name above the store stands for: `organizationId` → `organization_id` (the inverse of `camelName`). */
export function columnName(name: string): string {
  let column = columnNames.get(name);
  if (column === undefined) {
    column = name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
    if (columnNames.size < MOST_NAMES) columnNames.set(name, column);
  }
  return column;
}

/**
 * A record named as above the store, with its columns' own names (`{ organizationId }` → `{ organization_id }`): what
 * the store's inserts and updates give Kysely. `T` is the table's type of what is written (`Insertable<SpacesTable>`).
 */
export function columns<T extends object>(record: Camelized<T>): T {
  const row: Record<string, unknown> = {};
  for (const name in record) row[columnName(name)] = record[name as keyof typeof record];
  return row as T;
}

/**
 * The row of `values` (a row read as an array) as the layers above the store see it: an object with a property per
 * name of `names` (the statement's columns through `camelName`, computed once per statement), in order; a later
 * column of the same name wins. An object made by assignments in the same order shares its shape (V8's hidden class)
 * with every row of the statement, so reading, spreading and serialising rows stays fast; both engines' drivers read
 * rows as arrays and make them here.
 */
export function rowOf(names: readonly string[], values: readonly unknown[]): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (let i = 0; i < names.length; i++) row[names[i]!] = values[i];
  return row;
}

/** The engines the store runs on: SQLite embedded (the default), PostgreSQL for several instances. */
export type Engine = 'sqlite' | 'postgres';

/**
 * The handle of one unit of work: a request's write transaction, the reads of a GET, a step of a background job.
 * Every store function takes one. Rows come back as both engines give them (see schema.ts).
 */
export interface Db {
  readonly engine: Engine;
  /** The store this handle belongs to (a key for what is kept as long as the store lives, such as parsed revisions). */
  readonly store: Store;
  /** Builds queries for this engine (Kysely, compile-only): pass them to `all`, `first` or `run`. */
  readonly q: Kysely<Schema>;
  /** Whether this handle writes inside a transaction (`Store.write`); a reader's writes are refused by design. */
  readonly writing: boolean;
  /**
   * The unit of work this handle works in, which the handles of one transaction share: PostgreSQL gives each write of a
   * group a handle of its own (refused once its work is over), all in the group's transaction. What a unit reads once
   * and keeps while nothing of it changes (a user's memberships, `store/members.ts`) is kept by it.
   */
  readonly unit: object;
  /** What this engine does its own way (specific.ts). */
  readonly specific: Specific<Db>;
  /** The rows of a query, their columns named as above the store (`Camelized`: `organization_id` is `organizationId`). */
  all<Row>(query: Query<Row>): Promise<Camelized<Row>[]>;
  all<Params extends object, Row>(query: Prepared<Params, Row>, parameters: Params): Promise<Camelized<Row>[]>;
  /** The first row of a query, or undefined when it has none. */
  first<Row>(query: Query<Row>): Promise<Camelized<Row> | undefined>;
  first<Params extends object, Row>(query: Prepared<Params, Row>, parameters: Params): Promise<Camelized<Row> | undefined>;
  /** Runs a statement; resolves to the number of rows it changed. */
  run(query: Query<unknown>): Promise<number>;
  run<Params extends object>(query: Prepared<Params, unknown>, parameters: Params): Promise<number>;
  /**
   * Sends a statement of a write whose outcome the work does not wait for (an insert, an update or a delete whose
   * count it does not need), and resolves at once: it runs in order with the write's other statements (a later read
   * sees what it wrote), and if it fails, the write fails with its error and changes nothing, as if it had been
   * awaited. PostgreSQL sends it with whatever the write sends next (its next statement, or its COMMIT), sparing a
   * round trip; SQLite runs it there and then. Not for a statement whose failure the work handles itself.
   */
  send(query: Query<unknown>): Promise<void>;
  send<Params extends object>(query: Prepared<Params, unknown>, parameters: Params): Promise<void>;
  /**
   * Runs `effect` once the write transaction of this handle has committed, before its caller learns of the commit: an
   * effect outside the database (a cache forgotten, a count kept in memory, work started) that must not happen for
   * changes that are undone, nor twice for work run again. Never when the write fails (a failing member of a group
   * included), never for an attempt PostgreSQL runs again after a conflict: only the attempt that
   * commits runs its effects. On a handle outside a transaction (a reader), at once.
   */
  afterCommit(effect: () => void): void;
}

/** Runs the effects of a committed write, in the order they were registered; one that throws does not stop the others. */
function runEffects(effects: readonly (() => void)[]): void {
  for (const effect of effects) {
    try {
      effect();
    } catch (error) {
      // The write is committed whatever an effect does: its failure is reported, not turned into the write's.
      process.emitWarning(error instanceof Error ? error : new Error(String(error)), 'AfterCommitEffectWarning');
    }
  }
}

/**
 * The effects registered (`Db.afterCommit`) by the work of one write transaction, kept until it commits: SQLite keeps
 * one list per group of writes, PostgreSQL one per attempt, so that a retried attempt's go with it.
 */
export class Effects {
  private list: (() => void)[] = [];

  add(effect: () => void): void {
    this.list.push(effect);
  }

  /** Where the effects of a write of a group start: `undoTo` drops them when that write fails. */
  mark(): number {
    return this.list.length;
  }

  undoTo(mark: number): void {
    this.list.length = mark;
  }

  /** The transaction committed: runs them, in order (one that throws is reported and does not stop the others). */
  run(): void {
    const list = this.list;
    this.list = [];
    runEffects(list);
  }

  /** The transaction was undone: forgets them. */
  drop(): void {
    this.list = [];
  }
}

/**
 * How an engine runs one compiled statement: the part of a `Db` each engine does its own way (SQLite through its
 * cache of prepared statements, synchronously; PostgreSQL through a pool or a transaction's client). A statement that
 * fails answers a rejected promise whose error is the store's (a lost connection, a full disk: a `Refusal`).
 */
export interface Driver {
  readonly engine: Engine;
  readonly q: Kysely<Schema>;
  readonly specific: Specific<Db>;
  /**
   * The rows of a statement, made by `rowOf`; one that reads none runs and answers none. Each method refuses a
   * statement that writes when `writing` is false (`writeRefused`).
   */
  all(statement: Compiled, writing: boolean): Promise<unknown[]>;
  /** The first row of a statement, or undefined. */
  first(statement: Compiled, writing: boolean): Promise<unknown>;
  /** Runs a statement: the number of rows it changed. */
  run(statement: Compiled, writing: boolean): Promise<number>;
  /** Runs a statement of a write without the work waiting for it (`Db.send`). */
  send(statement: Compiled, writing: boolean): Promise<void>;
}

/** The error of a write through a reader: a bug, since it would not be part of any transaction. */
export function writeRefused(sql: string): Error {
  return new Error(`a write outside Store.write: ${sql.slice(0, 80)}`);
}

/**
 * The `Db` of both engines: compiles a query for its engine, hands the statement to the engine's driver (which
 * refuses a write through a reader: it would not be part of any transaction), and keeps the effects of its transaction.
 */
export class EngineDb implements Db {
  readonly engine: Engine;
  readonly q: Kysely<Schema>;
  readonly specific: Specific<Db>;
  readonly writing: boolean;
  readonly unit: object;

  /**
   * `effects`: those of the write transaction this handle works in; none for a reader. `unit`: the unit of work it
   * shares with other handles of its transaction (`Db.unit`); its own when none.
   */
  constructor(
    readonly store: Store,
    private readonly driver: Driver,
    private readonly effects?: Effects,
    unit?: object,
  ) {
    this.engine = driver.engine;
    this.q = driver.q;
    this.specific = driver.specific;
    this.writing = effects !== undefined;
    this.unit = unit ?? this;
  }

  all<Row>(query: Query<Row> | Prepared<object, Row>, values?: object): Promise<Camelized<Row>[]> {
    try {
      return this.driver.all(compiled(query, this.q, values), this.writing) as Promise<Camelized<Row>[]>;
    } catch (error) {
      return Promise.reject(error);
    }
  }

  first<Row>(query: Query<Row> | Prepared<object, Row>, values?: object): Promise<Camelized<Row> | undefined> {
    try {
      return this.driver.first(compiled(query, this.q, values), this.writing) as Promise<Camelized<Row> | undefined>;
    } catch (error) {
      return Promise.reject(error);
    }
  }

  run(query: Query<unknown> | Prepared<object, unknown>, values?: object): Promise<number> {
    try {
      return this.driver.run(compiled(query, this.q, values), this.writing);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  send(query: Query<unknown> | Prepared<object, unknown>, values?: object): Promise<void> {
    try {
      return this.driver.send(compiled(query, this.q, values), this.writing);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  afterCommit(effect: () => void): void {
    if (this.effects === undefined) runEffects([effect]);
    else this.effects.add(effect);
  }
}

/** Options of `Store.write`. */
export interface WriteOptions {
  /**
   * PostgreSQL: the transaction's isolation. `serializable` (the default) makes concurrent writes of several
   * instances behave as if they ran one after the other (a conflict retries the work); `read committed` is for work
   * that takes its own row locks (the job claim). SQLite runs one write at a time whatever this says.
   */
  isolation?: 'serializable' | 'read committed';
  /**
   * PostgreSQL: writes naming the same queue (such as `spaceId:abc`) run one after another across every instance
   * (an advisory lock held from before the transaction begins until it ends), so that concurrent writes to one
   * resource wait for each other instead of failing their serializable check and retrying: a burst of change requests
   * in one space commits in turn. Writes of different queues, or of none, run side by side. SQLite runs one write at a
   * time whatever this says.
   */
  queue?: string;
  /**
   * PostgreSQL: the queue a write of `queue` that conflicted with another takes for its next attempts (the organization
   * of the record `queue` names, such as `organizationId:demo` for `spaceId:abc`): writes of different records that
   * conflict on what they share (an organization's counters, the order of siblings) then run one after another instead
   * of failing again, while writes of different records that do not conflict still run side by side.
   */
  wider?: string;
  /** Called when the write takes its `wider` queue, after a conflict (a caller may queue the next ones there at once). */
  widened?: () => void;
  /**
   * The reads this write is part of (a request's, `Store.read`: a read that indexes a revision's links, or stores the
   * PDF it made). PostgreSQL runs the write on that read's connection, after ending its transaction, and the read's
   * next statement begins another, which sees the write; SQLite's reads see it anyway.
   */
  reading?: Db;
}

/** Options of `Store.read`. */
export interface ReadOptions {
  /**
   * The kind of request these reads answer (an object made once per route): PostgreSQL begins a request's reads in a
   * snapshot at once when the last request of its kind read several statements, so that a kind that always does pays no
   * first statement read twice, and without one otherwise (see `read`). Unset: without.
   */
  kind?: object;
}

/** The database: reads, write transactions, and what the server needs to know of it. */
export interface Store {
  readonly engine: Engine;
  /**
   * Whether this process is the database's only user (SQLite: DATA_DIR is locked), so that whatever another process
   * left running died with it; PostgreSQL is shared by every instance.
   */
  readonly exclusive: boolean;
  /**
   * Reads outside any transaction (a background job's): SQLite's connection, PostgreSQL's pool, where each statement
   * sees the moment it runs at. A request reads through `read`.
   */
  readonly reader: Db;
  /**
   * Runs `work` with a handle whose statements all see one committed state of the database: the reads of one request
   * (a GET's, a file's bytes), so that an answer made of several statements (a list and its count, a site's structure)
   * is never made of two moments. PostgreSQL: a read-only REPEATABLE READ transaction on a connection held from the
   * first statement, which carries its BEGIN, to the end of `work`; but a request whose first statement is alone (the
   * work waits for its answer before it sends another) sends it outside any transaction, a moment by itself, and takes
   * the snapshot only if it sends a second, where the first is read again: should its rows have changed, `work` runs
   * again, in a snapshot from its first statement (so `work` must do nothing a second run may not repeat, as a write's).
   * SQLite: its one connection, whose statements run in the server's thread one at a time. The handle refuses writes,
   * as `reader` does (a write of the request goes through `write` with `reading`).
   */
  read<T>(work: (db: Db) => Promise<T>, options?: ReadOptions): Promise<T>;
  /**
   * Runs `work` in a write transaction and resolves once its changes are committed; when `work` throws, its changes
   * are undone and the promise rejects, so a failed request changes nothing. On PostgreSQL `work` runs again when
   * the transaction conflicts with another (a serialization failure or a deadlock): it must do nothing but database
   * work that a retry may repeat. Do not call it from inside `work`.
   */
  write<T>(work: (db: Db) => Promise<T>, options?: WriteOptions): Promise<T>;
  /**
   * A number that grows whenever the database may have changed, for caches of answers made from the database (list
   * pages, http/list-page-cache.ts). SQLite: the count of rows written through this process's connection (by requests,
   * jobs, tests or anything else, committed or rolled back), which sees every change, read at no cost. PostgreSQL:
   * a count of the writes every instance committed (a sequence each write moves just after its commit, in the same
   * round trip), read from the database; changes made by other means than the server are not counted.
   */
  changeCount(): number | Promise<number>;
  /** Whether `changeCount` moves only once a change is committed (PostgreSQL), not as rows are written (SQLite). */
  readonly changesCommittedOnly: boolean;
  /** Whether a transaction is open whose changes this process's reads already see (SQLite's one connection). */
  readonly inTransaction: boolean;
  /** Resolves when a query succeeds; rejects with an `unavailable` DomainError otherwise (GET /health). */
  ping(): Promise<void>;
  /**
   * What the machine does to the store for a while (the database unreachable, the storage full): each failure of
   * that sort is thrown as a `Refusal` (errors.ts) and reported here; watch it to hear when one starts and ends.
   */
  readonly conditions: StoreConditions;
  /**
   * Calls `listener` when another instance committed work for the job runner (PostgreSQL's LISTEN/NOTIFY); SQLite,
   * which one server owns, never calls it.
   */
  onJobsQueued(listener: () => void): void;
  /** Tells the other instances, when `db`'s transaction commits, that it queued jobs (PostgreSQL's NOTIFY). */
  announceJobs(db: Db): Promise<void>;
  /**
   * For caches of what tokens name: a number that moves whenever another process may have given a token to a user
   * (PostgreSQL: an instance announced it, or this one was not listening for a while, when it may have missed one);
   * undefined while this process cannot tell (PostgreSQL: not listening). On SQLite, which one process owns, it moves
   * with this process's `announceTokens`.
   */
  tokensVersion(): number | undefined;
  /** Tells the other instances, when `db`'s transaction commits, that it gave a token to a user (PostgreSQL's NOTIFY). */
  announceTokens(db: Db): Promise<void>;
  /** Waits for the writes in progress, then closes the database. */
  close(): Promise<void>;
}

/**
 * Deepest JSON the store writes. Request bodies nest at most 64 levels (json-limits.ts); this leaves room for
 * what the server wraps around them and for parsed OpenAPI documents, and stays far below the depth at which
 * JSON.stringify, which recurses, overflows the stack.
 */
export const MAX_STORED_JSON_DEPTH = 256;

/** JSON columns: parse what `toJson` wrote. */
export const fromJson = <T>(text: string | null | undefined, fallback: T): T =>
  text === null || text === undefined ? fallback : (JSON.parse(text) as T);

/**
 * JSON columns: the text of `value`. A value nesting deeper than MAX_STORED_JSON_DEPTH is refused (`invalid`, naming
 * `field`), checked without recursion before JSON.stringify recurses.
 */
export function toJson(value: unknown, field = 'value'): string {
  const problem = jsonShapeProblem(value, { maxDepth: MAX_STORED_JSON_DEPTH }, field);
  if (problem !== undefined) throw badRequest(problem);
  return JSON.stringify(value);
}

/** INTEGER columns holding a flag (0 or 1, in both engines). */
export const bool = (value: number | null | undefined): boolean => value === 1;

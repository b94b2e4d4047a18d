// How the PostgreSQL store runs a statement (server/store/postgres/store.ts): on the pool, or on the connection of one
// transaction, followed there by the transaction's session (what it sent, what failed), and refused once the work of
// its handle is over (server/docs/store.md, "PostgreSQL connections").
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import { type Compiled, type Db, type Driver, writeRefused } from '../db.ts';
import type { Schema } from '../schema.ts';
import { type Connections, type Held, heldNoMore, type Rows, type Snapshot } from './connections.ts';
import { postgresSpecific } from './specific.ts';

/** What a driver needs of its store: which texts are prepared by name, and what a failure becomes. */
interface DriverStore {
  prepares(text: string): boolean;
  failure(error: unknown, began: number): unknown;
}

/** Kysely as a query builder for PostgreSQL: it compiles, the store executes (DummyDriver never runs anything). */
export const postgresQueries = new Kysely<Schema>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

/** A statement that changes the database (refused through a reader). */
const WRITES = /^\s*(insert|update|delete|merge|create|alter|drop|truncate)\b/i;

/** Where a driver sends its statements: the pool (a reader's) or the connection of one transaction (a write's, a request's reads). */
type Target = Pick<Connections, 'read'> | Pick<Held | Snapshot, 'query'>;

/** A statement that only reads: a SELECT (one sent with `run` or `send` counts as a write whatever it says). */
const READS = /^\s*select\b/i;

/**
 * The statements of one attempt of a write transaction: those sent without the work waiting for them (`Db.send`),
 * which the commit waits for, what it takes to tell whether a write of a group changed anything, and whether one
 * failed: a statement that fails aborts the transaction on PostgreSQL (no savepoints), whoever caught its error, so a
 * transaction with a failure never commits, and what its work answered is not its outcome.
 */
export class Session {
  /** Statements sent and not answered yet. */
  private readonly pending = new Set<Promise<unknown>>();
  /** Statements sent that may write (every one but a SELECT read with `all` or `first`). */
  writes = 0;
  /** Statements that failed. */
  failures = 0;
  /** The first statement's failure: the one that aborted the transaction. */
  firstFailure: unknown;
  /**
   * The first failure of a statement sent with `send`: the transaction is aborted from there on (every later
   * statement fails with 25P02, and its COMMIT rolls back), so this is what failed the write.
   */
  sentFailure: unknown;

  /** Follows `statement` until it is answered; `sent`: the work does not wait for it. */
  track<T>(statement: Promise<T>, writes: boolean, sent: boolean): Promise<T> {
    if (writes) this.writes++;
    this.pending.add(statement);
    statement.then(
      () => this.pending.delete(statement),
      (error: unknown) => {
        this.pending.delete(statement);
        this.failures++;
        if (this.failures === 1) this.firstFailure = error;
        if (sent && this.failures === 1) this.sentFailure = error;
      },
    );
    return statement;
  }

  /** Resolves once every statement sent so far is answered, failed or not. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }
}

/**
 * How PostgreSQL runs a statement: on the pool (a reader) or on the connection of one transaction, prepared by name on
 * its connection; postgres.js makes its rows, named as above the store.
 */
export class PostgresDriver implements Driver {
  readonly engine = 'postgres';
  readonly q = postgresQueries;
  readonly specific = postgresSpecific;

  /**
   * The work of the write is over (`end`): a statement it sends afterwards (a promise chain that outlived it) is refused,
   * never sent: its transaction is committed or rolled back, or runs another write of its group.
   */
  private ended = false;

  /** `session`: the statements of the transaction whose connection `target` is; none for a reader. */
  constructor(
    private readonly store: DriverStore,
    private readonly target: Target,
    private readonly session?: Session,
  ) {}

  end(): void {
    this.ended = true;
  }

  private async execute({ sql: text, parameters }: Compiled): Promise<Rows> {
    const began = performance.now();
    try {
      return await ('read' in this.target ? this.target.read(text, parameters, this.store.prepares(text)) : this.target.query(text, parameters, this.store.prepares(text)));
    } catch (error) {
      throw this.store.failure(error, began);
    }
  }

  /**
   * Runs a statement, followed by the transaction's session when there is one. `writes`: it may change the database
   * (`run`, `send`, or anything but a SELECT); `sent`: the work does not wait for it (`send`).
   */
  private statement(statement: Compiled, writing: boolean, writes = false, sent = false): Promise<Rows> {
    // Refused before anything is sent, and so no failure of the transaction's.
    if (!writing && WRITES.test(statement.sql)) return Promise.reject(writeRefused(statement.sql));
    if (this.ended) return Promise.reject(heldNoMore(statement.sql));
    const answer = this.execute(statement);
    return this.session === undefined ? answer : this.session.track(answer, writes || !READS.test(statement.sql), sent);
  }

  async all(statement: Compiled, writing: boolean): Promise<unknown[]> {
    return await this.statement(statement, writing);
  }

  async first(statement: Compiled, writing: boolean): Promise<unknown> {
    return (await this.statement(statement, writing))[0];
  }

  async run(statement: Compiled, writing: boolean): Promise<number> {
    return (await this.statement(statement, writing, true)).count ?? 0;
  }

  /**
   * In a transaction (a driver with a session is a writer's), the statement is sent (with whatever the work sends next
   * in this turn of the event loop) and followed by the session, whose commit waits for it; through a reader, it is a
   * write refused.
   */
  send(statement: Compiled, writing: boolean): Promise<void> {
    if (this.session === undefined) return this.run(statement, writing).then(() => undefined);
    this.statement(statement, writing, true, true).catch(() => undefined);
    return Promise.resolve();
  }
}

/** Whether the answer of a COMMIT (its text's first statement) says that PostgreSQL rolled the transaction back. */
export function rolledBack(answer: unknown): boolean {
  const first: unknown = Array.isArray(answer) && Array.isArray(answer[0]) ? answer[0] : answer;
  return (first as { command?: string } | undefined)?.command === 'ROLLBACK';
}

/** A handle of a write's work, and what ends it: statements sent through it afterwards are refused. */
export interface Handle {
  db: Db;
  end(): void;
}

// The connections of one instance to PostgreSQL: DATABASE_POOL_SIZE postgres.js clients of one connection each,
// connected on first use and replaced when their connection closes. Statements are pipelined, reads outside a request
// go to the first connection no transaction holds that runs fewer than PIPELINE reads, and a transaction (a write's,
// a request's reads: `Snapshot`) holds its connection to its end (server/docs/design.md, "PostgreSQL connections").
import type postgres from 'postgres';

/** What a statement answers: its rows (objects, named by the client's column transform) and what it changed. */
export type Rows = postgres.RowList<Record<string, unknown>[]>;

/** A client of one connection, as postgres.js makes it (`open` is told when its connection closes). */
export type OpenClient = (onclose: () => void) => postgres.Sql;

/** A connection of the pool: its client, what runs on it, and how many times it was lost. */
class Connection {
  sql: postgres.Sql;
  /** Reads sent on it and not yet answered. */
  reading = 0;
  /** A transaction holds it. */
  held = false;
  /** Moves each time its connection closes. */
  generation = 0;
  /** The pool is closing: a client that ends is not replaced. */
  ending = false;
  /**
   * A request's read transaction is still open on it (`Snapshot.end`): its COMMIT leaves with the next statement sent
   * on it, in the same write, or alone at most `COMMIT_WAIT_MS` later (`commitLater`).
   */
  commitDue = false;
  private commitTimer: NodeJS.Timeout | undefined;

  constructor(private readonly open: OpenClient) {
    this.sql = this.client();
  }

  /** The COMMIT due is sent alone if no statement took it within `COMMIT_WAIT_MS` (a held connection's next one will). */
  commitLater(): void {
    if (this.commitTimer !== undefined) return;
    this.commitTimer = setTimeout(() => {
      this.commitTimer = undefined;
      if (this.held) return;
      settle(this);
    }, COMMIT_WAIT_MS);
    this.commitTimer.unref();
  }

  private client(): postgres.Sql {
    const sql: postgres.Sql = this.open(() => this.replace(sql));
    return sql;
  }

  /**
   * Ends client `old`, at once, if it is still this connection's, and starts a new client: when its connection closed
   * (see above), and for a connection left in a state no statement can undo (a transaction whose ROLLBACK failed),
   * whose session's locks go with it.
   */
  replace(old: postgres.Sql = this.sql): void {
    if (old !== this.sql || this.ending) return;
    this.generation++;
    this.commitDue = false;
    this.sql = this.client();
    void old.end({ timeout: 0 }).catch(() => undefined);
  }
}

/** The error of a statement of a transaction whose connection was lost since it began (a connection failure). */
export function connectionLost(): Error {
  return Object.assign(new Error('Connection terminated: the connection of the transaction was lost'), { code: 'CONNECTION_CLOSED' });
}

/**
 * The error of a statement sent through a connection's holder after it gave the connection back: it is never sent, since
 * the connection may be another transaction's by then.
 */
export function heldNoMore(text: string): Error {
  return new Error(`a statement after its transaction gave its connection back: ${text.slice(0, 80)}`);
}

/**
 * A connection held by one transaction: its statements run there, in order, while it is the connection it began on,
 * and until it is given back (`release`): a statement sent through it later is refused, never sent, so that nothing
 * of one holder's (a statement of a work that outlived its transaction, its failure swallowed) reaches the next
 * holder's transaction.
 */
export class Held {
  private readonly generation: number;
  /** The connection was given back. */
  private released = false;

  constructor(
    private readonly connection: Connection,
    /** Gives the connection back to the pool. */
    private readonly giveBack: () => void,
  ) {
    this.generation = connection.generation;
  }

  /** Gives the connection back to the pool, once: nothing is sent through this holder afterwards. */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.giveBack();
  }

  /** Refuses a statement once the connection was given back, or lost (postgres.js would run it on a new one). */
  private check(text: string): void {
    if (this.released) throw heldNoMore(text);
    if (this.connection.generation !== this.generation) throw connectionLost();
  }

  /** Sends a statement at once, prepared by name on its connection when `prepare` (see `check`). */
  async query(text: string, parameters: readonly unknown[], prepare: boolean): Promise<Rows> {
    this.check(text);
    settle(this.connection);
    return await send(this.connection.sql, text, parameters, prepare);
  }

  /**
   * Statements of the store's own (BEGIN, COMMIT, locks), in the simple protocol: one text, several statements; the
   * COMMIT of a request's reads still due on the connection goes first, in the same text.
   */
  async control(text: string): Promise<unknown> {
    this.check(text);
    const due = this.connection.commitDue;
    this.connection.commitDue = false;
    return await this.connection.sql.unsafe(due ? `COMMIT; ${text}` : text);
  }

  /**
   * The read transaction open on the connection ends with whatever is sent on it next (`Connection.commitDue`), or
   * alone at most `COMMIT_WAIT_MS` later; the connection goes back to the pool now.
   */
  releaseOpen(): void {
    const { connection } = this;
    if (this.released) return;
    if (connection.generation === this.generation) {
      connection.commitDue = true;
      connection.commitLater();
    }
    this.release();
  }

  /** The transaction open on the connection ends with the next statement sent on it (see `Connection.commitDue`). */
  commitDue(): void {
    if (!this.released && this.connection.generation === this.generation) this.connection.commitDue = true;
  }

  /** The connection cannot be used again as it is: it is closed, and the next user gets a new one. */
  discard(): void {
    if (!this.released && this.connection.generation === this.generation) this.connection.replace();
  }
}

/**
 * How long a request's read transaction may stay open on a connection after its request, its COMMIT waiting to leave
 * with the next statement sent there. Under load the next request takes the connection sooner and the COMMIT costs no
 * write of its own (a write and a wake-up of PostgreSQL and of this process); idle, the snapshot is held this long
 * more, which delays nothing but DDL (a migration) by as much. Undo: 0 sends it alone on the next turn's timers.
 */
const COMMIT_WAIT_MS = 50;

/** How a request's reads begin: one snapshot for all of them, and no write. */
const BEGIN_READ = 'BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY';

/**
 * The error of a request's read made after its first statement's rows, read outside any transaction, were found changed
 * in the snapshot taken for its second (see `Snapshot`): the request's reads run again, in one snapshot from the start.
 */
export class StaleRead extends Error {
  constructor() {
    super('the first read of the request changed before its second: its reads run again in one snapshot');
  }
}

/** A statement, prepared by name on its connection when `prepare`. */
export interface Statement {
  text: string;
  parameters: readonly unknown[];
  prepare: boolean;
}

/** A statement of a request's reads, waiting for the end of its first burst (see `Snapshot`). */
interface Waiting extends Statement {
  resolve(rows: Rows): void;
  reject(error: unknown): void;
}

/** A statement of a request's first burst, sent on the pool, with its answer. */
interface Sent extends Statement {
  rows: Promise<Rows>;
}

/**
 * The connection of one request's reads (`PostgresStore.read`), held from its first statement to the end of its work.
 * That statement leaves with the BEGIN of a read-only REPEATABLE READ transaction, in one round trip, and takes the
 * snapshot every later statement sees: the reads of a request see one committed state. At the end the COMMIT is sent
 * and the connection given back at once (the next user's statements follow the COMMIT on it). A write the request makes
 * while it reads (`lend`) runs on the same connection, after the read's transaction; its next statement begins another
 * transaction, whose snapshot holds that write.
 *
 * `alone`: a request whose reads are its first burst (the statements its work sends before it waits for any answer)
 * needs no connection of its own: one statement is one moment by itself and is sent on the pool, outside any
 * transaction; several leave on a connection of the pool in one write between a BEGIN and a COMMIT of their own,
 * contiguous, so that they see one snapshot while other requests' reads share the connection's writes. Should the
 * request send a statement after that burst was answered, the snapshot is taken then, on a held connection, with that
 * statement, and the burst is read again in it: the same rows, and the request's reads are one moment, the
 * snapshot's; other rows, and its reads are `stale` (each later one fails with `StaleRead`), and the request runs
 * again in a snapshot from its first statement.
 */
export class Snapshot {
  /** The connection, once a statement asked for it. */
  private held: Promise<Held> | undefined;
  /** The BEGIN of the transaction open on it, while one is. */
  private begun: Promise<unknown> | undefined;
  /** A write of the request runs on the connection (`lend`). */
  private lent = false;
  private ended = false;
  /** The statements of the first burst, while it gathers (`alone`). */
  private burst: Waiting[] | undefined;
  /** The first burst, read on the pool, until the snapshot is taken and it is read again there. */
  private first: Sent[] | undefined;
  /** The first burst read again in the snapshot and compared, once a later statement asked for the snapshot. */
  private checked: Promise<void> | undefined;
  /** The first burst's rows changed before the snapshot was taken: the request's reads run again. */
  stale = false;
  /** The first burst is under way: its statements were all sent (see `gather`). */
  private burstEnded: boolean | undefined;
  /** A statement was sent after the first burst: the request's reads are more than one burst. */
  later = false;

  constructor(
    private readonly connections: Connections,
    private readonly alone = false,
  ) {}

  /** A statement of the request's reads, in its transaction (begun with the first). */
  async query(text: string, parameters: readonly unknown[], prepare: boolean): Promise<Rows> {
    if (this.ended) throw new Error(`a read after the end of its request: ${text.slice(0, 80)}`);
    if (this.stale) throw new StaleRead();
    const gathering = this.alone && this.held === undefined && this.first === undefined;
    if (this.burstEnded === undefined) {
      this.burstEnded = false;
      // The first burst's end, as `gather` finds it (its `flush` marks it when it gathers).
      if (!gathering) queueMicrotask(() => process.nextTick(() => (this.burstEnded = true)));
    } else if (this.burstEnded) this.later = true;
    if (gathering) return await this.gather(text, parameters, prepare);
    if (this.first !== undefined) {
      const first = this.first;
      this.first = undefined;
      this.checked = this.readAgain(first);
    }
    const rows = this.inTransaction(text, parameters, prepare);
    if (this.checked === undefined) return await rows;
    // The answer counts once the first burst is known to be of the snapshot's moment.
    const [answer] = await Promise.all([rows, this.checked]);
    if (this.stale) throw new StaleRead();
    return answer;
  }

  /** A statement in the transaction on the held connection, begun with the first such statement. */
  private async inTransaction(text: string, parameters: readonly unknown[], prepare: boolean): Promise<Rows> {
    const held = await (this.held ??= this.connections.hold());
    if (this.begun === undefined) {
      this.begun = held.control(BEGIN_READ);
      this.begun.catch(() => undefined);
    }
    // A BEGIN that failed fails the statement too: it would have run outside the snapshot.
    const [, rows] = await Promise.all([this.begun, held.query(text, parameters, prepare)]);
    return rows;
  }

  /**
   * A statement of the first burst: the statements the work sends before the microtasks of this turn have run (those it
   * sends without waiting for an answer), sent together on the pool (see `alone`).
   */
  private gather(text: string, parameters: readonly unknown[], prepare: boolean): Promise<Rows> {
    return new Promise<Rows>((resolve, reject) => {
      const waiting = { text, parameters, prepare, resolve, reject };
      if (this.burst !== undefined) return void this.burst.push(waiting);
      this.burst = [waiting];
      // After every microtask queued meanwhile (process.nextTick queued from one runs once they all have).
      queueMicrotask(() => process.nextTick(() => this.flush()));
    });
  }

  private flush(): void {
    const burst = this.burst!;
    this.burst = undefined;
    this.burstEnded = true;
    if (this.ended) {
      for (const waiting of burst) waiting.reject(new Error(`a read after the end of its request: ${waiting.text.slice(0, 80)}`));
      return;
    }
    if (this.held !== undefined) {
      for (const waiting of burst) this.inTransaction(waiting.text, waiting.parameters, waiting.prepare).then(waiting.resolve, waiting.reject);
      return;
    }
    const answers = burst.length === 1 ? [this.connections.read(burst[0]!.text, burst[0]!.parameters, burst[0]!.prepare)] : this.connections.readTogether(burst);
    this.first = burst.map((waiting, i) => {
      const rows = answers[i]!;
      rows.then(waiting.resolve, waiting.reject);
      return { text: waiting.text, parameters: waiting.parameters, prepare: waiting.prepare, rows };
    });
  }

  /** The first burst read again in the snapshot: its rows then and now must be the same (`stale` otherwise). */
  private async readAgain(first: readonly Sent[]): Promise<void> {
    const again = first.map((sent) => this.inTransaction(sent.text, sent.parameters, sent.prepare));
    for (const rows of again) rows.catch(() => undefined);
    for (let i = 0; i < first.length; i++) {
      let before: Rows;
      try {
        before = await first[i]!.rows;
      } catch {
        // The work met that failure itself.
        return;
      }
      if (!sameRows(before, await again[i]!)) {
        this.stale = true;
        return;
      }
    }
  }

  /** Resolves once the first burst is known to be of the snapshot's moment, or not (`stale`). */
  async settled(): Promise<void> {
    await this.checked?.catch(() => undefined);
  }

  /** The connection for a write of this request: the read's transaction ends there (see above). */
  async lend(): Promise<Held> {
    if (this.stale) throw new StaleRead();
    // The request's reads are of two moments from here on, by design: its first statement is not read again.
    this.first = undefined;
    const held = await (this.held ??= this.connections.hold());
    this.lent = true;
    // The read's transaction ends with the write's first statement (see `Connection.commitDue`).
    if (this.begun !== undefined) {
      this.begun = undefined;
      held.commitDue();
    }
    return held;
  }

  /**
   * The write is done with the connection. `broken`: it cannot be used as it is (the write discarded it), so it goes
   * back to the pool, and a later read holds another.
   */
  giveBack(held: Held, broken: boolean): void {
    this.lent = false;
    if (!broken && !this.ended) return;
    this.held = undefined;
    held.release();
  }

  /**
   * The request is done: the connection goes back to the pool (or is given back by the write, if one still runs on it),
   * its COMMIT leaving with the next statement sent on it (see `Connection.commitDue`).
   */
  end(): void {
    this.ended = true;
    if (this.lent) return;
    const held = this.held;
    this.held = undefined;
    void held?.then((connection) => {
      if (this.begun !== undefined) connection.releaseOpen();
      else connection.release();
    });
  }
}

/**
 * How many of a kind's next requests begin in a snapshot at once once one of them read more than one burst: a kind whose
 * statements after its first burst depend on what is kept in memory (a revision kept parsed) needs them now and then,
 * and would otherwise alternate between reading its first burst twice and holding a connection.
 */
const SNAPSHOT_AHEAD = 2;

/**
 * Runs `work`, the reads of one request, with a `Snapshot`: begun without one (`alone`) unless one of the last requests
 * of its `kind` read more than one burst (`several`, per kind: how many more begin in a snapshot, `SNAPSHOT_AHEAD`
 * after such a request), and run again in a snapshot from its start when its first burst's rows changed before its
 * next statement (`stale`).
 */
export async function readRequest<T>(connections: Connections, several: WeakMap<object, number>, kind: object | undefined, work: (snapshot: Snapshot) => Promise<T>): Promise<T> {
  let alone = kind === undefined || !((several.get(kind) ?? 0) > 0);
  for (;;) {
    const snapshot = new Snapshot(connections, alone);
    let result: T;
    try {
      result = await work(snapshot);
    } catch (error) {
      await snapshot.settled();
      if (!snapshot.stale) throw error;
      alone = false;
      continue;
    } finally {
      snapshot.end();
    }
    await snapshot.settled();
    if (snapshot.stale) {
      alone = false;
      continue;
    }
    if (kind !== undefined) several.set(kind, snapshot.later ? SNAPSHOT_AHEAD : Math.max(0, (several.get(kind) ?? 0) - 1));
    return result;
  }
}

/** Whether two answers of one statement hold the same rows, in the same order. */
export function sameRows(a: readonly Record<string, unknown>[], b: readonly Record<string, unknown>[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const left = a[i]!;
    const right = b[i]!;
    for (const name in left) if (!sameValue(left[name], right[name])) return false;
  }
  return true;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.compare(a, b) === 0;
  if (typeof a === 'object' && typeof b === 'object' && a !== null && b !== null) return JSON.stringify(a) === JSON.stringify(b);
  // NaN is its own value.
  return typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b);
}

/** Sends the COMMIT due on `connection` (see `Connection.commitDue`), before what is sent next on it. */
function settle(connection: Connection): void {
  if (!connection.commitDue) return;
  connection.commitDue = false;
  connection.sql.unsafe('COMMIT').catch(() => undefined);
}

/** A statement with its parameters, prepared by name on its connection when `prepare`. */
function send(sql: postgres.Sql, text: string, parameters: readonly unknown[], prepare: boolean): postgres.PendingQuery<Record<string, unknown>[]> {
  const values = parameters.some(Array.isArray) ? parameters.map((value) => (Array.isArray(value) ? arrayLiteral(value) : value)) : parameters;
  return sql.unsafe(text, values as postgres.ParameterOrJSON<never>[], { prepare, simple: false } as postgres.UnsafeQueryOptions);
}

/**
 * An array parameter (`ANY($1)`) as PostgreSQL's text form of an array, `{"a","b"}`, which the server parses as the
 * array type it expects there. postgres.js would serialize arrays itself only with the array types it reads from
 * pg_type on each new connection (`fetch_types`), a query it runs on its own whose failure, when the connection is lost
 * right after it was made, nothing catches (the process would end): the clients are made without it.
 */
export function arrayLiteral(values: readonly unknown[]): string {
  const items = values.map((value) =>
    value === null || value === undefined ? 'NULL' : `"${String(value).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`,
  );
  return `{${items.join(',')}}`;
}

/**
 * Most reads under way on one connection before the next connection takes reads. Reads sent together share a write, a
 * wake-up of PostgreSQL's backend and of this process for their answers; past this many, one slow read would hold
 * back too many others queued behind it on its connection.
 */
const PIPELINE = 16;

export class Connections {
  private readonly all: Connection[];
  /** Callers waiting for a connection no transaction holds. */
  private waiting: (() => void)[] = [];

  constructor(size: number, open: OpenClient) {
    this.all = Array.from({ length: size }, () => new Connection(open));
  }

  /** A read: on the first free connection with fewer than PIPELINE reads under way, or else the one with the fewest. */
  async read(text: string, parameters: readonly unknown[], prepare: boolean): Promise<Rows> {
    const { connection, sent } = await this.forReads(1, (connection) => send(connection.sql, text, parameters, prepare).then((rows) => rows));
    try {
      return await sent;
    } finally {
      connection.reading--;
    }
  }

  /**
   * Reads that must see one moment, sent on a connection of the pool as `read` sends one, between a BEGIN and a COMMIT
   * of their own in the same write: postgres.js sends a connection's statements in the order they were asked for (each
   * after one turn of the microtask queue), so no other statement falls between them.
   */
  readTogether(statements: readonly Statement[]): Promise<Rows>[] {
    const sent = this.sendTogether(statements);
    sent.catch(() => undefined);
    return statements.map(async (_, i) => await (await sent)[i]!);
  }

  private async sendTogether(statements: readonly Statement[]): Promise<Promise<Rows>[]> {
    const {
      connection,
      sent: { begun, sent },
    } = await this.forReads(statements.length, (connection) => {
      // Each asked for (`then`) here, in this order: postgres.js sends a statement once it is asked for.
      const begun = connection.sql.unsafe(BEGIN_READ).then(() => undefined);
      begun.catch(() => undefined);
      const sent = statements.map((statement) => send(connection.sql, statement.text, statement.parameters, statement.prepare).then((rows) => rows));
      for (const rows of sent) rows.catch(() => undefined);
      connection.sql.unsafe('COMMIT').catch(() => undefined);
      return { begun, sent };
    });
    // A BEGIN that failed fails each statement too: it would have run outside the snapshot.
    const answers = sent.map(async (rows) => {
      try {
        const [, answer] = await Promise.all([begun, rows]);
        return answer;
      } finally {
        connection.reading--;
      }
    });
    for (const rows of answers) rows.catch(() => undefined);
    return answers;
  }

  /**
   * `count` reads, sent by `sendOn` on a connection of the pool, counted under way there (each caller takes its own off
   * once answered), the COMMIT due on it sent first. The connection is taken and the reads asked for in one step, with
   * no turn of the microtask queue between them: a transaction that takes the connection next (`hold`) finds them
   * already queued there, ahead of its own statements, never inside its transaction.
   */
  private async forReads<T>(count: number, sendOn: (connection: Connection) => T): Promise<{ connection: Connection; sent: T }> {
    const use = (connection: Connection) => {
      connection.reading += count - 1;
      settle(connection);
      return { connection, sent: sendOn(connection) };
    };
    const connection = this.free(PIPELINE);
    return connection !== undefined ? use(connection) : await this.freed(PIPELINE, 'reading', use);
  }

  /** A connection for one transaction, until its `release`: the free one with the fewest reads under way. */
  async hold(): Promise<Held> {
    const connection = this.free(1, 'held') ?? (await this.freed(1, 'held', (taken) => taken));
    return new Held(connection, () => {
      connection.held = false;
      const waiting = this.waiting;
      this.waiting = [];
      for (const wake of waiting) wake();
    });
  }

  /** How many times a connection of the pool closed and was replaced since the pool opened. */
  get replaced(): number {
    return this.all.reduce((sum, connection) => sum + connection.generation, 0);
  }

  /** Closes every connection, once the statements sent on it are answered (at most `seconds` later). */
  async end(seconds: number): Promise<void> {
    for (const connection of this.all) connection.ending = true;
    await Promise.all(this.all.map((connection) => connection.sql.end({ timeout: seconds }).catch(() => undefined)));
  }

  /**
   * The first connection no transaction holds with fewer than `below` reads under way, or else the one with the fewest,
   * taken there and then: `held` by a transaction, or with one more read under way (`reading`). Found and taken in one
   * step: a connection found and taken a turn of the microtask queue later could be taken meanwhile by another caller
   * woken by the same release, and two transactions would share it.
   */
  private free(below: number, take: 'held' | 'reading' = 'reading'): Connection | undefined {
    let best: Connection | undefined;
    for (const connection of this.all) {
      if (connection.held) continue;
      if (connection.reading < below) {
        best = connection;
        break;
      }
      if (best === undefined || connection.reading < best.reading) best = connection;
    }
    if (best !== undefined) {
      if (take === 'held') best.held = true;
      else best.reading++;
    }
    return best;
  }

  /**
   * Waits until a transaction gives its connection back, then takes one as `free` does and hands it to `use` in the same
   * step (see `forReads`).
   */
  private async freed<T>(below: number, take: 'held' | 'reading', use: (connection: Connection) => T): Promise<T> {
    for (;;) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
      const connection = this.free(below, take);
      if (connection !== undefined) return use(connection);
    }
  }
}

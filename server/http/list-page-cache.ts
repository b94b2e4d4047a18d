// Pages of lists kept until the database next changes: a page read again, by the same user, with the same address,
// while nothing was written, is sent as it was made, without reading the database or serialising it again.
//
// A list page is made afresh from rows that change (a space's title, its counters, the caller's permissions), so it
// cannot be kept as a revision's content is (http/immutable-bodies.ts). What it depends on is known, though: a
// handler sees the path, the query, the body and the caller (app.ts passes it nothing else, no headers), and
// otherwise reads the database, the clock and what never changes while the server runs (its configuration, its
// secrets, revisions). So its answer is the same as long as the database and the clock are, and a page is kept when
// the making of it could not have seen anything else:
//
// - no clock was read while it was made (`countingClock`, which counts every read of the server's time, by any
//   request or job): most lists never read it; those that do are made afresh every time;
// - no write transaction was open, before or after (a page made from changes not yet committed is never kept: they
//   could still be rolled back);
// - the database changed nothing while it was made, whoever wrote (another request, a job, a GET that writes such
//   as the first read of a space's links, which is kept from its next read on).
//
// A kept page is valid while the store's count of changes has not moved (`Store.changeCount`): any write drops every
// kept page. On SQLite it is the count of rows written on the server's one connection (`total_changes()`: every row
// written, committed or rolled back, by requests, jobs or anything else), read at no cost. On PostgreSQL, which every
// instance writes to, it is a count of committed writes kept in the database (a sequence each write moves just after
// its commit, in the same round trip), read with one statement per list request instead of the several that make a
// page: a page made after reading the count holds at least every write counted, and a write it may have missed moves
// the count before its client is answered, so no instance sends a page older than a write a client was told is done.
// Per user (the caller's id) and address (path and query string as sent). They are bounded by LIST_CACHE_MB, in MiB
// of their JSON, the most recently read kept; 0 keeps none.
//
// A page is kept as its JSON text. The first time it is sent again, that text is parsed into a body of its own (the
// handler's objects may be shared with other code) made immutable (frozen, its bytes encoded once): sent through
// res.json like any answer, it is checked by the response check once, then remembered as accepted.
//
// `verify` (tests start the server with it): every page sent from memory is also made afresh, and a page that
// differs from the kept one, by status, headers or bytes, fails the request with a 500 and an error in the log. So
// every test that reads a list twice checks that keeping it was right.
import { RecentlyUsed } from '../shared/recently-used.ts';
import { immutableBody } from './immutable-bodies.ts';
import { CONTINUE_AFTER } from '../shared/paging.ts';
import { serializedText } from '../shared/response-bodies.ts';

export interface ListAnswer {
  status: number;
  headers: Record<string, string>;
  body: object;
}

/** What a page was made from: the database's count of changes and the clock's count of reads (undefined: a write
 *  transaction is open). */
export type Moment = { changes: number; clockReads: number } | undefined;

/** A page as kept: its JSON text, and once it is sent again, an immutable body made from that text. */
interface Kept {
  status: number;
  headers: Record<string, string>;
  json: string;
  body?: object;
}

/** A kept page as `find` gives it: its body made, and the JSON text it was kept as. */
export type CachedListAnswer = ListAnswer & { readonly json: string };

export interface ListPageCacheOptions {
  /** The database's count of changes (Store.changeCount), read from the database when it is a promise. */
  changes: () => number | Promise<number>;
  /**
   * Whether the count moves only once a change is committed and visible (PostgreSQL): a page made after reading it
   * is then kept under that count without reading it again. Otherwise (SQLite, whose count moves as rows are
   * written) the count is read again after the page is made, and the page kept only if it did not move.
   */
  committedOnly?: boolean;
  /** Whether a write transaction is open. */
  inTransaction: () => boolean;
  /** How many times the clock was read. */
  clockReads: () => number;
  /** Largest total of the JSON kept, in bytes (0 keeps nothing); one page may take half of it. */
  bytes: number;
  verify?: boolean;
}

/** How many pages were kept, sent from memory, and made again to verify them (for tests). */
export interface ListPageCacheCounts {
  kept: number;
  served: number;
  verified: number;
}

/** Whether `body` is a page of a list (made by `Cursors.page` or `pageOf`, fitted by `fitPage`). */
export const isListPage = (body: unknown): body is object =>
  body !== null && typeof body === 'object' && typeof (body as { [CONTINUE_AFTER]?: unknown })[CONTINUE_AFTER] === 'function';

export class ListPageCache {
  private readonly pages: RecentlyUsed<string, Kept>;
  /** The count of changes the kept pages were made at. */
  private changes: number | undefined;
  readonly counts: ListPageCacheCounts = { kept: 0, served: 0, verified: 0 };

  constructor(private readonly options: ListPageCacheOptions) {
    this.pages = new RecentlyUsed(options.bytes, options.bytes / 2);
  }

  get enabled(): boolean {
    return this.options.bytes > 0;
  }

  get verifying(): boolean {
    return this.options.verify === true;
  }

  /** The database's count of changes now: a number, or a promise of one where the database must be asked. */
  changeCount(): number | Promise<number> {
    return this.options.changes();
  }

  /**
   * The database and the clock as they are now, to compare with after making a page; `changes`, the count read for
   * this request already (see `changeCount`). Undefined while a write transaction is open.
   */
  moment(changes: number): Moment {
    if (this.options.inTransaction()) return undefined;
    return { changes, clockReads: this.options.clockReads() };
  }

  /** The moment a page made since `before` was made at (the count read again, unless it moves only on commits). */
  momentAfter(before: Moment): Moment | Promise<Moment> {
    if (before === undefined) return undefined;
    if (this.options.committedOnly) return this.moment(before.changes);
    const changes = this.options.changes();
    return typeof changes === 'number' ? this.moment(changes) : changes.then((count) => this.moment(count));
  }

  /**
   * The page kept for `key`, if the database has not changed since it was made (`changes`, its count now). Inside a
   * write transaction too: its changes, if any, have moved the count already, and without any the database holds
   * what the page was made from.
   */
  find(key: string, changes: number): CachedListAnswer | undefined {
    if (!this.enabled || !this.current(changes)) return undefined;
    const kept = this.pages.get(key);
    if (!kept) return undefined;
    this.counts.served++;
    // A body of its own, parsed from the text sent: the handler's objects may be shared with other code.
    kept.body ??= immutableBody(JSON.parse(kept.json) as object, kept.json);
    return kept as CachedListAnswer;
  }

  /**
   * Whether the pages kept were made at `changes`. A larger count drops them all (none is valid any more); a smaller
   * one, read by a request that began before another saw the larger, finds none and drops none. The count only grows.
   */
  private current(changes: number): boolean {
    if (changes === this.changes) return true;
    if (this.changes === undefined || changes > this.changes) {
      this.pages.clear();
      this.changes = changes;
    }
    return false;
  }

  /**
   * Keeps `answer`, made for `key` between `before` and `after`, when no write transaction was open at either moment,
   * no row was written and the clock was not read in between.
   */
  keep(key: string, before: Moment, after: Moment, answer: ListAnswer): void {
    if (!this.enabled || before === undefined || after === undefined) return;
    if (before.changes !== after.changes || before.clockReads !== after.clockReads) return;
    this.current(after.changes);
    if (after.changes !== this.changes) return; // made before a change another request has seen
    const json = jsonOf(answer.body);
    this.pages.set(key, { status: answer.status, headers: answer.headers, json }, json.length);
    this.counts.kept++;
  }

  /** For `verify`: throws when `fresh`, the page made again, differs from the `kept` one that was sent. */
  check(key: string, kept: CachedListAnswer, fresh: ListAnswer): void {
    this.counts.verified++;
    const { json } = kept;
    const same =
      fresh.status === kept.status && JSON.stringify(fresh.headers) === JSON.stringify(kept.headers) && jsonOf(fresh.body) === json;
    if (!same) {
      throw new Error(
        `a kept list page differs from the page made again (${key}): kept ${kept.status} ${json.slice(0, 300)}; ` +
          `made again ${fresh.status} ${jsonOf(fresh.body).slice(0, 300)}`,
      );
    }
  }
}

/** The JSON text of a body as the app sends it (fitPage's text when it made one). */
const jsonOf = (body: object): string => serializedText(body) ?? JSON.stringify(body);

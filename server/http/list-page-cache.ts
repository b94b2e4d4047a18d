// Pages of lists kept until the database next changes: a page read again by the same user at the same address, while
// nothing was written, is sent as it was made. A page is kept only when its making read no clock, had no write
// transaction open and saw the store's count of changes stay put; `verify` makes each page sent from memory afresh and
// compares them (server/docs/design.md, "List pages kept until the database changes").
import { RecentlyUsed } from '../common/recently-used.ts';
import { immutableBody } from './immutable-bodies.ts';
import { CONTINUE_AFTER } from '../common/paging.ts';
import { serializedText } from '../common/response-bodies.ts';

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

  /** How many pages are kept, and their total size, keys included (for tests). */
  get kept(): { entries: number; size: number } {
    return this.pages.kept;
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
    // The key is the caller's address, of the caller's choosing: it counts as much as the page.
    this.pages.set(key, { status: answer.status, headers: answer.headers, json }, key.length + json.length);
    this.counts.kept++;
  }

  /**
   * For `verify`: whether the count of changes is still `changes`, read again after a kept page was made again. Where
   * the count moves only on commits (PostgreSQL), a page holds at least the writes counted when it was read, and may
   * hold a write committed after that read: a page made again while a write committed is not compared.
   */
  unchangedSince(changes: number): boolean | Promise<boolean> {
    const now = this.options.changes();
    return typeof now === 'number' ? now === changes : now.then((count) => count === changes);
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

// Keyset pagination with opaque, tamper-evident cursors. A cursor holds the sort key of the last item sent, the
// total count (computed once, on the first page) and the list it belongs to, signed with an HMAC: a forged,
// truncated or foreign cursor is a 400.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { badRequest } from './errors.ts';

export type Key = (string | number | null)[];

interface CursorData {
  /** Sort key of the last item of the previous page. */
  k: Key;
  /** Total count of the list. */
  c: number;
  /** Which list (operation and filters) the cursor belongs to: a digest of its `listId`. */
  l: string;
}

/**
 * A page's way to continue after its first `kept` items: the server shortens a page whose JSON would pass PAGE_BYTES
 * (`fitPage`, http/pagination.ts). A symbol-keyed property: handlers' `{...page, items}` keep it, JSON leaves it out.
 */
export const CONTINUE_AFTER = Symbol('continue after');

export interface Page<Item> {
  items: Item[];
  count: number;
  next?: { page: string };
  [CONTINUE_AFTER]?: (kept: number) => { page: string };
}

/** Items of a page when the request gives no `limit`. */
const DEFAULT_LIMIT = 50;

/** A short digest: what a cursor carries of a list's identity and of in-memory keys, whatever their length. */
const digest = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 22);

export class Cursors {
  constructor(private readonly secret: string) {}

  private sign(payload: string): string {
    return createHmac('sha256', this.secret).update(payload).digest('base64url').slice(0, 22);
  }

  encode(data: CursorData): string {
    const payload = Buffer.from(JSON.stringify(data)).toString('base64url');
    return `${payload}.${this.sign(payload)}`;
  }

  decode(token: string, list: string): CursorData {
    const invalid = badRequest('page: invalid cursor; pass the `next.page` value of the previous page unchanged');
    const [payload, signature, extra] = token.split('.');
    if (!payload || !signature || extra !== undefined) throw invalid;
    const expected = Buffer.from(this.sign(payload));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalid;
    const data = JSON.parse(Buffer.from(payload, 'base64url').toString()) as CursorData;
    if (data.l !== digest(list)) throw badRequest('page: this cursor belongs to another list or to other filters');
    return data;
  }

  /**
   * One page of a list sorted by a unique key. `fetch(after, n)` returns up to `n` items that sort after the key
   * `after` (from the start when undefined); `count()` counts all items and runs on the first page only.
   */
  async page<Item>(options: {
    list: string;
    page?: string;
    limit?: number;
    key: (item: Item) => Key;
    fetch: (after: Key | undefined, limit: number) => Promise<Item[]>;
    count: () => Promise<number>;
  }): Promise<Page<Item>> {
    const limit = options.limit ?? DEFAULT_LIMIT;
    const cursor = options.page ? this.decode(options.page, options.list) : undefined;
    // Asked for together: on PostgreSQL the page and its count leave in one round trip.
    const [rows, count] = await Promise.all([options.fetch(cursor?.k, limit + 1), cursor?.c ?? options.count()]);
    return this.assemble(options.list, options.key, rows, limit, count);
  }

  /** The page of the first `limit` of `rows` (one more tells that a next page exists), `count` items in all. */
  private assemble<Item>(list: string, key: (item: Item) => Key, rows: Item[], limit: number, count: number): Page<Item> {
    const items = rows.slice(0, limit);
    const listDigest = digest(list);
    const after = (kept: number) => ({ page: this.encode({ k: key(items[kept - 1]!), c: count, l: listDigest }) });
    const page: Page<Item> = { items, count, [CONTINUE_AFTER]: after };
    if (rows.length > limit) page.next = after(items.length);
    return page;
  }

  /**
   * One page of a list already computed in memory (search results, a revision's files), in its given order. The
   * cursor holds a digest of the last item's key, so it stays short however long the key, and that item's position,
   * where the next page starts when the item is still there (a list that changed is searched for it instead).
   * `present` makes what a page shows of its items, for the page's items only: a page of 50 of a revision's 5 000
   * files presented all 5 000, a cost that grew with the revision rather than with the page.
   */
  pageOf<Item, Shown = Item>(options: {
    list: string;
    page?: string;
    limit?: number;
    all: readonly Item[];
    key: (item: Item) => Key;
    present?: (item: Item) => Shown;
  }): Page<Shown> {
    const { all } = options;
    const keyDigest = (item: Item) => digest(JSON.stringify(options.key(item)));
    const start = options.page ? this.decode(options.page, options.list).k : undefined;
    let from = 0;
    if (start) {
      const [wanted, position] = start;
      from =
        typeof position === 'number' && position >= 0 && position < all.length && keyDigest(all[position]!) === wanted
          ? position + 1
          : all.findIndex((item) => keyDigest(item) === wanted) + 1;
    }
    const limit = options.limit ?? DEFAULT_LIMIT;
    const slice = all.slice(from, from + limit + 1);
    const page = this.assemble(options.list, (item: Item) => [keyDigest(item), from + slice.indexOf(item)], slice, limit, all.length);
    const { present } = options;
    return present ? { ...page, items: page.items.map((item) => present(item)) } : (page as Page<unknown> as Page<Shown>);
  }
}

/**
 * The first `limit` rows that `keep` accepts of a list read in batches of `batch` rows (`read(after, n)`: up to `n`
 * rows that sort after the key `after`, in the list's order): the `fetch` of `Cursors.page` for a list whose filter
 * runs partly in JavaScript, reading only as far as the page needs. An infinite `limit` gives every row kept.
 */
export async function keptInBatches<Row>(options: {
  after: Key | undefined;
  limit: number;
  batch: number;
  read: (after: Key | undefined, limit: number) => Promise<Row[]>;
  key: (row: Row) => Key;
  keep: (row: Row) => boolean;
}): Promise<Row[]> {
  const kept: Row[] = [];
  let after = options.after;
  for (;;) {
    const rows = await options.read(after, options.batch);
    for (const row of rows) {
      if (options.keep(row)) kept.push(row);
      if (kept.length >= options.limit) return kept;
    }
    if (rows.length < options.batch) return kept;
    after = options.key(rows.at(-1)!);
  }
}

/** The identity of a list: its operation and every parameter that filters or orders it (not `page`/`limit`). */
export function listId(operation: string, ...filters: unknown[]): string {
  return JSON.stringify([operation, ...filters]);
}

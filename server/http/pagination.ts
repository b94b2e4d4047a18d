// Keyset pagination with opaque, tamper-evident cursors. A cursor holds the sort key of the last item sent, the
// total count (computed once, on the first page) and the list it belongs to, signed with an HMAC: a forged,
// truncated or foreign cursor is a 400.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { badRequest } from './errors.ts';
import type { Model } from './types.ts';

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
 * (`fitPage`). A symbol-keyed property: handlers' `{...page, items}` keep it, JSON leaves it out.
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

/** Largest JSON of the items of a page of a list, in bytes; a page always holds at least one item. */
export const PAGE_BYTES = 4 * 1024 * 1024;

/**
 * The JSON of bodies already serialised, which the app's `res.json` sends instead of serialising them again: pages
 * fitPage has measured, made from the JSON of their items it already has (for a page of 50 spaces, a second
 * JSON.stringify of its items was 6% of the request), as text; answers kept and sent again (http/immutable-bodies.ts),
 * as UTF-8 bytes, encoded once. A body that is not in it is serialised as usual.
 */
export const serialized = new WeakMap<object, string | Buffer>();

/** The JSON text `serialized` holds for `body` (a Buffer decoded), or undefined when it holds none. */
export function serializedText(body: object): string | undefined {
  const known = serialized.get(body);
  return typeof known === 'string' || known === undefined ? known : known.toString('utf8');
}

/** What JSON.stringify(page) gives, with `items` (whose JSON is `itemsJson`) serialised once only. */
function pageJson(page: Partial<Page<unknown>>, itemsJson: string): string {
  // The page's own string keys in their order, as JSON.stringify takes them (it leaves out the symbol-keyed one, and
  // a property whose value has no JSON).
  const members: string[] = [];
  for (const key of Object.keys(page)) {
    const json = key === 'items' ? itemsJson : JSON.stringify((page as Record<string, unknown>)[key]);
    if (json !== undefined) members.push(`${JSON.stringify(key)}:${json}`);
  }
  return `{${members.join(',')}}`;
}

/**
 * `body` as sent: a page of a list (with CONTINUE_AFTER) whose items' JSON passes `budget` bytes keeps the items
 * that fit (at least one), and its `next` continues after them. Anything else is returned as it is.
 */
export function fitPage(body: unknown, budget = PAGE_BYTES): unknown {
  const page = body as Partial<Page<unknown>> | undefined;
  const more = page?.[CONTINUE_AFTER];
  if (typeof more !== 'function' || !Array.isArray(page!.items)) return body;
  // One serialisation of the items settles the common case: a UTF-16 code unit is at most 3 bytes of UTF-8, so a
  // JSON text whose length times 3 is within the budget fits (the array's brackets and commas only add to it).
  // Measuring item by item (a JSON.stringify and a Buffer.byteLength per item) is left to pages near the budget.
  const whole = JSON.stringify(page!.items);
  if (whole.length * 3 <= budget || Buffer.byteLength(whole) <= budget) {
    serialized.set(page!, pageJson(page!, whole));
    return body;
  }
  let size = 0;
  for (let index = 0; index < page!.items.length; index++) {
    size += Buffer.byteLength(JSON.stringify(page!.items[index]) ?? '') + 1;
    if (size > budget && index > 0) return { ...page, items: page!.items.slice(0, index), next: more(index) };
  }
  return body;
}

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
  page<Item>(options: {
    list: string;
    page?: string;
    limit?: number;
    key: (item: Item) => Key;
    fetch: (after: Key | undefined, limit: number) => Item[];
    count: () => number;
  }): Page<Item> {
    const limit = options.limit ?? DEFAULT_LIMIT;
    const cursor = options.page ? this.decode(options.page, options.list) : undefined;
    const rows = options.fetch(cursor?.k, limit + 1);
    const count = cursor?.c ?? options.count();
    const items = rows.slice(0, limit);
    const list = digest(options.list);
    const after = (kept: number) => ({ page: this.encode({ k: options.key(items[kept - 1]!), c: count, l: list }) });
    const page: Page<Item> = { items, count, [CONTINUE_AFTER]: after };
    if (rows.length > limit) page.next = after(items.length);
    return page;
  }

  /**
   * One page of a list already computed in memory (search results, a revision's files), in its given order. The
   * cursor holds a digest of the last item's key, so it stays short however long the key, and that item's position,
   * where the next page starts when the item is still there (a list that changed is searched for it instead).
   * `present` makes what a page shows of its items, for the page's items only: a page of 50 of a revision's 5 000
   * files presented all 5 000 (14 ms).
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
    const slice = all.slice(from, from + (options.limit ?? DEFAULT_LIMIT) + 1);
    const page = this.page({
      list: options.list,
      limit: options.limit,
      key: (item: Item) => [keyDigest(item), from + slice.indexOf(item)],
      count: () => all.length,
      fetch: () => slice,
      page: undefined,
    });
    const { present } = options;
    return present ? { ...page, items: page.items.map((item) => present(item)) } : (page as Page<unknown> as Page<Shown>);
  }
}

/** SQL for "sorts after `key`" on columns sorted all ascending or all descending: `(a, b) > (?, ?)`. */
export function after(columns: string[], direction: Model<'SortOrder'> = 'asc'): string {
  return `(${columns.join(', ')}) ${SORT_ORDERS[direction].after} (${columns.map(() => '?').join(', ')})`;
}

/** Per `SortOrder`: the SQL direction, and the comparison that means "sorts after". */
export const SORT_ORDERS = {
  asc: { sql: 'ASC', after: '>' },
  desc: { sql: 'DESC', after: '<' },
} satisfies Record<Model<'SortOrder'>, { sql: string; after: string }>;

/** The identity of a list: its operation and every parameter that filters or orders it (not `page`/`limit`). */
export function listId(operation: string, ...filters: unknown[]): string {
  return JSON.stringify([operation, ...filters]);
}

// Pages of lists as sent: a page whose JSON would pass PAGE_BYTES is shortened (`fitPage`), and the JSON of a page
// already serialised is sent as it is. Cursors and pages themselves are made in common/paging.ts.
import { serialized } from '../common/response-bodies.ts';
import { CONTINUE_AFTER, type Page } from '../common/paging.ts';

/** Largest JSON of the items of a page of a list, in bytes; a page always holds at least one item. */
export const PAGE_BYTES = 4 * 1024 * 1024;

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


// The check `pagination`: a list followed page by page, at its smallest page size, holds every item once, and as
// many as its count says.
import type { Operation } from '../../contract/contract.ts';
import type { Answer } from '../session.ts';
import { CheckFailure, type ExchangeRecord } from './checks.ts';
import { flatten } from './generate.ts';
import type { PropertyRun } from './run.ts';

/** Pages followed at most by the pagination check. */
export const MAX_PAGES = 50;

/** Follows the pages of a list operation on these path parameters, each page as small as its `limit` allows. */
export async function checkPagination(run: PropertyRun, operation: Operation, pathValues: Record<string, string>): Promise<void> {
  const limit = operation.parameters.find((parameter) => parameter.in === 'query' && parameter.name === 'limit');
  const minimum = limit?.schema ? Math.max(1, Number(flatten(run.contract, limit.schema).minimum ?? 1)) : 1;
  await followPages((cursor) => run.judged(operation, { path: pathValues, query: { ...(limit ? { limit: minimum } : {}), ...(cursor ? { page: cursor } : {}) } }));
}

/**
 * Reads pages (`read(cursor)`, the first without one) while each has a `next.page`, up to MAX_PAGES: an item (by its
 * `id`, else its JSON) on two pages, or a `count` (of the first page) that is not the number of items, fails the
 * check. A page not answered 200 ends the walk: a list the run cannot read has nothing to follow.
 */
export async function followPages(read: (cursor: string | undefined) => Promise<{ answer: Pick<Answer, 'status' | 'json'>; exchange: ExchangeRecord }>): Promise<void> {
  const seen = new Map<string, number>();
  let count: number | undefined;
  let cursor: string | undefined;
  let total = 0;
  for (let page = 1; page <= MAX_PAGES; page++) {
    const { answer, exchange } = await read(cursor);
    if (answer.status !== 200) return;
    const json = answer.json as { items?: unknown[]; count?: number; next?: { page?: string } };
    count ??= json.count;
    for (const item of json.items ?? []) {
      const key = typeof (item as { id?: unknown })?.id === 'string' ? (item as { id: string }).id : JSON.stringify(item);
      if (seen.has(key)) throw new CheckFailure('pagination', `item ${key} of page ${page} was already on page ${seen.get(key)}`, exchange);
      seen.set(key, page);
      total++;
    }
    cursor = json.next?.page;
    if (!cursor) {
      if (typeof count === 'number' && count !== total) throw new CheckFailure('pagination', `count is ${count}, but the ${page} pages held ${total} items`, exchange);
      return;
    }
  }
}

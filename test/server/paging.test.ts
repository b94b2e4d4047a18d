// keptInBatches: a page of a list whose filter runs in JavaScript, read from the store in batches in the list's
// order (server/common/paging.ts); the API lists that use it are proven in test/api (sites, integrations).
import { describe, expect, test } from 'vitest';
import { type Key, keptInBatches } from '../../server/common/paging.ts';

/** A list of the numbers 1..`size` in order, read after a key as a store's keyset page is, recording each read. */
function numbers(size: number) {
  const all = Array.from({ length: size }, (_, index) => index + 1);
  const reads: { after: Key | undefined; limit: number }[] = [];
  const read = async (after: Key | undefined, limit: number) => {
    reads.push({ after, limit });
    return all.filter((value) => after === undefined || value > (after[0] as number)).slice(0, limit);
  };
  return { read, reads, key: (value: number): Key => [value] };
}

const even = (value: number) => value % 2 === 0;

describe('keptInBatches', () => {
  test('keeps the first `limit` rows that match, reading batches after the last row read until the page is full', async () => {
    const list = numbers(100);
    expect(await keptInBatches({ ...list, after: undefined, limit: 7, batch: 4, keep: even })).toEqual([2, 4, 6, 8, 10, 12, 14]);
    expect(list.reads).toEqual([
      { after: undefined, limit: 4 },
      { after: [4], limit: 4 },
      { after: [8], limit: 4 },
      { after: [12], limit: 4 },
    ]);
  });

  test('starts after the given key', async () => {
    const list = numbers(100);
    expect(await keptInBatches({ ...list, after: [50], limit: 3, batch: 10, keep: even })).toEqual([52, 54, 56]);
    expect(list.reads).toEqual([{ after: [50], limit: 10 }]);
  });

  test('stops at the end of the list, at a short batch or an empty one', async () => {
    const short = numbers(9);
    expect(await keptInBatches({ ...short, after: undefined, limit: 10, batch: 4, keep: even })).toEqual([2, 4, 6, 8]);
    expect(short.reads).toHaveLength(3);
    const exact = numbers(8);
    expect(await keptInBatches({ ...exact, after: undefined, limit: 10, batch: 4, keep: even })).toEqual([2, 4, 6, 8]);
    expect(exact.reads.map((read) => read.after)).toEqual([undefined, [4], [8]]);
    expect(await keptInBatches({ ...numbers(0), after: undefined, limit: 3, batch: 4, keep: even })).toEqual([]);
  });

  test('an infinite limit gives every row kept; a filter that keeps none reads the whole list', async () => {
    const list = numbers(25);
    expect(await keptInBatches({ ...list, after: undefined, limit: Number.POSITIVE_INFINITY, batch: 10, keep: (value) => value % 5 === 0 })).toEqual([
      5, 10, 15, 20, 25,
    ]);
    const none = numbers(25);
    expect(await keptInBatches({ ...none, after: undefined, limit: 2, batch: 10, keep: () => false })).toEqual([]);
    expect(none.reads).toHaveLength(3);
  });
});

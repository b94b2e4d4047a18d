// A page of a list is serialised once: fitPage keeps the JSON it makes of the page's items and the app's res.json
// sends the page's JSON made from it. That JSON is exactly what JSON.stringify gives, and what goes over the wire.
import { describe, expect, test } from 'vitest';
import { serialized } from '../../server/common/response-bodies.ts';
import { CONTINUE_AFTER } from '../../server/common/paging.ts';
import { fitPage } from '../../server/http/pagination.ts';
import { ok } from '../support/expect.ts';
import { extendFixture } from '../support/fixture.ts';
import { useTestServer } from '../support/server.ts';

const more = () => ({ page: 'next-cursor' });

describe('the JSON of a page', () => {
  test('is what JSON.stringify gives, for pages of every shape', () => {
    const pages: object[] = [
      { items: [], count: 0, [CONTINUE_AFTER]: more },
      { items: [{ id: 'a', title: 'A "quoted" \u2028 title', nested: { items: 0 } }], count: 1, [CONTINUE_AFTER]: more },
      { count: 3, items: [1, 2, 3], next: { page: 'abc' }, [CONTINUE_AFTER]: more },
      { items: ['x'], count: 1, next: undefined, extra: () => 1, stats: { items: 0, count: 2 }, [CONTINUE_AFTER]: more },
      { stats: { items: 0 }, items: [{ items: 0 }], count: 1, [CONTINUE_AFTER]: more },
    ];
    for (const page of pages) {
      const sent = fitPage(page);
      expect(sent).toBe(page);
      expect(serialized.get(page as object)).toBe(JSON.stringify(page));
    }
  });

  test('is not kept for a body that is no page, nor for a page shortened to fit', () => {
    const plain = { items: [1], count: 1 };
    expect(fitPage(plain)).toBe(plain);
    expect(serialized.has(plain)).toBe(false);

    const big = { items: ['x'.repeat(600), 'y'.repeat(600)], count: 2, [CONTINUE_AFTER]: more };
    const shortened = fitPage(big, 1000) as { items: string[]; next: { page: string } };
    expect(shortened.items).toEqual([big.items[0]]);
    expect(shortened.next).toEqual({ page: 'next-cursor' });
    expect(serialized.has(big)).toBe(false);
    expect(serialized.has(shortened)).toBe(false);
  });
});

describe('a page over HTTP', () => {
  const ctx = useTestServer({
    fixture: extendFixture({ acme: { spaces: Array.from({ length: 3 }, (_, index) => ({ id: `listed-${index}`, title: `Listed "${index}"` })) } }),
  });

  test('is the JSON of the page, as a JSON body, and validates against the contract', async () => {
    const response = await fetch(`${ctx.server.url}/v1/orgs/acme/spaces?limit=2`, { headers: { authorization: 'Bearer admin' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const text = await response.text();
    expect(Number(response.headers.get('content-length'))).toBe(Buffer.byteLength(text));
    const page = JSON.parse(text) as { items: { id: string }[]; count: number; next?: { page: string } };
    expect(text).toBe(JSON.stringify(page));
    expect(Object.keys(page)).toEqual(['items', 'count', 'next']);
    expect(page.items).toHaveLength(2);

    const typed = ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: 'acme' }, query: { limit: 2 } } }));
    expect(typed).toEqual(page);
  });
});

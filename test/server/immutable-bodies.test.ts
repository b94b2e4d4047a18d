// Answers made once from a revision (which never changes) and sent again: frozen, serialised once, and checked by
// the response check once (server/http/immutable-bodies.ts, server/domain/content-presenters.ts). What a reader sees must be
// what making the answer anew would give, whatever changed around the revision since.
import { describe, expect, test } from 'vitest';
import { presentedCacheBytes } from '../../server/domain/content-presenters.ts';
import { immutableBody, immutableBodyChecks, rememberingAccepted } from '../../server/http/immutable-bodies.ts';
import { serialized } from '../../server/common/response-bodies.ts';
import { editSpaceContent } from '../support/content.ts';
import { standardFixture } from '../support/fixture.ts';
import { ok } from '../support/expect.ts';
import { useTestServer } from '../support/server.ts';

/** A response check as Ajv compiles one: a function of `{ response }` keeping its last errors. */
function countingCheck(accepts: (body: unknown) => boolean) {
  const calls: unknown[] = [];
  const check = Object.assign(
    (data: unknown) => {
      const body = (data as { response: unknown }).response;
      calls.push(body);
      const valid = accepts(body);
      check.errors = valid ? null : [{ message: 'refused' }];
      return valid;
    },
    { errors: null as unknown },
  );
  return { check, calls };
}

describe('rememberingAccepted', () => {
  test('an immutable body the check accepted is accepted again without running the check', () => {
    const { check, calls } = countingCheck(() => true);
    const remembering = rememberingAccepted(check);
    const body = immutableBody({ id: 'a', pages: [{ id: 'p' }] });
    expect(remembering({ response: body })).toBe(true);
    expect(remembering({ response: body })).toBe(true);
    expect(remembering.errors).toBeNull();
    expect(calls).toEqual([body]);
  });

  test('any other body is checked every time', () => {
    const { check, calls } = countingCheck(() => true);
    const remembering = rememberingAccepted(check);
    const body = { id: 'a' };
    remembering({ response: body });
    remembering({ response: body });
    // Frozen, but not made by immutableBody: not remembered either.
    const frozenOnly = Object.freeze({ id: 'b' });
    remembering({ response: frozenOnly });
    remembering({ response: frozenOnly });
    remembering({ response: 'text' });
    remembering({ response: 'text' });
    expect(calls).toEqual([body, body, frozenOnly, frozenOnly, 'text', 'text']);
  });

  test('a refused immutable body is refused every time, with the errors of the check', () => {
    const { check, calls } = countingCheck(() => false);
    const remembering = rememberingAccepted(check);
    const body = immutableBody({ id: 1 });
    expect(remembering({ response: body })).toBe(false);
    expect(remembering.errors).toEqual([{ message: 'refused' }]);
    expect(remembering({ response: body })).toBe(false);
    expect(remembering.errors).toEqual([{ message: 'refused' }]);
    expect(calls).toEqual([body, body]);
  });

  test("what one check accepted is not taken as another check's answer", () => {
    const first = countingCheck(() => true);
    const second = countingCheck(() => false);
    const body = immutableBody({ id: 'a' });
    expect(rememberingAccepted(first.check)({ response: body })).toBe(true);
    expect(rememberingAccepted(second.check)({ response: body })).toBe(false);
    expect(second.calls).toEqual([body]);
  });
});

describe('immutableBody', () => {
  test('freezes the body all the way down and keeps its JSON, as UTF-8 bytes', () => {
    const body = immutableBody({ pages: [{ id: 'p', urls: { app: 'x' } }], variables: {} });
    expect(() => {
      (body.pages[0]!.urls as { app: string }).app = 'y';
    }).toThrow(TypeError);
    expect(() => {
      body.pages.push({ id: 'q', urls: { app: 'z' } });
    }).toThrow(TypeError);
    expect(Object.isFrozen(body.variables)).toBe(true);
    expect(serialized.get(body)).toEqual(Buffer.from(JSON.stringify(body)));
  });
});

const fixture = {
  ...standardFixture,
  organizations: [
    {
      ...standardFixture.organizations![0]!,
      spaces: [
        {
          id: 'guide',
          title: 'Guide',
          pages: [
            { id: 'start', title: 'Start', markdown: 'Begin here.\n' },
            { id: 'more', title: 'More', pages: [{ id: 'deep', title: 'Deep', markdown: 'Below.\n' }] },
          ],
        },
        { id: 'open', title: 'Open', visibility: 'public' as const, pages: [{ id: 'hello', title: 'Hello', markdown: 'Hi.\n' }] },
      ],
    },
    standardFixture.organizations![1]!,
  ],
};

describe('content read again, through the server (response validation on)', () => {
  const ctx = useTestServer({ fixture });
  const space = { params: { path: { spaceId: 'guide' } } };
  const content = (query: { metadata?: boolean } = {}) =>
    ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content', { params: { path: { spaceId: 'guide' }, query } });

  test("the second read of a revision is the first's answer, and the response check does not run over it again", async () => {
    const before = immutableBodyChecks();
    const first = ok(await content());
    const afterFirst = immutableBodyChecks();
    const second = ok(await content());
    const afterSecond = immutableBodyChecks();
    expect(second).toEqual(first);
    expect(afterFirst.checked - before.checked).toBe(1);
    expect(afterSecond.checked - afterFirst.checked).toBe(0);
    expect(afterSecond.remembered - afterFirst.remembered).toBe(1);
    // The page list of the same revision is an answer of its own, checked against its own schema.
    const pages = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/pages', space));
    expect(pages.pages).toEqual(first.pages);
    expect(immutableBodyChecks().checked - afterSecond.checked).toBe(1);
  });

  test('one revision read in two places: the public content of its space, and a change request starting from it', async () => {
    const open = { params: { path: { spaceId: 'open' } } };
    const main = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content', open));
    expect(main.urls.public).toMatch(/\/public\/s\/open$/);
    const changeRequest = ok(
      await ctx.server.as('editor').POST('/v1/spaces/{spaceId}/change-requests', { ...open, body: { subject: 'Edit' } }),
      201,
    );
    const proposed = ok(
      await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content', {
        params: { path: { spaceId: 'open', changeRequestId: changeRequest.id } },
      }),
    );
    expect(proposed.id).toBe(main.id);
    expect(proposed.urls.public).toBeUndefined();
    expect(proposed.pages[0]!.urls.app).toContain(`/changes/${changeRequest.number}/`);
    // Each reading stays its own.
    const again = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content', open));
    expect(again).toEqual(main);
  });

  test('new content is read as new: a template applied shows in the content and the page list', async () => {
    const before = ok(await content());
    ok(await ctx.server.as('editor').POST('/v1/spaces/{spaceId}/content/template', { ...space, body: { id: 'changelog' } }));
    const after = ok(await content());
    expect(after.id).not.toBe(before.id);
    expect(after.parents).toEqual([before.id]);
    expect(after.pages.length).toBeGreaterThan(before.pages.length);
    const pages = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/pages', space));
    expect(pages.pages).toEqual(after.pages);
    // metadata=false is a reading of its own, made from the same revision.
    expect(ok(await content({ metadata: false })).pages).toEqual(after.pages);
  });
});

describe('a page read again, through the server (response validation on)', () => {
  const ctx = useTestServer({ fixture });
  const page = (pageId: string, query: { format?: 'markdown' | 'document'; evaluated?: boolean; metadata?: boolean } = {}) =>
    ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content/page/{pageId}', { params: { path: { spaceId: 'guide', pageId }, query } });

  test("is the first read's answer, checked once, for each format and query", async () => {
    for (const query of [{}, { format: 'document' as const }, { evaluated: true }, { metadata: false }]) {
      const before = immutableBodyChecks();
      const first = ok(await page('start', query));
      const second = ok(await page('start', query));
      expect(second).toEqual(first);
      const after = immutableBodyChecks();
      expect(after.checked - before.checked).toBe(1);
      expect(after.remembered - before.remembered).toBe(1);
    }
    expect(ok(await page('start')).markdown).toBe('Begin here.\n');
    expect(ok(await page('start', { format: 'document' })).document!.nodes[0]!.type).toBe('paragraph');
    // A group page with its children, and a page below it, are readings of their own.
    expect(ok(await page('more')).pages.map((child) => child.id)).toEqual(['deep']);
    expect(ok(await page('deep')).markdown).toBe('Below.\n');
  });

  test('shows the page as a new revision of the space has it, once there is one', async () => {
    const before = ok(await page('start', { format: 'document' }));
    expect(ok(await page('start', { format: 'document' }))).toEqual(before);
    await editSpaceContent(ctx.server.running.ctx, 'guide', (content) => {
      content.pages.find((candidate) => candidate.id === 'start')!.markdown = '# Begin\n\nHere, now.\n';
    });
    const after = ok(await page('start', { format: 'document' }));
    expect(after.document!.nodes.map((node) => node.type)).toEqual(['heading-1', 'paragraph']);
    expect(ok(await page('start')).markdown).toBe('# Begin\n\nHere, now.\n');
  });
});

describe('a reading too large to keep (more than half of a quarter of CONTENT_CACHE_MB)', () => {
  // 4 000 pages with long titles: about 2 MB of JSON, kept by default, but made anew for each request and checked
  // each time by a server keeping 4 MiB of contents (1 MiB of answers, one of 512 KiB at most).
  const title = (i: number) => `Page ${i} of a very large handbook, whose titles are long enough to make its content big`;
  const big = {
    ...standardFixture,
    organizations: [
      {
        ...standardFixture.organizations![0]!,
        spaces: [{ id: 'huge', title: 'Huge', pages: Array.from({ length: 4000 }, (_, i) => ({ id: `p${i}`, title: title(i) })) }],
      },
      standardFixture.organizations![1]!,
    ],
  };
  const ctx = useTestServer({ fixture: big, env: { CONTENT_CACHE_MB: '4' } });
  const byDefault = useTestServer({ fixture: big });

  test('is kept by a server of the default CONTENT_CACHE_MB: checked once, then answered as it was', async () => {
    const read = () => byDefault.server.as('reader').GET('/v1/spaces/{spaceId}/content', { params: { path: { spaceId: 'huge' } } });
    const before = immutableBodyChecks();
    const first = ok(await read());
    const second = ok(await read());
    expect(second).toEqual(first);
    expect(Buffer.byteLength(JSON.stringify(first))).toBeLessThan(presentedCacheBytes(byDefault.server.running.ctx) / 2);
    const after = immutableBodyChecks();
    expect(after.checked - before.checked).toBe(1);
    expect(after.remembered - before.remembered).toBe(1);
  });

  test('is answered whole each time, and not kept', async () => {
    const read = () => ctx.server.as('reader').GET('/v1/spaces/{spaceId}/content', { params: { path: { spaceId: 'huge' } } });
    const before = immutableBodyChecks();
    const first = ok(await read());
    const second = ok(await read());
    expect(first.pages).toHaveLength(4000);
    expect(second).toEqual(first);
    expect(Buffer.byteLength(JSON.stringify(first))).toBeGreaterThan(presentedCacheBytes(ctx.server.running.ctx) / 2);
    const after = immutableBodyChecks();
    expect(after.checked - before.checked).toBe(2);
    expect(after.remembered - before.remembered).toBe(0);
  });
});

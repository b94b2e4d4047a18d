// Hardening: the findings of a sweep of generated and mutated requests, each as a test that failed on
// the server before its fix. Non-integer `limit`s, header values stored from clients, depth bombs, and aggregates
// that a sequence of accepted writes could grow without bound. Bad input is a 400 naming the field, and changes
// nothing (read back).
import { type RawBuilder, sql } from 'kysely';
import LZString from 'lz-string';
import { describe, expect, test } from 'vitest';
import { newPage } from '../../server/content/edit.ts';
import { commitSpaceContent, getRevision } from '../../server/content/revisions.ts';
import { getSpaceRow } from '../../server/domain/spaces.ts';
import { DomainError } from '../../server/common/errors.ts';
import { MAX_JSON_DEPTH } from '../../server/common/json-limits.ts';
import { PAGE_BYTES } from '../../server/http/pagination.ts';
import { toJson } from '../../server/store/db.ts';
import { expectError, ok } from '../support/expect.ts';
import { extendFixture } from '../support/fixture.ts';
import { insertRows } from '../support/store.ts';
import { listOperations, readOpenApi, resolve, type Parameter } from '../support/openapi.ts';
import { openapiPath } from '../support/repo.ts';
import { useTestServer } from '../support/server.ts';
import { timeout } from '../support/timeouts.ts';

/** Users who only comment, to react in numbers. */
const REACTORS = Array.from({ length: 25 }, (_, index) => `reactor${index}`);
/** Spaces to fill a site with site spaces. */
const FILLER_SPACES = Array.from({ length: 500 }, (_, index) => ({ id: `filler${index}`, title: `Filler ${index}` }));

const fixture = extendFixture({
  users: REACTORS.map((id) => ({ id, displayName: `Reactor ${id}`, email: `${id}@acme.test`, tokens: [id] })),
  acme: {
    members: REACTORS.map((user) => ({ user, role: 'comment' as const })),
    spaces: [
      { id: 'handbook', title: 'Handbook', pages: [{ id: 'guide', title: 'Guide', markdown: '# Guide\n\nHello.\n' }] },
      ...FILLER_SPACES,
    ],
  },
});

const ctx = useTestServer({ fixture });
const as = (user: string) => ctx.server.as(user);
const acme = { params: { path: { organizationId: 'acme' } } };
/** Runs a statement in a write of the server's store. */
const write = (query: RawBuilder<unknown>) => ctx.server.running.ctx.store.write((db) => db.run(query));

/** A raw request with the admin's token, for what the typed client would not send. */
async function raw(method: string, path: string, body?: string): Promise<{ status: number; headers: Headers; json: any }> {
  const response = await fetch(`${ctx.server.url}${path}`, {
    method,
    headers: { authorization: 'Bearer admin', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body,
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: text ? JSON.parse(text) : undefined };
}

const messageOf = (answer: { json: any }) => String(answer.json?.error?.message ?? '');

describe('integer query parameters', () => {
  /** Every list of the contract (the operations with a `limit`), with the path parameters it needs. */
  function lists() {
    const contract = readOpenApi(openapiPath);
    return listOperations(contract).flatMap(({ path, operation, pathItem }) => {
      const parameters = [...(pathItem.parameters ?? []), ...(operation.parameters ?? [])].map((parameter) =>
        resolve<Parameter>(contract, parameter),
      );
      if (!parameters.some((parameter) => parameter.in === 'query' && parameter.name === 'limit')) return [];
      const required = parameters.filter((parameter) => parameter.in === 'query' && (parameter as { required?: boolean }).required);
      return [{ id: operation.operationId!, path, required: required.map((parameter) => parameter.name) }];
    });
  }

  /** Real resources for every path parameter of the lists, so that a `limit` that got through would reach the SQL. */
  async function pathValues(): Promise<Record<string, string>> {
    const collection = ok(await as('admin').POST('/v1/orgs/{organizationId}/collections', { ...acme, body: { title: 'Probe' } }), 201);
    const changeRequest = ok(
      await as('admin').POST('/v1/spaces/{spaceId}/change-requests', { params: { path: { spaceId: 'handbook' } }, body: {} }),
      201,
    );
    const spaceComment = ok(
      await as('admin').POST('/v1/spaces/{spaceId}/comments', {
        params: { path: { spaceId: 'handbook' } },
        body: { page: 'guide', body: { markdown: 'On the guide.' } },
      }),
      201,
    );
    const changeRequestComment = ok(
      await as('admin').POST('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments', {
        params: { path: { spaceId: 'handbook', changeRequestId: changeRequest.id } },
        body: { page: 'guide', body: { markdown: 'On the change.' } },
      }),
      201,
    );
    const site = ok(await as('admin').POST('/v1/orgs/{organizationId}/sites', { ...acme, body: { title: 'Probe site' } }), 201);
    ok(
      await as('admin').POST('/v1/orgs/{organizationId}/openapi', {
        ...acme,
        body: { slug: 'probe', source: { text: 'openapi: 3.0.0\ninfo: {title: Probe, version: "1"}\npaths: {}\n' } },
      }),
      201,
    );
    ok(await as('admin').POST('/v1/integrations/{integrationName}', { params: { path: { integrationName: 'probe' } }, body: { title: 'Probe' } }));
    return {
      organizationId: 'acme',
      userId: 'admin',
      collectionId: collection.id,
      spaceId: 'handbook',
      pageId: 'guide',
      changeRequestId: changeRequest.id,
      spaceCommentId: spaceComment.id,
      changeRequestCommentId: changeRequestComment.id,
      fileId: 'no-such-file', // no file to make: the lists of a file's backlinks answer 404 with a good limit
      specSlug: 'probe',
      siteId: site.id,
      integrationName: 'probe',
    };
  }

  test('there are 38 lists in the contract', () => {
    expect(lists()).toHaveLength(38);
  });

  test('Infinity, 1e400, -Infinity and 0x10 are a 400 naming query.limit on every list, where 5 works', { timeout: timeout(120_000) }, async () => {
    const values = await pathValues();
    const failures: string[] = [];
    for (const list of lists()) {
      const path = list.path.replace(/\{(\w+)\}/g, (_, name: string) => {
        if (name === 'commentId') return list.path.includes('/change-requests/') ? values.changeRequestCommentId! : values.spaceCommentId!;
        return encodeURIComponent(values[name] ?? `unknown-${name}`);
      });
      const query = list.required.map((name) => `${name}=guide`);
      const url = (limit: string) => `${path}?${[...query, `limit=${limit}`].join('&')}`;
      const good = await raw('GET', url('5'));
      const expected = path.includes('no-such-file') ? 404 : 200;
      if (good.status !== expected) failures.push(`${list.id} limit=5: ${good.status} ${JSON.stringify(good.json)}`);
      for (const bad of ['Infinity', '1e400', '-Infinity', '0x10']) {
        const answer = await raw('GET', url(bad));
        if (answer.status !== 400 || !messageOf(answer).startsWith('query.limit:')) {
          failures.push(`${list.id} limit=${bad}: ${answer.status} ${JSON.stringify(answer.json)}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  test('only decimal integers are integers: no sign, fraction, exponent, leading zero, white space or overflow', async () => {
    const overflow = `1${'0'.repeat(400)}`;
    for (const bad of ['%2B5', '1.0', '5e0', '%205', '5%20', '010', '0b11', '-0', '0', '1001', overflow, 'NaN', '', '5&limit=6']) {
      const answer = await raw('GET', `/v1/orgs/acme/members?limit=${bad}`);
      expect(answer.status, `limit=${bad}`).toBe(400);
      expect(messageOf(answer), `limit=${bad}`).toMatch(/^query\.limit: /);
    }
    for (const good of ['1', '7', '1000']) {
      const answer = await raw('GET', `/v1/orgs/acme/members?limit=${good}`);
      expect(answer.status, `limit=${good}`).toBe(200);
      expect(answer.json.items.length).toBeLessThanOrEqual(Number(good));
    }
  });

  test('a cursor stays short however long the filters, and takes the list on', async () => {
    for (const markdown of ['one', 'two', 'three']) {
      ok(
        await as('admin').POST('/v1/spaces/{spaceId}/comments', {
          params: { path: { spaceId: 'handbook' } },
          body: { page: 'guide', body: { markdown } },
        }),
        201,
      );
    }
    const authors = ['admin', ...Array.from({ length: 99 }, (_, index) => `${index}`.padStart(128, 'x'))];
    const first = ok(
      await as('admin').GET('/v1/spaces/{spaceId}/comments', { params: { path: { spaceId: 'handbook' }, query: { authors, limit: 1 } } }),
    );
    expect(first.next?.page.length).toBeLessThan(200);
    const second = ok(
      await as('admin').GET('/v1/spaces/{spaceId}/comments', {
        params: { path: { spaceId: 'handbook' }, query: { authors, limit: 1, page: first.next!.page } },
      }),
    );
    expect(second.items).toHaveLength(1);
    expect(second.items[0]!.id).not.toBe(first.items[0]!.id);
  });
});

describe('header values stored from clients: an integration’s content security policy', () => {
  const integration = { params: { path: { integrationName: 'walled' } } };
  const block = { id: 'status', title: 'Status', markdown: { codeblock: 'status', body: 'All good.' } };
  const GOOD = "default-src 'self'; img-src https:";

  test('a value that is not a header value is a 400 naming the field, and changes nothing', async () => {
    ok(await as('admin').POST('/v1/integrations/{integrationName}', { ...integration, body: { title: 'Walled', blocks: [block], contentSecurityPolicy: GOOD } }));
    for (const bad of [`${GOOD} 😀`, `${GOOD}\r\nx-injected: 1`, `${GOOD}\n`, `${GOOD}\u0000`, `${GOOD}\u00e9`]) {
      expectError(
        await as('admin').POST('/v1/integrations/{integrationName}', { ...integration, body: { title: 'Changed', contentSecurityPolicy: bad } }),
        400,
        'body.contentSecurityPolicy',
      );
    }
    const read = ok(await as('admin').GET('/v1/integrations/{integrationName}', integration));
    expect(read).toMatchObject({ title: 'Walled', version: 1, contentSecurityPolicy: GOOD });
  });

  test('a bad value already in the database does not break a render: it is sent percent-encoded, on one line', async () => {
    ok(await as('admin').POST('/v1/integrations/{integrationName}', { ...integration, body: { title: 'Walled', blocks: [block] } }));
    // The store writes a NUL as U+FFFD on both engines (server/common/text.ts): PostgreSQL's text holds none.
    const stored = `default-src 'self'\r\nx-injected: 1 😀\uFFFD`;
    await write(sql`UPDATE integrations SET content_security_policy = ${stored.replace('\uFFFD', '\u0000')} WHERE name = 'walled'`);
    const request = LZString.compressToEncodedURIComponent(JSON.stringify({ blockId: 'status' }));
    for (let attempt = 0; attempt < 2; attempt++) {
      const answer = await as('admin').GET('/v1/integrations/{integrationName}/render', { params: { path: { integrationName: 'walled' }, query: { request } } });
      expect(ok(answer).type).toBe('element');
      expect(answer.response.headers.get('content-security-policy')).toBe(`default-src 'self'%0D%0Ax-injected: 1 %F0%9F%98%80%EF%BF%BD`);
      expect(answer.response.headers.get('x-injected')).toBeNull();
    }
    expect(ok(await as('admin').GET('/v1/integrations/{integrationName}', integration)).contentSecurityPolicy).toBe(stored);
  });
});

describe('depth of client JSON', () => {
  /** A Document of `levels` blocks nested in one another, the innermost holding a text. */
  function nested(levels: number) {
    let node: Record<string, unknown> = { object: 'text', leaves: [{ object: 'leaf', text: 'deep' }] };
    for (let level = 0; level < levels; level++) node = { object: 'block', type: 'blockquote', nodes: [node] };
    return { object: 'document', data: {}, nodes: [node] };
  }
  const translation = (id: string) => ({ params: { path: { organizationId: 'acme', translationId: id } } });
  const INSTRUCTIONS = nested(1);

  test('a Document 10 000 levels deep is a 400 naming the field, and changes nothing', async () => {
    const created = ok(await as('admin').POST('/v1/orgs/{organizationId}/translations', { ...acme, body: { language: 'fr', instructions: INSTRUCTIONS as never } }), 201);
    // Written as text: JSON.stringify of it would itself overflow the stack.
    const deep = `${'{"object":"block","type":"blockquote","nodes":['.repeat(10_000)}{"object":"text","leaves":[]}${']}'.repeat(10_000)}`;
    const answer = await raw('PUT', `/v1/orgs/acme/translations/${created.id}`, `{"instructions":{"object":"document","data":{},"nodes":[${deep}]}}`);
    expect(answer.status).toBe(400);
    expect(messageOf(answer)).toMatch(/^body\.instructions\.nodes\.0\.nodes\.0\.nodes\.0.*…: nests deeper than 64 levels/);
    expect(ok(await as('admin').GET('/v1/orgs/{organizationId}/translations/{translationId}', translation(created.id))).instructions).toEqual(INSTRUCTIONS);

    const count = async () => ok(await as('admin').GET('/v1/orgs/{organizationId}/translations', acme)).count;
    const before = await count();
    // 100 000 levels of the shortest nodes: about 1.2 MB, well within the body limit.
    const bomb = await raw('POST', '/v1/orgs/acme/translations', `{"language":"de","instructions":${'{"nodes":['.repeat(100_000)}${']}'.repeat(100_000)}}`);
    expect(bomb.status).toBe(400);
    expect(messageOf(bomb)).toContain('body.instructions.nodes.0');
    expect(await count()).toBe(before);
  });

  test(`a body nests at most ${MAX_JSON_DEPTH} levels: the validator never sees deeper (a million levels of arrays)`, async () => {
    // 29 nested blocks make a body exactly 64 levels deep (body, instructions, nodes, then two per block, then the text's four).
    ok(await as('admin').POST('/v1/orgs/{organizationId}/translations', { ...acme, body: { language: 'it', instructions: nested(29) as never } }), 201);
    expectError(
      await as('admin').POST('/v1/orgs/{organizationId}/translations', { ...acme, body: { language: 'it', instructions: nested(30) as never } }),
      400,
      'body.instructions.nodes.0',
      'nests deeper than 64 levels',
    );
    const million = await raw('POST', '/v1/orgs/acme/translations', `${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`);
    expect(million.status).toBe(400);
    expect(messageOf(million)).toMatch(/^body\.0\.0\.0\.0\.0\.0\.0\.0…: nests deeper/);
  });

  test('property names are at most 255 characters', async () => {
    const name = 'k'.repeat(256);
    const answer = await raw('POST', '/v1/orgs/acme/translations', JSON.stringify({ language: 'es', instructions: { ...INSTRUCTIONS, data: { [name]: 1 } } }));
    expect(answer.status).toBe(400);
    expect(messageOf(answer)).toBe('body.instructions.data: has a property name longer than 255 characters');
  });

  test('translation instructions are at most 1 MiB as JSON', async () => {
    const big = { object: 'document', data: {}, nodes: [{ object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'x'.repeat(1024 * 1024) }] }] }] };
    expectError(
      await as('admin').POST('/v1/orgs/{organizationId}/translations', { ...acme, body: { language: 'pl', instructions: big as never } }),
      400,
      'body.instructions: at most 1048576 bytes',
    );
  });

  test('comment markdown nesting 30 000 lists or quotes is a 400 naming the field; stored before, it reads as a code block', async () => {
    const spaceId = { params: { path: { spaceId: 'handbook' } } };
    for (const markdown of ['- '.repeat(30_000) + 'x', '>'.repeat(60_000) + ' x', `${'*'.repeat(20_000)}x${'*'.repeat(20_000)}`]) {
      expectError(
        await as('admin').POST('/v1/spaces/{spaceId}/comments', { ...spaceId, body: { page: 'guide', body: { markdown } } }),
        400,
        'body.body.markdown: ',
      );
    }
    const created = ok(await as('admin').POST('/v1/spaces/{spaceId}/comments', { ...spaceId, body: { page: 'guide', body: { markdown: '> quoted' } } }), 201);
    const stored = `${'- '.repeat(30_000)}x`;
    await write(sql`UPDATE comments SET body = ${stored} WHERE id = ${created.id}`);
    const read = ok(
      await as('admin').GET('/v1/spaces/{spaceId}/comments/{commentId}', { params: { path: { spaceId: 'handbook', commentId: created.id }, query: { format: 'document' } } }),
    );
    expect(read.body.document!.nodes).toMatchObject([{ object: 'block', type: 'code', nodes: [{ object: 'text', leaves: [{ text: stored }] }] }]);
  });

  test('the store never recurses on a value deeper than it stores: a 400, not a stack overflow', () => {
    let value: unknown = 'leaf';
    for (let level = 0; level < 100_000; level++) value = [value];
    expect(() => toJson(value, 'body.value')).toThrow(DomainError);
    expect(() => toJson(value, 'body.value')).toThrow(/^body\.value\.0\.0.*nests deeper than 256 levels/);
  });

  test('an OpenAPI source nesting deeper than the store keeps is a PARSE_ERROR, not a crash', async () => {
    const deep = `{"openapi":"3.0.0","info":{"title":"Deep","version":"1"},"paths":{},"x-deep":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    ok(await as('admin').POST('/v1/orgs/{organizationId}/openapi', { ...acme, body: { slug: 'deep', source: { text: deep } } }), 201);
    await ctx.server.running.ctx.jobs.idle();
    const spec = ok(await as('admin').GET('/v1/orgs/{organizationId}/openapi/{specSlug}', { params: { path: { organizationId: 'acme', specSlug: 'deep' } } }));
    expect(spec).toMatchObject({ processingState: 'complete', lastProcessErrorCode: 'PARSE_ERROR' });
  });

  test('a render request that decompresses to a depth bomb is a 400 naming request', async () => {
    ok(
      await as('admin').POST('/v1/integrations/{integrationName}', {
        params: { path: { integrationName: 'renderer' } },
        body: { title: 'Renderer', blocks: [{ id: 'b', title: 'B', markdown: { codeblock: 'b', body: '{{props.x}}' } }] },
      }),
    );
    const props = `{"blockId":"b","props":{"x":${'['.repeat(50_000)}${']'.repeat(50_000)}}}`;
    const request = LZString.compressToEncodedURIComponent(props);
    expect(request.length).toBeLessThanOrEqual(8192);
    expectError(
      await as('admin').GET('/v1/integrations/{integrationName}/render', { params: { path: { integrationName: 'renderer' }, query: { request } } }),
      400,
      'request.props.x.0',
    );
  });
});

describe('aggregates a sequence of writes could grow', () => {
  const spaceComments = { params: { path: { spaceId: 'handbook' } } };
  async function comment() {
    return ok(await as('admin').POST('/v1/spaces/{spaceId}/comments', { ...spaceComments, body: { page: 'guide', body: { markdown: 'React to me.' } } }), 201);
  }
  const react = (user: string, commentId: string, body: { addedReactions?: string[]; removedReactions?: string[] }) =>
    as(user).PUT('/v1/spaces/{spaceId}/comments/{commentId}', { params: { path: { spaceId: 'handbook', commentId } }, body });
  const read = async (commentId: string) =>
    ok(await as('admin').GET('/v1/spaces/{spaceId}/comments/{commentId}', { params: { path: { spaceId: 'handbook', commentId } } }));

  test('100 000 reactions in one request are a 400 naming addedReactions, and add none', async () => {
    const { id } = await comment();
    const many = Array.from({ length: 100_000 }, (_, index) => `r${index}`);
    expectError(await react('admin', id, { addedReactions: many }), 400, 'body.addedReactions');
    expect((await read(id)).reactions).toEqual([]);
  });

  test('a comment holds at most 20 different emojis; one more is a 400, and changes nothing', async () => {
    const { id } = await comment();
    const twenty = Array.from({ length: 20 }, (_, index) => `:e${index}:`);
    ok(await react('admin', id, { addedReactions: twenty.slice(0, 12) }));
    ok(await react('editor', id, { addedReactions: twenty.slice(12) }));
    expectError(await react('commenter', id, { addedReactions: [':e0:', ':one-more:'] }), 400, 'body.addedReactions', 'at most 20');
    const after = await read(id);
    expect(after.reactions.map((reaction) => reaction.emoji)).toEqual(twenty);
    expect(after.reactions.find((reaction) => reaction.emoji === ':e0:')!.count).toBe(1);
    // Swapping one emoji for another stays within the bound.
    ok(await react('editor', id, { removedReactions: [':e19:'], addedReactions: [':swapped:'] }));
    expect((await read(id)).reactions.map((reaction) => reaction.emoji)).toEqual([...twenty.slice(0, 19), ':swapped:']);
  });

  test('a reaction lists its first 20 users; its count counts them all', async () => {
    const { id } = await comment();
    for (const user of REACTORS) {
      ok(await react(user, id, { addedReactions: ['👍'] }));
      ctx.server.clock.advance(1000);
    }
    const [thumbs] = (await read(id)).reactions;
    expect(thumbs!.count).toBe(25);
    expect(thumbs!.users.map((entry) => entry.user.id)).toEqual(REACTORS.slice(0, 20));
  });

  test('a site holds at most 100 sections; one more is a 400 naming spaceId', async () => {
    const site = ok(await as('admin').POST('/v1/orgs/{organizationId}/sites', { ...acme, body: { title: 'Sections' } }), 201);
    const path = { params: { path: { organizationId: 'acme', siteId: site.id } } };
    for (let index = 0; index < 100; index++) {
      ok(await as('admin').POST('/v1/orgs/{organizationId}/sites/{siteId}/sections', { ...path, body: { spaceId: 'handbook', title: `Section ${index}` } }), 201);
    }
    expectError(
      await as('admin').POST('/v1/orgs/{organizationId}/sites/{siteId}/sections', { ...path, body: { spaceId: 'handbook', title: 'One more' } }),
      400,
      'spaceId: a site holds at most 100 sections',
    );
    expect(ok(await as('admin').GET('/v1/orgs/{organizationId}/sites/{siteId}/sections', path)).count).toBe(100);
    const published = ok(await as('admin').GET('/v1/orgs/{organizationId}/sites/{siteId}/published', path));
    expect(published.structure.structure).toHaveLength(100);
  });

  test('a site holds at most 100 section groups and 500 site spaces; one more is a 400, and changes nothing', async () => {
    const site = ok(await as('admin').POST('/v1/orgs/{organizationId}/sites', { ...acme, body: { title: 'Full' } }), 201);
    const path = { params: { path: { organizationId: 'acme', siteId: site.id } } };
    // Filled to the bounds directly in the database: 500 site spaces through the API would only be slower.
    const now = new Date().toISOString();
    const app = ctx.server.running.ctx;
    await insertRows(app, 'site_spaces', FILLER_SPACES.map((space, index) => ({
      id: `fill-${site.id}-${index}`, site_id: site.id, section_id: null, space_id: space.id, path: space.id, position: index, created_at: now,
    })));
    await insertRows(app, 'site_section_groups', Array.from({ length: 100 }, (_, index) => ({
      id: `group-${site.id}-${index}`, site_id: site.id, title: `Group ${index}`, position: 1000 + index, created_at: now,
    })));

    const spaces = async () => ok(await as('admin').GET('/v1/orgs/{organizationId}/sites/{siteId}/site-spaces', { params: { path: path.params.path, query: { limit: 1000 } } }));
    expect((await spaces()).count).toBe(500);
    expectError(
      await as('admin').POST('/v1/orgs/{organizationId}/sites/{siteId}/site-spaces', { ...path, body: { spaceId: 'handbook' } }),
      400,
      'spaceId: a site holds at most 500 site spaces',
    );
    expectError(
      await as('admin').POST('/v1/orgs/{organizationId}/sites/{siteId}/section-groups', { ...path, body: { title: 'One more' } }),
      400,
      'title: a site holds at most 100 section groups',
    );
    expect((await spaces()).count).toBe(500);
    expect(ok(await as('admin').GET('/v1/orgs/{organizationId}/sites/{siteId}/section-groups', path)).count).toBe(100);
    // With room made, the same request works.
    ok(await as('admin').DELETE('/v1/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}', { params: { path: { ...path.params.path, siteSpaceId: `fill-${site.id}-0` } } }));
    ok(await as('admin').POST('/v1/orgs/{organizationId}/sites/{siteId}/site-spaces', { ...path, body: { spaceId: 'handbook' } }), 201);
  });

  test('an organization has at most 50 SAML providers; one more is a 400 naming label', async () => {
    for (let index = 0; index < 50; index++) {
      ok(await as('admin').POST('/v1/orgs/{organizationId}/saml', { ...acme, body: { label: `IdP ${index}` } }), 201);
    }
    expectError(await as('admin').POST('/v1/orgs/{organizationId}/saml', { ...acme, body: { label: 'One more' } }), 400, 'label: an organization has at most 50');
    expect(ok(await as('admin').GET('/v1/orgs/{organizationId}/saml', acme)).count).toBe(50);
  });

  test('a space holds at most 5000 pages: a template that would pass them is a 400 naming id, and changes nothing', async () => {
    const app = ctx.server.running.ctx;
    const revision = await app.store.write(async (db) => {
      const space = (await getSpaceRow(db, 'filler0'))!;
      const content = structuredClone((await getRevision(db, space.revisionId, space.id))!.content);
      content.pages = Array.from({ length: 4999 }, (_, index) => newPage({ title: `Page ${index}`, markdown: 'Filler.' }, app.now()));
      return commitSpaceContent(db, space.id, [space.revisionId], content, app.now());
    });

    expectError(
      await as('admin').POST('/v1/spaces/{spaceId}/content/template', { params: { path: { spaceId: 'filler0' } }, body: { id: 'getting-started' } }),
      400,
      'id: the content would hold',
      'at most 5000',
    );
    const pages = ok(await as('admin').GET('/v1/spaces/{spaceId}/content/pages', { params: { path: { spaceId: 'filler0' } } }));
    expect(pages.pages).toHaveLength(4999);
    expect((await getSpaceRow(app.store.reader, 'filler0'))!.revisionId).toBe(revision.id);
  });

  test(`a page of a list stops before ${PAGE_BYTES / 1024 / 1024} MiB of items, and the next page takes it on`, async () => {
    const text = 'x'.repeat(900 * 1024);
    const instructions = { object: 'document', data: {}, nodes: [{ object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text }] }] }] };
    const before = ok(await as('admin').GET('/v1/orgs/{organizationId}/translations', { ...acme, params: { ...acme.params, query: { limit: 1000 } } }));
    const made: string[] = [];
    for (let index = 0; index < 6; index++) {
      made.push(ok(await as('admin').POST('/v1/orgs/{organizationId}/translations', { ...acme, body: { language: 'fr', instructions: instructions as never } }), 201).id);
    }
    const seen: string[] = [];
    let page: string | undefined;
    let pages = 0;
    do {
      const answer = await as('admin').GET('/v1/orgs/{organizationId}/translations', { params: { path: { organizationId: 'acme' }, query: { limit: 1000, page } } });
      const body = ok(answer);
      expect(Number(answer.response.headers.get('content-length'))).toBeLessThan(PAGE_BYTES + 64 * 1024);
      expect(body.count).toBe(before.count + 6);
      seen.push(...body.items.map((item) => item.id));
      page = body.next?.page;
      pages++;
    } while (page);
    expect(pages).toBeGreaterThan(1);
    expect(seen).toHaveLength(before.count + 6);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(expect.arrayContaining(made));
  });
});

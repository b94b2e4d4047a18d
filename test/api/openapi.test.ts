import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ACME } from '../support/fixture.ts';
import { expectError, ok } from '../support/expect.ts';
import { useTestServer } from '../support/server.ts';

// Sources of specifications, served on 127.0.0.1 by a helper server.
const PETS_YAML = `openapi: 3.1.0
info:
  title: Pets
  version: 1.0.0
paths:
  /pets:
    get:
      operationId: listPets
      responses:
        '200':
          description: The pets
          content:
            application/json:
              schema:
                $ref: '#/components/schemas/Pets'
components:
  schemas:
    Pets:
      type: array
      items:
        $ref: 'https://schemas.example.invalid/pet.yaml#/Pet'
`;
const PETS_V2_YAML = PETS_YAML.replace('version: 1.0.0', 'version: 2.0.0');
const STORE_JSON = JSON.stringify({
  openapi: '3.0.3',
  info: { title: 'Store', version: '1' },
  paths: { '/orders': { get: { responses: { '200': { description: 'The orders' } } } } },
});
const INVALID_YAML = 'openapi: 3.1.0\ninfo:\n  title: Missing its version\npaths: {}\n';

const SOURCES: Record<string, { status: number; type: string; body: string }> = {
  '/pets.yaml': { status: 200, type: 'application/yaml', body: PETS_YAML },
  '/pets-v2.yaml': { status: 200, type: 'application/yaml', body: PETS_V2_YAML },
  '/invalid.yaml': { status: 200, type: 'application/yaml', body: INVALID_YAML },
  '/broken': { status: 500, type: 'text/plain', body: 'internal error' },
};

let sourceServer: Server;
let sourceUrl: (path: string) => string;
/** Resolvers waiting for the next request to `/slow`, which is never answered. */
let slowArrivals: (() => void)[] = [];

beforeAll(async () => {
  sourceServer = createServer((req, res) => {
    if (req.url === '/slow') {
      slowArrivals.forEach((arrived) => arrived());
      slowArrivals = [];
      return;
    }
    const source = SOURCES[req.url ?? ''];
    if (!source) return void res.writeHead(404).end();
    res.writeHead(source.status, { 'content-type': source.type }).end(source.body);
  });
  await new Promise<void>((resolve) => sourceServer.listen(0, '127.0.0.1', resolve));
  const { port } = sourceServer.address() as AddressInfo;
  sourceUrl = (path) => `http://127.0.0.1:${port}${path}`;
});

afterAll(async () => {
  sourceServer.closeAllConnections();
  await new Promise((resolve) => sourceServer.close(resolve));
});

const ctx = useTestServer({ env: { OUTBOUND_TIMEOUT_MS: '1500' } });

const org = (organizationId = ACME) => ({ params: { path: { organizationId } } });
const spec = (specSlug: string, organizationId = ACME) => ({ params: { path: { organizationId, specSlug } } });
const version = (specSlug: string, versionId: string) => ({
  params: { path: { organizationId: ACME, specSlug, versionId } },
});
const idle = () => ctx.server.running.ctx.jobs.idle();

async function createSpec(slug: string, source: { url: string } | { text: string }) {
  return ok(await ctx.server.as('admin').POST('/v1/orgs/{organizationId}/openapi', { ...org(), body: { slug, source } }), 201);
}

async function getSpec(slug: string) {
  return ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/openapi/{specSlug}', spec(slug)));
}

/** A spec created and processed, with its first version. */
async function processedSpec(slug: string, source: { url: string } | { text: string } = { url: sourceUrl('/pets.yaml') }) {
  await createSpec(slug, source);
  await idle();
  return getSpec(slug);
}

function fetchDocument(url: string, token?: string) {
  return fetch(url, token ? { headers: { authorization: `Bearer ${token}` } } : {});
}

describe('POST /v1/orgs/{organizationId}/openapi', () => {
  test('creates a spec from a URL: pending, then processed into a version served at its url', async () => {
    const created = await createSpec('pets', { url: sourceUrl('/pets.yaml') });
    expect(created).toMatchObject({
      object: 'openapi-spec',
      slug: 'pets',
      sourceURL: sourceUrl('/pets.yaml'),
      processingState: 'pending',
      visibility: 'private',
      permissions: { view: true, edit: true },
      urls: { location: `${ctx.server.url}/v1/orgs/${ACME}/openapi/pets` },
    });
    expect(created.lastVersion).toBeUndefined();

    await idle();
    const processed = await getSpec('pets');
    expect(processed).toMatchObject({ processingState: 'complete', lastProcessedAt: expect.any(String) });
    expect(processed.lastProcessErrorCode).toBeUndefined();
    const versions = ok(
      await ctx.server.as('reader').GET('/v1/orgs/{organizationId}/openapi/{specSlug}/versions', spec('pets')),
    );
    expect(versions.items.map((item) => item.id)).toEqual([processed.lastVersion]);
    const [first] = versions.items;
    expect(first!.urls.location).toBe(`${ctx.server.url}/v1/orgs/${ACME}/openapi/pets/versions/${first!.id}`);

    const served = await fetchDocument(first!.url, 'reader');
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toContain('application/yaml');
    expect(await served.text()).toBe(PETS_YAML);
  });

  test('answers 201 with the Location of the new spec', async () => {
    const answer = await ctx.server.as('creator').POST('/v1/orgs/{organizationId}/openapi', {
      ...org(),
      body: { slug: 'located', source: { text: STORE_JSON } },
    });
    expect(answer.response.status).toBe(201);
    expect(answer.response.headers.get('location')).toBe(answer.data!.urls.location);
    await idle();
  });

  test('creates a spec from JSON text: its content is the parsed document under openapi.json', async () => {
    const created = await createSpec('store', { text: STORE_JSON });
    expect(created.sourceURL).toBeUndefined();
    await idle();
    const content = ok(
      await ctx.server.as('reader').GET('/v1/orgs/{organizationId}/openapi/{specSlug}/versions/latest/content', spec('store')),
    );
    expect(content.filesystem).toEqual({ 'openapi.json': JSON.parse(STORE_JSON) });
    expect(content.url).toBe(`${ctx.server.url}/openapi/${ACME}/store/versions/${(await getSpec('store')).lastVersion}`);
    const served = await fetchDocument(content.url, 'reader');
    expect(served.headers.get('content-type')).toContain('application/json');
    expect(await served.text()).toBe(STORE_JSON);
  });

  test('accepts YAML text, and keeps external $refs as written without following them', async () => {
    await processedSpec('pets-text', { text: PETS_YAML });
    const content = ok(
      await ctx.server.as('reader').GET('/v1/orgs/{organizationId}/openapi/{specSlug}/versions/latest/content', spec('pets-text')),
    );
    expect(content.filesystem).toEqual({ 'openapi.yaml': parseYaml(PETS_YAML) });
    const document = content.filesystem['openapi.yaml'] as { components: { schemas: { Pets: { items: { $ref: string } } } } };
    expect(document.components.schemas.Pets.items.$ref).toBe('https://schemas.example.invalid/pet.yaml#/Pet');
  });

  test('an invalid document ends complete with PARSE_ERROR and no version', async () => {
    const processed = await processedSpec('invalid', { url: sourceUrl('/invalid.yaml') });
    expect(processed).toMatchObject({ processingState: 'complete', lastProcessErrorCode: 'PARSE_ERROR' });
    expect(processed.lastVersion).toBeUndefined();
    expectError(
      await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/openapi/{specSlug}/versions/latest', spec('invalid')),
      404,
      'version',
    );
    const broken = await processedSpec('not-openapi', { text: 'just: [a, list' });
    expect(broken.lastProcessErrorCode).toBe('PARSE_ERROR');
  });

  test('a source slower than the outbound timeout is in progress, then ends with FETCH_TIMEOUT', async () => {
    const arrived = new Promise<void>((resolve) => slowArrivals.push(resolve));
    await createSpec('slow', { url: sourceUrl('/slow') });
    await arrived;
    expect((await getSpec('slow')).processingState).toBe('progress');
    await idle();
    expect(await getSpec('slow')).toMatchObject({ processingState: 'complete', lastProcessErrorCode: 'FETCH_TIMEOUT' });
  });

  test('an HTTP error status or an unreachable address ends with FETCH_ERROR', async () => {
    expect((await processedSpec('broken', { url: sourceUrl('/broken') })).lastProcessErrorCode).toBe('FETCH_ERROR');
    expect((await processedSpec('missing', { url: sourceUrl('/no-such-file.yaml') })).lastProcessErrorCode).toBe(
      'FETCH_ERROR',
    );
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const unreachable = await processedSpec('unreachable', { url: `http://127.0.0.1:${port}/spec.yaml` });
    expect(unreachable).toMatchObject({ processingState: 'complete', lastProcessErrorCode: 'FETCH_ERROR' });
  });

  test('answers 409 when the slug is taken in the organization', async () => {
    await createSpec('taken', { text: STORE_JSON });
    expectError(
      await ctx.server.as('admin').POST('/v1/orgs/{organizationId}/openapi', {
        ...org(),
        body: { slug: 'taken', source: { text: PETS_YAML } },
      }),
      409,
      'slug',
    );
    await idle();
    const versions = ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/openapi/{specSlug}/versions', spec('taken')));
    expect(versions.count).toBe(1);
  });

  test('rejects invalid input with 400 naming the field, and creates nothing', async () => {
    const before = ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/openapi', org())).count;
    const post = (body: unknown) =>
      ctx.server.as('admin').POST('/v1/orgs/{organizationId}/openapi', { ...org(), body: body as never });
    expectError(await post({ slug: 'Not A Slug', source: { text: PETS_YAML } }), 400, 'slug');
    expectError(await post({ slug: 'x'.repeat(101), source: { text: PETS_YAML } }), 400, 'slug');
    expectError(await post({ slug: 'no-source' }), 400, 'source');
    expectError(await post({ slug: 'empty', source: { text: '' } }), 400, 'source');
    expectError(await post({ slug: 'ftp', source: { url: 'ftp://files.acme.test/spec.yaml' } }), 400, 'source.url');
    expectError(await post({ slug: 'both', source: { url: sourceUrl('/pets.yaml'), text: PETS_YAML } }), 400, 'source');
    expectError(await post({ slug: 'extra', source: { text: PETS_YAML }, visibility: 'public' }), 400, 'visibility');
    expect(ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/openapi', org())).count).toBe(before);
    expectError(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/openapi/{specSlug}', spec('ftp')), 404);
  });

  test('needs the createOpenAPISpec permission (403), membership (404) and a token (401)', async () => {
    const body = { slug: 'forbidden', source: { text: PETS_YAML } };
    expect(ok(await ctx.server.as('reader').GET('/v1/orgs/{organizationId}', org())).permissions.createOpenAPISpec).toBe(false);
    expectError(await ctx.server.as('reviewer').POST('/v1/orgs/{organizationId}/openapi', { ...org(), body }), 403, 'edit');
    expectError(await ctx.server.as('reader').POST('/v1/orgs/{organizationId}/openapi', { ...org(), body }), 403);
    expectError(await ctx.server.as('outsider').POST('/v1/orgs/{organizationId}/openapi', { ...org(), body }), 404);
    expectError(await ctx.server.as('admin').POST('/v1/orgs/{organizationId}/openapi', { ...org('nope'), body }), 404);
    expectError(await ctx.server.as('anonymous').POST('/v1/orgs/{organizationId}/openapi', { ...org(), body }), 401);
    expectError(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/openapi/{specSlug}', spec('forbidden')), 404);
  });
});

describe('GET /v1/orgs/{organizationId}/openapi', () => {
  test('lists the specs of the organization in pages, with permissions for the caller', async () => {
    const all = ok(await ctx.server.as('reader').GET('/v1/orgs/{organizationId}/openapi', org()));
    expect(all.count).toBeGreaterThanOrEqual(2);
    expect(all.items.every((item) => item.permissions.view && !item.permissions.edit)).toBe(true);
    const first = ok(await ctx.server.as('reader').GET('/v1/orgs/{organizationId}/openapi', { params: { ...org().params, query: { limit: 1 } } }));
    expect(first.items).toHaveLength(1);
    const second = ok(
      await ctx.server.as('reader').GET('/v1/orgs/{organizationId}/openapi', {
        params: { ...org().params, query: { limit: 1, page: first.next!.page } },
      }),
    );
    expect(second.items[0]!.id).toBe(all.items[1]!.id);
    expect(second.count).toBe(all.count);
  });

  test('rejects a bad limit or cursor with 400', async () => {
    const list = (query: { limit?: number; page?: string }) =>
      ctx.server.as('reader').GET('/v1/orgs/{organizationId}/openapi', { params: { ...org().params, query } });
    expectError(await list({ limit: 0 }), 400, 'limit');
    expectError(await list({ page: 'forged.cursor' }), 400, 'page');
  });

  test('answers 403 to a guest, 404 outside the organization, 401 without a token', async () => {
    expectError(await ctx.server.as('guest').GET('/v1/orgs/{organizationId}/openapi', org()), 403, 'view');
    expectError(await ctx.server.as('outsider').GET('/v1/orgs/{organizationId}/openapi', org()), 404);
    expectError(await ctx.server.as('anonymous').GET('/v1/orgs/{organizationId}/openapi', org()), 401);
  });
});

describe('GET /v1/orgs/{organizationId}/openapi/{specSlug}', () => {
  test('returns the spec to a reader, who may view but not edit', async () => {
    await processedSpec('read-me');
    const read = ok(await ctx.server.as('reader').GET('/v1/orgs/{organizationId}/openapi/{specSlug}', spec('read-me')));
    expect(read).toMatchObject({ slug: 'read-me', processingState: 'complete', permissions: { view: true, edit: false } });
    expect(read.urls.app).toContain('/app/');
  });

  test('answers 400 for a malformed slug, 404 for an unknown one', async () => {
    expectError(await ctx.server.as('reader').GET('/v1/orgs/{organizationId}/openapi/{specSlug}', spec('Bad_Slug')), 400, 'specSlug');
    expectError(await ctx.server.as('reader').GET('/v1/orgs/{organizationId}/openapi/{specSlug}', spec('unknown')), 404);
  });

  test('answers 403 to a guest, 404 outside the organization, 401 without a token', async () => {
    expectError(await ctx.server.as('guest').GET('/v1/orgs/{organizationId}/openapi/{specSlug}', spec('read-me')), 403);
    expectError(await ctx.server.as('outsider').GET('/v1/orgs/{organizationId}/openapi/{specSlug}', spec('read-me')), 404);
    expectError(await ctx.server.as('anonymous').GET('/v1/orgs/{organizationId}/openapi/{specSlug}', spec('read-me')), 401);
  });
});

describe('PUT /v1/orgs/{organizationId}/openapi/{specSlug}', () => {
  const put = (user: Parameters<typeof ctx.server.as>[0], slug: string, body: unknown) =>
    ctx.server.as(user).PUT('/v1/orgs/{organizationId}/openapi/{specSlug}', { ...spec(slug), body: body as never });

  test('updates the source: a second version becomes the latest, the first stays readable', async () => {
    const before = await processedSpec('versioned');
    const updated = ok(await put('creator', 'versioned', { source: { url: sourceUrl('/pets-v2.yaml') } }));
    expect(updated).toMatchObject({ id: before.id, processingState: 'pending', sourceURL: sourceUrl('/pets-v2.yaml') });
    await idle();

    const after = await getSpec('versioned');
    expect(after.lastVersion).not.toBe(before.lastVersion);
    const versions = ok(
      await ctx.server.as('reader').GET('/v1/orgs/{organizationId}/openapi/{specSlug}/versions', spec('versioned')),
    );
    expect(versions.items.map((item) => item.id)).toEqual([after.lastVersion, before.lastVersion]);
    const latest = ok(
      await ctx.server.as('reader').GET('/v1/orgs/{organizationId}/openapi/{specSlug}/versions/latest', spec('versioned')),
    );
    expect(latest.id).toBe(after.lastVersion);
    const latestContent = ok(
      await ctx.server.as('reader').GET('/v1/orgs/{organizationId}/openapi/{specSlug}/versions/latest/content', spec('versioned')),
    );
    expect(latestContent.filesystem).toEqual({ 'openapi.yaml': parseYaml(PETS_V2_YAML) });
    const firstContent = ok(
      await ctx.server
        .as('reader')
        .GET('/v1/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}/content', version('versioned', before.lastVersion!)),
    );
    expect(firstContent.filesystem).toEqual({ 'openapi.yaml': parseYaml(PETS_YAML) });
  });

  test('a failed processing keeps the earlier versions; the next success clears the error', async () => {
    const before = await processedSpec('kept');
    ok(await put('admin', 'kept', { source: { text: INVALID_YAML } }));
    await idle();
    const failed = await getSpec('kept');
    expect(failed).toMatchObject({ processingState: 'complete', lastProcessErrorCode: 'PARSE_ERROR', lastVersion: before.lastVersion });
    expect(failed.sourceURL).toBeUndefined();
    const versions = ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/openapi/{specSlug}/versions', spec('kept')));
    expect(versions.count).toBe(1);

    ok(await put('admin', 'kept', { source: { text: STORE_JSON } }));
    await idle();
    const fixed = await getSpec('kept');
    expect(fixed.lastProcessErrorCode).toBeUndefined();
    expect(fixed.lastVersion).not.toBe(before.lastVersion);
  });

  test('creates the spec when the slug is new, and answers 200', async () => {
    const answer = await put('creator', 'made-by-put', { source: { text: STORE_JSON } });
    expect(answer.response.status).toBe(200);
    expect(answer.data).toMatchObject({ slug: 'made-by-put', processingState: 'pending' });
    await idle();
    expect((await getSpec('made-by-put')).lastVersion).toBeDefined();
  });

  test('processes successive sources in order', async () => {
    await createSpec('in-order', { text: PETS_YAML });
    ok(await put('admin', 'in-order', { source: { text: PETS_V2_YAML } }));
    ok(await put('admin', 'in-order', { source: { text: STORE_JSON } }));
    await idle();
    const versions = ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/openapi/{specSlug}/versions', spec('in-order')));
    expect(versions.count).toBe(3);
    const contents = await Promise.all(
      versions.items.map(async (item) =>
        Object.keys(
          ok(
            await ctx.server
              .as('admin')
              .GET('/v1/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}/content', version('in-order', item.id)),
          ).filesystem,
        ),
      ),
    );
    expect(contents).toEqual([['openapi.json'], ['openapi.yaml'], ['openapi.yaml']]);
    expect((await getSpec('in-order')).processingState).toBe('complete');
  });

  test('rejects invalid input with 400 naming the field, and changes nothing', async () => {
    const before = await processedSpec('untouched');
    expectError(await put('admin', 'untouched', {}), 400, 'source');
    expectError(await put('admin', 'untouched', { source: { url: 'not a url' } }), 400, 'source');
    expectError(await put('admin', 'untouched', { source: { url: 'file:///etc/passwd' } }), 400, 'source.url');
    expectError(await put('admin', 'Bad_Slug', { source: { text: PETS_YAML } }), 400, 'specSlug');
    await idle();
    expect(await getSpec('untouched')).toEqual(before);
  });

  test('needs the edit permission (403), membership (404) and a token (401)', async () => {
    const body = { source: { text: PETS_V2_YAML } };
    const before = await getSpec('untouched');
    expectError(await put('reviewer', 'untouched', body), 403, 'edit');
    expectError(await put('reader', 'new-from-reader', body), 403);
    expectError(await put('outsider', 'untouched', body), 404);
    expectError(
      await ctx.server.as('admin').PUT('/v1/orgs/{organizationId}/openapi/{specSlug}', { ...spec('untouched', 'nope'), body }),
      404,
    );
    expectError(await put('anonymous', 'untouched', body), 401);
    await idle();
    expect(await getSpec('untouched')).toEqual(before);
    expectError(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/openapi/{specSlug}', spec('new-from-reader')), 404);
  });
});

describe('DELETE /v1/orgs/{organizationId}/openapi/{specSlug}', () => {
  test('deletes the spec and its versions; deleting again answers 204', async () => {
    const doomed = await processedSpec('doomed');
    const latest = ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/openapi/{specSlug}/versions/latest', spec('doomed')));
    const answer = await ctx.server.as('creator').DELETE('/v1/orgs/{organizationId}/openapi/{specSlug}', spec('doomed'));
    expect(answer.response.status).toBe(204);
    expectError(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/openapi/{specSlug}', spec('doomed')), 404);
    expect((await fetchDocument(latest.url, 'admin')).status).toBe(404);

    // The slug is free again, for a new spec with no versions of the old one.
    const again = await createSpec('doomed', { text: STORE_JSON });
    expect(again.id).not.toBe(doomed.id);
    await idle();
    const versions = ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/openapi/{specSlug}/versions', spec('doomed')));
    expect(versions.count).toBe(1);
    expect((await ctx.server.as('admin').DELETE('/v1/orgs/{organizationId}/openapi/{specSlug}', spec('doomed'))).response.status).toBe(204);
    expect((await ctx.server.as('admin').DELETE('/v1/orgs/{organizationId}/openapi/{specSlug}', spec('doomed'))).response.status).toBe(204);
  });

  test('answers 204 for an unknown spec, and 400 for a malformed slug', async () => {
    expect((await ctx.server.as('admin').DELETE('/v1/orgs/{organizationId}/openapi/{specSlug}', spec('never-was'))).response.status).toBe(204);
    expectError(await ctx.server.as('admin').DELETE('/v1/orgs/{organizationId}/openapi/{specSlug}', spec('Bad_Slug')), 400, 'specSlug');
  });

  test('needs the edit permission (403), membership (404) and a token (401), and then keeps the spec', async () => {
    await processedSpec('protected');
    expectError(await ctx.server.as('reader').DELETE('/v1/orgs/{organizationId}/openapi/{specSlug}', spec('protected')), 403, 'edit');
    expectError(await ctx.server.as('guest').DELETE('/v1/orgs/{organizationId}/openapi/{specSlug}', spec('protected')), 403);
    expectError(await ctx.server.as('outsider').DELETE('/v1/orgs/{organizationId}/openapi/{specSlug}', spec('protected')), 404);
    expectError(await ctx.server.as('anonymous').DELETE('/v1/orgs/{organizationId}/openapi/{specSlug}', spec('protected')), 401);
    expect((await getSpec('protected')).slug).toBe('protected');
  });
});

describe('PATCH /v1/orgs/{organizationId}/openapi/{specSlug}', () => {
  const patch = (user: Parameters<typeof ctx.server.as>[0], slug: string, body: unknown) =>
    ctx.server.as(user).PATCH('/v1/orgs/{organizationId}/openapi/{specSlug}', { ...spec(slug), body: body as never });

  test('a public spec is published: its documents need no token; private again, they do', async () => {
    const before = await processedSpec('published');
    expect(before.urls.published).toBeUndefined();
    const latest = ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/openapi/{specSlug}/versions/latest', spec('published')));
    expect((await fetchDocument(latest.url)).status).toBe(401);

    const updated = ok(await patch('creator', 'published', { visibility: 'public' }));
    expect(updated).toMatchObject({ visibility: 'public', urls: { published: `${ctx.server.url}/openapi/${ACME}/published` } });
    expect(await getSpec('published')).toEqual(updated);
    const anonymous = await fetchDocument(latest.url);
    expect(anonymous.status).toBe(200);
    expect(await anonymous.text()).toBe(PETS_YAML);
    expect(await (await fetchDocument(updated.urls.published!)).text()).toBe(PETS_YAML);

    ok(await patch('admin', 'published', { visibility: 'private' }));
    expect((await getSpec('published')).urls.published).toBeUndefined();
    expect((await fetchDocument(latest.url)).status).toBe(401);
  });

  test('rejects invalid input with 400 naming the field, and changes nothing', async () => {
    const before = await getSpec('published');
    expectError(await patch('admin', 'published', { visibility: 'secret' }), 400, 'visibility');
    expectError(await patch('admin', 'published', {}), 400, 'visibility');
    expectError(await patch('admin', 'published', { visibility: 'public', slug: 'renamed' }), 400, 'slug');
    expect(await getSpec('published')).toEqual(before);
  });

  test('answers 404 for an unknown spec, 403 without the edit permission, 404 outside the organization, 401 without a token', async () => {
    const before = await getSpec('published');
    expectError(await patch('admin', 'unknown', { visibility: 'public' }), 404);
    expectError(await patch('reader', 'published', { visibility: 'public' }), 403, 'edit');
    expectError(await patch('outsider', 'published', { visibility: 'public' }), 404);
    expectError(await patch('anonymous', 'published', { visibility: 'public' }), 401);
    expect(await getSpec('published')).toEqual(before);
  });
});

describe('versions of a spec', () => {
  const listVersions = (user: Parameters<typeof ctx.server.as>[0], slug: string, query: { limit?: number; page?: string } = {}) =>
    ctx.server.as(user).GET('/v1/orgs/{organizationId}/openapi/{specSlug}/versions', { params: { ...spec(slug).params, query } });

  test('are listed newest first, in pages', async () => {
    await createSpec('paged', { text: PETS_YAML });
    await idle();
    ok(await ctx.server.as('admin').PUT('/v1/orgs/{organizationId}/openapi/{specSlug}', { ...spec('paged'), body: { source: { text: PETS_V2_YAML } } }));
    await idle();
    const all = ok(await listVersions('reader', 'paged'));
    expect(all.count).toBe(2);
    expect(all.items[0]!.id).toBe((await getSpec('paged')).lastVersion);
    const first = ok(await listVersions('reader', 'paged', { limit: 1 }));
    const second = ok(await listVersions('reader', 'paged', { limit: 1, page: first.next!.page }));
    expect([...first.items, ...second.items].map((item) => item.id)).toEqual(all.items.map((item) => item.id));
    expect(second.next).toBeUndefined();
  });

  test('a version is read by its id, with its content and its url', async () => {
    const { items } = ok(await listVersions('reader', 'paged'));
    const oldest = items.at(-1)!;
    const read = ok(await ctx.server.as('reader').GET('/v1/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}', version('paged', oldest.id)));
    expect(read).toEqual(oldest);
    expect(read).toMatchObject({ object: 'openapi-spec-version', createdAt: expect.any(String) });
    const content = ok(
      await ctx.server.as('reader').GET('/v1/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}/content', version('paged', oldest.id)),
    );
    expect(content).toEqual({ filesystem: { 'openapi.yaml': parseYaml(PETS_YAML) }, url: oldest.url });
  });

  test('latest and its content answer 404 while the spec has no version', async () => {
    await createSpec('no-version-yet', { url: sourceUrl('/invalid.yaml') });
    await idle();
    expectError(await ctx.server.as('reader').GET('/v1/orgs/{organizationId}/openapi/{specSlug}/versions/latest', spec('no-version-yet')), 404);
    expectError(
      await ctx.server.as('reader').GET('/v1/orgs/{organizationId}/openapi/{specSlug}/versions/latest/content', spec('no-version-yet')),
      404,
    );
    expect(ok(await listVersions('reader', 'no-version-yet'))).toEqual({ count: 0, items: [] });
  });

  test('unknown specs and versions answer 404; malformed parameters 400', async () => {
    const reader = ctx.server.as('reader');
    expectError(await listVersions('reader', 'unknown'), 404);
    expectError(await listVersions('reader', 'paged', { limit: 1001 }), 400, 'limit');
    expectError(await reader.GET('/v1/orgs/{organizationId}/openapi/{specSlug}/versions/latest', spec('unknown')), 404);
    expectError(await reader.GET('/v1/orgs/{organizationId}/openapi/{specSlug}/versions/latest', spec('Bad_Slug')), 400, 'specSlug');
    expectError(await reader.GET('/v1/orgs/{organizationId}/openapi/{specSlug}/versions/latest/content', spec('unknown')), 404);
    expectError(await reader.GET('/v1/orgs/{organizationId}/openapi/{specSlug}/versions/latest/content', spec('Bad_Slug')), 400, 'specSlug');
    expectError(await reader.GET('/v1/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}', version('paged', 'unknown')), 404);
    expectError(await reader.GET('/v1/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}', version('Bad_Slug', 'x')), 400, 'specSlug');
    expectError(await reader.GET('/v1/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}/content', version('paged', 'unknown')), 404);
    expectError(
      await reader.GET('/v1/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}/content', version('Bad_Slug', 'x')),
      400,
      'specSlug',
    );
    // A version of another spec is not found through this one.
    const other = ok(await reader.GET('/v1/orgs/{organizationId}/openapi/{specSlug}/versions/latest', spec('versioned')));
    expectError(await reader.GET('/v1/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}', version('paged', other.id)), 404);
  });

  test('answer 403 to a guest, 404 outside the organization, 401 without a token', async () => {
    const { items } = ok(await listVersions('reader', 'paged'));
    const id = items[0]!.id;
    for (const user of ['guest', 'outsider', 'anonymous'] as const) {
      const status = { guest: 403, outsider: 404, anonymous: 401 }[user];
      const client = ctx.server.as(user);
      expectError(await listVersions(user, 'paged'), status);
      expectError(await client.GET('/v1/orgs/{organizationId}/openapi/{specSlug}/versions/latest', spec('paged')), status);
      expectError(await client.GET('/v1/orgs/{organizationId}/openapi/{specSlug}/versions/latest/content', spec('paged')), status);
      expectError(await client.GET('/v1/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}', version('paged', id)), status);
      expectError(
        await client.GET('/v1/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}/content', version('paged', id)),
        status,
      );
    }
  });

  test("a private spec's documents need the token of a member who may view it", async () => {
    const { items } = ok(await listVersions('reader', 'paged'));
    const url = items[0]!.url;
    expect((await fetchDocument(url, 'reader')).status).toBe(200);
    expect((await fetchDocument(url, 'guest')).status).toBe(403);
    expect((await fetchDocument(url, 'outsider')).status).toBe(404);
    expect((await fetchDocument(url, 'not-a-token')).status).toBe(401);
    const missing = await fetchDocument(`${ctx.server.url}/openapi/${ACME}/paged/versions/unknown`, 'reader');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: { code: 404, message: expect.stringContaining('version') } });
  });
});

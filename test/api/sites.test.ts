import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { RoleUser } from '../support/fixture.ts';
import { ACME, GLOBEX, standardFixture } from '../support/fixture.ts';
import { expectError, ok } from '../support/expect.ts';
import { useTestServer } from '../support/server.ts';
import { sql } from 'kysely';

const fixture = {
  ...standardFixture,
  organizations: [
    {
      ...standardFixture.organizations![0]!,
      spaces: [
        { id: 'guide', title: 'Guide' },
        { id: 'api', title: 'API Reference' },
        { id: 'blog', title: 'Blog' },
      ],
    },
    { ...standardFixture.organizations![1]!, spaces: [{ id: 'globex-docs', title: 'Globex Docs' }] },
  ],
};

const dataDir = mkdtempSync(path.join(tmpdir(), 'sites-test-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const ctx = useTestServer({ fixture, dataDir });

const acme = { params: { path: { organizationId: ACME } } };
const site = (siteId: string, organizationId = ACME) => ({ params: { path: { organizationId, siteId } } });
const as = (user: RoleUser | 'anonymous') => ctx.server.as(user);

type SiteBody = {
  title?: string;
  visibility?: 'public' | 'unlisted' | 'share-link' | 'visitor-auth';
  spaces?: string[] | 'new';
};

async function createSite(body: SiteBody = {}) {
  return ok(await as('admin').POST('/v1/orgs/{organizationId}/sites', { ...acme, body }), 201);
}
const getSite = async (siteId: string, user: RoleUser = 'admin') =>
  ok(await as(user).GET('/v1/orgs/{organizationId}/sites/{siteId}', site(siteId)));
const siteSpaces = async (siteId: string) =>
  ok(await as('admin').GET('/v1/orgs/{organizationId}/sites/{siteId}/site-spaces', site(siteId))).items;
const listSites = async (query: {
  space?: string;
  title?: string;
  published?: boolean;
  limit?: number;
  page?: string;
}) =>
  ok(await as('reader').GET('/v1/orgs/{organizationId}/sites', { params: { path: { organizationId: ACME }, query } }));

/** The same checks for every operation: 403 below the needed role, 404 outside the organization, 401 without a token. */
function expectGuarded(
  call: (user: RoleUser | 'anonymous') => Promise<{ response: Response; error?: unknown }>,
  tooLow: RoleUser[],
) {
  return async () => {
    for (const user of tooLow) expectError(await call(user), 403);
    expectError(await call('outsider'), 404);
    expectError(await call('anonymous'), 401);
  };
}

describe('POST /v1/orgs/{organizationId}/sites', () => {
  test('creates a site with its defaults, answers 201 with its Location, and reads back the same', async () => {
    const answer = await as('creator').POST('/v1/orgs/{organizationId}/sites', { ...acme, body: {} });
    const created = ok(answer, 201);
    expect(created).toMatchObject({
      object: 'site',
      type: 'basic',
      title: 'Untitled site',
      visibility: 'public',
      published: false,
      siteSpaces: 0,
      createdAt: '2026-03-01T09:00:00.000Z',
      adaptiveContent: { enabled: false },
      agentsContext: 'included',
      features: [],
    });
    expect(created.urls.location).toBe(`${ctx.server.url}/v1/orgs/${ACME}/sites/${created.id}`);
    expect(created.urls.published).toBeUndefined();
    expect(answer.response.headers.get('location')).toBe(created.urls.location);
    expect(await getSite(created.id, 'reader')).toEqual(created);
  });

  test('attaches the given spaces at the root level, in order, the first being the default; the site is then published', async () => {
    const created = await createSite({
      title: 'Developer portal',
      type: 'premium',
      visibility: 'unlisted',
      spaces: ['api', 'guide'],
    } as SiteBody);
    expect(created).toMatchObject({
      title: 'Developer portal',
      type: 'premium',
      visibility: 'unlisted',
      published: true,
      siteSpaces: 2,
    });
    expect(created.urls.published).toMatch(new RegExp(`/public/sites/${created.id}$`));
    const attached = await siteSpaces(created.id);
    expect(attached.map((item) => [item.space.id, item.path, item.default, item.section])).toEqual([
      ['api', 'api-reference', true, undefined],
      ['guide', 'guide', false, undefined],
    ]);
    expect(attached[0]!.hasAdvancedCustomizationFeature).toBe(true);
    expect(await getSite(created.id)).toEqual(created);
  });

  test('"new" creates a fresh space named after the site and attaches it', async () => {
    const created = await createSite({ title: 'Status page', spaces: 'new' });
    const [attached] = await siteSpaces(created.id);
    expect(attached!.space).toMatchObject({ title: 'Status page', organization: ACME });
    const space = ok(
      await as('admin').GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: attached!.space.id } } }),
    );
    expect(space.title).toBe('Status page');
    expect(created.siteSpaces).toBe(1);
  });

  test('rejects bad input with 400 naming the field, and creates nothing', async () => {
    const before = (await listSites({})).count;
    const post = (body: unknown) =>
      as('admin').POST('/v1/orgs/{organizationId}/sites', { ...acme, body: body as SiteBody });
    expectError(await post({ title: 'A' }), 400, 'title');
    expectError(await post({ visibility: 'private' }), 400, 'visibility');
    expectError(await post({ spaces: ['nope'] }), 400, 'spaces', 'nope');
    expectError(await post({ spaces: ['globex-docs'] }), 400, 'spaces', 'globex-docs');
    expectError(await post({ spaces: ['guide', 'guide'] }), 400, 'spaces', 'more than once');
    expectError(await post({ spaces: 'old' }), 400, 'spaces');
    expectError(await post({ title: 'Fine', hostname: 'docs.acme.test' }), 400, 'hostname');
    expect((await listSites({})).count).toBe(before);
  });

  test('refuses a deleted space', async () => {
    const space = ok(
      await as('admin').POST('/v1/orgs/{organizationId}/spaces', { ...acme, body: { title: 'Doomed' } }),
      201,
    );
    expect(
      (await as('admin').DELETE('/v1/spaces/{spaceId}', { params: { path: { spaceId: space.id } } })).response.status,
    ).toBe(204);
    expectError(
      await as('admin').POST('/v1/orgs/{organizationId}/sites', { ...acme, body: { spaces: [space.id] } }),
      400,
      'spaces',
      'deleted',
    );
  });

  test(
    'needs the create role (403), membership (404) and a token (401)',
    expectGuarded(
      (user) => as(user).POST('/v1/orgs/{organizationId}/sites', { ...acme, body: {} }),
      ['reviewer', 'reader', 'guest'],
    ),
  );

  test('answers 404 for an unknown organization', async () => {
    expectError(
      await as('admin').POST('/v1/orgs/{organizationId}/sites', {
        params: { path: { organizationId: 'nope' } },
        body: {},
      }),
      404,
    );
  });
});

describe('GET /v1/orgs/{organizationId}/sites', () => {
  test('lists the sites in creation order, filtered by space, title and published, page by page', async () => {
    ctx.server.clock.advance(1000);
    const one = await createSite({ title: 'Filter One Häfen', spaces: ['blog'] });
    ctx.server.clock.advance(1000);
    const two = await createSite({ title: 'Filter Two' });
    const ids = (list: { items: { id: string }[] }) => list.items.map((item) => item.id);

    expect(ids(await listSites({ title: 'filter' }))).toEqual([one.id, two.id]);
    expect(ids(await listSites({ title: 'HÄFEN' }))).toEqual([one.id]);
    expect(ids(await listSites({ space: 'blog' }))).toEqual([one.id]);
    expect(ids(await listSites({ title: 'filter', published: true }))).toEqual([one.id]);
    expect(ids(await listSites({ title: 'filter', published: false }))).toEqual([two.id]);
    expect(ids(await listSites({ space: 'unknown-space' }))).toEqual([]);

    const first = await listSites({ title: 'filter', limit: 1 });
    expect(first).toMatchObject({ count: 2, items: [{ id: one.id }] });
    const second = await listSites({ title: 'filter', limit: 1, page: first.next!.page });
    expect(second).toMatchObject({ count: 2, items: [{ id: two.id }] });
    expect(second.next).toBeUndefined();
    expectError(
      await as('reader').GET('/v1/orgs/{organizationId}/sites', {
        params: { path: { organizationId: ACME }, query: { title: 'other', page: first.next!.page } },
      }),
      400,
      'page',
    );
  });

  test('each listed site is what reading it alone gives: published or not, with its own count of site spaces', async () => {
    // The list reads whether each site is published and its site spaces for the whole page at once.
    const made = [
      await createSite({ title: 'Twin zero' }),
      await createSite({ title: 'Twin one', spaces: ['guide'] }),
      await createSite({ title: 'Twin two', spaces: ['api', 'blog'] }),
    ];
    // Created at the same instant (the tests' clock stands still): listed in the order of their ids.
    const listed = (await listSites({ title: 'twin ' })).items.sort((a, b) => made.findIndex((m) => m.id === a.id) - made.findIndex((m) => m.id === b.id));
    expect(listed.map((item) => item.id)).toEqual(made.map((item) => item.id));
    for (const item of listed) expect(item, item.title).toEqual(await getSite(item.id, 'reader'));
    expect(listed.map((item) => [item.published, item.siteSpaces])).toEqual([
      [false, 0],
      [true, 1],
      [true, 2],
    ]);
  });

  test('rejects bad parameters with 400 naming them', async () => {
    const get = (query: Record<string, unknown>) =>
      as('reader').GET('/v1/orgs/{organizationId}/sites', { params: { path: { organizationId: ACME }, query } });
    expectError(await get({ limit: 1001 }), 400, 'limit');
    expectError(await get({ title: '' }), 400, 'title');
    expectError(await get({ published: 'maybe' }), 400, 'published');
  });

  test('lists nothing of another organization, and answers 404 for an unknown one', async () => {
    const globex = ok(
      await as('outsider').GET('/v1/orgs/{organizationId}/sites', { params: { path: { organizationId: GLOBEX } } }),
    );
    expect(globex.count).toBe(0);
    expectError(
      await as('admin').GET('/v1/orgs/{organizationId}/sites', { params: { path: { organizationId: 'nope' } } }),
      404,
    );
  });

  test(
    'needs the read role (403), membership (404) and a token (401)',
    expectGuarded((user) => as(user).GET('/v1/orgs/{organizationId}/sites', acme), ['guest']),
  );
});

describe('GET /v1/orgs/{organizationId}/sites/{siteId}', () => {
  test('returns the site to readers', async () => {
    const created = await createSite({ title: 'Readable' });
    expect(await getSite(created.id, 'reader')).toEqual(created);
  });

  test('answers 404 for an unknown site and for a site of another organization', async () => {
    const created = await createSite({ title: 'Acme only' });
    expectError(await as('admin').GET('/v1/orgs/{organizationId}/sites/{siteId}', site('nope')), 404);
    expectError(await as('outsider').GET('/v1/orgs/{organizationId}/sites/{siteId}', site(created.id, GLOBEX)), 404);
  });

  test('needs the read role (403), membership (404) and a token (401)', async () => {
    const created = await createSite({ title: 'Guarded' });
    await expectGuarded(
      (user) => as(user).GET('/v1/orgs/{organizationId}/sites/{siteId}', site(created.id)),
      ['guest'],
    )();
  });
});

describe('PATCH /v1/orgs/{organizationId}/sites/{siteId}', () => {
  const patch = (siteId: string, body: Record<string, unknown>, user: RoleUser = 'creator') =>
    as(user).PATCH('/v1/orgs/{organizationId}/sites/{siteId}', { ...site(siteId), body: body as never });

  test('updates every field, and reads back the same', async () => {
    const created = await createSite({ title: 'Before', spaces: ['guide', 'api'] });
    const [, apiSiteSpace] = await siteSpaces(created.id);
    const updated = ok(
      await patch(created.id, {
        title: 'After',
        visibility: 'share-link',
        basename: 'docs/v2',
        agentsContext: 'excluded',
        adaptiveContent: { enabled: true },
        defaultSiteSpace: apiSiteSpace!.id,
        proxy: 'www.acme.test/Help',
      }),
    );
    expect(updated).toMatchObject({
      title: 'After',
      visibility: 'share-link',
      basename: 'docs/v2',
      agentsContext: 'excluded',
      adaptiveContent: { enabled: true },
      proxy: {
        origin: 'https://www.acme.test/Help',
        target: expect.stringMatching(new RegExp(`/public/sites/${created.id}/docs/v2$`)),
      },
      features: [
        { id: 'sites-adaptive-content', plan: 'basic', frozen: false, customizations: [] },
        { id: 'sites-proxy', plan: 'basic', frozen: false, customizations: [] },
      ],
    });
    // Published at the proxy's address; the share key is shown to those who may manage the site.
    expect(updated.urls.published).toMatch(/^https:\/\/www\.acme\.test\/Help\?shareKey=[\w-]+$/);
    expect(await getSite(created.id, 'creator')).toEqual(updated);
    expect((await getSite(created.id, 'reader')).urls.published).toBe('https://www.acme.test/Help');
    expect((await siteSpaces(created.id)).map((item) => [item.space.id, item.default])).toEqual([
      ['guide', false],
      ['api', true],
    ]);

    const unproxied = ok(await patch(created.id, { proxy: null }));
    expect(unproxied.proxy).toBeUndefined();
    expect(unproxied.urls.published).toMatch(new RegExp(`/public/sites/${created.id}/docs/v2\\?shareKey=`));
  });

  test('makes a section the default, and a site space of the default section its default', async () => {
    const created = await createSite({ title: 'Sectioned' });
    const sections = `/v1/orgs/{organizationId}/sites/{siteId}/sections` as const;
    const first = ok(await as('admin').POST(sections, { ...site(created.id), body: { spaceId: 'guide' } }), 201);
    const second = ok(await as('admin').POST(sections, { ...site(created.id), body: { spaceId: 'api' } }), 201);
    const extra = ok(
      await as('admin').POST('/v1/orgs/{organizationId}/sites/{siteId}/site-spaces', {
        ...site(created.id),
        body: { spaceId: 'blog', sectionId: second.id },
      }),
      201,
    );
    expectError(await patch(created.id, { defaultSiteSpace: extra.id }), 400, 'defaultSiteSpace', 'default section');
    ok(await patch(created.id, { defaultSiteSection: second.id, defaultSiteSpace: extra.id }));
    const list = ok(await as('admin').GET(sections, site(created.id))).items;
    expect(
      list.map((section) => [
        section.id,
        section.default,
        section.siteSpaces.map((item) => [item.space.id, item.default]),
      ]),
    ).toEqual([
      [first.id, false, [['guide', true]]],
      [
        second.id,
        true,
        [
          ['api', false],
          ['blog', true],
        ],
      ],
    ]);
  });

  test('rejects bad input with 400 naming the field, and changes nothing', async () => {
    const created = await createSite({ title: 'Untouched', spaces: ['guide'] });
    const other = await createSite({ title: 'Proxied' });
    ok(await patch(other.id, { proxy: 'docs.acme.test/taken' }));
    expectError(await patch(created.id, { title: 'X' }), 400, 'title');
    expectError(await patch(created.id, { proxy: 'not a proxy' }), 400, 'proxy');
    expectError(await patch(created.id, { proxy: 'docs.acme.test/taken' }), 409, 'proxy', 'another site');
    expectError(await patch(created.id, { basename: 'docs v2' }), 400, 'basename');
    expectError(await patch(created.id, { agentsContext: 'sometimes' }), 400, 'agentsContext');
    expectError(await patch(created.id, { defaultSiteSection: 'nope' }), 400, 'defaultSiteSection');
    expectError(await patch(created.id, { title: 'Valid title', defaultSiteSpace: 'nope' }), 400, 'defaultSiteSpace');
    expectError(await patch(created.id, { published: true }), 400, 'published');
    expect(await getSite(created.id)).toEqual(created);
  });

  test('answers 404 for an unknown site', async () => {
    expectError(await patch('nope', { title: 'Nope' }), 404);
  });

  test('needs the create role (403), membership (404) and a token (401)', async () => {
    const created = await createSite({ title: 'Guarded' });
    await expectGuarded(
      (user) => patch(created.id, { title: 'Nope' }, user as RoleUser),
      ['reviewer', 'reader', 'guest'],
    )();
    expect((await getSite(created.id)).title).toBe('Guarded');
  });
});

describe('DELETE /v1/orgs/{organizationId}/sites/{siteId}', () => {
  const remove = (siteId: string, user: RoleUser | 'anonymous' = 'creator') =>
    as(user).DELETE('/v1/orgs/{organizationId}/sites/{siteId}', site(siteId));

  test('deletes the site with its structure, and no longer names it the default content; 204 again when gone', async () => {
    const created = await createSite({ title: 'Doomed', spaces: ['guide'] });
    ok(
      await as('admin').POST('/v1/orgs/{organizationId}/sites/{siteId}/sections', {
        ...site(created.id),
        body: { spaceId: 'api' },
      }),
      201,
    );
    ok(
      await as('admin').POST('/v1/orgs/{organizationId}/sites/{siteId}/section-groups', {
        ...site(created.id),
        body: { title: 'Group' },
      }),
      201,
    );
    ok(
      await as('admin').PATCH('/v1/orgs/{organizationId}', {
        ...acme,
        body: { defaultContent: { type: 'site', site: created.id } },
      }),
    );

    expect((await remove(created.id)).response.status).toBe(204);
    expectError(await as('admin').GET('/v1/orgs/{organizationId}/sites/{siteId}', site(created.id)), 404);
    expectError(await as('admin').GET('/v1/orgs/{organizationId}/sites/{siteId}/site-spaces', site(created.id)), 404);
    const db = ctx.server.running.ctx.store.reader;
    for (const table of ['site_sections', 'site_section_groups', 'site_spaces']) {
      expect(await db.first(sql`SELECT COUNT(*) AS n FROM ${sql.table(table)} WHERE site_id = ${created.id}`)).toEqual({ n: 0 });
    }
    expect(ok(await as('admin').GET('/v1/orgs/{organizationId}', acme)).defaultContent).toBeUndefined();
    expect((await remove(created.id)).response.status).toBe(204);
    expect((await remove('never-existed')).response.status).toBe(204);
  });

  test('needs the create role (403), membership (404) and a token (401)', async () => {
    const created = await createSite({ title: 'Kept' });
    await expectGuarded((user) => remove(created.id, user), ['reviewer', 'reader', 'guest'])();
    expect((await getSite(created.id)).title).toBe('Kept');
  });
});

describe('the adaptive schema', () => {
  const schemaPath = '/v1/orgs/{organizationId}/sites/{siteId}/adaptive-schema' as const;
  const put = (siteId: string, jsonSchema: unknown, user: RoleUser = 'creator') =>
    as(user).PUT(schemaPath, { ...site(siteId), body: { jsonSchema } as never });
  const claims = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: {
      isBeta: { type: 'boolean', description: 'Visitor is in the beta program' },
      unsigned: {
        type: 'object',
        description: 'Unsigned claims',
        properties: { prefersDark: { type: 'boolean', description: 'Visitor prefers the dark theme' } },
        additionalProperties: false,
      },
    },
    additionalProperties: false,
  };

  test('a site starts with an empty schema; PUT replaces it and GET reads it back', async () => {
    const created = await createSite({ title: 'Adaptive' });
    expect(ok(await as('reader').GET(schemaPath, site(created.id)))).toEqual({
      object: 'site-adaptive-schema',
      jsonSchema: { type: 'object', properties: {}, additionalProperties: false },
    });
    ctx.server.clock.advance(60_000);
    const replaced = ok(await put(created.id, claims));
    expect(replaced).toEqual({
      object: 'site-adaptive-schema',
      jsonSchema: claims,
      updatedAt: ctx.server.clock.now().toISOString(),
    });
    expect(ok(await as('reader').GET(schemaPath, site(created.id)))).toEqual(replaced);
  });

  test('template conditions are derived from the claims', async () => {
    const created = await createSite({ title: 'Templates' });
    const templates = `${schemaPath}/template-conditions` as const;
    expect(ok(await as('reader').GET(templates, site(created.id)))).toEqual({ items: [] });
    ok(await put(created.id, claims));
    expect(ok(await as('reader').GET(templates, site(created.id)))).toEqual({
      items: [
        { description: 'Visitor is in the beta program', condition: 'visitor.claims.isBeta == true' },
        { description: 'Visitor prefers the dark theme', condition: 'visitor.claims.unsigned.prefersDark == true' },
      ],
    });
  });

  test('rejects what is not a schema of boolean claims with 400 naming the field, and keeps the schema', async () => {
    const created = await createSite({ title: 'Strict' });
    ok(await put(created.id, claims));
    const before = ok(await as('admin').GET(schemaPath, site(created.id)));
    const withProperties = (properties: unknown) => ({ ...claims, properties });
    expectError(
      await put(created.id, withProperties({ plan: { type: 'string', description: 'Plan' } })),
      400,
      'jsonSchema.properties',
    );
    expectError(await put(created.id, { ...claims, required: ['isBeta'] }), 400, 'jsonSchema.required');
    expectError(
      await put(created.id, { ...claims, additionalProperties: true }),
      400,
      'jsonSchema.additionalProperties',
    );
    expectError(
      await put(created.id, { ...claims, $schema: 'https://json-schema.org/draft/2020-12/schema' }),
      400,
      '$schema',
    );
    expectError(
      await put(
        created.id,
        withProperties({ unsigned: { type: 'object', properties: { n: { type: 'number', description: 'n' } } } }),
      ),
      400,
      'jsonSchema.properties',
    );
    expectError(
      await put(created.id, withProperties({ 'is-beta': { type: 'boolean', description: 'Beta' } })),
      400,
      'jsonSchema.properties.is-beta',
    );
    expectError(
      await as('creator').PUT(schemaPath, {
        ...site(created.id),
        body: { object: 'site-adaptive-schema', jsonSchema: claims } as never,
      }),
      400,
      'object',
    );
    expect(ok(await as('admin').GET(schemaPath, site(created.id)))).toEqual(before);
  });

  test('answers 404 for an unknown site', async () => {
    expectError(await as('admin').GET(schemaPath, site('nope')), 404);
    expectError(await put('nope', claims), 404);
    expectError(await as('admin').GET(`${schemaPath}/template-conditions`, site('nope')), 404);
  });

  test('reading needs the read role, replacing needs the create role; membership (404) and a token (401)', async () => {
    const created = await createSite({ title: 'Guarded schema' });
    await expectGuarded((user) => as(user).GET(schemaPath, site(created.id)), ['guest'])();
    await expectGuarded((user) => as(user).GET(`${schemaPath}/template-conditions`, site(created.id)), ['guest'])();
    await expectGuarded((user) => put(created.id, claims, user as RoleUser), ['reviewer', 'reader', 'guest'])();
    expect(ok(await as('admin').GET(schemaPath, site(created.id))).updatedAt).toBeUndefined();
  });
});

describe('GET /v1/orgs/{organizationId}/sites/{siteId}/published', () => {
  const published = (siteId: string, user: RoleUser | 'anonymous', shareKey?: string) =>
    as(user).GET('/v1/orgs/{organizationId}/sites/{siteId}/published', {
      params: { path: { organizationId: ACME, siteId }, ...(shareKey !== undefined ? { query: { shareKey } } : {}) },
    });
  const keyOf = (url: string | undefined) => new URL(url!).searchParams.get('shareKey')!;

  test('answers 404 while the site is not published, to everyone', async () => {
    const created = await createSite({ title: 'Draft' });
    expectError(await published(created.id, 'admin'), 404);
    expectError(await published(created.id, 'outsider'), 404);
  });

  test('shows a public site and its site spaces to anyone with a token', async () => {
    const created = await createSite({ title: 'Open', spaces: ['guide', 'api'] });
    const view = ok(await published(created.id, 'outsider'));
    expect(view.object).toBe('published-content-site');
    expect(view.site).toMatchObject({ id: created.id, published: true });
    expect(view.structure.type).toBe('siteSpaces');
    expect(view.structure.structure.map((item) => (item as { space: { id: string } }).space.id)).toEqual([
      'guide',
      'api',
    ]);
    expect(ok(await published(created.id, 'reader'))).toMatchObject({ structure: { type: 'siteSpaces' } });
    expectError(await published(created.id, 'anonymous'), 401);
  });

  test('shows the sections of a sectioned site, in order', async () => {
    const created = await createSite({ title: 'With sections', spaces: ['guide'] });
    const sections = '/v1/orgs/{organizationId}/sites/{siteId}/sections' as const;
    ok(await as('admin').POST(sections, { ...site(created.id), body: { spaceId: 'api', title: 'Reference' } }), 201);
    const view = ok(await published(created.id, 'outsider'));
    expect(view.structure.type).toBe('sections');
    const structure = view.structure.structure as {
      title: string;
      default?: boolean;
      siteSpaces: { space: { id: string } }[];
    }[];
    expect(
      structure.map((section) => [section.title, section.default, section.siteSpaces.map((item) => item.space.id)]),
    ).toEqual([['Reference', true, ['api', 'guide']]]);
  });

  test('a share-link site needs its share key, which its managers find in urls.published', async () => {
    const created = await createSite({ title: 'Secret', visibility: 'share-link', spaces: ['guide'] });
    const key = keyOf((await getSite(created.id, 'creator')).urls.published);
    expect(key).toBeTruthy();
    expect((await getSite(created.id, 'reader')).urls.published).not.toContain('shareKey');

    expectError(await published(created.id, 'outsider'), 404);
    expectError(await published(created.id, 'outsider', 'wrong-key'), 404);
    const view = ok(await published(created.id, 'outsider', key));
    expect(view.site.id).toBe(created.id);
    expect(view.site.urls.published).not.toContain('shareKey');
    // Members who may read the site reach it without the key.
    ok(await published(created.id, 'reader'));
    // The key opens the structure lists too, not the management of the site.
    ok(
      await as('outsider').GET('/v1/orgs/{organizationId}/sites/{siteId}/site-spaces', {
        ...site(created.id),
        params: { ...site(created.id).params, query: { shareKey: key } },
      }),
    );
    expectError(await as('outsider').GET('/v1/orgs/{organizationId}/sites/{siteId}', site(created.id)), 404);
  });

  test('a visitor-auth site is shown to members only', async () => {
    const created = await createSite({ title: 'Members', visibility: 'visitor-auth', spaces: ['guide'] });
    ok(await published(created.id, 'reader'));
    expectError(await published(created.id, 'outsider'), 404);
    expectError(await published(created.id, 'guest'), 404);
  });

  test('leaves out the site spaces of deleted spaces; a site left without live spaces is unpublished', async () => {
    const space = ok(
      await as('admin').POST('/v1/orgs/{organizationId}/spaces', { ...acme, body: { title: 'Ephemeral' } }),
      201,
    );
    const created = await createSite({ title: 'Fragile', spaces: ['guide', space.id] });
    const only = await createSite({ title: 'Only ephemeral', spaces: [space.id] });
    expect(
      (await as('admin').DELETE('/v1/spaces/{spaceId}', { params: { path: { spaceId: space.id } } })).response.status,
    ).toBe(204);

    const view = ok(await published(created.id, 'outsider'));
    expect(view.structure.structure.map((item) => (item as { space: { id: string } }).space.id)).toEqual(['guide']);
    expect((await siteSpaces(created.id)).map((item) => item.space.id)).toEqual(['guide', space.id]);
    expect(await getSite(only.id)).toMatchObject({ published: false, siteSpaces: 1 });
    expectError(await published(only.id, 'admin'), 404);
    ok(await as('admin').POST('/v1/spaces/{spaceId}/restore', { params: { path: { spaceId: space.id } } }));
    expect((await getSite(only.id)).published).toBe(true);
  });

  test('answers 404 for an unknown site', async () => {
    expectError(await published('nope', 'admin'), 404);
  });
});

describe('persistence', () => {
  test('sites, their settings and their adaptive schema survive a restart', async () => {
    const created = await createSite({ title: 'Durable', visibility: 'unlisted', spaces: ['guide', 'api'] });
    ok(
      await as('admin').PATCH('/v1/orgs/{organizationId}/sites/{siteId}', {
        ...site(created.id),
        body: { basename: 'kb', agentsContext: 'excluded' },
      }),
    );
    const schema = {
      type: 'object',
      properties: { staff: { type: 'boolean', description: 'Staff' } },
      additionalProperties: false,
    };
    ok(
      await as('admin').PUT('/v1/orgs/{organizationId}/sites/{siteId}/adaptive-schema', {
        ...site(created.id),
        body: { jsonSchema: schema } as never,
      }),
    );
    const before = {
      site: await getSite(created.id),
      spaces: (await siteSpaces(created.id)).map((item) => [item.id, item.path, item.default]),
    };

    await ctx.server.restart();

    const after = await getSite(created.id);
    expect({ ...after, urls: undefined }).toEqual({ ...before.site, urls: undefined });
    expect((await siteSpaces(created.id)).map((item) => [item.id, item.path, item.default])).toEqual(before.spaces);
    expect(
      ok(await as('admin').GET('/v1/orgs/{organizationId}/sites/{siteId}/adaptive-schema', site(created.id)))
        .jsonSchema,
    ).toEqual(schema);
  });
});

// A site's site spaces (/v1/orgs/{organizationId}/sites/{siteId}/site-spaces): where a new one goes (the section
// given, the default section, the root level), one space once per section, the list filtered on defaults, changes,
// deletion (the next one becoming the default), moves within a section, and a space leaving the sites of an
// organization when it is transferred to another or permanently removed.
import { describe, expect, test } from 'vitest';
import { ACME, GLOBEX } from '../support/fixture.ts';
import { expectError, ok } from '../support/expect.ts';
import { at, SITE_SPACE, SITE_SPACE_MOVE, SITE_SPACES, SITES, SORT, useSiteStructureServer } from '../support/site-structure.ts';

const { ctx, as, admin, newSite, addSection, addSiteSpace, siteSpacesOf, outline } = useSiteStructureServer();

describe('site spaces', () => {
  test('a site space goes to the section given, else to the default section, else to the root level', async () => {
    const siteId = await newSite();
    const root = await addSiteSpace(siteId, 'guide');
    expect(root).toMatchObject({
      object: 'site-space',
      path: 'guide',
      title: 'Guide',
      default: true,
      space: { id: 'guide', object: 'space' },
    });
    expect(root.section).toBeUndefined();
    const first = await addSection(siteId, 'api');
    const second = await addSection(siteId, 'blog');
    ok(
      await admin().PATCH('/v1/orgs/{organizationId}/sites/{siteId}', {
        ...at(siteId),
        body: { defaultSiteSection: second.id },
      }),
    );
    const toDefault = await addSiteSpace(siteId, 'faq');
    expect(toDefault).toMatchObject({ section: second.id, default: false });
    const explicit = ok(
      await as('creator').POST(SITE_SPACES, { ...at(siteId), body: { spaceId: 'faq', sectionId: first.id } }),
      201,
    );
    expect(explicit.section).toBe(first.id);
    expect(await outline(siteId)).toEqual(['api-reference: api* guide faq', 'blog*: blog* faq']);
  });

  test('a space is attached once per section (409); bad references are a 400; nothing changes', async () => {
    const siteId = await newSite(['guide']);
    const deleted = ok(
      await admin().POST('/v1/orgs/{organizationId}/spaces', {
        params: { path: { organizationId: ACME } },
        body: { title: 'Gone' },
      }),
      201,
    );
    ok(await admin().DELETE('/v1/spaces/{spaceId}', { params: { path: { spaceId: deleted.id } } }));
    const post = (body: unknown) => admin().POST(SITE_SPACES, { ...at(siteId), body: body as { spaceId: string } });
    expectError(await post({ spaceId: 'guide' }), 409, 'spaceId', 'already attached');
    expectError(await post({ spaceId: 'nope' }), 400, 'spaceId');
    expectError(await post({ spaceId: 'globex-docs' }), 400, 'spaceId');
    expectError(await post({ spaceId: deleted.id }), 400, 'spaceId', 'deleted');
    expectError(await post({ spaceId: 'api', sectionId: 'nope' }), 400, 'sectionId');
    expectError(await post({ spaceId: 'api', path: 'mine' }), 400, 'path');
    expect(await outline(siteId)).toEqual(['root: guide*']);
  });

  test('lists the site spaces, filtered on being the default, page by page', async () => {
    const siteId = await newSite();
    const first = await addSection(siteId, 'guide');
    await addSiteSpace(siteId, 'api', first.id);
    await addSection(siteId, 'blog');
    const get = async (query: { default?: boolean; limit?: number; page?: string }) =>
      ok(await as('reader').GET(SITE_SPACES, { params: { path: { organizationId: ACME, siteId }, query } }));
    expect((await get({})).items.map((item) => item.space.id)).toEqual(['guide', 'api', 'blog']);
    expect((await get({ default: true })).items.map((item) => item.space.id)).toEqual(['guide', 'blog']);
    expect((await get({ default: false })).items.map((item) => item.space.id)).toEqual(['api']);
    const page = await get({ limit: 2 });
    expect(page.count).toBe(3);
    expect((await get({ limit: 2, page: page.next!.page })).items.map((item) => item.space.id)).toEqual(['blog']);
    expectError(
      await as('reader').GET(SITE_SPACES, {
        params: { path: { organizationId: ACME, siteId }, query: { default: 'yes' as never } },
      }),
      400,
      'default',
    );
  });

  test('updates the path, the condition (null removes it) and the space, and reads back the same', async () => {
    const siteId = await newSite(['guide', 'api']);
    const [guide] = await siteSpacesOf(siteId);
    const patch = (body: unknown, id = guide!.id) =>
      as('creator').PATCH(SITE_SPACE, { ...at(siteId, { siteSpaceId: id }), body: body as { path: string } });
    const updated = ok(await patch({ path: 'start', condition: 'visitor.claims.beta == true', spaceId: 'blog' }));
    expect(updated).toMatchObject({
      id: guide!.id,
      path: 'start',
      condition: 'visitor.claims.beta == true',
      title: 'Blog',
      default: true,
      space: { id: 'blog' },
    });
    expect((await siteSpacesOf(siteId, 'creator'))[0]).toEqual(updated);
    const cleared = ok(await patch({ condition: null }));
    expect(cleared).not.toHaveProperty('condition');
    expect(cleared.path).toBe('start');
  });

  test('updating rejects bad input with 400, a taken path or an attached space with 409, and changes nothing', async () => {
    const siteId = await newSite(['guide', 'api']);
    const [guide, api] = await siteSpacesOf(siteId);
    const patch = (body: unknown, id = guide!.id) =>
      admin().PATCH(SITE_SPACE, { ...at(siteId, { siteSpaceId: id }), body: body as { path: string } });
    expectError(await patch({ path: 'a/b' }), 400, 'path');
    expectError(await patch({ path: 'p'.repeat(101) }), 400, 'path');
    expectError(await patch({ spaceId: 'nope' }), 400, 'spaceId');
    expectError(await patch({ condition: 'c'.repeat(1025) }), 400, 'condition');
    expectError(await patch({ path: api!.path }), 409, 'path');
    expectError(await patch({ spaceId: 'api' }), 409, 'spaceId');
    expectError(await patch({ path: 'fine' }, 'nope'), 404);
    expect(await siteSpacesOf(siteId)).toEqual([guide, api]);
  });

  test('deleting the default site space makes the next one the default; 204 again when gone', async () => {
    const siteId = await newSite(['guide', 'api', 'blog']);
    const [guide, api] = await siteSpacesOf(siteId);
    ok(await admin().POST(SITE_SPACE_MOVE, { ...at(siteId, { siteSpaceId: api!.id }), body: { position: {} } }));
    expect(await outline(siteId)).toEqual(['root: guide* blog api']);
    const remove = () => as('creator').DELETE(SITE_SPACE, at(siteId, { siteSpaceId: guide!.id }));
    expect((await remove()).response.status).toBe(204);
    expect(await outline(siteId)).toEqual(['root: blog* api']);
    expect((await remove()).response.status).toBe(204);
    expect(ok(await admin().GET('/v1/orgs/{organizationId}/sites/{siteId}', at(siteId))).siteSpaces).toBe(2);
  });

  test('moves a site space among the site spaces of its section only', async () => {
    const siteId = await newSite();
    const first = await addSection(siteId, 'guide');
    const api = await addSiteSpace(siteId, 'api', first.id);
    const second = await addSection(siteId, 'blog');
    const move = (id: string, position: object) =>
      as('creator').POST(SITE_SPACE_MOVE, { ...at(siteId, { siteSpaceId: id }), body: { position } as never });
    const moved = ok(await move(api.id, { before: { type: 'site-space', siteSpace: first.siteSpaces[0]!.id } }));
    expect(moved).toMatchObject({ id: api.id, default: false });
    expect(await outline(siteId)).toEqual(['guide*: api guide*', 'blog: blog*']);
    expectError(await move(api.id, { before: { type: 'site-space', siteSpace: first.siteSpaces[0]!.id } }), 409);
    expectError(
      await move(api.id, { after: { type: 'site-space', siteSpace: second.siteSpaces[0]!.id } }),
      400,
      'position.after.siteSpace',
    );
    expectError(
      await move(api.id, { after: { type: 'site-section', siteSpace: first.id } }),
      400,
      'position.after.type',
    );
    expectError(await move('nope', {}), 404);
    expect(await outline(siteId)).toEqual(['guide*: api guide*', 'blog: blog*']);
  });
});

test('a space transferred to another organization leaves the sites of its old one', async () => {
  const moving = ok(
    await as('bridge').POST('/v1/orgs/{organizationId}/spaces', {
      params: { path: { organizationId: ACME } },
      body: { title: 'Moving' },
    }),
    201,
  );
  const siteId = await newSite([moving.id, 'guide']);
  ok(
    await as('bridge').POST('/v1/spaces/{spaceId}/transfer', {
      params: { path: { spaceId: moving.id } },
      body: { organization: GLOBEX },
    }),
  );
  expect(await outline(siteId)).toEqual(['root: guide*']);
  expect(ok(await admin().GET('/v1/orgs/{organizationId}/sites/{siteId}', at(siteId))).siteSpaces).toBe(1);
  const listed = ok(
    await admin().GET(SITES, { params: { path: { organizationId: ACME }, query: { space: moving.id } } }),
  );
  expect(listed.count).toBe(0);

  ok(
    await as('bridge').POST('/v1/spaces/{spaceId}/transfer', {
      params: { path: { spaceId: moving.id } },
      body: { organization: ACME },
    }),
  );
  expect(await outline(siteId)).toEqual(['root: guide*']);
  await addSiteSpace(siteId, moving.id);
  expect(await outline(siteId)).toEqual([`root: guide* ${moving.id}`]);
});

test('a permanently removed space leaves the site, and the next site space becomes the default', async () => {
  const doomed = ok(
    await admin().POST('/v1/orgs/{organizationId}/spaces', {
      params: { path: { organizationId: ACME } },
      body: { title: 'Doomed' },
    }),
    201,
  );
  const siteId = await newSite([doomed.id, 'guide', 'api']);
  ok(await admin().DELETE('/v1/spaces/{spaceId}', { params: { path: { spaceId: doomed.id } } }));
  expect(await outline(siteId)).toEqual([`root: ${doomed.id}* guide api`]);
  ctx.server.clock.advance(8 * 24 * 60 * 60 * 1000);
  ok(await admin().DELETE('/v1/spaces/{spaceId}', { params: { path: { spaceId: doomed.id } } })); // purges it
  expect(await outline(siteId)).toEqual(['root: guide* api']);
  const [guide] = await siteSpacesOf(siteId);
  ok(await admin().PATCH(SORT, { ...at(siteId), body: { item: { type: 'site-space', id: guide!.id }, position: {} } }));
  expect(await outline(siteId)).toEqual(['root: api guide*']);
});

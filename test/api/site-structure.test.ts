import { describe, expect, test } from 'vitest';
import type { RoleUser } from '../support/fixture.ts';
import { ACME, extendFixture, GLOBEX } from '../support/fixture.ts';
import { expectError, ok } from '../support/expect.ts';
import { useTestServer } from '../support/server.ts';

// `bridge` administers both organizations, to move spaces between them.
const fixture = extendFixture({
  bridge: true,
  acme: {
    spaces: [
      { id: 'guide', title: 'Guide' },
      { id: 'api', title: 'API Reference' },
      { id: 'blog', title: 'Blog' },
      { id: 'faq', title: 'FAQ' },
      { id: 'x', title: 'X' },
    ],
  },
  globex: { spaces: [{ id: 'globex-docs', title: 'Globex Docs' }] },
});

const ctx = useTestServer({ fixture });
const as = (user: RoleUser | 'bridge' | 'anonymous') => ctx.server.as(user as RoleUser);
const admin = () => as('admin');

const SITES = '/v1/orgs/{organizationId}/sites' as const;
const SECTIONS = '/v1/orgs/{organizationId}/sites/{siteId}/sections' as const;
const SECTION = '/v1/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}' as const;
const SECTION_MOVE = '/v1/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}/move' as const;
const SORT = '/v1/orgs/{organizationId}/sites/{siteId}/structure/sort' as const;
const GROUPS = '/v1/orgs/{organizationId}/sites/{siteId}/section-groups' as const;
const GROUP = '/v1/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}' as const;
const GROUP_SECTIONS = '/v1/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/sections' as const;
const GROUP_SECTION =
  '/v1/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/sections/{siteSectionId}' as const;
const GROUP_MOVE = '/v1/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/move' as const;
const SITE_SPACES = '/v1/orgs/{organizationId}/sites/{siteId}/site-spaces' as const;
const SITE_SPACE = '/v1/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}' as const;
const SITE_SPACE_MOVE = '/v1/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}/move' as const;

/** Path parameters of a site, plus the ids of the item addressed. */
const at = <Extra extends Record<string, string>>(siteId: string, extra?: Extra) => ({
  params: { path: { organizationId: ACME, siteId, ...(extra as Extra) } },
});

type Visibility = 'public' | 'unlisted' | 'share-link' | 'visitor-auth';

async function newSite(spaces: string[] = [], visibility: Visibility = 'public') {
  return ok(
    await admin().POST(SITES, { params: { path: { organizationId: ACME } }, body: { spaces, visibility } }),
    201,
  ).id;
}
async function addSection(siteId: string, spaceId: string, title?: string) {
  return ok(await admin().POST(SECTIONS, { ...at(siteId), body: { spaceId, ...(title ? { title } : {}) } }), 201);
}
async function addSiteSpace(siteId: string, spaceId: string, sectionId?: string) {
  return ok(
    await admin().POST(SITE_SPACES, { ...at(siteId), body: { spaceId, ...(sectionId ? { sectionId } : {}) } }),
    201,
  );
}
async function addGroup(siteId: string, title: string, sections: string[] = []) {
  return ok(await admin().POST(GROUPS, { ...at(siteId), body: { title, sections } }), 201);
}
const sectionsOf = async (siteId: string, user: RoleUser = 'admin') =>
  ok(await as(user).GET(SECTIONS, at(siteId))).items;
const siteSpacesOf = async (siteId: string, user: RoleUser = 'admin') =>
  ok(await as(user).GET(SITE_SPACES, at(siteId))).items;
const groupsOf = async (siteId: string, user: RoleUser = 'admin') => ok(await as(user).GET(GROUPS, at(siteId))).items;

/**
 * The whole structure, one line per section in order (`*` marks defaults, the group in parentheses), or one line for
 * the root level; also checks that the site-space list agrees with the sections and the groups list.
 */
async function outline(siteId: string): Promise<string[]> {
  const [sections, siteSpaces, groups] = [await sectionsOf(siteId), await siteSpacesOf(siteId), await groupsOf(siteId)];
  const mark = (item: { default?: boolean }) => (item.default ? '*' : '');
  const spaces = (items: { space: { id: string }; default: boolean }[]) =>
    items.map((item) => `${item.space.id}${mark(item)}`).join(' ');
  const groupTitle = new Map(groups.map((group) => [group.id, group.title]));
  expect(siteSpaces.map((item) => item.id)).toEqual(
    sections.length > 0
      ? sections.flatMap((section) => section.siteSpaces.map((item) => item.id))
      : siteSpaces.map((item) => item.id),
  );
  for (const group of groups) {
    expect(group.sections.map((section) => section.id)).toEqual(
      sections.filter((section) => section.sectionGroup === group.id).map((section) => section.id),
    );
  }
  if (sections.length === 0) return siteSpaces.length > 0 ? [`root: ${spaces(siteSpaces)}`] : [];
  expect(sections.filter((section) => section.default)).toHaveLength(1);
  return sections.map(
    (section) =>
      `${section.path}${mark(section)}${section.sectionGroup ? ` (${groupTitle.get(section.sectionGroup)})` : ''}: ${spaces(section.siteSpaces)}`,
  );
}

describe('POST .../sites/{siteId}/sections', () => {
  test('the first section takes in the root site spaces after its own space, which is its default', async () => {
    const siteId = await newSite(['guide', 'api']);
    expect(await outline(siteId)).toEqual(['root: guide* api']);
    const section = await addSection(siteId, 'blog');
    expect(section).toMatchObject({ object: 'site-section', title: 'Blog', path: 'blog', default: true });
    expect(section.siteSpaces.map((item) => [item.space.id, item.section, item.default])).toEqual([
      ['blog', section.id, true],
      ['guide', section.id, false],
      ['api', section.id, false],
    ]);
    expect(await outline(siteId)).toEqual(['blog*: blog* guide api']);
  });

  test('a first section on a space already at the root level moves that site space to its front', async () => {
    const siteId = await newSite(['guide', 'api']);
    const [, apiSiteSpace] = await siteSpacesOf(siteId);
    const section = await addSection(siteId, 'api', 'Docs');
    expect(section.siteSpaces.map((item) => item.id)[0]).toBe(apiSiteSpace!.id);
    expect(await outline(siteId)).toEqual(['docs*: api* guide']);
  });

  test('later sections are not the default; paths come from titles and are made unique', async () => {
    const siteId = await newSite();
    await addSection(siteId, 'guide', 'Guides');
    const second = ok(
      await admin().POST(SECTIONS, { ...at(siteId), body: { spaceId: 'api', title: 'Guides', icon: 'book' } }),
      201,
    );
    expect(second).toMatchObject({ title: 'Guides', path: 'guides-2', icon: 'book', default: false });
    expect(second.urls.published).toMatch(/\/guides-2$/);
    expect(second.siteSpaces[0]!.urls.published).toMatch(/\/guides-2\/api-reference$/);
    expect((await sectionsOf(siteId))[1]).toEqual(second);
    expect(await outline(siteId)).toEqual(['guides*: guide*', 'guides-2: api*']);
  });

  test('rejects bad input with 400 naming the field, and changes nothing', async () => {
    const siteId = await newSite(['guide']);
    const post = (body: unknown) => admin().POST(SECTIONS, { ...at(siteId), body: body as { spaceId: string } });
    expectError(await post({ spaceId: 'nope' }), 400, 'spaceId', 'nope');
    expectError(await post({ spaceId: 'globex-docs' }), 400, 'spaceId');
    expectError(await post({ spaceId: 'x' }), 400, 'title', 'too short');
    expectError(await post({ spaceId: 'api', title: 'A' }), 400, 'title');
    expectError(await post({ spaceId: 'api', icon: 'i'.repeat(51) }), 400, 'icon');
    expectError(await post({ title: 'No space' }), 400, 'spaceId');
    expect(await outline(siteId)).toEqual(['root: guide*']);
  });
});

describe('GET .../sites/{siteId}/sections', () => {
  test('each space a list of sections or site spaces shows is what reading the space gives, for each caller', async () => {
    // The lists present the spaces of a page at once (their counters and the caller's roles in one query each).
    const siteId = await newSite();
    const first = await addSection(siteId, 'guide', 'First');
    await addSiteSpace(siteId, 'api', first.id);
    await addSection(siteId, 'blog', 'Second');
    for (const user of ['admin', 'reader'] as const) {
      const spaces = [
        ...(await sectionsOf(siteId, user)).flatMap((section) => section.siteSpaces.map((siteSpace) => siteSpace.space)),
        ...(await siteSpacesOf(siteId, user)).map((siteSpace) => siteSpace.space),
      ];
      expect(spaces.map((space) => space.id).sort()).toEqual(['api', 'api', 'blog', 'blog', 'guide', 'guide']);
      for (const space of spaces) {
        expect(space, `${user} ${space.id}`).toEqual(ok(await as(user).GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: space.id } } })));
      }
    }
  });

  test('lists the sections in the order of the structure, page by page', async () => {
    const siteId = await newSite();
    const [one, two, three] = [
      await addSection(siteId, 'guide'),
      await addSection(siteId, 'api'),
      await addSection(siteId, 'blog'),
    ];
    const first = ok(
      await admin().GET(SECTIONS, { params: { path: { organizationId: ACME, siteId }, query: { limit: 2 } } }),
    );
    expect(first).toMatchObject({ count: 3, items: [{ id: one.id }, { id: two.id }] });
    const second = ok(
      await admin().GET(SECTIONS, {
        params: { path: { organizationId: ACME, siteId }, query: { limit: 2, page: first.next!.page } },
      }),
    );
    expect(second.items.map((item) => item.id)).toEqual([three.id]);
    expect(second.next).toBeUndefined();
    expectError(
      await admin().GET(SECTIONS, { params: { path: { organizationId: ACME, siteId }, query: { limit: 0 } } }),
      400,
      'limit',
    );
  });

  test('opens to anyone holding the share key of a published share-link site', async () => {
    const siteId = await newSite(['guide'], 'share-link');
    await addSection(siteId, 'api');
    const key = new URL(
      ok(await admin().GET('/v1/orgs/{organizationId}/sites/{siteId}', at(siteId))).urls.published!,
    ).searchParams.get('shareKey')!;
    const withKey = (shareKey: string) => ({ params: { path: { organizationId: ACME, siteId }, query: { shareKey } } });
    const visible = ok(await as('outsider').GET(SECTIONS, withKey(key)));
    expect(visible.items.map((section) => section.title)).toEqual(['API Reference']);
    expect(visible.items[0]!.siteSpaces[0]!.space.permissions.view).toBe(false);
    ok(await as('guest').GET(SECTIONS, withKey(key)));
    expectError(await as('outsider').GET(SECTIONS, withKey('wrong')), 404);
    expectError(await as('guest').GET(SECTIONS, withKey('wrong')), 403);
    // The key is no way into the management of the site.
    expectError(
      await as('outsider').PATCH(SECTION, {
        ...at(siteId, { siteSectionId: visible.items[0]!.id }),
        body: { title: 'Hacked' },
      }),
      404,
    );
  });
});

describe('PATCH .../sections/{siteSectionId}', () => {
  test('updates every field, null removes the condition, icon and description, and reads back the same', async () => {
    const siteId = await newSite();
    const section = await addSection(siteId, 'guide');
    const other = await addSiteSpace(siteId, 'api', section.id);
    const updated = ok(
      await as('creator').PATCH(SECTION, {
        ...at(siteId, { siteSectionId: section.id }),
        body: {
          title: 'Handbook',
          path: 'handbook',
          defaultSiteSpace: other.id,
          condition: 'visitor.claims.staff == true',
          icon: 'book',
          description: 'Internal',
        },
      }),
    );
    expect(updated).toMatchObject({
      title: 'Handbook',
      path: 'handbook',
      condition: 'visitor.claims.staff == true',
      icon: 'book',
      description: 'Internal',
    });
    expect(updated.siteSpaces.map((item) => [item.space.id, item.default])).toEqual([
      ['guide', false],
      ['api', true],
    ]);
    expect((await sectionsOf(siteId, 'creator'))[0]).toEqual(updated);

    const cleared = ok(
      await admin().PATCH(SECTION, {
        ...at(siteId, { siteSectionId: section.id }),
        body: { condition: null, icon: null, description: null },
      }),
    );
    expect(cleared).not.toHaveProperty('condition');
    expect(cleared).not.toHaveProperty('icon');
    expect(cleared).not.toHaveProperty('description');
    expect(cleared.title).toBe('Handbook');
  });

  test('rejects bad input with 400 and a taken path with 409, and changes nothing', async () => {
    const siteId = await newSite();
    const section = await addSection(siteId, 'guide');
    const other = await addSection(siteId, 'api');
    const patch = (body: unknown) =>
      admin().PATCH(SECTION, { ...at(siteId, { siteSectionId: section.id }), body: body as { title: string } });
    expectError(await patch({ title: 'A' }), 400, 'title');
    expectError(await patch({ path: 'two words' }), 400, 'path');
    expectError(await patch({ path: '' }), 400, 'path');
    expectError(await patch({ condition: '' }), 400, 'condition');
    expectError(await patch({ description: 'd'.repeat(257) }), 400, 'description');
    expectError(await patch({ defaultSiteSpace: other.siteSpaces[0]!.id }), 400, 'defaultSiteSpace');
    expectError(await patch({ sectionGroup: 'g' }), 400, 'sectionGroup');
    expectError(await patch({ title: 'Renamed', path: other.path }), 409, 'path');
    expect((await sectionsOf(siteId))[0]).toEqual(section);
  });

  test('answers 404 for an unknown section', async () => {
    const siteId = await newSite();
    expectError(
      await admin().PATCH(SECTION, { ...at(siteId, { siteSectionId: 'nope' }), body: { title: 'Nope' } }),
      404,
    );
  });
});

describe('DELETE .../sections/{siteSectionId}', () => {
  test('removes the section with its site spaces; the next section becomes the default; 204 again when gone', async () => {
    const siteId = await newSite();
    const [one, two] = [await addSection(siteId, 'guide'), await addSection(siteId, 'api')];
    await addSection(siteId, 'blog');
    await addSiteSpace(siteId, 'faq', one.id);
    ok(await admin().POST(SECTION_MOVE, { ...at(siteId, { siteSectionId: two.id }), body: { position: {} } }));
    expect(await outline(siteId)).toEqual(['guide*: guide* faq', 'blog: blog*', 'api-reference: api*']);

    const remove = () => as('creator').DELETE(SECTION, at(siteId, { siteSectionId: one.id }));
    expect((await remove()).response.status).toBe(204);
    expect(await outline(siteId)).toEqual(['blog*: blog*', 'api-reference: api*']);
    expect((await remove()).response.status).toBe(204);
    expect((await as('creator').DELETE(SECTION, at(siteId, { siteSectionId: 'never' }))).response.status).toBe(204);
  });

  test('a site whose last section goes has no structure left and is unpublished; new site spaces go to its root level', async () => {
    const siteId = await newSite(['guide']);
    const section = await addSection(siteId, 'api');
    expect(await outline(siteId)).toEqual(['api-reference*: api* guide']);
    expect((await admin().DELETE(SECTION, at(siteId, { siteSectionId: section.id }))).response.status).toBe(204);
    expect(await outline(siteId)).toEqual([]);
    expect(ok(await admin().GET('/v1/orgs/{organizationId}/sites/{siteId}', at(siteId)))).toMatchObject({
      published: false,
      siteSpaces: 0,
    });
    const added = await addSiteSpace(siteId, 'faq');
    expect(added.section).toBeUndefined();
    expect(await outline(siteId)).toEqual(['root: faq*']);
  });
});

describe('POST .../sections/{siteSectionId}/move (deprecated)', () => {
  test('moves a section before or after another; the default stays the default', async () => {
    const siteId = await newSite();
    const [one, two, three] = [
      await addSection(siteId, 'guide'),
      await addSection(siteId, 'api'),
      await addSection(siteId, 'blog'),
    ];
    const move = (id: string, position: object) =>
      admin().POST(SECTION_MOVE, { ...at(siteId, { siteSectionId: id }), body: { position } });
    const moved = ok(await move(three.id, { before: { type: 'site-section', siteSection: one.id } }));
    expect(moved).toMatchObject({ id: three.id, default: false });
    expect(await outline(siteId)).toEqual(['blog: blog*', 'guide*: guide*', 'api-reference: api*']);
    ok(await move(three.id, { after: { type: 'site-section', siteSection: two.id } }));
    expect(await outline(siteId)).toEqual(['guide*: guide*', 'api-reference: api*', 'blog: blog*']);
    ok(
      await move(one.id, {
        after: { type: 'site-section', siteSection: two.id },
        before: { type: 'site-section', siteSection: three.id },
      }),
    );
    expect(await outline(siteId)).toEqual(['api-reference: api*', 'guide*: guide*', 'blog: blog*']);
  });

  test('a move that changes nothing is a 409; references that are not siblings are a 400; nothing changes', async () => {
    const siteId = await newSite();
    const [one, two, three] = [
      await addSection(siteId, 'guide'),
      await addSection(siteId, 'api'),
      await addSection(siteId, 'blog'),
    ];
    const group = await addGroup(siteId, 'Grouped', [three.id]);
    const before = await outline(siteId);
    const move = (id: string, position: object) =>
      admin().POST(SECTION_MOVE, { ...at(siteId, { siteSectionId: id }), body: { position } });
    expectError(await move(two.id, { after: { type: 'site-section', siteSection: one.id } }), 409);
    expectError(await move(one.id, { before: { type: 'site-section', siteSection: two.id } }), 409);
    expectError(
      await move(one.id, { before: { type: 'site-section', siteSection: three.id } }),
      400,
      'position.before.siteSection',
    );
    expectError(
      await move(one.id, { after: { type: 'site-section', siteSection: 'nope' } }),
      400,
      'position.after.siteSection',
    );
    expectError(
      await move(one.id, { after: { type: 'site-section', siteSection: one.id } }),
      400,
      'position.after.siteSection',
      'itself',
    );
    expectError(
      await move(one.id, {
        after: { type: 'site-section', siteSection: one.id },
        before: { type: 'site-section', siteSection: two.id },
      }),
      400,
    );
    expectError(
      await move(two.id, {
        after: { type: 'site-section', siteSection: one.id },
        before: { type: 'site-section', siteSection: 'x' },
      }),
      400,
      'position.before.siteSection',
    );
    expectError(
      await move(one.id, { before: { type: 'site-section-group', siteSection: group.id } }),
      400,
      'position.before.type',
    );
    expect(await outline(siteId)).toEqual(before);
    expectError(await move('nope', {}), 404);
  });
});

describe('PATCH .../structure/sort', () => {
  const sort = (siteId: string, item: { type: string; id: string }, position: object) =>
    admin().PATCH(SORT, { ...at(siteId), body: { item, position } as never });

  test('reorders site spaces, sections and groups among their siblings and answers the moved item', async () => {
    const siteId = await newSite(['guide', 'api', 'blog']);
    const [guide, , blog] = await siteSpacesOf(siteId);
    const moved = ok(
      await sort(siteId, { type: 'site-space', id: blog!.id }, { before: { type: 'site-space', id: guide!.id } }),
    );
    expect(moved).toMatchObject({ object: 'site-space', id: blog!.id, default: false });
    expect(await outline(siteId)).toEqual(['root: blog guide* api']);
    ok(await sort(siteId, { type: 'site-space', id: blog!.id }, {}));
    expect(await outline(siteId)).toEqual(['root: guide* api blog']);

    const first = await addSection(siteId, 'faq');
    const second = await addSection(siteId, 'blog', 'News');
    const group = await addGroup(siteId, 'Later');
    const third = await addSection(siteId, 'guide', 'Tutorials');
    ok(
      await admin().POST(GROUP_SECTIONS, {
        ...at(siteId, { siteSectionGroupId: group.id }),
        body: { sectionId: third.id },
      }),
    );
    expect(await outline(siteId)).toEqual(['faq*: faq* guide api blog', 'news: blog*', 'tutorials (Later): guide*']);

    const section = ok(
      await sort(siteId, { type: 'site-section', id: second.id }, { before: { type: 'site-section', id: first.id } }),
    );
    expect(section).toMatchObject({ object: 'site-section', id: second.id });
    const movedGroup = ok(
      await sort(
        siteId,
        { type: 'site-section-group', id: group.id },
        { after: { type: 'site-section', id: second.id } },
      ),
    );
    expect(movedGroup).toMatchObject({ object: 'site-section-group', id: group.id, sections: [{ id: third.id }] });
    expect(await outline(siteId)).toEqual(['news: blog*', 'tutorials (Later): guide*', 'faq*: faq* guide api blog']);
  });

  test('rejects unknown items and non-siblings with 400, a move that changes nothing with 409, and changes nothing', async () => {
    const siteId = await newSite();
    const [one, two] = [await addSection(siteId, 'guide'), await addSection(siteId, 'api')];
    const before = await outline(siteId);
    expectError(await sort(siteId, { type: 'site-section', id: 'nope' }, {}), 400, 'item.id');
    expectError(await sort(siteId, { type: 'site-space', id: one.id }, {}), 400, 'item.id');
    expectError(await sort(siteId, { type: 'site-thing', id: one.id }, {}), 400, 'item.type');
    expectError(
      await sort(
        siteId,
        { type: 'site-section', id: one.id },
        { before: { type: 'site-space', id: two.siteSpaces[0]!.id } },
      ),
      400,
      'position.before.id',
    );
    expectError(
      await sort(
        siteId,
        { type: 'site-space', id: one.siteSpaces[0]!.id },
        { after: { type: 'site-space', id: two.siteSpaces[0]!.id } },
      ),
      400,
      'position.after.id',
    );
    expectError(await sort(siteId, { type: 'site-section', id: two.id }, {}), 409);
    expectError(
      await sort(siteId, { type: 'site-section', id: one.id }, { before: { type: 'site-section', id: two.id } }),
      409,
    );
    expect(await outline(siteId)).toEqual(before);
  });
});

describe('section groups', () => {
  test('a group is created in place of the first of its sections, with its sections in the order given', async () => {
    const siteId = await newSite();
    const [one, two, three] = [
      await addSection(siteId, 'guide'),
      await addSection(siteId, 'api'),
      await addSection(siteId, 'blog'),
    ];
    const answer = await as('creator').POST(GROUPS, {
      ...at(siteId),
      body: { title: 'Reference', icon: 'shelf', sections: [three.id, two.id] },
    });
    const group = ok(answer, 201);
    expect(group).toMatchObject({ object: 'site-section-group', title: 'Reference', icon: 'shelf' });
    expect(group.sections.map((section) => [section.id, section.sectionGroup])).toEqual([
      [three.id, group.id],
      [two.id, group.id],
    ]);
    expect(await outline(siteId)).toEqual([
      'guide*: guide*',
      'blog (Reference): blog*',
      'api-reference (Reference): api*',
    ]);
    expect(await groupsOf(siteId, 'creator')).toEqual([group]);

    const empty = await addGroup(siteId, 'Empty');
    expect(empty.sections).toEqual([]);
    expect((await groupsOf(siteId)).map((item) => item.id)).toEqual([group.id, empty.id]);
    expect(one.default).toBe(true);
  });

  test('creating rejects bad input with 400 and sections already grouped with 409, and changes nothing', async () => {
    const siteId = await newSite();
    const [one, two] = [await addSection(siteId, 'guide'), await addSection(siteId, 'api')];
    await addGroup(siteId, 'Taken', [two.id]);
    const before = [await outline(siteId), await groupsOf(siteId)];
    const post = (body: unknown) => admin().POST(GROUPS, { ...at(siteId), body: body as { title: string } });
    expectError(await post({ title: 'A' }), 400, 'title');
    expectError(await post({ sections: [one.id] }), 400, 'title');
    expectError(await post({ title: 'Unknown', sections: ['nope'] }), 400, 'sections', 'nope');
    expectError(await post({ title: 'Twice', sections: [one.id, one.id] }), 400, 'sections', 'more than once');
    expectError(await post({ title: 'Again', sections: [one.id, two.id] }), 409, 'sections', 'already');
    expect([await outline(siteId), await groupsOf(siteId)]).toEqual(before);
  });

  test('lists the groups in order, page by page', async () => {
    const siteId = await newSite();
    const [a, b] = [await addGroup(siteId, 'First'), await addGroup(siteId, 'Second')];
    const first = ok(
      await admin().GET(GROUPS, { params: { path: { organizationId: ACME, siteId }, query: { limit: 1 } } }),
    );
    expect(first).toMatchObject({ count: 2, items: [{ id: a.id }] });
    const second = ok(
      await admin().GET(GROUPS, {
        params: { path: { organizationId: ACME, siteId }, query: { limit: 1, page: first.next!.page } },
      }),
    );
    expect(second.items.map((item) => item.id)).toEqual([b.id]);
  });

  test('updates the title and icon; null removes the icon; bad input is a 400 that changes nothing', async () => {
    const siteId = await newSite();
    const group = await addGroup(siteId, 'Old');
    const patch = (body: unknown, id = group.id) =>
      as('creator').PATCH(GROUP, { ...at(siteId, { siteSectionGroupId: id }), body: body as { title: string } });
    expect(ok(await patch({ title: 'New', icon: 'star' }))).toMatchObject({ title: 'New', icon: 'star' });
    expect(ok(await patch({ icon: null }))).not.toHaveProperty('icon');
    expectError(await patch({ title: 'N' }), 400, 'title');
    expectError(await patch({ sections: [] }), 400, 'sections');
    expect((await groupsOf(siteId))[0]).toMatchObject({ title: 'New' });
    expect((await groupsOf(siteId))[0]).not.toHaveProperty('icon');
    expectError(await patch({ title: 'Nope' }, 'nope'), 404);
  });

  test('adds a section at the end of a group; a section belongs to one group at most', async () => {
    const siteId = await newSite();
    const [one, two, three] = [
      await addSection(siteId, 'guide'),
      await addSection(siteId, 'api'),
      await addSection(siteId, 'blog'),
    ];
    const group = await addGroup(siteId, 'Group', [two.id]);
    const other = await addGroup(siteId, 'Other');
    const add = (sectionId: string, id = group.id) =>
      as('creator').POST(GROUP_SECTIONS, { ...at(siteId, { siteSectionGroupId: id }), body: { sectionId } });
    const added = ok(await add(one.id), 200);
    expect(added.sections.map((section) => section.id)).toEqual([two.id, one.id]);
    expect(await outline(siteId)).toEqual(['api-reference (Group): api*', 'guide* (Group): guide*', 'blog: blog*']);
    expectError(await add(one.id, other.id), 409, 'sectionId', 'already');
    expectError(await add(one.id), 409);
    expectError(await add('nope'), 400, 'sectionId');
    expectError(
      await admin().POST(GROUP_SECTIONS, { ...at(siteId, { siteSectionGroupId: group.id }), body: {} as never }),
      400,
      'sectionId',
    );
    expectError(await add(three.id, 'nope'), 404);
    expect((await groupsOf(siteId)).find((item) => item.id === other.id)!.sections).toEqual([]);
  });
});

describe('section groups: sections taken out, groups moved and deleted', () => {
  test('removing a section from its group puts it just after the group; 204 also when it is not there', async () => {
    const siteId = await newSite();
    const [one, two, three] = [
      await addSection(siteId, 'guide'),
      await addSection(siteId, 'api'),
      await addSection(siteId, 'blog'),
    ];
    const group = await addGroup(siteId, 'Group', [one.id, two.id]);
    const remove = (sectionId: string, groupId = group.id) =>
      as('creator').DELETE(GROUP_SECTION, at(siteId, { siteSectionGroupId: groupId, siteSectionId: sectionId }));
    expect((await remove(one.id)).response.status).toBe(204);
    expect(await outline(siteId)).toEqual(['api-reference (Group): api*', 'guide*: guide*', 'blog: blog*']);
    expect((await remove(one.id)).response.status).toBe(204);
    expect((await remove(three.id)).response.status).toBe(204);
    expect((await remove(two.id, 'nope')).response.status).toBe(204);
    expect(await outline(siteId)).toEqual(['api-reference (Group): api*', 'guide*: guide*', 'blog: blog*']);
  });

  test('moves a group among sections and groups; non-siblings are a 400 and a move that changes nothing a 409', async () => {
    const siteId = await newSite();
    const [one, two, three] = [
      await addSection(siteId, 'guide'),
      await addSection(siteId, 'api'),
      await addSection(siteId, 'blog'),
    ];
    const group = await addGroup(siteId, 'Group', [three.id]);
    const other = await addGroup(siteId, 'Other', [two.id]);
    const move = (position: object, id = group.id) =>
      as('creator').POST(GROUP_MOVE, { ...at(siteId, { siteSectionGroupId: id }), body: { position } as never });
    const moved = ok(await move({ before: { type: 'site-section', id: one.id } }));
    expect(moved).toMatchObject({ id: group.id, sections: [{ id: three.id }] });
    expect(await outline(siteId)).toEqual(['blog (Group): blog*', 'guide*: guide*', 'api-reference (Other): api*']);
    ok(await move({ after: { type: 'site-section-group', id: other.id } }));
    expect(await outline(siteId)).toEqual(['guide*: guide*', 'api-reference (Other): api*', 'blog (Group): blog*']);
    expectError(await move({ after: { type: 'site-section-group', id: other.id } }), 409);
    expectError(await move({ before: { type: 'site-section', id: two.id } }), 400, 'position.before.id');
    expectError(await move({ before: { type: 'site-space', id: one.siteSpaces[0]!.id } }), 400, 'position.before.type');
    expectError(await move({}, 'nope'), 404);
    expect(await outline(siteId)).toEqual(['guide*: guide*', 'api-reference (Other): api*', 'blog (Group): blog*']);
  });

  test('deleting a group leaves its sections in the site, where the group was; 204 again when gone', async () => {
    const siteId = await newSite();
    const [one, two, three] = [
      await addSection(siteId, 'guide'),
      await addSection(siteId, 'api'),
      await addSection(siteId, 'blog'),
    ];
    const group = await addGroup(siteId, 'Group', [two.id, one.id]);
    expect(await outline(siteId)).toEqual(['api-reference (Group): api*', 'guide* (Group): guide*', 'blog: blog*']);
    const remove = () => as('creator').DELETE(GROUP, at(siteId, { siteSectionGroupId: group.id }));
    expect((await remove()).response.status).toBe(204);
    expect(await outline(siteId)).toEqual(['api-reference: api*', 'guide*: guide*', 'blog: blog*']);
    expect(await groupsOf(siteId)).toEqual([]);
    expect((await remove()).response.status).toBe(204);
    expect(three.default).toBe(false);
  });
});

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

test('defaults and order stay consistent through a sequence of moves and deletes', async () => {
  const siteId = await newSite(['guide', 'api']);
  const step = async (expected: string[]) => expect(await outline(siteId)).toEqual(expected);
  await step(['root: guide* api']);
  const [guideRoot] = await siteSpacesOf(siteId);
  ok(
    await admin().PATCH(SORT, {
      ...at(siteId),
      body: { item: { type: 'site-space', id: guideRoot!.id }, position: {} },
    }),
  );
  await step(['root: api guide*']);

  const docs = await addSection(siteId, 'blog', 'Docs');
  await step(['docs*: blog* api guide']);
  const faq = await addSection(siteId, 'faq');
  const group = await addGroup(siteId, 'More', [faq.id]);
  const tips = await addSection(siteId, 'guide', 'Tips');
  await step(['docs*: blog* api guide', 'faq (More): faq*', 'tips: guide*']);

  ok(
    await admin().PATCH(SORT, {
      ...at(siteId),
      body: {
        item: { type: 'site-section', id: tips.id },
        position: { before: { type: 'site-section', id: docs.id } },
      },
    }),
  );
  await step(['tips: guide*', 'docs*: blog* api guide', 'faq (More): faq*']);
  ok(
    await admin().POST(GROUP_SECTIONS, {
      ...at(siteId, { siteSectionGroupId: group.id }),
      body: { sectionId: docs.id },
    }),
  );
  await step(['tips: guide*', 'faq (More): faq*', 'docs* (More): blog* api guide']);

  const [blog] = docs.siteSpaces;
  expect((await admin().DELETE(SITE_SPACE, at(siteId, { siteSpaceId: blog!.id }))).response.status).toBe(204);
  await step(['tips: guide*', 'faq (More): faq*', 'docs* (More): api* guide']);

  expect((await admin().DELETE(SECTION, at(siteId, { siteSectionId: docs.id }))).response.status).toBe(204);
  await step(['tips*: guide*', 'faq (More): faq*']);
  ok(
    await admin().POST(GROUP_MOVE, {
      ...at(siteId, { siteSectionGroupId: group.id }),
      body: { position: { before: { type: 'site-section', id: tips.id } } },
    }),
  );
  await step(['faq (More): faq*', 'tips*: guide*']);

  expect((await admin().DELETE(GROUP, at(siteId, { siteSectionGroupId: group.id }))).response.status).toBe(204);
  await step(['faq: faq*', 'tips*: guide*']);
  const added = await addSiteSpace(siteId, 'api');
  expect(added.section).toBe(tips.id);
  await step(['faq: faq*', 'tips*: guide* api']);
  expect((await admin().DELETE(SECTION, at(siteId, { siteSectionId: tips.id }))).response.status).toBe(204);
  await step(['faq*: faq*']);
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

describe('who may do what', () => {
  // One call per operation, on a site with a section, a group and site spaces.
  type Call = (
    user: RoleUser | 'anonymous',
    siteId: string,
    ids: Ids,
  ) => Promise<{ response: Response; error?: unknown }>;
  type Ids = { section: string; group: string; siteSpace: string };
  const reads: [string, Call][] = [
    ['listSiteSections', (user, siteId) => as(user).GET(SECTIONS, at(siteId))],
    ['listSiteSectionGroups', (user, siteId) => as(user).GET(GROUPS, at(siteId))],
    ['listSiteSpaces', (user, siteId) => as(user).GET(SITE_SPACES, at(siteId))],
  ];
  const writes: [string, Call][] = [
    ['createSiteSection', (user, siteId) => as(user).POST(SECTIONS, { ...at(siteId), body: { spaceId: 'faq' } })],
    [
      'updateSiteSection',
      (user, siteId, ids) =>
        as(user).PATCH(SECTION, { ...at(siteId, { siteSectionId: ids.section }), body: { title: 'Changed' } }),
    ],
    ['deleteSiteSection', (user, siteId, ids) => as(user).DELETE(SECTION, at(siteId, { siteSectionId: ids.section }))],
    [
      'moveSiteSection',
      (user, siteId, ids) =>
        as(user).POST(SECTION_MOVE, { ...at(siteId, { siteSectionId: ids.section }), body: { position: {} } }),
    ],
    [
      'sortSiteStructure',
      (user, siteId, ids) =>
        as(user).PATCH(SORT, {
          ...at(siteId),
          body: { item: { type: 'site-section-group', id: ids.group }, position: {} },
        }),
    ],
    ['createSiteSectionGroup', (user, siteId) => as(user).POST(GROUPS, { ...at(siteId), body: { title: 'Changed' } })],
    [
      'updateSiteSectionGroup',
      (user, siteId, ids) =>
        as(user).PATCH(GROUP, { ...at(siteId, { siteSectionGroupId: ids.group }), body: { title: 'Changed' } }),
    ],
    [
      'deleteSiteSectionGroup',
      (user, siteId, ids) => as(user).DELETE(GROUP, at(siteId, { siteSectionGroupId: ids.group })),
    ],
    [
      'addSiteSectionToGroup',
      (user, siteId, ids) =>
        as(user).POST(GROUP_SECTIONS, {
          ...at(siteId, { siteSectionGroupId: ids.group }),
          body: { sectionId: ids.section },
        }),
    ],
    [
      'removeSiteSectionFromGroup',
      (user, siteId, ids) =>
        as(user).DELETE(GROUP_SECTION, at(siteId, { siteSectionGroupId: ids.group, siteSectionId: ids.section })),
    ],
    [
      'moveSiteSectionGroup',
      (user, siteId, ids) =>
        as(user).POST(GROUP_MOVE, { ...at(siteId, { siteSectionGroupId: ids.group }), body: { position: {} } }),
    ],
    ['createSiteSpace', (user, siteId) => as(user).POST(SITE_SPACES, { ...at(siteId), body: { spaceId: 'blog' } })],
    [
      'updateSiteSpace',
      (user, siteId, ids) =>
        as(user).PATCH(SITE_SPACE, { ...at(siteId, { siteSpaceId: ids.siteSpace }), body: { path: 'changed' } }),
    ],
    ['deleteSiteSpace', (user, siteId, ids) => as(user).DELETE(SITE_SPACE, at(siteId, { siteSpaceId: ids.siteSpace }))],
    [
      'moveSiteSpace',
      (user, siteId, ids) =>
        as(user).POST(SITE_SPACE_MOVE, { ...at(siteId, { siteSpaceId: ids.siteSpace }), body: { position: {} } }),
    ],
  ];

  // Refused calls change nothing, so one site serves every operation.
  let shared: Promise<{ siteId: string; ids: Ids }> | undefined;
  const setUp = () =>
    (shared ??= (async () => {
      const siteId = await newSite(['guide', 'api']);
      const section = await addSection(siteId, 'guide', 'Main');
      const group = await addGroup(siteId, 'Group');
      return { siteId, ids: { section: section.id, group: group.id, siteSpace: section.siteSpaces[0]!.id } };
    })());

  test.each(reads)(
    '%s needs the read role (403), membership (404), a token (401) and a known site (404)',
    async (_name, call) => {
      const { siteId, ids } = await setUp();
      expectError(await call('guest', siteId, ids), 403);
      expectError(await call('outsider', siteId, ids), 404);
      expectError(await call('anonymous', siteId, ids), 401);
      expectError(await call('admin', 'nope', ids), 404);
      ok(await call('reader', siteId, ids));
    },
  );

  test.each(writes)(
    '%s needs the create role (403), membership (404), a token (401) and a known site (404)',
    async (_name, call) => {
      const { siteId, ids } = await setUp();
      const before = await outline(siteId);
      const groups = await groupsOf(siteId);
      for (const user of ['reviewer', 'reader', 'guest'] as const) expectError(await call(user, siteId, ids), 403);
      expectError(await call('outsider', siteId, ids), 404);
      expectError(await call('anonymous', siteId, ids), 401);
      expectError(await call('admin', 'nope', ids), 404);
      expect(await outline(siteId)).toEqual(before);
      expect(await groupsOf(siteId)).toEqual(groups);
    },
  );

  test('another organization sees nothing of the structure, even through its own organization id', async () => {
    const { siteId } = await setUp();
    expectError(await as('outsider').GET(SECTIONS, { params: { path: { organizationId: GLOBEX, siteId } } }), 404);
  });
});

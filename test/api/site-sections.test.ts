// A site's sections (/v1/orgs/{organizationId}/sites/{siteId}/sections): the first one taking in the root level's site
// spaces, paths made from titles and unique, the list (page by page, each space as reading it gives, open to a share
// key), changes, deletion (the next section becoming the default, a site left with no structure), and the deprecated
// move among sibling sections.
import { describe, expect, test } from 'vitest';
import { ACME } from '../support/fixture.ts';
import { expectError, ok } from '../support/expect.ts';
import { at, SECTION, SECTION_MOVE, SECTIONS, useSiteStructureServer } from '../support/site-structure.ts';

const { as, admin, newSite, addSection, addSections, addSiteSpace, addGroup, sectionsOf, siteSpacesOf, outline } = useSiteStructureServer();

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
    const [one, two, three] = await addSections(siteId, ['guide', 'api', 'blog']);
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
    const [one, two] = await addSections(siteId, ['guide', 'api']);
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
    const [one, two, three] = await addSections(siteId, ['guide', 'api', 'blog']);
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
    const [one, two, three] = await addSections(siteId, ['guide', 'api', 'blog']);
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

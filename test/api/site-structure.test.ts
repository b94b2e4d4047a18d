// A site's structure as a whole: PATCH .../structure/sort among siblings, defaults and order kept consistent through
// a sequence of moves and deletes, and who may read and change each part of it (every operation of the structure,
// for every role, membership, token and unknown site).
import { describe, expect, test } from 'vitest';
import type { RoleUser } from '../support/fixture.ts';
import { GLOBEX } from '../support/fixture.ts';
import { expectError, ok } from '../support/expect.ts';
import {
  at,
  GROUP,
  GROUP_MOVE,
  GROUP_SECTION,
  GROUP_SECTIONS,
  GROUPS,
  SECTION,
  SECTION_MOVE,
  SECTIONS,
  SITE_SPACE,
  SITE_SPACE_MOVE,
  SITE_SPACES,
  SORT,
  useSiteStructureServer,
} from '../support/site-structure.ts';

const { as, admin, newSite, addSection, addSections, addSiteSpace, addGroup, siteSpacesOf, groupsOf, outline } = useSiteStructureServer();

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
    const [one, two] = await addSections(siteId, ['guide', 'api']);
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

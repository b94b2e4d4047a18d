// A site's section groups (/v1/orgs/{organizationId}/sites/{siteId}/section-groups): created in place of their first
// section, listed, changed, given sections (one group a section at most), sections taken out (just after the group),
// groups moved among sections and groups, and deleted (their sections staying where the group was).
import { describe, expect, test } from 'vitest';
import { ACME } from '../support/fixture.ts';
import { expectError, ok } from '../support/expect.ts';
import { at, GROUP, GROUP_MOVE, GROUP_SECTION, GROUP_SECTIONS, GROUPS, useSiteStructureServer } from '../support/site-structure.ts';

const { as, admin, newSite, addSections, addGroup, groupsOf, outline } = useSiteStructureServer();

describe('section groups', () => {
  test('a group is created in place of the first of its sections, with its sections in the order given', async () => {
    const siteId = await newSite();
    const [one, two, three] = await addSections(siteId, ['guide', 'api', 'blog']);
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
    const [one, two] = await addSections(siteId, ['guide', 'api']);
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
    const [one, two, three] = await addSections(siteId, ['guide', 'api', 'blog']);
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
    const [one, two, three] = await addSections(siteId, ['guide', 'api', 'blog']);
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
    const [one, two, three] = await addSections(siteId, ['guide', 'api', 'blog']);
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
    const [one, two, three] = await addSections(siteId, ['guide', 'api', 'blog']);
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

import { describe, expect, test } from 'vitest';
import { emptyContent } from '../../server/content/model.ts';
import { DAY } from '../../server/common/clock.ts';
import { sql } from 'kysely';
import { inWrite } from '../../server/context/context.ts';
import { insertSpace } from '../../server/domain/spaces.ts';
import { ACME, extendFixture, GLOBEX } from '../support/fixture.ts';
import { expectError, ok } from '../support/expect.ts';
import { useTestServer } from '../support/server.ts';

const fixture = extendFixture({
  bridge: true,
  acme: {
    collections: [
      { id: 'guides', title: 'Guides' },
      { id: 'archive', title: 'Archive' },
    ],
    spaces: [
      { id: 'shared', title: 'Shared', visibility: 'share-link' },
      { id: 'shared-trashed', title: 'Shared, then trashed', visibility: 'share-link' },
      {
        id: 'handbook',
        title: 'Handbook',
        pages: [{ title: 'Intro', markdown: '# Intro\n\nHello.\n', pages: [{ title: 'Details', markdown: 'More.' }] }],
      },
    ],
  },
});

const ctx = useTestServer({ fixture });
const acme = { params: { path: { organizationId: ACME } } };
const space = (spaceId: string) => ({ params: { path: { spaceId } } });

async function createSpace(title: string, body: Record<string, unknown> = {}) {
  return ok(await ctx.server.as('admin').POST('/v1/orgs/{organizationId}/spaces', { ...acme, body: { title, ...body } }), 201);
}

describe('insertSpace', () => {
  test("answers the row as stored, every column: the defaults it writes are the schema's", async () => {
    const app = ctx.server.running.ctx;
    const rows = await inWrite(app, async (scope) => [
      await insertSpace(scope, { organizationId: ACME, title: 'Plain' }),
      await insertSpace(scope, {
        organizationId: ACME,
        title: 'Everything',
        emoji: '1f4d8',
        parent: 'guides',
        language: 'fr',
        editMode: 'locked',
        visibility: 'share-link',
      }),
      await insertSpace(scope, { id: 'given-id', organizationId: ACME, title: 'With content' }, emptyContent()),
    ]);
    // The two columns a space's row leaves out: which revision the search index holds, and the first revision when it
    // has no row (content/search.ts, content/revisions.ts). Any other column must be in the row as stored.
    for (const row of rows) {
      const stored = await app.store.reader.first<Record<string, unknown>>(sql`SELECT * FROM spaces WHERE id = ${row.id}`);
      const { searchRevisionId, unwrittenRevisionId, ...rest } = stored!;
      expect(rest).toStrictEqual(row);
      expect(searchRevisionId).toBe(row.revisionId);
      // Spaces made empty with a new id have an unwritten first revision; one given content writes its row.
      expect(unwrittenRevisionId).toBe(row.id === 'given-id' ? null : row.revisionId);
    }
    expect(ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}', space(rows[1]!.id)))).toMatchObject({
      title: 'Everything',
      parent: 'guides',
      visibility: 'share-link',
    });
  });
});

describe('POST /v1/orgs/{organizationId}/spaces', () => {
  test('a space at the top level goes at its end, stored as insertSpace stores it and answered as it reads; refusals are 403 and 404', async () => {
    const app = ctx.server.running.ctx;
    const create = (as: 'admin' | 'creator' | 'editor' | 'outsider', body: { title: string; parent?: string }) =>
      ctx.server.as(as).POST('/v1/orgs/{organizationId}/spaces', { ...acme, body });
    const stored = async (id: string) => (await app.store.reader.first<{ position: number; parentId: string | null; unwrittenRevisionId: string | null; searchRevisionId: string | null; revisionId: string }>(sql`SELECT * FROM spaces WHERE id = ${id}`))!;
    const before = await app.store.reader.first<{ last: number }>(
      sql`SELECT MAX(position) AS last FROM (SELECT position FROM spaces WHERE organization_id = ${ACME} AND parent_id IS NULL AND deleted_at IS NULL UNION ALL SELECT position FROM collections WHERE organization_id = ${ACME} AND parent_id IS NULL) AS top`,
    );
    const byAdmin = ok(await create('admin', { title: 'Top by an admin' }), 201);
    const byCreator = ok(await create('creator', { title: 'Top by a creator' }), 201);
    expect(byAdmin).toEqual(ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}', space(byAdmin.id))));
    expect(byCreator).toEqual(ok(await ctx.server.as('creator').GET('/v1/spaces/{spaceId}', space(byCreator.id))));
    expect(byCreator.permissions).toMatchObject({ admin: false, edit: true });
    // At the end of the top level, one after the other; the first revision unwritten, as insertSpace leaves it.
    const [first, second] = [await stored(byAdmin.id), await stored(byCreator.id)];
    expect([first.position, second.position]).toEqual([Number(before!.last ?? 0) + 1, Number(before!.last ?? 0) + 2]);
    expect(first).toMatchObject({ parentId: null, unwrittenRevisionId: first.revisionId, searchRevisionId: first.revisionId });
    expect(ok(await create('creator', { title: 'In a collection', parent: 'guides' }), 201).parent).toBe('guides');
    expectError(await create('editor', { title: 'Refused' }), 403);
    expectError(await create('outsider', { title: 'Not found' }), 404);
  });

  test('concurrent creates at the top level each take a place of their own at the end, one after the other', async () => {
    const titles = Array.from({ length: 10 }, (_, i) => `Concurrent ${i}`);
    const made = (await Promise.all(titles.map((title) => createSpace(title)))).map((answer) => answer.id);
    const app = ctx.server.running.ctx;
    const positions = await Promise.all(made.map(async (id) => Number((await app.store.reader.first<{ position: number }>(sql`SELECT position FROM spaces WHERE id = ${id}`))!.position)));
    const sorted = [...positions].sort((a, b) => a - b);
    expect(sorted).toEqual(sorted.map((_, i) => sorted[0]! + i));
  });

  test('creates a space with every optional field, answers 201 with its Location, and reads back the same', async () => {
    const answer = await ctx.server.as('creator').POST('/v1/orgs/{organizationId}/spaces', {
      ...acme,
      body: { title: 'API reference', emoji: '1f4d8', parent: 'guides', language: 'fr', editMode: 'locked' },
    });
    const created = ok(answer, 201);
    expect(created).toMatchObject({
      object: 'space',
      title: 'API reference',
      emoji: '1f4d8',
      parent: 'guides',
      language: 'fr',
      editMode: 'locked',
      visibility: 'private',
      organization: ACME,
      comments: 0,
      changeRequests: 0,
      changeRequestsOpen: 0,
      changeRequestsDraft: 0,
    });
    expect(answer.response.headers.get('location')).toBe(created.urls.location);
    expect(created.urls.location).toBe(`${ctx.server.url}/v1/spaces/${created.id}`);
    expect(created.permissions.edit).toBe(false); // locked
    expect(ok(await ctx.server.as('creator').GET('/v1/spaces/{spaceId}', space(created.id)))).toEqual(created);
  });

  test('needs no body at all', async () => {
    const created = ok(await ctx.server.as('admin').POST('/v1/orgs/{organizationId}/spaces', acme), 201);
    expect(created.title).toBe('Untitled');
    expect(created.editMode).toBe('live');
  });

  test('rejects bad input with 400 naming the field, and creates nothing', async () => {
    const before = ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/spaces', acme)).count;
    expectError(await ctx.server.as('admin').POST('/v1/orgs/{organizationId}/spaces', { ...acme, body: { parent: 'nope' } }), 400, 'parent');
    expectError(await ctx.server.as('admin').POST('/v1/orgs/{organizationId}/spaces', { ...acme, body: { language: 'xx' } as never }), 400, 'language');
    expectError(await ctx.server.as('admin').POST('/v1/orgs/{organizationId}/spaces', { ...acme, body: { title: '' } }), 400, 'title');
    expectError(await ctx.server.as('admin').POST('/v1/orgs/{organizationId}/spaces', { ...acme, body: { id: 'mine' } as never }), 400, 'id');
    expect(ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/spaces', acme)).count).toBe(before);
  });

  test('needs createContent (403), membership (404) and a token (401)', async () => {
    expectError(await ctx.server.as('reviewer').POST('/v1/orgs/{organizationId}/spaces', { ...acme, body: {} }), 403);
    expectError(await ctx.server.as('outsider').POST('/v1/orgs/{organizationId}/spaces', { ...acme, body: {} }), 404);
    expectError(await ctx.server.as('anonymous').POST('/v1/orgs/{organizationId}/spaces', { ...acme, body: {} }), 401);
  });
});

describe('GET /v1/orgs/{organizationId}/spaces', () => {
  test('lists the spaces the caller can access, oldest first, with a cursor', async () => {
    const all = ok(await ctx.server.as('reader').GET('/v1/orgs/{organizationId}/spaces', acme));
    expect(all.items.length).toBe(all.count);
    const first = ok(await ctx.server.as('reader').GET('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: ACME }, query: { limit: 1 } } }));
    const second = ok(
      await ctx.server.as('reader').GET('/v1/orgs/{organizationId}/spaces', {
        params: { path: { organizationId: ACME }, query: { limit: 1, page: first.next!.page } },
      }),
    );
    expect([first.items[0]!.id, second.items[0]!.id]).toEqual(all.items.slice(0, 2).map((item) => item.id));
    expect(ok(await ctx.server.as('guest').GET('/v1/orgs/{organizationId}/spaces', acme)).items).toEqual([]);
  });

  test('answers 404 to another organization and 401 without a token', async () => {
    expectError(await ctx.server.as('outsider').GET('/v1/orgs/{organizationId}/spaces', acme), 404);
    expectError(await ctx.server.as('anonymous').GET('/v1/orgs/{organizationId}/spaces', acme), 401);
  });
});

describe('GET /v1/spaces/{spaceId}', () => {
  test('shows the caller’s permissions, computed from their role', async () => {
    const reader = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}', space('handbook')));
    expect(reader.permissions).toEqual({
      view: true,
      access: true,
      admin: false,
      viewInviteLinks: false,
      edit: false,
      triggerGitSync: false,
      comment: false,
      merge: false,
      review: false,
      installIntegration: false,
    });
    const reviewer = ok(await ctx.server.as('reviewer').GET('/v1/spaces/{spaceId}', space('handbook')));
    expect(reviewer.permissions).toMatchObject({ edit: true, comment: true, review: true, merge: true, admin: false });
  });

  test('a share-link space is readable by anyone with its key, which its admins find in urls.public', async () => {
    const shared = ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}', space('shared')));
    const shareKey = new URL(shared.urls.public!).searchParams.get('shareKey')!;
    expect(shareKey).toBeTruthy();
    expect(ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}', space('shared'))).urls.public).toBeUndefined();
    expectError(await ctx.server.as('outsider').GET('/v1/spaces/{spaceId}', space('shared')), 404);
    const visitor = ok(
      await ctx.server.as('outsider').GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: 'shared' }, query: { shareKey } } }),
    );
    expect(visitor.permissions).toMatchObject({ view: true, edit: false, admin: false, comment: false });
    expectError(
      await ctx.server.as('outsider').GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: 'shared' }, query: { shareKey: 'wrong' } } }),
      404,
    );
  });

  test('answers 404 for an unknown space, for guests and for another organization; 401 without a token', async () => {
    expectError(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}', space('nope')), 404);
    expectError(await ctx.server.as('guest').GET('/v1/spaces/{spaceId}', space('handbook')), 404);
    expectError(await ctx.server.as('outsider').GET('/v1/spaces/{spaceId}', space('handbook')), 404);
    expectError(await ctx.server.as('anonymous').GET('/v1/spaces/{spaceId}', space('handbook')), 401);
  });
});

describe('PATCH /v1/spaces/{spaceId}', () => {
  test('updates the fields the document lists and reads them back', async () => {
    const { id } = await createSpace('Draft');
    const updated = ok(
      await ctx.server.as('admin').PATCH('/v1/spaces/{spaceId}', {
        ...space(id),
        body: { title: 'Final', emoji: '2705', defaultLevel: 'comment', language: 'de', editMode: 'live' },
      }),
    );
    expect(updated).toMatchObject({ title: 'Final', emoji: '2705', defaultLevel: 'comment', language: 'de', editMode: 'live' });
    expect(ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}', space(id)))).toEqual(updated);
    // The default level raises what readers may do.
    expect(ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}', space(id))).permissions.comment).toBe(true);
  });

  test('locking the space turns off edit and merge for everyone; unlocking turns them back on', async () => {
    const { id } = await createSpace('Lockable');
    const locked = ok(await ctx.server.as('admin').PATCH('/v1/spaces/{spaceId}', { ...space(id), body: { editMode: 'locked' } }));
    expect(locked.permissions).toMatchObject({ edit: false, merge: false, triggerGitSync: false, admin: true });
    const unlocked = ok(await ctx.server.as('admin').PATCH('/v1/spaces/{spaceId}', { ...space(id), body: { editMode: 'live' } }));
    expect(unlocked.permissions).toMatchObject({ edit: true, merge: true });
  });

  test('rejects invalid input with 400 naming the field, and changes nothing', async () => {
    const { id } = await createSpace('Stable');
    expectError(await ctx.server.as('admin').PATCH('/v1/spaces/{spaceId}', { ...space(id), body: { editMode: 'frozen' } as never }), 400, 'editMode');
    expectError(await ctx.server.as('admin').PATCH('/v1/spaces/{spaceId}', { ...space(id), body: { visibility: 'public' } as never }), 400, 'visibility');
    expect(ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}', space(id))).title).toBe('Stable');
  });

  test('needs admin on the space (403), visibility (404) and a token (401)', async () => {
    expectError(await ctx.server.as('editor').PATCH('/v1/spaces/{spaceId}', { ...space('handbook'), body: { title: 'X' } }), 403);
    expectError(await ctx.server.as('outsider').PATCH('/v1/spaces/{spaceId}', { ...space('handbook'), body: { title: 'X' } }), 404);
    expectError(await ctx.server.as('anonymous').PATCH('/v1/spaces/{spaceId}', { ...space('handbook'), body: { title: 'X' } }), 401);
  });

  test('an admin, and an editor made admin of the space by its default level, are answered the space as they read it; refusals are 403 and 404', async () => {
    const patch = (as: 'admin' | 'editor', spaceId: string, title: string) => ctx.server.as(as).PATCH('/v1/spaces/{spaceId}', { ...space(spaceId), body: { title } });
    const { id } = await createSpace('Patched');
    // Its counters are in the answer: one comment.
    ok(await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/comments', { ...space(id), body: { body: { markdown: 'Counted' } } }), 201);
    const renamed = ok(await patch('admin', id, 'Renamed once'));
    expect(renamed).toEqual(ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}', space(id))));
    expect(renamed).toMatchObject({ title: 'Renamed once', comments: 1, permissions: { admin: true } });
    ok(await ctx.server.as('admin').PATCH('/v1/spaces/{spaceId}', { ...space(id), body: { defaultLevel: 'admin' } }));
    const byEditor = ok(await patch('editor', id, 'Renamed by an editor'));
    expect(byEditor).toEqual(ok(await ctx.server.as('editor').GET('/v1/spaces/{spaceId}', space(id))));
    expect(byEditor.title).toBe('Renamed by an editor');
    ok(await ctx.server.as('admin').PATCH('/v1/spaces/{spaceId}', { ...space(id), body: { defaultLevel: 'read' } }));
    expectError(await patch('editor', id, 'Refused'), 403);
    expect((await ctx.server.as('admin').DELETE('/v1/spaces/{spaceId}', space(id))).response.status).toBe(204);
    expectError(await patch('admin', id, 'In the trash'), 404);
    expectError(await patch('admin', 'no-such-space', 'Unknown'), 404);
    expect(ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}', space(id))).title).toBe('Renamed by an editor');
  });

  test('concurrent changes of one space each answer the space as their own change left it, and the last one stays', async () => {
    const { id } = await createSpace('Busy');
    const titles = Array.from({ length: 12 }, (_, i) => `Busy ${i}`);
    const answers = await Promise.all(titles.map((title) => ctx.server.as('admin').PATCH('/v1/spaces/{spaceId}', { ...space(id), body: { title } })));
    expect(answers.map((answer) => ok(answer).title)).toEqual(titles);
    const last = answers.map((answer) => ok(answer)).sort((a, b) => a.updatedAt.localeCompare(b.updatedAt)).at(-1)!;
    expect(ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}', space(id)))).toEqual(last);
  });
});

describe('DELETE /v1/spaces/{spaceId} and POST /v1/spaces/{spaceId}/restore', () => {
  test('a deleted space keeps deletedAt, leaves the lists, and can be restored within 7 days', async () => {
    const { id } = await createSpace('Temporary');
    expect((await ctx.server.as('admin').DELETE('/v1/spaces/{spaceId}', space(id))).response.status).toBe(204);
    const deleted = ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}', space(id)));
    expect(deleted.deletedAt).toBe(ctx.server.clock.now().toISOString());
    expect(deleted.permissions.edit).toBe(false);
    const listed = ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: ACME }, query: { limit: 1000 } } }));
    expect(listed.items.map((item) => item.id)).not.toContain(id);

    ctx.server.clock.advance(6 * DAY);
    const restored = ok(await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/restore', space(id)));
    expect(restored.deletedAt).toBeUndefined();
    expect(ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}', space(id))).deletedAt).toBeUndefined();
  });

  test('after 7 days a deleted space is gone: restore and get answer 404', async () => {
    const { id } = await createSpace('Doomed');
    expect((await ctx.server.as('admin').DELETE('/v1/spaces/{spaceId}', space(id))).response.status).toBe(204);
    ctx.server.clock.advance(7 * DAY + 1000);
    expectError(await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/restore', space(id)), 404);
    expectError(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}', space(id)), 404);
  });

  test('restoring a space that is not deleted is a 409; deleting twice and deleting the unknown are 204', async () => {
    const { id } = await createSpace('Alive');
    expectError(await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/restore', space(id)), 409);
    expect((await ctx.server.as('admin').DELETE('/v1/spaces/{spaceId}', space(id))).response.status).toBe(204);
    expect((await ctx.server.as('admin').DELETE('/v1/spaces/{spaceId}', space(id))).response.status).toBe(204);
    expect((await ctx.server.as('admin').DELETE('/v1/spaces/{spaceId}', space('never-existed'))).response.status).toBe(204);
  });

  test("a deleted space is read and restored by its admins only: every other member, and a share key, get the 404 of a space that is not there", async () => {
    const { id } = ok(await ctx.server.as('admin').POST('/v1/orgs/{organizationId}/spaces', { ...acme, body: { title: 'Trashed' } }), 201);
    // Every role that could view it while it was live.
    for (const user of ['creator', 'reviewer', 'editor', 'commenter', 'reader'] as const) {
      expect(ok(await ctx.server.as(user).GET('/v1/spaces/{spaceId}', space(id))).permissions.view).toBe(true);
    }
    expect((await ctx.server.as('admin').DELETE('/v1/spaces/{spaceId}', space(id))).response.status).toBe(204);
    for (const user of ['creator', 'reviewer', 'editor', 'commenter', 'reader', 'guest', 'outsider'] as const) {
      expectError(await ctx.server.as(user).GET('/v1/spaces/{spaceId}', space(id)), 404);
      expectError(await ctx.server.as(user).POST('/v1/spaces/{spaceId}/restore', space(id)), 404);
      // Deleting what the caller cannot see is the 204 of an unknown space, and changes nothing.
      expect((await ctx.server.as(user).DELETE('/v1/spaces/{spaceId}', space(id))).response.status).toBe(204);
    }
    const trashed = ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}', space(id)));
    expect(trashed.deletedAt).toBeDefined();
    expect(trashed.permissions).toMatchObject({ view: true, admin: true, edit: false, comment: false });

    // A share-link space, deleted: its key opens nothing any more.
    const shareKey = new URL(ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}', space('shared-trashed'))).urls.public!).searchParams.get('shareKey')!;
    const withKey = { params: { path: { spaceId: 'shared-trashed' }, query: { shareKey } } };
    expect(ok(await ctx.server.as('outsider').GET('/v1/spaces/{spaceId}', withKey)).id).toBe('shared-trashed');
    expect((await ctx.server.as('admin').DELETE('/v1/spaces/{spaceId}', space('shared-trashed'))).response.status).toBe(204);
    expectError(await ctx.server.as('outsider').GET('/v1/spaces/{spaceId}', withKey), 404);
    ok(await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/restore', space('shared-trashed')));
    expect(ok(await ctx.server.as('outsider').GET('/v1/spaces/{spaceId}', withKey)).id).toBe('shared-trashed');
    ok(await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/restore', space(id)));
    expect(ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}', space(id))).deletedAt).toBeUndefined();
  });

  test('need admin on the space (403) and a token (401); other organizations cannot touch it', async () => {
    expectError(await ctx.server.as('creator').DELETE('/v1/spaces/{spaceId}', space('handbook')), 403);
    expectError(await ctx.server.as('creator').POST('/v1/spaces/{spaceId}/restore', space('handbook')), 403);
    expect((await ctx.server.as('outsider').DELETE('/v1/spaces/{spaceId}', space('handbook'))).response.status).toBe(204);
    expect(ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}', space('handbook'))).deletedAt).toBeUndefined();
    expectError(await ctx.server.as('outsider').POST('/v1/spaces/{spaceId}/restore', space('handbook')), 404);
    expectError(await ctx.server.as('anonymous').DELETE('/v1/spaces/{spaceId}', space('handbook')), 401);
    expectError(await ctx.server.as('anonymous').POST('/v1/spaces/{spaceId}/restore', space('handbook')), 401);
  });
});

describe('POST /v1/spaces/{spaceId}/duplicate', () => {
  test('creates a new space with a copy of the content', async () => {
    const original = ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}', space('handbook')));
    const copy = ok(await ctx.server.as('creator').POST('/v1/spaces/{spaceId}/duplicate', space('handbook')), 201);
    expect(copy.id).not.toBe(original.id);
    expect(copy.revision).not.toBe(original.revision);
    expect(copy.title).toBe('Handbook (copy)');
    const pages = (id: string) => ctx.server.as('admin').GET('/v1/spaces/{spaceId}/content/pages', space(id));
    const [source, duplicated] = [ok(await pages(original.id)).pages, ok(await pages(copy.id)).pages];
    expect(duplicated.map((page) => [page.title, page.pages.map((child) => child.title)])).toEqual([['Intro', ['Details']]]);
    expect(duplicated.map((page) => page.id)).toEqual(source.map((page) => page.id));
  });

  test('needs createContent (403), visibility (404) and a token (401)', async () => {
    expectError(await ctx.server.as('editor').POST('/v1/spaces/{spaceId}/duplicate', space('handbook')), 403);
    expectError(await ctx.server.as('outsider').POST('/v1/spaces/{spaceId}/duplicate', space('handbook')), 404);
    expectError(await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/duplicate', space('nope')), 404);
    expectError(await ctx.server.as('anonymous').POST('/v1/spaces/{spaceId}/duplicate', space('handbook')), 401);
  });
});

describe('POST /v1/spaces/{spaceId}/move', () => {
  test('moves a space into a collection, before a sibling, and to the top level', async () => {
    const first = await createSpace('First', { parent: 'archive' });
    const second = await createSpace('Second', { parent: 'archive' });
    const mover = await createSpace('Mover');
    const moved = ok(
      await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/move', {
        ...space(mover.id),
        body: { parent: 'archive', position: { before: { type: 'space', space: second.id } } },
      }),
    );
    expect(moved.parent).toBe('archive');
    const inArchive = ok(await ctx.server.as('admin').GET('/v1/collections/{collectionId}/spaces', { params: { path: { collectionId: 'archive' } } }));
    expect(inArchive.items.map((item) => item.id).sort()).toEqual([first.id, second.id, mover.id].sort());
    const top = ok(await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/move', { ...space(mover.id), body: { parent: null } }));
    expect(top.parent).toBeUndefined();
  });

  test('a move that changes nothing is a 409; a position among other siblings is a 400', async () => {
    const only = await createSpace('Alone', { parent: 'guides' });
    const other = await createSpace('Elsewhere');
    expectError(await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/move', { ...space(only.id), body: { parent: 'guides' } }), 409);
    expectError(
      await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/move', {
        ...space(only.id),
        body: { position: { after: { type: 'space', space: other.id } } },
      }),
      400,
      'position.after.space',
    );
    expectError(await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/move', { ...space(only.id), body: { parent: 'nope' } }), 400, 'parent');
    expect(ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}', space(only.id))).parent).toBe('guides');
  });

  test('needs admin (403), visibility (404) and a token (401)', async () => {
    expectError(await ctx.server.as('creator').POST('/v1/spaces/{spaceId}/move', { ...space('handbook'), body: { parent: 'guides' } }), 403);
    expectError(await ctx.server.as('outsider').POST('/v1/spaces/{spaceId}/move', { ...space('handbook'), body: { parent: null } }), 404);
    expectError(await ctx.server.as('anonymous').POST('/v1/spaces/{spaceId}/move', { ...space('handbook'), body: { parent: null } }), 401);
  });
});

describe('POST /v1/spaces/{spaceId}/transfer', () => {
  test('moves a space to another organization the caller belongs to', async () => {
    const { id } = await createSpace('Traveller', { parent: 'guides' });
    const moved = ok(await ctx.server.as('bridge').POST('/v1/spaces/{spaceId}/transfer', { ...space(id), body: { organization: GLOBEX } }));
    expect(moved.organization).toBe(GLOBEX);
    expect(moved.parent).toBeUndefined();
    expect(ok(await ctx.server.as('outsider').GET('/v1/spaces/{spaceId}', space(id))).organization).toBe(GLOBEX);
    expectError(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}', space(id)), 404);
  });

  test('the same organization is a 409; an organization the caller is not in is a 400 naming it', async () => {
    const { id } = await createSpace('Stay');
    expectError(await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/transfer', { ...space(id), body: { organization: ACME } }), 409);
    expectError(await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/transfer', { ...space(id), body: { organization: GLOBEX } }), 400, 'organization');
    expectError(await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/transfer', { ...space(id), body: {} as never }), 400, 'organization');
    expect(ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}', space(id))).organization).toBe(ACME);
  });

  test('needs admin (403), visibility (404) and a token (401)', async () => {
    expectError(await ctx.server.as('creator').POST('/v1/spaces/{spaceId}/transfer', { ...space('handbook'), body: { organization: GLOBEX } }), 403);
    expectError(await ctx.server.as('outsider').POST('/v1/spaces/{spaceId}/transfer', { ...space('handbook'), body: { organization: GLOBEX } }), 404);
    expectError(await ctx.server.as('anonymous').POST('/v1/spaces/{spaceId}/transfer', { ...space('handbook'), body: { organization: GLOBEX } }), 401);
  });
});

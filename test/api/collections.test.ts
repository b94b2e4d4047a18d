import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { ACME, extendFixture, GLOBEX } from '../support/fixture.ts';
import { expectError, ok } from '../support/expect.ts';
import { useTestServer } from '../support/server.ts';
import { sql } from 'kysely';
import { insertRows } from '../support/store.ts';
import { timeout } from '../support/timeouts.ts';

const INITECH = 'initech';

const fixture = extendFixture({
  bridge: true,
  acme: {
    collections: [
      { id: 'guides', title: 'Guides' },
      { id: 'api', title: 'API', parent: 'guides' },
      { id: 'v1', title: 'Version 1', parent: 'api' },
      { id: 'archive', title: 'Archive' },
      { id: 'moving', title: 'Moving' },
      { id: 'moving-child', title: 'Moving child', parent: 'moving' },
      { id: 'doomed', title: 'Doomed' },
      { id: 'doomed-child', title: 'Doomed child', parent: 'doomed' },
      { id: 'levels', title: 'Levels' },
      { id: 'levels-child', title: 'Levels child', parent: 'levels' },
      { id: 'shelf', title: 'Shelf' },
      { id: 'box', title: 'Box', parent: 'shelf' },
      { id: 'crate', title: 'Crate', parent: 'shelf' },
      { id: 'delegated', title: 'Delegated', parent: 'shelf' },
      // Seeded in this order, which their ids' order is not.
      { id: 'rack', title: 'Rack' },
      { id: 'rack-z', title: 'Rack Z', parent: 'rack' },
      { id: 'rack-a', title: 'Rack A', parent: 'rack' },
    ],
    spaces: [
      { id: 'intro', title: 'Intro', parent: 'guides' },
      { id: 'tutorial', title: 'Tutorial', parent: 'guides' },
      { id: 'reference', title: 'Reference', parent: 'api' },
      { id: 'old-ref', title: 'Old reference', parent: 'v1' },
      { id: 'handbook', title: 'Handbook' },
      { id: 'm1', title: 'Moving one', parent: 'moving' },
      { id: 'm2', title: 'Moving two', parent: 'moving-child' },
      { id: 'd1', title: 'Doomed one', parent: 'doomed' },
      { id: 'd2', title: 'Doomed two', parent: 'doomed-child' },
      { id: 'lv1', title: 'Level one', parent: 'levels' },
      { id: 'lv2', title: 'Level two', parent: 'levels-child' },
      { id: 'shelf-space', title: 'Shelf space', parent: 'shelf' },
    ],
    teams: [{ id: 'writers', title: 'Writers', spaces: ['m1', 'handbook'] }],
  },
  globex: { collections: [{ id: 'globex-docs', title: 'Globex docs' }] },
  organizations: [{ id: INITECH, title: 'Initech', members: [{ user: 'admin', role: 'read' }] }],
});

const dataDir = mkdtempSync(path.join(tmpdir(), 'collections-test-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const ctx = useTestServer({ fixture, dataDir });
type Who = Parameters<typeof ctx.server.as>[0] | 'bridge';
const as = (who: Who) => (who === 'bridge' ? ctx.server.withToken('bridge') : ctx.server.as(who));
const acme = { params: { path: { organizationId: ACME } } };
const collection = (collectionId: string) => ({ params: { path: { collectionId } } });
const space = (spaceId: string) => ({ params: { path: { spaceId } } });

async function getCollection(id: string, who: Who = 'admin') {
  return ok(await as(who).GET('/v1/collections/{collectionId}', collection(id)));
}

async function collectionIds(query: { nested?: boolean } = {}, who: Who = 'admin', organizationId = ACME) {
  const list = ok(
    await as(who).GET('/v1/orgs/{organizationId}/collections', { params: { path: { organizationId }, query: { limit: 1000, ...query } } }),
  );
  return list.items.map((item) => item.id);
}

async function spaceIdsIn(collectionId: string, who: Who = 'admin') {
  const list = ok(await as(who).GET('/v1/collections/{collectionId}/spaces', { params: { path: { collectionId }, query: { limit: 1000 } } }));
  return list.items.map((item) => item.id);
}

async function createCollection(body: { title?: string; parent?: string }, who: Who = 'admin') {
  return ok(await as(who).POST('/v1/orgs/{organizationId}/collections', { ...acme, body }), 201);
}

const move = (id: string, body: Record<string, unknown>, who: Who = 'admin') =>
  as(who).POST('/v1/collections/{collectionId}/move', { ...collection(id), body: body as never });

describe('GET /v1/orgs/{organizationId}/collections', () => {
  test('lists every collection, nested ones included, with the caller’s permissions', async () => {
    const list = ok(await ctx.server.as('reader').GET('/v1/orgs/{organizationId}/collections', acme));
    expect(list.items.map((item) => item.id)).toEqual(expect.arrayContaining(['guides', 'api', 'v1', 'archive']));
    expect(list.count).toBe(list.items.length);
    const api = list.items.find((item) => item.id === 'api')!;
    expect(api).toMatchObject({ object: 'collection', title: 'API', organization: ACME, parent: 'guides' });
    expect(api.permissions).toEqual({ view: true, admin: false, viewInviteLinks: false, create: false });
    expect(api.urls).toEqual({ location: `${ctx.server.url}/v1/collections/api`, app: `${ctx.server.url}/app/c/api` });
    const asAdmin = ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/collections', acme));
    expect(asAdmin.items.find((item) => item.id === 'api')!.permissions).toEqual({
      view: true,
      admin: true,
      viewInviteLinks: true,
      create: true,
    });
  });

  test('nested=false lists only the top-level collections', async () => {
    const top = await collectionIds({ nested: false });
    expect(top).toEqual(expect.arrayContaining(['guides', 'archive']));
    expect(top).not.toContain('api');
    expect(top).not.toContain('v1');
    expect(await collectionIds({ nested: true })).toEqual(expect.arrayContaining(['api', 'v1']));
  });

  test('count counts what the list holds, the top level alone with nested=false', async () => {
    for (const nested of [true, false]) {
      const list = ok(
        await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/collections', { params: { path: { organizationId: ACME }, query: { limit: 1000, nested } } }),
      );
      expect(list.count, `nested=${nested}`).toBe(list.items.length);
      expect(list.items.every((item) => nested || item.parent === undefined), `nested=${nested}`).toBe(true);
    }
  });

  test('pages through the collections with a cursor', async () => {
    const all = await collectionIds();
    const first = ok(
      await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/collections', { params: { path: { organizationId: ACME }, query: { limit: 2 } } }),
    );
    const second = ok(
      await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/collections', {
        params: { path: { organizationId: ACME }, query: { limit: 2, page: first.next!.page } },
      }),
    );
    expect([...first.items, ...second.items].map((item) => item.id)).toEqual(all.slice(0, 4));
    expectError(
      await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/collections', {
        params: { path: { organizationId: ACME }, query: { limit: 2, nested: false, page: first.next!.page } },
      }),
      400,
      'page',
    );
  });

  test('a guest sees no collection', async () => {
    const list = ok(await ctx.server.as('guest').GET('/v1/orgs/{organizationId}/collections', acme));
    expect(list).toEqual({ count: 0, items: [] });
  });

  test('rejects bad paging with 400; answers 404 to other organizations and unknown ones, 401 without a token', async () => {
    expectError(
      await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/collections', { params: { path: { organizationId: ACME }, query: { limit: 0 } } }),
      400,
      'limit',
    );
    expectError(await ctx.server.as('outsider').GET('/v1/orgs/{organizationId}/collections', acme), 404);
    expectError(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/collections', { params: { path: { organizationId: 'nope' } } }), 404);
    expectError(await ctx.server.as('anonymous').GET('/v1/orgs/{organizationId}/collections', acme), 401);
  });
});

describe('POST /v1/orgs/{organizationId}/collections', () => {
  test('creates a top-level collection, answers 201 with its Location, and reads back the same', async () => {
    const answer = await ctx.server.as('creator').POST('/v1/orgs/{organizationId}/collections', { ...acme, body: { title: 'Recipes' } });
    const created = ok(answer, 201);
    expect(created).toEqual({
      object: 'collection',
      id: created.id,
      title: 'Recipes',
      organization: ACME,
      urls: { location: `${ctx.server.url}/v1/collections/${created.id}`, app: `${ctx.server.url}/app/c/${created.id}` },
      permissions: { view: true, admin: false, viewInviteLinks: false, create: true },
    });
    expect(answer.response.headers.get('location')).toBe(created.urls.location);
    expect(await getCollection(created.id, 'creator')).toEqual(created);
    expect(await collectionIds({ nested: false })).toContain(created.id);
  });

  test('creates a nested collection in a parent, and an untitled one without a title', async () => {
    const nested = await createCollection({ title: 'Desserts', parent: 'archive' });
    expect(nested.parent).toBe('archive');
    expect((await getCollection(nested.id)).parent).toBe('archive');
    expect(await collectionIds({ nested: false })).not.toContain(nested.id);
    const untitled = await createCollection({});
    expect(untitled.title).toBe('Untitled');
  });

  test('rejects bad input with 400 naming the field, and creates nothing', async () => {
    const before = (await collectionIds()).length;
    const cases: [Record<string, unknown>, string][] = [
      [{ title: 'X', parent: 'nope' }, 'parent'],
      [{ title: 'X', parent: 'globex-docs' }, 'parent'],
      [{ title: '' }, 'title'],
      [{ title: 'x'.repeat(256) }, 'title'],
      [{ title: 'X', description: 'not on create' }, 'description'],
    ];
    for (const [body, field] of cases) {
      expectError(await ctx.server.as('admin').POST('/v1/orgs/{organizationId}/collections', { ...acme, body: body as never }), 400, field);
    }
    expect((await collectionIds()).length).toBe(before);
  });

  test('needs the createContent permission (403), membership (404) and a token (401)', async () => {
    const before = (await collectionIds()).length;
    const body = { title: 'Nope' };
    expectError(await ctx.server.as('editor').POST('/v1/orgs/{organizationId}/collections', { ...acme, body }), 403, 'createContent');
    expectError(await ctx.server.as('outsider').POST('/v1/orgs/{organizationId}/collections', { ...acme, body }), 404);
    expectError(await ctx.server.as('anonymous').POST('/v1/orgs/{organizationId}/collections', { ...acme, body }), 401);
    expect((await collectionIds()).length).toBe(before);
  });
});

describe('GET /v1/collections/{collectionId}', () => {
  test('returns the collection to a member', async () => {
    expect(await getCollection('v1', 'reader')).toMatchObject({ id: 'v1', title: 'Version 1', parent: 'api', organization: ACME });
  });

  test('answers 404 for an unknown collection, to a guest, to other organizations, and 401 without a token', async () => {
    expectError(await ctx.server.as('admin').GET('/v1/collections/{collectionId}', collection('nope')), 404);
    expectError(await ctx.server.as('guest').GET('/v1/collections/{collectionId}', collection('guides')), 404);
    expectError(await ctx.server.as('outsider').GET('/v1/collections/{collectionId}', collection('guides')), 404);
    expectError(await ctx.server.as('anonymous').GET('/v1/collections/{collectionId}', collection('guides')), 401);
  });
});

describe('PATCH /v1/collections/{collectionId}', () => {
  test('updates title, description and default level, leaving out fields unchanged', async () => {
    const created = await createCollection({ title: 'Drafts' });
    const updated = ok(
      await ctx.server.as('admin').PATCH('/v1/collections/{collectionId}', {
        ...collection(created.id),
        body: { title: 'Drafts 2026', description: 'Work in progress', defaultLevel: 'comment' },
      }),
    );
    expect(updated).toEqual({ ...created, title: 'Drafts 2026', description: 'Work in progress', defaultLevel: 'comment' });
    expect(await getCollection(created.id)).toEqual(updated);
    const retitled = ok(
      await ctx.server.as('admin').PATCH('/v1/collections/{collectionId}', { ...collection(created.id), body: { title: 'Drafts' } }),
    );
    expect(retitled).toEqual({ ...updated, title: 'Drafts' });
    const cleared = ok(
      await ctx.server.as('admin').PATCH('/v1/collections/{collectionId}', { ...collection(created.id), body: { description: '' } }),
    );
    expect(cleared.description).toBeUndefined();
  });

  test('an empty change changes nothing', async () => {
    const before = await getCollection('archive');
    expect(ok(await ctx.server.as('admin').PATCH('/v1/collections/{collectionId}', { ...collection('archive'), body: {} }))).toEqual(before);
    expect(await getCollection('archive')).toEqual(before);
  });

  test('spaces and nested collections inherit the default level: a reader gets edit on them', async () => {
    const before = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}', space('lv1')));
    expect(before.permissions).toMatchObject({ view: true, edit: false, comment: false });
    ok(await ctx.server.as('admin').PATCH('/v1/collections/{collectionId}', { ...collection('levels'), body: { defaultLevel: 'edit' } }));
    for (const id of ['lv1', 'lv2']) {
      const read = ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}', space(id)));
      expect(read.permissions).toMatchObject({ view: true, comment: true, edit: true, merge: false, admin: false });
    }
    expect((await getCollection('levels-child', 'reader')).permissions).toMatchObject({ view: true, create: false, admin: false });
    // A space's own default level wins over its collection's.
    ok(await ctx.server.as('admin').PATCH('/v1/spaces/{spaceId}', { ...space('lv2'), body: { defaultLevel: 'read' } }));
    expect(ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}', space('lv2'))).permissions.edit).toBe(false);
    // Lists read the collections' levels for a whole page at once: each item is what reading it alone gives.
    const reader = ctx.server.as('reader');
    const organization = { params: { path: { organizationId: ACME }, query: { limit: 1000 } } };
    const spaces = ok(await reader.GET('/v1/orgs/{organizationId}/spaces', organization)).items;
    const collections = ok(await reader.GET('/v1/orgs/{organizationId}/collections', organization)).items;
    const inCollections = [
      ...ok(await reader.GET('/v1/collections/{collectionId}/spaces', collection('levels'))).items,
      ...ok(await reader.GET('/v1/collections/{collectionId}/spaces', collection('levels-child'))).items,
    ];
    for (const id of ['lv1', 'lv2']) {
      const alone = ok(await reader.GET('/v1/spaces/{spaceId}', space(id)));
      expect(spaces.find((item) => item.id === id), id).toEqual(alone);
      expect(inCollections.find((item) => item.id === id), id).toEqual(alone);
    }
    expect(spaces.find((item) => item.id === 'lv1')!.permissions.edit).toBe(true);
    for (const id of ['levels', 'levels-child']) expect(collections.find((item) => item.id === id), id).toEqual(await getCollection(id, 'reader'));
    // Guests get nothing from default levels.
    expectError(await ctx.server.as('guest').GET('/v1/spaces/{spaceId}', space('lv1')), 404);
  });

  test('a default level of admin makes every member an administrator of the collection', async () => {
    const created = await createCollection({ title: 'Open house' });
    ok(await ctx.server.as('admin').PATCH('/v1/collections/{collectionId}', { ...collection(created.id), body: { defaultLevel: 'admin' } }));
    const renamed = ok(
      await ctx.server.as('reader').PATCH('/v1/collections/{collectionId}', { ...collection(created.id), body: { title: 'Renamed by a reader' } }),
    );
    expect(renamed.permissions.admin).toBe(true);
  });

  test('rejects bad input with 400 naming the field, and changes nothing', async () => {
    const before = await getCollection('archive');
    const cases: [Record<string, unknown>, string][] = [
      [{ title: '' }, 'title'],
      [{ description: 'x'.repeat(1025) }, 'description'],
      [{ defaultLevel: 'owner' }, 'defaultLevel'],
      [{ title: 'Moved', parent: 'guides' }, 'parent'],
    ];
    for (const [body, field] of cases) {
      expectError(await ctx.server.as('admin').PATCH('/v1/collections/{collectionId}', { ...collection('archive'), body: body as never }), 400, field);
    }
    expect(await getCollection('archive')).toEqual(before);
  });

  test('needs the collection’s admin permission (403), a visible collection (404) and a token (401)', async () => {
    const body = { title: 'Hijacked' };
    expectError(await ctx.server.as('creator').PATCH('/v1/collections/{collectionId}', { ...collection('archive'), body }), 403, 'admin');
    expectError(await ctx.server.as('admin').PATCH('/v1/collections/{collectionId}', { ...collection('nope'), body }), 404);
    expectError(await ctx.server.as('outsider').PATCH('/v1/collections/{collectionId}', { ...collection('archive'), body }), 404);
    expectError(await ctx.server.as('anonymous').PATCH('/v1/collections/{collectionId}', { ...collection('archive'), body }), 401);
    expect((await getCollection('archive')).title).toBe('Archive');
  });
});

describe('GET /v1/collections/{collectionId}/spaces', () => {
  test('lists the live spaces directly in the collection, in their order', async () => {
    expect(await spaceIdsIn('guides', 'reader')).toEqual(['intro', 'tutorial']);
    expect(await spaceIdsIn('api', 'reader')).toEqual(['reference']);
    const list = ok(await ctx.server.as('reader').GET('/v1/collections/{collectionId}/spaces', collection('guides')));
    expect(list.items[0]).toMatchObject({ object: 'space', id: 'intro', parent: 'guides', permissions: { view: true, edit: false } });
  });

  test('leaves deleted spaces out and pages with a cursor', async () => {
    const created = ok(
      await ctx.server.as('admin').POST('/v1/orgs/{organizationId}/spaces', { ...acme, body: { title: 'Scratch', parent: 'archive' } }),
      201,
    );
    const kept = ok(
      await ctx.server.as('admin').POST('/v1/orgs/{organizationId}/spaces', { ...acme, body: { title: 'Kept', parent: 'archive' } }),
      201,
    );
    expect(await spaceIdsIn('archive')).toEqual([created.id, kept.id]);
    await ctx.server.as('admin').DELETE('/v1/spaces/{spaceId}', space(created.id));
    expect(await spaceIdsIn('archive')).toEqual([kept.id]);
    const first = ok(
      await ctx.server.as('admin').GET('/v1/collections/{collectionId}/spaces', { params: { path: { collectionId: 'guides' }, query: { limit: 1 } } }),
    );
    expect(first).toMatchObject({ count: 2, items: [{ id: 'intro' }] });
    const second = ok(
      await ctx.server.as('admin').GET('/v1/collections/{collectionId}/spaces', {
        params: { path: { collectionId: 'guides' }, query: { limit: 1, page: first.next!.page } },
      }),
    );
    expect(second.items.map((item) => item.id)).toEqual(['tutorial']);
    expect(second.next).toBeUndefined();
  });

  test('rejects bad paging with 400; answers 404 for unknown or invisible collections, 401 without a token', async () => {
    expectError(
      await ctx.server.as('admin').GET('/v1/collections/{collectionId}/spaces', { params: { path: { collectionId: 'guides' }, query: { limit: 1001 } } }),
      400,
      'limit',
    );
    expectError(await ctx.server.as('admin').GET('/v1/collections/{collectionId}/spaces', collection('nope')), 404);
    expectError(await ctx.server.as('guest').GET('/v1/collections/{collectionId}/spaces', collection('guides')), 404);
    expectError(await ctx.server.as('outsider').GET('/v1/collections/{collectionId}/spaces', collection('guides')), 404);
    expectError(await ctx.server.as('anonymous').GET('/v1/collections/{collectionId}/spaces', collection('guides')), 401);
  });
});

describe('POST /v1/collections/{collectionId}/move', () => {
  test('moves a collection into another one and back to the top level', async () => {
    const moved = ok(await move('box', { parent: 'archive' }));
    expect(moved.parent).toBe('archive');
    expect((await getCollection('box')).parent).toBe('archive');
    const top = ok(await move('box', { parent: null }));
    expect(top.parent).toBeUndefined();
    expect(await collectionIds({ nested: false })).toContain('box');
    ok(await move('box', { parent: 'shelf' }));
  });

  test('places a collection before or after a sibling space or collection; the same place again is a 409', async () => {
    // shelf holds, in order: box, crate, delegated (collections) and shelf-space (a space), then box moved back last.
    ok(await move('crate', { position: { before: { type: 'space', space: 'shelf-space' } } }));
    expectError(await move('crate', { position: { before: { type: 'space', space: 'shelf-space' } } }), 409);
    ok(await move('crate', { position: { after: { type: 'space', space: 'shelf-space' } } }));
    expectError(await move('crate', { position: { after: { type: 'space', space: 'shelf-space' } } }), 409);
    ok(await move('crate', { position: { before: { type: 'space', space: 'delegated' } } }));
    expectError(await move('crate', { parent: 'shelf', position: { before: { type: 'space', space: 'delegated' } } }), 409);
  });

  test('seeded collections keep the order they were seeded in among their siblings', async () => {
    // rack-z was seeded before rack-a: rack-a is after it already, and before it is a move.
    expectError(await move('rack-a', { position: { after: { type: 'space', space: 'rack-z' } } }), 409, 'changes nothing');
    ok(await move('rack-a', { position: { before: { type: 'space', space: 'rack-z' } } }));
    expectError(await move('rack-z', { position: { after: { type: 'space', space: 'rack-a' } } }), 409, 'changes nothing');
  });

  test('a move that changes nothing is a 409', async () => {
    ok(await move('crate', {})); // to the end of its siblings
    expectError(await move('crate', {}), 409, 'changes nothing');
    expectError(await move('crate', { parent: 'shelf' }), 409);
  });

  test('rejects moving into itself or a nested collection, and unknown references, with 400; nothing changes', async () => {
    const before = await getCollection('guides');
    expectError(await move('guides', { parent: 'guides' }), 400, 'parent');
    expectError(await move('guides', { parent: 'api' }), 400, 'parent', 'nested');
    expectError(await move('guides', { parent: 'v1' }), 400, 'parent');
    expectError(await move('guides', { parent: 'nope' }), 400, 'parent');
    expectError(await move('guides', { parent: 'globex-docs' }), 400, 'parent');
    expectError(await move('guides', { position: { before: { type: 'space', space: 'intro' } } }), 400, 'position.before');
    expectError(await move('guides', { parent: 'archive', position: { after: { type: 'space', space: 'handbook' } } }), 400, 'position.after');
    expectError(await move('guides', { position: { before: { type: 'collection', space: 'archive' } } }), 400, 'type');
    expect(await getCollection('guides')).toEqual(before);
    expect((await getCollection('api')).parent).toBe('guides');
  });

  test('moving elsewhere needs the right to create content there (403)', async () => {
    // The reader administers `delegated` through its default level, but may not create content elsewhere.
    ok(await ctx.server.as('admin').PATCH('/v1/collections/{collectionId}', { ...collection('delegated'), body: { defaultLevel: 'admin' } }));
    expectError(await move('delegated', { parent: 'archive' }, 'reader'), 403, 'parent');
    expectError(await move('delegated', { parent: null }, 'reader'), 403, 'createContent');
    ok(await move('delegated', { position: { before: { type: 'space', space: 'box' } } }, 'reader'));
    expect((await getCollection('delegated')).parent).toBe('shelf');
  });

  test('needs the collection’s admin permission (403), a visible collection (404) and a token (401)', async () => {
    expectError(await move('archive', { parent: 'guides' }, 'creator'), 403, 'admin');
    expectError(await move('nope', { parent: null }), 404);
    expectError(await move('archive', { parent: null }, 'outsider'), 404);
    expectError(await move('archive', { parent: null }, 'anonymous'), 401);
    expect((await getCollection('archive')).parent).toBeUndefined();
  });
});

describe('POST /v1/collections/{collectionId}/transfer', () => {
  const transfer = (id: string, organization: string, who: Who = 'bridge') =>
    as(who).POST('/v1/collections/{collectionId}/transfer', { ...collection(id), body: { organization } });

  test('moves the collection, its nested collections and all their spaces to the other organization', async () => {
    const teamBefore = ok(
      await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/teams/{teamId}', { params: { path: { organizationId: ACME, teamId: 'writers' } } }),
    );
    const moved = ok(await transfer('moving', GLOBEX));
    expect(moved).toMatchObject({ id: 'moving', organization: GLOBEX, permissions: { admin: true } });
    expect(moved.parent).toBeUndefined();

    // Read back from the other organization, as its admin.
    expect(await getCollection('moving', 'outsider')).toMatchObject({ organization: GLOBEX });
    expect(await getCollection('moving-child', 'outsider')).toMatchObject({ organization: GLOBEX, parent: 'moving' });
    expect(await collectionIds({ nested: false }, 'outsider', GLOBEX)).toContain('moving');
    for (const [id, parent] of [['m1', 'moving'], ['m2', 'moving-child']]) {
      expect(ok(await ctx.server.as('outsider').GET('/v1/spaces/{spaceId}', space(id!)))).toMatchObject({ organization: GLOBEX, parent });
    }
    const globexSpaces = ok(await ctx.server.as('outsider').GET('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: GLOBEX } } }));
    expect(globexSpaces.items.map((item) => item.id)).toEqual(expect.arrayContaining(['m1', 'm2']));
    expect(await spaceIdsIn('moving-child', 'outsider')).toEqual(['m2']);

    // Gone from the first organization, and its teams no longer grant the spaces.
    expect(await collectionIds()).not.toContain('moving-child');
    expectError(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}', space('m1')), 404);
    const teamAfter = ok(
      await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/teams/{teamId}', { params: { path: { organizationId: ACME, teamId: 'writers' } } }),
    );
    expect(teamAfter.spaces).toBe(teamBefore.spaces - 1);
  });

  test('transfers and deletes a collection of more spaces than SQLite binds parameters', async () => {
    // The ids of a tree's spaces were once bound as parameters: beyond 32 766 of them, SQLite refused the statement.
    const big = ok(await as('bridge').POST('/v1/orgs/{organizationId}/collections', { ...acme, body: { title: 'Big' } }));
    const many = 33_000;
    const app = ctx.server.running.ctx;
    const at = '2026-01-01T00:00:00.000Z';
    await insertRows(app, 'spaces', Array.from({ length: many }, (_, i) => ({
      id: `big-${i}`, organization_id: ACME, parent_id: big.id, title: `Space ${i}`, revision_id: 'none', share_key: 'k', position: i, created_at: at, updated_at: at,
    })));
    const spacesOf = async (organizationId: string) =>
      ok(await ctx.server.as('outsider').GET('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId }, query: { limit: 1 } } })).count;
    const before = await spacesOf(GLOBEX);

    expect(ok(await transfer(big.id, GLOBEX))).toMatchObject({ id: big.id, organization: GLOBEX });
    expect(ok(await ctx.server.as('outsider').GET('/v1/collections/{collectionId}/spaces', { params: { path: { collectionId: big.id }, query: { limit: 1 } } })).count).toBe(many);
    expect(await spacesOf(GLOBEX)).toBe(before + many);

    expect((await ctx.server.as('outsider').DELETE('/v1/collections/{collectionId}', collection(big.id))).response.status).toBe(204);
    expect(await spacesOf(GLOBEX)).toBe(before);
    expect(await app.store.reader.first(sql`SELECT COUNT(*) AS n FROM spaces WHERE id LIKE 'big-%' AND deleted_at IS NOT NULL`)).toEqual({ n: many });
    await app.store.write((db) => db.run(sql`DELETE FROM spaces WHERE id LIKE 'big-%'`));
    // Its own bound: the rows it writes, moves and deletes take PostgreSQL a good part of the default one on a machine
    // busy with the whole suite.
  }, timeout(120_000));

  test('transferring to the organization it is in is a 409', async () => {
    expectError(await transfer('archive', ACME), 409, 'organization');
  });

  test('rejects an organization the caller is not a member of with 400, and changes nothing', async () => {
    expectError(await transfer('archive', 'nope'), 400, 'organization');
    expectError(await transfer('archive', GLOBEX, 'admin'), 400, 'organization');
    expectError(await as('bridge').POST('/v1/collections/{collectionId}/transfer', { ...collection('archive'), body: {} as never }), 400, 'organization');
    expect((await getCollection('archive')).organization).toBe(ACME);
  });

  test('needs the collection’s admin permission and createContent in the target (403), a visible collection (404) and a token (401)', async () => {
    expectError(await transfer('archive', INITECH, 'admin'), 403, 'createContent');
    expectError(await transfer('archive', GLOBEX, 'creator'), 403, 'admin');
    expectError(await transfer('nope', GLOBEX), 404);
    expectError(await transfer('archive', GLOBEX, 'outsider'), 404);
    expectError(await transfer('archive', GLOBEX, 'anonymous'), 401);
    expect((await getCollection('archive')).organization).toBe(ACME);
  });
});

describe('DELETE /v1/collections/{collectionId}', () => {
  test('deletes the collection and its nested ones; their spaces go to the trash, restorable at the top level', async () => {
    const first = await ctx.server.as('admin').DELETE('/v1/collections/{collectionId}', collection('doomed'));
    expect(first.response.status).toBe(204);
    expectError(await ctx.server.as('admin').GET('/v1/collections/{collectionId}', collection('doomed')), 404);
    expectError(await ctx.server.as('admin').GET('/v1/collections/{collectionId}', collection('doomed-child')), 404);
    expect(await collectionIds()).not.toContain('doomed-child');
    for (const id of ['d1', 'd2']) {
      const trashed = ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}', space(id)));
      expect(trashed.deletedAt).toBe('2026-03-01T09:00:00.000Z');
    }
    const listed = ok(await ctx.server.as('admin').GET('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: ACME }, query: { limit: 1000 } } }));
    expect(listed.items.map((item) => item.id)).not.toContain('d1');
    const restored = ok(await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/restore', space('d2')));
    expect(restored.deletedAt).toBeUndefined();
    expect(restored.parent).toBeUndefined();

    const again = await ctx.server.as('admin').DELETE('/v1/collections/{collectionId}', collection('doomed'));
    expect(again.response.status).toBe(204);
  });

  test('answers 204 for an unknown collection and for one the caller cannot see, which stays', async () => {
    expect((await ctx.server.as('admin').DELETE('/v1/collections/{collectionId}', collection('nope'))).response.status).toBe(204);
    expect((await ctx.server.as('outsider').DELETE('/v1/collections/{collectionId}', collection('archive'))).response.status).toBe(204);
    expect((await ctx.server.as('guest').DELETE('/v1/collections/{collectionId}', collection('archive'))).response.status).toBe(204);
    expect((await getCollection('archive')).id).toBe('archive');
  });

  test('needs the collection’s admin permission (403) and a token (401)', async () => {
    expectError(await ctx.server.as('creator').DELETE('/v1/collections/{collectionId}', collection('archive')), 403, 'admin');
    expectError(await ctx.server.as('anonymous').DELETE('/v1/collections/{collectionId}', collection('archive')), 401);
    expect((await getCollection('archive')).id).toBe('archive');
    expect(await spaceIdsIn('guides')).toEqual(['intro', 'tutorial']);
  });
});

describe('persistence', () => {
  test('collections, their levels and places survive a restart', async () => {
    const created = await createCollection({ title: 'Durable', parent: 'archive' });
    const updated = ok(
      await ctx.server.as('admin').PATCH('/v1/collections/{collectionId}', {
        ...collection(created.id),
        body: { description: 'Kept', defaultLevel: 'review' },
      }),
    );
    await ctx.server.restart();
    expect(await getCollection(created.id)).toEqual(updated);
  });
});

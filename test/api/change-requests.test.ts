// A change request's life (/v1/spaces/{spaceId}/change-requests): created from the space's current revision and
// numbered in the space (20 at once included), listed (filters, order, pages, each item as reading it alone gives),
// read by id or number, its subject and status changed, each with its bad input and access, and all of it kept
// across a restart.
import { describe, expect, test } from 'vitest';
import { expectError, ok } from '../support/expect.ts';
import { cr, MINUTE, pageIn, space, useChangeRequestServer } from '../support/change-requests.ts';

const { ctx, editChangeRequest, newSpace, createChangeRequest, getSpace, getChangeRequest, contentOf, setEditMode } = useChangeRequestServer();

describe('POST /v1/spaces/{spaceId}/change-requests', () => {
  test('creates an open change request from the current revision, numbered in the space, and reads it back', async () => {
    const spaceId = await newSpace();
    const before = await getSpace(spaceId);
    const answer = await ctx.server.as('editor').POST('/v1/spaces/{spaceId}/change-requests', {
      ...space(spaceId),
      body: { subject: 'Rewrite the intro', agentTaskId: 'task-42' },
    });
    const created = ok(answer, 201);
    expect(created).toMatchObject({
      object: 'change-request',
      number: 1,
      status: 'open',
      subject: 'Rewrite the intro',
      createdBy: { object: 'user', id: 'editor', displayName: 'Editor User' },
      revision: before.revision,
      revisionInitial: before.revision,
      comments: 0,
      outdated: false,
    });
    expect(created.revisionMergedAncestor).toBeUndefined();
    expect(created.revisionMerged).toBeUndefined();
    expect(created.createdAt).toBe(created.updatedAt);
    expect(created.urls.location).toBe(`${ctx.server.url}/v1/spaces/${spaceId}/change-requests/${created.id}`);
    expect(answer.response.headers.get('location')).toBe(created.urls.location);

    expect(await getChangeRequest(spaceId, created.id)).toEqual(created);
    expect(await getChangeRequest(spaceId, 1)).toEqual(created);
    expect(ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}/change-requests', space(spaceId))).items).toEqual([
      created,
    ]);
    expect(await getSpace(spaceId)).toMatchObject({
      revision: before.revision,
      changeRequests: 1,
      changeRequestsOpen: 1,
    });
    // Its content starts as a copy of the space's.
    expect(await contentOf({ spaceId, changeRequestId: created.id })).toEqual(await contentOf({ spaceId }));

    const second = await createChangeRequest(spaceId, 'Another');
    expect(second.number).toBe(2);
  });

  test('needs no subject', async () => {
    const spaceId = await newSpace();
    const created = ok(
      await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/change-requests', { ...space(spaceId), body: {} }),
      201,
    );
    expect(created.subject).toBeUndefined();
    expect((await getChangeRequest(spaceId, created.number)).subject).toBeUndefined();
  });

  test('numbers 20 change requests created at once 1 to 20, each once', async () => {
    const spaceId = await newSpace();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        ctx.server
          .as('editor')
          .POST('/v1/spaces/{spaceId}/change-requests', { ...space(spaceId), body: { subject: `Change ${index}` } }),
      ),
    );
    const numbers = answers.map((answer) => ok(answer, 201).number).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 20 }, (_, index) => index + 1));
    const list = ok(
      await ctx.server
        .as('admin')
        .GET('/v1/spaces/{spaceId}/change-requests', { params: { path: { spaceId }, query: { limit: 100 } } }),
    );
    expect(list.count).toBe(20);
    expect(new Set(list.items.map((item) => item.number)).size).toBe(20);
    expect((await getSpace(spaceId)).changeRequests).toBe(20);
  });

  test('rejects bad input with 400 naming the field, and creates nothing', async () => {
    const spaceId = await newSpace();
    const post = (body: unknown) =>
      ctx.server.as('admin').POST('/v1/spaces/{spaceId}/change-requests', { ...space(spaceId), body: body as never });
    expectError(await post({ subject: 'x'.repeat(256) }), 400, 'subject');
    expectError(await post({ subject: 'Fine', status: 'draft' }), 400, 'status');
    expectError(await post({ agentTaskId: 42 }), 400, 'agentTaskId');
    expect((await getSpace(spaceId)).changeRequests).toBe(0);
    expect(ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}/change-requests', space(spaceId))).count).toBe(0);
  });

  test('needs the edit permission: 403 for a commenter, and for everyone while the space is locked', async () => {
    const spaceId = await newSpace();
    expectError(
      await ctx.server
        .as('commenter')
        .POST('/v1/spaces/{spaceId}/change-requests', { ...space(spaceId), body: { subject: 'No' } }),
      403,
      'edit',
    );
    await setEditMode(spaceId, 'locked');
    expectError(
      await ctx.server
        .as('admin')
        .POST('/v1/spaces/{spaceId}/change-requests', { ...space(spaceId), body: { subject: 'No' } }),
      403,
      'locked',
    );
    await setEditMode(spaceId, 'live');
    expect((await getSpace(spaceId)).changeRequests).toBe(0);
  });

  test('answers 404 for an unknown space, a space the caller cannot see, and another organization; 401 without a token', async () => {
    const body = { subject: 'x' };
    expectError(
      await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/change-requests', { ...space('nope'), body }),
      404,
    );
    expectError(
      await ctx.server.as('guest').POST('/v1/spaces/{spaceId}/change-requests', { ...space('handbook'), body }),
      404,
    );
    expectError(
      await ctx.server.as('outsider').POST('/v1/spaces/{spaceId}/change-requests', { ...space('handbook'), body }),
      404,
    );
    expectError(
      await ctx.server.as('anonymous').POST('/v1/spaces/{spaceId}/change-requests', { ...space('handbook'), body }),
      401,
    );
  });
});

describe('GET /v1/spaces/{spaceId}/change-requests', () => {
  test('each listed change request is what reading it alone gives: its author, its open comments, outdated or not', async () => {
    // The list reads authors and comment counts for the whole page at once, and the space once.
    const spaceId = await newSpace();
    const quiet = await createChangeRequest(spaceId, 'Quiet', 'admin');
    const discussed = await createChangeRequest(spaceId, 'Discussed', 'editor');
    const comment = (markdown: string) =>
      ctx.server.as('editor').POST('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments', {
        ...cr(spaceId, discussed.id),
        body: { body: { markdown } },
      });
    const first = ok(await comment('One.'), 201);
    ok(await comment('Two.'), 201);
    ok(
      await ctx.server.as('editor').POST('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies', {
        params: { path: { spaceId, changeRequestId: discussed.id, commentId: first.id } },
        body: { body: { markdown: 'A reply is not counted.' } },
      }),
      201,
    );
    // Merged: never outdated; the space moved on, so the others are.
    const merged = await createChangeRequest(spaceId, 'Merged', 'editor');
    await editChangeRequest(spaceId, merged.number, (content) => (pageIn(content, 'intro').title = 'Merged title'));
    ok(await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/merge', cr(spaceId, merged.id)));
    const fresh = await createChangeRequest(spaceId, 'Fresh', 'admin');

    const list = async (status: 'open' | 'merged') =>
      ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/change-requests', { params: { path: { spaceId }, query: { status } } })).items;
    const listed = [...(await list('open')), ...(await list('merged'))];
    expect(listed).toHaveLength(4);
    for (const item of listed) expect(item, item.subject).toEqual(await getChangeRequest(spaceId, item.id));
    const bySubject = (subject: string) => listed.find((item) => item.id === { Quiet: quiet, Discussed: discussed, Fresh: fresh }[subject]!.id)!;
    expect(bySubject('Discussed')).toMatchObject({ comments: 2, outdated: true, createdBy: { id: 'editor' } });
    expect(bySubject('Quiet')).toMatchObject({ comments: 0, outdated: true, createdBy: { id: 'admin' } });
    expect(bySubject('Fresh')).toMatchObject({ comments: 0, outdated: false });
    expect(listed.find((item) => item.id === merged.id)).toMatchObject({ status: 'merged', outdated: false });
  });

  test('lists open change requests by default, most recently updated first, with filters and pages', async () => {
    const spaceId = await newSpace();
    const first = await createChangeRequest(spaceId, 'First', 'editor');
    ctx.server.clock.advance(MINUTE);
    const second = await createChangeRequest(spaceId, 'Second', 'admin');
    ctx.server.clock.advance(MINUTE);
    const third = await createChangeRequest(spaceId, 'Third', 'editor');
    ctx.server.clock.advance(MINUTE);
    const archived = await createChangeRequest(spaceId, 'Archived', 'editor');
    ok(
      await ctx.server.as('editor').PATCH('/v1/spaces/{spaceId}/change-requests/{changeRequestId}', {
        ...cr(spaceId, archived.id),
        body: { status: 'archived' },
      }),
    );
    ctx.server.clock.advance(MINUTE);
    // Then the first one, then the second one are updated: by updatedAt they come before the third.
    ok(
      await ctx.server.as('editor').PATCH('/v1/spaces/{spaceId}/change-requests/{changeRequestId}', {
        ...cr(spaceId, first.id),
        body: { subject: 'First, revised' },
      }),
    );
    ctx.server.clock.advance(MINUTE);
    await editChangeRequest(spaceId, second.number, (content) => (pageIn(content, 'intro').markdown = 'Reviewed.'));

    const list = (query: Record<string, unknown> = {}) =>
      ctx.server.as('reader').GET('/v1/spaces/{spaceId}/change-requests', { params: { path: { spaceId }, query } });
    const numbers = async (query: Record<string, unknown> = {}) =>
      ok(await list(query)).items.map((item) => item.number);

    expect(await numbers()).toEqual([2, 1, 3]);
    expect(await numbers({ orderBy: 'createdAt' })).toEqual([third.number, second.number, first.number]);
    expect(await numbers({ status: 'archived' })).toEqual([archived.number]);
    expect(await numbers({ status: 'merged' })).toEqual([]);
    expect(await numbers({ creator: 'admin' })).toEqual([second.number]);
    // The editor contributed to the second one's content too.
    expect(await numbers({ contributor: 'editor' })).toEqual([2, 1, 3]);
    expect(await numbers({ contributor: 'admin' })).toEqual([2]);
    expect(await numbers({ creator: 'nobody' })).toEqual([]);

    const page1 = ok(await list({ limit: 2 }));
    expect(page1.count).toBe(3);
    expect(page1.items.map((item) => item.number)).toEqual([2, 1]);
    const page2 = ok(await list({ limit: 2, page: page1.next!.page }));
    expect(page2.items.map((item) => item.number)).toEqual([3]);
    expect(page2.next).toBeUndefined();
    expect(page2.count).toBe(3);
  });

  test('rejects bad filters and cursors with 400 naming the parameter', async () => {
    // Two open change requests: a list of one a page has a next page, whose cursor belongs to its filters.
    const spaceId = await newSpace();
    await createChangeRequest(spaceId, 'One');
    await createChangeRequest(spaceId, 'Two');
    const list = (query: Record<string, unknown>) =>
      ctx.server.as('admin').GET('/v1/spaces/{spaceId}/change-requests', { params: { path: { spaceId }, query } });
    expectError(await list({ status: 'closed' }), 400, 'status');
    expectError(await list({ orderBy: 'title' }), 400, 'orderBy');
    expectError(await list({ limit: 0 }), 400, 'limit');
    expectError(await list({ page: 'forged.cursor' }), 400, 'page');
    const first = ok(await list({ limit: 1, status: 'open' }));
    expectError(await list({ limit: 1, status: 'draft', page: first.next!.page }), 400, 'page');
  });

  test('answers 404 for an unknown space, to a guest who cannot see it, and to another organization; 401 without a token', async () => {
    expectError(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}/change-requests', space('nope')), 404);
    expectError(await ctx.server.as('guest').GET('/v1/spaces/{spaceId}/change-requests', space('handbook')), 404);
    expectError(await ctx.server.as('outsider').GET('/v1/spaces/{spaceId}/change-requests', space('handbook')), 404);
    expectError(await ctx.server.as('anonymous').GET('/v1/spaces/{spaceId}/change-requests', space('handbook')), 401);
  });
});

describe('GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}', () => {
  test('finds a change request by id and by number, for any reader of the space', async () => {
    const created = await createChangeRequest('handbook', 'Lookup');
    const byId = ok(
      await ctx.server
        .as('reader')
        .GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}', cr('handbook', created.id)),
    );
    const byNumber = ok(
      await ctx.server
        .as('reader')
        .GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}', cr('handbook', created.number)),
    );
    expect(byId).toEqual(created);
    expect(byNumber).toEqual(created);
  });

  test('answers 404 for an unknown id or number and for a change request of another space', async () => {
    const other = await newSpace();
    const elsewhere = await createChangeRequest(other, 'Elsewhere');
    const get = (spaceId: string, id: string | number) =>
      ctx.server.as('admin').GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}', cr(spaceId, id));
    expectError(await get('handbook', 'nope'), 404, 'change request nope');
    expectError(await get('handbook', 9999), 404);
    expectError(await get('handbook', elsewhere.id), 404);
    expectError(await get('nope', 1), 404);
  });

  test('answers 404 to a guest and to another organization; 401 without a token', async () => {
    const created = await createChangeRequest('handbook', 'Hidden');
    const path = cr('handbook', created.id);
    expectError(await ctx.server.as('guest').GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}', path), 404);
    expectError(
      await ctx.server.as('outsider').GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}', path),
      404,
    );
    expectError(
      await ctx.server.as('anonymous').GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}', path),
      401,
    );
  });
});

describe('PATCH /v1/spaces/{spaceId}/change-requests/{changeRequestId}', () => {
  const patch = (as: Parameters<typeof ctx.server.as>[0], spaceId: string, id: string | number, body: unknown) =>
    ctx.server
      .as(as)
      .PATCH('/v1/spaces/{spaceId}/change-requests/{changeRequestId}', { ...cr(spaceId, id), body: body as never });

  test('changes the subject and the status, moves updatedAt, and reads back the same', async () => {
    const spaceId = await newSpace();
    const created = await createChangeRequest(spaceId, 'Draft me');
    ctx.server.clock.advance(MINUTE);
    const updated = ok(
      await patch('editor', spaceId, created.number, { subject: 'Work in progress', status: 'draft' }),
    );
    expect(updated).toMatchObject({
      id: created.id,
      subject: 'Work in progress',
      status: 'draft',
      createdAt: created.createdAt,
    });
    expect(updated.updatedAt).not.toBe(created.updatedAt);
    expect(await getChangeRequest(spaceId, created.id)).toEqual(updated);
    expect(await getSpace(spaceId)).toMatchObject({ changeRequests: 1, changeRequestsOpen: 0, changeRequestsDraft: 1 });

    ok(await patch('editor', spaceId, created.id, { status: 'archived' }));
    expect((await getChangeRequest(spaceId, created.id)).status).toBe('archived');
    // An archived change request can be reopened.
    ok(await patch('editor', spaceId, created.id, { status: 'open' }));
    expect(await getChangeRequest(spaceId, created.id)).toMatchObject({ status: 'open', subject: 'Work in progress' });
  });

  test('an empty body changes nothing', async () => {
    const created = await createChangeRequest('handbook', 'Unchanged');
    ctx.server.clock.advance(MINUTE);
    expect(ok(await patch('editor', 'handbook', created.id, {}))).toEqual(created);
  });

  test('rejects bad input with 400 naming the field, and changes nothing', async () => {
    const created = await createChangeRequest('handbook', 'Keep me');
    expectError(await patch('admin', 'handbook', created.id, { status: 'merged' }), 400, 'status');
    expectError(await patch('admin', 'handbook', created.id, { subject: 'x'.repeat(256) }), 400, 'subject');
    expectError(await patch('admin', 'handbook', created.id, { subject: 'New', number: 7 }), 400, 'number');
    expect(await getChangeRequest('handbook', created.id)).toEqual(created);
  });

  test('a merged change request cannot be changed: 409', async () => {
    const spaceId = await newSpace();
    const created = await createChangeRequest(spaceId);
    ok(
      await ctx.server
        .as('reviewer')
        .POST('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/merge', cr(spaceId, created.id)),
    );
    expectError(await patch('admin', spaceId, created.id, { status: 'open' }), 409, 'merged');
    expect((await getChangeRequest(spaceId, created.id)).status).toBe('merged');
  });

  test('needs the edit permission (403 for a commenter or in a locked space); 404 unknown, guest or other organization; 401', async () => {
    const spaceId = await newSpace();
    const created = await createChangeRequest(spaceId, 'Guarded');
    expectError(await patch('commenter', spaceId, created.id, { subject: 'No' }), 403, 'edit');
    await setEditMode(spaceId, 'locked');
    expectError(await patch('admin', spaceId, created.id, { subject: 'No' }), 403, 'locked');
    await setEditMode(spaceId, 'live');
    expectError(await patch('admin', spaceId, 'nope', { subject: 'No' }), 404);
    expectError(await patch('guest', spaceId, created.id, { subject: 'No' }), 404);
    expectError(await patch('outsider', spaceId, created.id, { subject: 'No' }), 404);
    expectError(await patch('anonymous', spaceId, created.id, { subject: 'No' }), 401);
    expect((await getChangeRequest(spaceId, created.id)).subject).toBe('Guarded');
  });
});

describe('persistence', () => {
  test('change requests, their numbers, their content and generated PDFs survive a restart', async () => {
    const spaceId = await newSpace();
    const created = await createChangeRequest(spaceId, 'Durable');
    await editChangeRequest(spaceId, created.id, (content) => (pageIn(content, 'intro').title = 'Kept'));
    ok(
      await ctx.server.as('editor').PATCH('/v1/spaces/{spaceId}/change-requests/{changeRequestId}', {
        ...cr(spaceId, created.id),
        body: { status: 'draft' },
      }),
    );
    const before = await getChangeRequest(spaceId, created.id);
    const { url } = ok(
      await ctx.server
        .as('editor')
        .GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/pdf', cr(spaceId, created.id)),
    );

    await ctx.server.restart();

    expect(await getChangeRequest(spaceId, 1)).toEqual(before);
    expect((await contentOf({ spaceId, changeRequestId: created.id })).outline[0]).toBe('Kept');
    expect((await fetch(url)).status).toBe(200);
    expect((await createChangeRequest(spaceId, 'Next')).number).toBe(2);
  });
});

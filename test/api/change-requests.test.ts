import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { findPage, type RevisionContent, type StoredPage } from '../../server/content/model.ts';
import {
  changeRequestRevision,
  commitChangeRequestContent,
  getChangeRequestRow,
} from '../../server/domain/change-requests.ts';
import { seedPages, type SeedPage } from '../../server/seed.ts';
import { editSpaceContent } from '../support/content.ts';
import { ACME, standardFixture } from '../support/fixture.ts';
import { expectError, ok } from '../support/expect.ts';
import { useTestServer } from '../support/server.ts';
import { inWrite } from '../../server/context.ts';

const HANDBOOK_PAGES: SeedPage[] = [
  { id: 'intro', title: 'Introduction', markdown: '# Introduction\n\nWelcome aboard.\n' },
  {
    id: 'setup',
    title: 'Setup',
    markdown: 'Install the tools.\n',
    pages: [{ id: 'laptop', title: 'Laptop', markdown: 'Use a **fast** laptop.\n\n- one\n- two\n\n> quoted\n' }],
  },
  {
    id: 'faq',
    title: 'FAQ',
    markdown: '| Question | Answer |\n|---|---|\n| Why? | Because. |\n\n```sh\nnpm ci\n```\n',
  },
];

const fixture = {
  ...standardFixture,
  organizations: [
    { ...standardFixture.organizations![0]!, spaces: [{ id: 'handbook', title: 'Handbook', pages: HANDBOOK_PAGES }] },
    standardFixture.organizations![1]!,
  ],
};

const dataDir = mkdtempSync(path.join(tmpdir(), 'change-requests-test-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const ctx = useTestServer({ fixture, dataDir });
const MINUTE = 60_000;

const space = (spaceId: string) => ({ params: { path: { spaceId } } });
const cr = (spaceId: string, changeRequestId: string | number) => ({
  params: { path: { spaceId, changeRequestId: String(changeRequestId) } },
});

// --- Set-up helpers. Content is put into spaces and change requests directly through the revision store (as
// the app's editor would); every assertion reads state back through the API. ---

const app = () => ctx.server.running.ctx;

/** Gives a space new current content: `edit` changes a copy of its current content. */
async function editSpace(spaceId: string, edit: (content: RevisionContent) => void) {
  await editSpaceContent(app(), spaceId, edit);
}

/** Gives a change request new content: `edit` changes a copy of its current content. */
async function editChangeRequest(
  spaceId: string,
  idOrNumber: string | number,
  edit: (content: RevisionContent) => void,
) {
  await inWrite(app(), async (scope) => {
    const row = (await getChangeRequestRow(scope.db, spaceId, String(idOrNumber)))!;
    const content = structuredClone((await changeRequestRevision(scope.db, row)).content);
    edit(content);
    await commitChangeRequestContent(scope, row, { type: 'edits', content, contributor: 'editor' });
  });
}

const pageIn = (content: RevisionContent, id: string): StoredPage => findPage(content, id)!.page;
const newPage = (id: string, title: string, markdown: string): StoredPage => ({
  ...seedPages([{ id, title, markdown }], app().now())[0]!,
});

/** A new space of acme holding the handbook pages. */
async function newSpace(title = 'Scratch'): Promise<string> {
  const created = ok(
    await ctx.server
      .as('admin')
      .POST('/v1/orgs/{organizationId}/spaces', { params: { path: { organizationId: ACME } }, body: { title } }),
    201,
  );
  await editSpace(created.id, (content) => {
    content.pages = seedPages(HANDBOOK_PAGES, app().now());
  });
  return created.id;
}

async function createChangeRequest(spaceId: string, subject = 'Proposed edits', as: 'admin' | 'editor' = 'editor') {
  return ok(
    await ctx.server.as(as).POST('/v1/spaces/{spaceId}/change-requests', { ...space(spaceId), body: { subject } }),
    201,
  );
}

const getSpace = async (spaceId: string) =>
  ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}', space(spaceId)));
const getChangeRequest = async (spaceId: string, id: string | number) =>
  ok(await ctx.server.as('admin').GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}', cr(spaceId, id)));

type Target = { spaceId: string; changeRequestId?: string };
type PageNode = { id: string; title: string; pages?: PageNode[] };

/** The current content of a space or change request, read through the content API: `title` lines indented by depth, and each page's markdown. */
async function contentOf(target: Target): Promise<{ outline: string[]; markdown: Record<string, string> }> {
  const client = ctx.server.as('admin');
  const { spaceId, changeRequestId } = target;
  const { pages } = ok(
    changeRequestId
      ? await client.GET(
          '/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/pages',
          cr(spaceId, changeRequestId),
        )
      : await client.GET('/v1/spaces/{spaceId}/content/pages', space(spaceId)),
  );
  const outline = (list: PageNode[], depth = 0): string[] =>
    list.flatMap((page) => [`${'  '.repeat(depth)}${page.title}`, ...outline(page.pages ?? [], depth + 1)]);
  const ids = (list: PageNode[]): string[] => list.flatMap((page) => [page.id, ...ids(page.pages ?? [])]);
  const markdown: Record<string, string> = {};
  for (const pageId of ids(pages)) {
    const query = { format: 'markdown' as const };
    const page = changeRequestId
      ? await client.GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}', {
          params: { path: { spaceId, changeRequestId, pageId }, query },
        })
      : await client.GET('/v1/spaces/{spaceId}/content/page/{pageId}', {
          params: { path: { spaceId, pageId }, query },
        });
    markdown[pageId] = ok(page).markdown ?? '';
  }
  return { outline: outline(pages), markdown };
}

/** Number of pages of a PDF (its page objects are not compressed). */
const pdfPageCount = (pdf: Buffer) => pdf.toString('latin1').match(/\/Type \/Page\b(?!s)/g)?.length ?? 0;

async function setEditMode(spaceId: string, editMode: 'live' | 'locked') {
  ok(await ctx.server.as('admin').PATCH('/v1/spaces/{spaceId}', { ...space(spaceId), body: { editMode } }));
}

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
    const list = (query: Record<string, unknown>) =>
      ctx.server
        .as('admin')
        .GET('/v1/spaces/{spaceId}/change-requests', { params: { path: { spaceId: 'handbook' }, query } });
    expectError(await list({ status: 'closed' }), 400, 'status');
    expectError(await list({ orderBy: 'title' }), 400, 'orderBy');
    expectError(await list({ limit: 0 }), 400, 'limit');
    expectError(await list({ page: 'forged.cursor' }), 400, 'page');
    const first = ok(await list({ limit: 1, status: 'open' }));
    if (first.next) expectError(await list({ limit: 1, status: 'draft', page: first.next.page }), 400, 'page');
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

const merge = (as: Parameters<typeof ctx.server.as>[0], spaceId: string, id: string | number) =>
  ctx.server.as(as).POST('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/merge', cr(spaceId, id));

describe('POST /v1/spaces/{spaceId}/change-requests/{changeRequestId}/merge', () => {
  test('merges page by page: changes of the change request and of the main content since its base both land', async () => {
    const spaceId = await newSpace();
    const created = await createChangeRequest(spaceId, 'Improve the docs');
    await editChangeRequest(spaceId, created.number, (content) => {
      pageIn(content, 'intro').markdown = '# Introduction\n\nWelcome to the team.\n';
      pageIn(content, 'setup').pages.push(newPage('desktop', 'Desktop', 'Any desktop works.'));
      content.pages = content.pages.filter((page) => page.id !== 'faq');
    });
    await editSpace(spaceId, (content) => {
      pageIn(content, 'laptop').title = 'Laptops';
      content.pages.unshift(newPage('news', 'News', 'Fresh.'));
    });
    const main = await getSpace(spaceId);
    expect((await getChangeRequest(spaceId, created.id)).outdated).toBe(true);

    ctx.server.clock.advance(MINUTE);
    const result = ok(await merge('reviewer', spaceId, created.number));
    expect(result.result).toBe('merge');

    const after = await getSpace(spaceId);
    expect(after.revision).toBe(result.revision);
    expect(after.revision).not.toBe(main.revision);
    expect(after).toMatchObject({ changeRequests: 1, changeRequestsOpen: 0 });
    const merged = await contentOf({ spaceId });
    expect(merged.outline).toEqual(['News', 'Introduction', 'Setup', '  Laptops', '  Desktop']);
    expect(merged.markdown.intro).toContain('Welcome to the team.');
    expect(merged.markdown.laptop).toContain('fast');

    const changeRequest = await getChangeRequest(spaceId, created.id);
    expect(changeRequest).toMatchObject({ status: 'merged', revisionMerged: result.revision, outdated: false });
    expect(changeRequest.updatedAt).not.toBe(created.updatedAt);
    expect(
      ok(
        await ctx.server
          .as('admin')
          .GET('/v1/spaces/{spaceId}/change-requests', { params: { path: { spaceId }, query: { status: 'merged' } } }),
      ).items.map((item) => item.id),
    ).toEqual([created.id]);
  });

  test('merges a change request whose base is still current, and one that changed nothing', async () => {
    const spaceId = await newSpace();
    const edited = await createChangeRequest(spaceId, 'Edited');
    const untouched = await createChangeRequest(spaceId, 'Untouched');
    await editChangeRequest(spaceId, edited.number, (content) => (pageIn(content, 'faq').title = 'Questions'));
    ok(await merge('admin', spaceId, edited.id));
    expect((await contentOf({ spaceId })).outline).toEqual(['Introduction', 'Setup', '  Laptop', 'Questions']);
    const result = ok(await merge('admin', spaceId, untouched.id));
    expect((await getSpace(spaceId)).revision).toBe(result.revision);
    expect((await contentOf({ spaceId })).outline).toEqual(['Introduction', 'Setup', '  Laptop', 'Questions']);
  });

  test('refuses conflicting changes with 409 naming the pages, and changes nothing', async () => {
    const spaceId = await newSpace();
    const created = await createChangeRequest(spaceId, 'Conflicting');
    await editChangeRequest(spaceId, created.number, (content) => {
      pageIn(content, 'intro').markdown = 'Change request version.';
      pageIn(content, 'laptop').title = 'Notebook';
      pageIn(content, 'faq').title = 'Same on both sides';
    });
    await editSpace(spaceId, (content) => {
      pageIn(content, 'intro').markdown = 'Main version.';
      content.pages = content.pages.filter((page) => page.id !== 'setup'); // deletes Laptop with it
      pageIn(content, 'faq').title = 'Same on both sides';
    });
    const before = await getSpace(spaceId);
    const beforeContent = await contentOf({ spaceId });

    const message = expectError(
      await merge('admin', spaceId, created.id),
      409,
      '"Introduction" (intro)',
      '"Notebook" (laptop)',
    );
    expect(message).not.toContain('faq');
    expect(await getSpace(spaceId)).toEqual(before);
    expect(await contentOf({ spaceId })).toEqual(beforeContent);
    expect(await getChangeRequest(spaceId, created.id)).toMatchObject({ status: 'open', outdated: true });
    expect((await getChangeRequest(spaceId, created.id)).revisionMerged).toBeUndefined();
  });
});

describe('POST /v1/spaces/{spaceId}/change-requests/{changeRequestId}/merge: conflicts of structure, refusals and access', () => {
  test('a page moved differently on both sides is a conflict', async () => {
    const spaceId = await newSpace();
    const created = await createChangeRequest(spaceId, 'Move');
    const moveLaptop = (to: string) => (content: RevisionContent) => {
      pageIn(content, 'setup').pages = [];
      pageIn(content, to).pages.push(
        newPage('laptop', 'Laptop', 'Use a **fast** laptop.\n\n- one\n- two\n\n> quoted\n'),
      );
    };
    await editChangeRequest(spaceId, created.id, moveLaptop('intro'));
    await editSpace(spaceId, moveLaptop('faq'));
    expectError(await merge('admin', spaceId, created.id), 409, '"Laptop" (laptop)');
  });

  test('a page added under a page the other side deleted, and pages moved under each other, are conflicts', async () => {
    const spaceId = await newSpace();
    const orphan = await createChangeRequest(spaceId, 'Orphan');
    const cycle = await createChangeRequest(spaceId, 'Cycle');
    await editChangeRequest(spaceId, orphan.id, (content) =>
      pageIn(content, 'faq').pages.push(newPage('more', 'More questions', '?')),
    );
    await editChangeRequest(spaceId, cycle.id, (content) => {
      const intro = pageIn(content, 'intro');
      content.pages = content.pages.filter((page) => page !== intro);
      pageIn(content, 'setup').pages.push(intro);
    });
    await editSpace(spaceId, (content) => {
      const setup = pageIn(content, 'setup');
      content.pages = content.pages.filter((page) => page !== setup && page.id !== 'faq');
      pageIn(content, 'intro').pages.push(setup);
    });
    const revision = (await getSpace(spaceId)).revision;
    expectError(await merge('admin', spaceId, orphan.id), 409, '"More questions" (more)', 'deleted');
    const message = expectError(
      await merge('admin', spaceId, cycle.id),
      409,
      '"Introduction" (intro)',
      '"Setup" (setup)',
    );
    expect(message).not.toContain('laptop');
    expect((await getSpace(spaceId)).revision).toBe(revision);
  });

  test('merging a merged or archived change request is a 409', async () => {
    const spaceId = await newSpace();
    const merged = await createChangeRequest(spaceId);
    ok(await merge('admin', spaceId, merged.id));
    const revision = (await getSpace(spaceId)).revision;
    expectError(await merge('admin', spaceId, merged.id), 409, 'merged');
    const archived = await createChangeRequest(spaceId);
    ok(
      await ctx.server.as('admin').PATCH('/v1/spaces/{spaceId}/change-requests/{changeRequestId}', {
        ...cr(spaceId, archived.id),
        body: { status: 'archived' },
      }),
    );
    expectError(await merge('admin', spaceId, archived.id), 409, 'archived');
    expect((await getSpace(spaceId)).revision).toBe(revision);
  });

  test('rejects unknown parameters with 400', async () => {
    const created = await createChangeRequest('handbook', 'Params');
    const answer = await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/merge', {
      params: { path: { spaceId: 'handbook', changeRequestId: created.id }, query: { force: true } as never },
    });
    expectError(answer, 400, 'force');
    expect((await getChangeRequest('handbook', created.id)).status).toBe('open');
  });

  test('needs the merge permission (403 for an editor or in a locked space); 404 unknown, guest or other organization; 401', async () => {
    const spaceId = await newSpace();
    const created = await createChangeRequest(spaceId);
    expectError(await merge('editor', spaceId, created.id), 403, 'merge');
    await setEditMode(spaceId, 'locked');
    expectError(await merge('admin', spaceId, created.id), 403, 'locked');
    await setEditMode(spaceId, 'live');
    expectError(await merge('admin', spaceId, 'nope'), 404);
    expectError(await merge('guest', spaceId, created.id), 404);
    expectError(await merge('outsider', spaceId, created.id), 404);
    expectError(await merge('anonymous', spaceId, created.id), 401);
    expect((await getChangeRequest(spaceId, created.id)).status).toBe('open');
  });
});

describe('POST /v1/spaces/{spaceId}/change-requests/{changeRequestId}/update', () => {
  const update = (as: Parameters<typeof ctx.server.as>[0], spaceId: string, id: string | number) =>
    ctx.server.as(as).POST('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/update', cr(spaceId, id));

  test('a change request becomes outdated when the space moves on; update brings the main content in and clears it', async () => {
    const spaceId = await newSpace();
    const created = await createChangeRequest(spaceId, 'Keep up');
    await editChangeRequest(spaceId, created.number, (content) => (pageIn(content, 'intro').title = 'Welcome'));
    expect((await getChangeRequest(spaceId, created.id)).outdated).toBe(false);
    await editSpace(spaceId, (content) => content.pages.push(newPage('changelog', 'Changelog', 'v2.')));
    const main = await getSpace(spaceId);
    const outdated = await getChangeRequest(spaceId, created.id);
    expect(outdated.outdated).toBe(true);

    ctx.server.clock.advance(MINUTE);
    const result = ok(await update('editor', spaceId, created.number));
    expect(result.result).toBe('update');
    const updated = await getChangeRequest(spaceId, created.id);
    expect(updated).toMatchObject({
      revision: result.revision,
      revisionInitial: created.revisionInitial,
      revisionMergedAncestor: main.revision,
      outdated: false,
      status: 'open',
    });
    expect(updated.revision).not.toBe(outdated.revision);
    expect(updated.updatedAt).not.toBe(outdated.updatedAt);
    expect((await contentOf({ spaceId, changeRequestId: created.id })).outline).toEqual([
      'Welcome',
      'Setup',
      '  Laptop',
      'FAQ',
      'Changelog',
    ]);
    // The space itself is unchanged.
    expect((await getSpace(spaceId)).revision).toBe(main.revision);

    // Up to date: nothing to bring in, no new revision.
    expect(ok(await update('editor', spaceId, created.id)).revision).toBe(result.revision);
    expect((await getChangeRequest(spaceId, created.id)).revision).toBe(result.revision);

    // Merging afterwards keeps both sides.
    ok(
      await ctx.server
        .as('reviewer')
        .POST('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/merge', cr(spaceId, created.id)),
    );
    expect((await contentOf({ spaceId })).outline).toEqual(['Welcome', 'Setup', '  Laptop', 'FAQ', 'Changelog']);
  });

  test('refuses conflicting changes with 409 naming the pages, and changes nothing', async () => {
    const spaceId = await newSpace();
    const created = await createChangeRequest(spaceId, 'Conflict');
    await editChangeRequest(spaceId, created.id, (content) => (pageIn(content, 'faq').markdown = 'Ours.'));
    await editSpace(spaceId, (content) => (pageIn(content, 'faq').markdown = 'Theirs.'));
    const before = await getChangeRequest(spaceId, created.id);
    const beforeContent = await contentOf({ spaceId, changeRequestId: created.id });
    expectError(await update('editor', spaceId, created.id), 409, '"FAQ" (faq)');
    expect(await getChangeRequest(spaceId, created.id)).toEqual(before);
    expect(await contentOf({ spaceId, changeRequestId: created.id })).toEqual(beforeContent);
  });

  test('a merged or archived change request cannot be updated: 409', async () => {
    const spaceId = await newSpace();
    const merged = await createChangeRequest(spaceId);
    const archived = await createChangeRequest(spaceId);
    ok(
      await ctx.server
        .as('admin')
        .POST('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/merge', cr(spaceId, merged.id)),
    );
    ok(
      await ctx.server.as('admin').PATCH('/v1/spaces/{spaceId}/change-requests/{changeRequestId}', {
        ...cr(spaceId, archived.id),
        body: { status: 'archived' },
      }),
    );
    expectError(await update('admin', spaceId, merged.id), 409, 'merged');
    expectError(await update('admin', spaceId, archived.id), 409, 'archived');
    expect((await getChangeRequest(spaceId, archived.id)).revisionMergedAncestor).toBeUndefined();
  });

  test('rejects unknown parameters with 400', async () => {
    const answer = await ctx.server.as('admin').POST('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/update', {
      params: { path: { spaceId: 'handbook', changeRequestId: '1' }, query: { strategy: 'ours' } as never },
    });
    expectError(answer, 400, 'strategy');
  });

  test('needs the edit permission (403 for a commenter or in a locked space); 404 unknown, guest or other organization; 401', async () => {
    const spaceId = await newSpace();
    const created = await createChangeRequest(spaceId);
    await editSpace(spaceId, (content) => (pageIn(content, 'faq').title = 'Moved on'));
    expectError(await update('commenter', spaceId, created.id), 403, 'edit');
    await setEditMode(spaceId, 'locked');
    expectError(await update('admin', spaceId, created.id), 403, 'locked');
    await setEditMode(spaceId, 'live');
    expectError(await update('admin', spaceId, 'nope'), 404);
    expectError(await update('guest', spaceId, created.id), 404);
    expectError(await update('outsider', spaceId, created.id), 404);
    expectError(await update('anonymous', spaceId, created.id), 401);
    expect((await getChangeRequest(spaceId, created.id)).outdated).toBe(true);
  });
});

describe('GET /v1/spaces/{spaceId}/change-requests/{changeRequestId}/pdf', () => {
  const pdf = (
    as: Parameters<typeof ctx.server.as>[0],
    spaceId: string,
    id: string | number,
    query: Record<string, unknown> = {},
  ) =>
    ctx.server.as(as).GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/pdf', {
      params: { path: { spaceId, changeRequestId: String(id) }, query },
    });
  const download = async (url: string) => {
    const response = await fetch(url);
    return { response, bytes: Buffer.from(await response.arrayBuffer()) };
  };

  test('generates a PDF of the change request content, served at the returned address', async () => {
    const created = await createChangeRequest('handbook', 'Print me');
    await editChangeRequest('handbook', created.id, (content) =>
      pageIn(content, 'intro').pages.push(
        newPage('extra', 'Extra', '## Héllo wörld 你好\n\n1. first\n2. second\n\n---\n\n[link](https://example.com)'),
      ),
    );
    const { url } = ok(await pdf('reader', 'handbook', created.number));
    expect(url.startsWith(`${ctx.server.url}/`)).toBe(true);
    expect(new URL(url).pathname.startsWith('/v1/')).toBe(false);
    const { response, bytes } = await download(url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(bytes.subarray(-6).toString('latin1')).toContain('%%EOF');
    expect(pdfPageCount(bytes)).toBe(5); // one PDF page per content page
  });

  test('holds one page and the pages under it, or with only=true that page alone', async () => {
    const created = await createChangeRequest('handbook', 'Partial');
    const count = async (query: Record<string, unknown>) =>
      pdfPageCount((await download(ok(await pdf('admin', 'handbook', created.id, query)).url)).bytes);
    expect(await count({ page: 'setup' })).toBe(2);
    expect(await count({ page: 'setup', only: true })).toBe(1);
    expect(await count({ page: 'laptop' })).toBe(1);
  });

  test('prints the change request content, not the main content', async () => {
    const spaceId = await newSpace();
    const created = await createChangeRequest(spaceId);
    await editChangeRequest(
      spaceId,
      created.id,
      (content) => (content.pages = [newPage('only', 'Only page', 'Alone.')]),
    );
    const { bytes } = await download(ok(await pdf('admin', spaceId, created.id)).url);
    expect(pdfPageCount(bytes)).toBe(1);
  });

  test('the address stops answering after one hour', async () => {
    const created = await createChangeRequest('handbook', 'Expiring');
    const { url } = ok(await pdf('admin', 'handbook', created.id));
    ctx.server.clock.advance(59 * MINUTE);
    expect((await download(url)).response.status).toBe(200);
    ctx.server.clock.advance(2 * MINUTE);
    const expired = await download(url);
    expect(expired.response.status).toBe(404);
    expect((await download(`${ctx.server.url}/pdf/change-requests/not-a-pdf.pdf`)).response.status).toBe(404);
  });

  test('rejects an unknown page, and only without a page, with 400 naming the parameter', async () => {
    const created = await createChangeRequest('handbook', 'Bad page');
    expectError(await pdf('admin', 'handbook', created.id, { page: 'nope' }), 400, 'page');
    expectError(await pdf('admin', 'handbook', created.id, { only: true }), 400, 'only');
    expectError(await pdf('admin', 'handbook', created.id, { only: 'maybe' }), 400, 'only');
    expectError(await pdf('admin', 'handbook', created.id, { format: 'a4' }), 400, 'format');
  });

  test('answers 404 for an unknown change request, to a guest and to another organization; 401 without a token', async () => {
    const created = await createChangeRequest('handbook', 'Private print');
    expectError(await pdf('admin', 'handbook', 'nope'), 404);
    expectError(await pdf('guest', 'handbook', created.id), 404);
    expectError(await pdf('outsider', 'handbook', created.id), 404);
    expectError(await pdf('anonymous', 'handbook', created.id), 401);
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

// Merging a change request into its space (.../merge), page by page: both sides' changes land, conflicting pages and
// structure are a 409 that changes nothing, a merged or archived one is refused; and bringing the space's changes into
// it (.../update), which clears `outdated`. Each with its bad input and access.
import { describe, expect, test } from 'vitest';
import type { RevisionContent } from '../../server/content/model.ts';
import { expectError, ok } from '../support/expect.ts';
import { cr, MINUTE, pageIn, useChangeRequestServer } from '../support/change-requests.ts';

const { ctx, editSpace, editChangeRequest, newPage, newSpace, createChangeRequest, getSpace, getChangeRequest, contentOf, setEditMode } =
  useChangeRequestServer();

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

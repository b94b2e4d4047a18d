// Comments on a change request (`/v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments`, `/commenters`).
// The operations' tests are shared with the space form (comments.test.ts) through comments.suite.ts.
import { beforeAll, describe, expect, test } from 'vitest';
import { changeRequestBase, commentFixture, contentEditor, describeCommentOperations, spaceBase } from './comments.suite.ts';
import { expectError, ok } from '../support/expect.ts';
import { useTestServer } from '../support/server.ts';

const ctx = useTestServer({ fixture: commentFixture('drafts') });
let changeRequest = '';
const base = changeRequestBase(ctx, 'drafts', () => changeRequest);
const space = spaceBase(ctx, 'drafts');

beforeAll(async () => {
  const created = ok(
    await ctx.server.as('editor').POST('/v1/spaces/{spaceId}/change-requests', {
      params: { path: { spaceId: 'drafts' } },
      body: { subject: 'Reword the guide' },
    }),
    201,
  );
  changeRequest = created.id;
});

describe('comments of a change request', () => {
  describeCommentOperations(ctx, base);
});

describe('change-request comments', () => {
  test('are addressed by the change request number too', async () => {
    const comment = ok(await base.create('commenter', { page: base.page('guide'), body: { markdown: 'By number.' } }), 201);
    const { number } = ok(
      await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}', {
        params: { path: { spaceId: 'drafts', changeRequestId: changeRequest } },
      }),
    );
    const read = ok(
      await ctx.server.as('reader').GET('/v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}', {
        params: { path: { spaceId: 'drafts', changeRequestId: String(number), commentId: comment.id } },
      }),
    );
    expect(read.id).toBe(comment.id);
    expect(read.target.changeRequest).toBe(changeRequest);
    expect(read.urls.location).toBe(base.location(comment.id));
  });

  test('are kept apart from the comments of the space, and the reverse', async () => {
    const onChangeRequest = ok(await base.create('commenter', { page: base.page('guide'), body: { markdown: 'CR' } }), 201);
    const onSpace = ok(await space.create('commenter', { page: space.page('guide'), body: { markdown: 'Space' } }), 201);
    const ids = async (list: Promise<{ data?: { items: { id: string }[] } }>) => (await list).data!.items.map((item) => item.id);
    expect(await ids(base.list('reader', { limit: 1000 }))).not.toContain(onSpace.id);
    expect(await ids(space.list('reader', { limit: 1000 }))).toEqual([onSpace.id]);
    expectError(await space.get('reader', onChangeRequest.id), 404);
    expectError(await base.get('reader', onSpace.id), 404);
    expect(await space.openCount()).toBe(1);
  });

  test('a reply can resolve and reopen its comment', async () => {
    const comment = ok(await base.create('commenter', { page: base.page('guide'), body: { markdown: 'Fix?' } }), 201);
    const reply = ok(await base.createReply('editor', comment.id, 'Fixed.'), 201);
    ok(await base.updateReply('editor', comment.id, reply.id, { resolved: true }));
    expect(ok(await base.get('reader', comment.id))).toMatchObject({ status: 'resolved', resolvedBy: { id: 'editor' } });
    expectError(await base.updateReply('reader', comment.id, reply.id, { resolved: false }), 403, 'comment');
    ok(await base.updateReply('commenter', comment.id, reply.id, { resolved: false }));
    const reopened = ok(await base.get('reader', comment.id));
    expect(reopened.status).toBe('open');
    expect(reopened.resolvedBy).toBeUndefined();
  });

  test('are posted on the change request revision: a page only in the change request can be commented', async () => {
    await contentEditor(ctx)('drafts', changeRequest, (content) => {
      content.pages.push({ ...content.pages[0]!, id: 'drafts-new', title: 'New page', slug: 'new-page', pages: [] });
    });
    const comment = ok(await base.create('commenter', { page: 'drafts-new', body: { markdown: 'New!' } }), 201);
    expect(comment.target.page).toMatchObject({ id: 'drafts-new', path: 'new-page', outdated: false });
    expect(comment.target.revision).not.toBe(ok(await ctx.server.as('reader').GET('/v1/spaces/{spaceId}', { params: { path: { spaceId: 'drafts' } } })).revision);
    expectError(await space.create('commenter', { page: 'drafts-new', body: { markdown: 'Not in the space yet.' } }), 400, 'page');
  });
});
